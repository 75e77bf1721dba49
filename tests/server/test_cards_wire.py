"""Zones of cards on the wire: each seat's ``view.zones`` (its own hand's faces, the other
hand's count, backs with ids made for the seat and made anew by a shuffle), and questions
whose options are cards, named and captioned as the seat asked sees them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from lore.runtime.compiler import compile_program
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table
from tests.server.serving import EXAMPLES
from tests.server.test_cards_secrets import check
from tests.server.test_rulings import example_table

FACE = re.compile("[♠♥♦♣](?:10|[2-9]|A|J|Q|K)")
PLAYERS = [("aoi@example.org", "アオイ"), ("ren@example.org", "レン")]


def blackpoker(seed: int = 3) -> Table:
    return example_table("blackpoker", PLAYERS, seed)


def zones_of(table: Table, seat: str) -> dict[str, dict[str, Any]]:
    view = json.loads(table.snapshot(seat))["view"]
    return {zone["id"]: zone for zone in view["zones"]}


def answer(table: Table, values: dict[str, Any]) -> dict[str, bytes]:
    question = table.master.open_questions()[0]
    data = {"seat": question.to, "id": question.id, "values": values}
    outcome = table.apply(LogEntry(table.applied + 1, "answer", data))
    assert not isinstance(outcome, Refusal), outcome
    return outcome


def test_each_seat_sees_its_own_hand_and_the_other_hands_size() -> None:
    table = blackpoker()
    aoi = zones_of(table, "aoi@example.org")
    ren = zones_of(table, "ren@example.org")
    gm = zones_of(table, "GM")
    assert [c.get("face") is not None for c in aoi["aoiHand"]["cards"]] == [True] * 7
    assert aoi["renHand"]["shown"] == "count" and "cards" not in aoi["renHand"]
    assert aoi["renHand"]["count"] == 7
    assert ren["aoiHand"]["count"] == 7 and "cards" not in ren["aoiHand"]
    # The lives are backs to both players (9 each after drawing 7 of 16), faces to the GM.
    for zones in (aoi, ren):
        for life in ("aoiLife", "renLife"):
            cards = zones[life]["cards"]
            assert len(cards) == 9 and all(c == {"id": c["id"], "back": True} for c in cards)
            assert all(c["id"].startswith("x") for c in cards)
    assert all("face" in c for c in gm["aoiLife"]["cards"] + gm["renHand"]["cards"])
    # A card's face is red for hearts and diamonds.
    for card in aoi["aoiHand"]["cards"]:
        assert card["red"] == (card["suit"] in ("hearts", "diamonds"))
    # The only faces that reach a player are those of its own hand (both decks hold the
    # same sixteen cards: the faces are counted).
    text = table.snapshot("aoi@example.org").decode()
    own = sorted(c["face"] for c in aoi["aoiHand"]["cards"])
    assert sorted(FACE.findall(text)) == sorted(own * 2)  # (each card by its id and its face)


def test_hidden_ids_are_the_seats_own_and_tell_nothing_of_the_card() -> None:
    aoi = zones_of(blackpoker(3), "aoi@example.org")["renLife"]["cards"]
    ren = zones_of(blackpoker(3), "ren@example.org")["renLife"]["cards"]
    other_deal = zones_of(blackpoker(4), "aoi@example.org")["renLife"]["cards"]
    assert not {c["id"] for c in aoi} & {c["id"] for c in ren}
    # Another session's backs are named otherwise.
    assert [c["id"] for c in aoi] != [c["id"] for c in other_deal]
    assert len({c["id"] for c in aoi}) == len(aoi)


def test_a_cost_is_offered_as_the_cards_of_the_hand() -> None:
    table = blackpoker()
    answer(table, {"request": "attack"})
    answer(table, {"request": "counter"})
    question = table.master.open_questions()[0]
    spec = json.loads(table.snapshot("ren@example.org"))["questions"][0]
    hand = zones_of(table, "ren@example.org")["renHand"]["cards"]
    assert question.title == "コスト"
    offered = spec["inputs"][0]["choices"]
    assert [c["id"] for c in offered] == [c["id"] for c in hand]
    assert [c["caption"] for c in offered] == [c["face"] for c in hand]
    frames = answer(table, {"cards": [hand[0]["id"]]})
    # The key card goes onto the stage, face up, for both players to see.
    put = json.loads(frames["aoi@example.org"])["view"]["put"]["zones"]
    stage = next(z for z in put if z["id"] == "stage")
    assert [c["face"] for c in stage["cards"]] == [hand[0]["face"]]


PEEK = """import "cards.lore":url;
section peek {
 table = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Actor;
 deck = { name = "deck"; kind = ZoneKind.deck; mine = Visibility.open;
  others = Visibility.open; cards = standardPack(); }:Zone;
 start = { ticks = 0; priority = 0; handler = @{
  deck.shuffle;
  schedule.then(@{ ask; });
 }; }:Event;
 rule ask {
  picked = aki.query("pick", { card = Card.choice(deck.cards); });
  picked.card.flipped(true);
  deck.shuffle;
  aki.message("picked " + picked.card.face);
  schedule.then(@{ ask; });
 }
}
"""


def test_a_hidden_card_is_offered_by_its_back(tmp_path: Path) -> None:
    (tmp_path / "scenario.lore").write_text(PEEK, encoding="utf-8")
    program = compile_program(checked(tmp_path, "scenario.lore"))
    table = Table(Master(program, 1), [("aki@example.org", "Aki")], "digest")
    table.start()
    seat = "aki@example.org"
    spec = json.loads(table.snapshot(seat))["questions"][0]
    choices = spec["inputs"][0]["choices"]
    assert len(choices) == 52 and all(c["caption"] == "🂠" for c in choices)
    assert not FACE.search(json.dumps(spec, ensure_ascii=False))
    deck = zones_of(table, seat)["deck"]["cards"]
    assert [c["id"] for c in choices] == [c["id"] for c in deck]
    frames = answer(table, {"card": choices[5]["id"]})
    text = frames[seat].decode()
    # The picked card was turned face up, and the deck shuffled: its face is seen now,
    # and no back keeps its id (the ids are made anew by a shuffle).
    assert "picked " in text
    after = zones_of(table, seat)["deck"]["cards"]
    assert len([c for c in after if "face" in c]) == 1
    assert not {c["id"] for c in after if c.get("back")} & {c["id"] for c in deck}


def table_of(table: Table, seat: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(table.snapshot(seat))["view"]["table"]
    return found


def sheet_values(seen: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        sheet["name"]: {e["member"]: e["value"] for s in sheet["sections"] for e in s["entries"]}
        for sheet in seen["sheets"]
    }


def test_every_seat_reads_both_players_life_hand_and_graveyard_and_whose_chance_it_is() -> None:
    """BlackPoker's sheet and tracker: the life (a bar of the 16 cards dealt), the hand's
    and the graveyard's sizes for every seat; the turn with its player first, and the
    chance's holder while that player's question is open."""
    table = blackpoker()
    start = {"lifeLeft": 9, "handSize": 7, "graveSize": 0}
    for seat in ("aoi@example.org", "ren@example.org", "GM"):
        seen = table_of(table, seat)
        assert sheet_values(seen) == {"アオイ": start, "レン": start}
        life = seen["sheets"][0]["sections"][0]["entries"][0]
        assert life["max"] == 16 and life["labelJa"] == "ライフ"
        (tracker,) = seen["trackers"]
        assert [a["name"] for a in tracker["order"]] == ["アオイ", "レン"]
        assert tracker["current"] == ["blackpoker.match.aoi"] and tracker["round"] == 1
    assert table.master.open_questions()[0].to == "aoi@example.org"
    answer(table, {"request": "attack"})
    # Ren has the chance to answer the attack: every seat sees it, and a request on the stage.
    assert table.master.open_questions()[0].to == "ren@example.org"
    tracker = table_of(table, "aoi@example.org")["trackers"][0]
    assert tracker["current"] == ["blackpoker.match.ren"]
    assert tracker["phase"] == "ターン: アオイ、ステージに 1 件"
    answer(table, {"request": "pass"})
    assert table.master.open_questions()[0].to == "aoi@example.org"
    answer(table, {"request": "pass"})  # (both passed: the attack is resolved)
    hurt = sheet_values(table_of(table, "ren@example.org"))
    assert hurt["レン"]["lifeLeft"] == 7 and hurt["レン"]["graveSize"] == 2
    assert hurt["アオイ"] == start


def test_the_solitaire_player_reads_its_game_and_the_wire_carries_no_face_down_card() -> None:
    """Klondike's sheet and tracker: the moves made, the cards on the foundations (a bar
    of the pack), the stock and the redeals left; the move's number and whose it is. A
    deal from the stock sends the changed sheet and tracker, not whom the table waits
    for (the same), and no frame holds the face of a card face down."""
    seat = "mio@example.org"
    program = compile_program(checked(EXAMPLES / "klondike", "scenario.lore"))
    table = Table(Master(program, 0), [(seat, "ミオ")], "digest")
    table.start()
    start = {"movesMade": 0, "founded": 0, "stockLeft": 24, "redealsLeft": 2}
    for who in (seat, "GM"):
        seen = table_of(table, who)
        assert sheet_values(seen) == {"ミオ": start}
        (sheet,) = seen["sheets"]
        assert sheet["mine"] == (who == seat)
        assert sheet["sections"][0]["entries"][1]["max"] == 52
        (tracker,) = seen["trackers"]
        assert tracker["round"] == 1 and tracker["current"] == ["klondike.game.mio"]
        assert tracker["phase"] == "プレイ中 (山札 24 枚、組札 0 枚)"
    assert table.master.open_questions()[0].to == seat
    told: dict[str, int] = {}
    check({seat: table.snapshot(seat)}, table.master, told)  # (the seven columns' tops)
    frames = answer(table, {"from": "stock"})
    check(frames, table.master, told)  # (the waste's top)
    assert told[seat] == 8
    changed = json.loads(frames[seat])["view"]["table"]
    assert set(changed) == {"sheets", "trackers"}
    assert sheet_values(changed)["ミオ"] == {**start, "movesMade": 1, "stockLeft": 21}
    assert changed["trackers"][0]["round"] == 2
