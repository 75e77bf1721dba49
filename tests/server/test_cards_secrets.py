"""No seat is ever sent a card face it may not see: 10,000 random actions over BlackPoker
and Klondike, each answered through the table as a client's answer is, and every frame
each seat is sent read for faces (as text, and as the zones' cards).

What a seat may see is worked out here from the rules' zones alone: every face for the
GM; for a player, by what the zone lets its owners or the others see (every face, the
face-up ones, the top card when face up, backs, the count, nothing).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from lore.runtime.compiler import compile_program
from lore.runtime.values import EnumValue, LoreObject
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table
from tests.server.serving import EXAMPLES

ACTIONS = 10_000
FACE = re.compile("[♠♥♦♣★](?:10|[2-9]|A|J|Q|K|Joker)")
GAMES = {
    "blackpoker": [("aoi@example.org", "アオイ"), ("ren@example.org", "レン")],
    "klondike": [("mio@example.org", "ミオ")],
}
MARKS = {"spades": "♠", "hearts": "♥", "diamonds": "♦", "clubs": "♣", "joker": "★"}
RANKS = {1: "A", 11: "J", 12: "Q", 13: "K", 0: "Joker"}


def face(card: LoreObject) -> str:
    suit, rank = card.values["suit"], card.values["rank"]
    assert isinstance(suit, EnumValue)
    return MARKS[suit.name] + RANKS.get(rank, str(rank))


def zones(master: Master) -> list[LoreObject]:
    found: list[LoreObject] = []
    for value in master.session.rt.g:
        zone = isinstance(value, LoreObject) and "cards" in value.values
        if zone and "others" in value.values and value not in found:
            found.append(value)
    return found


def may_see(master: Master, seat: str) -> dict[str, list[str | None]]:
    """The faces ``seat`` may see now, by zone, in order (None: a back)."""
    seen: dict[str, list[str | None]] = {}
    for zone in zones(master):
        shown = seen[(zone.label or "").rsplit(".", 1)[-1]] = []
        cards = list(zone.values["cards"])
        owners = zone.values["owners"]
        mine = any(str(o.values["player"]) == seat for o in owners)
        how = "all" if seat == "GM" else zone.values["mine" if mine else "others"].name
        for place, card in enumerate(cards):
            up = bool(card.values["faceUp"])
            top = place == len(cards) - 1
            if how == "all" or (how == "open" and up) or (how == "top" and top and up):
                shown.append(face(card))
            else:
                shown.append(None)
    return seen


def check(frames: dict[str, bytes], master: Master, told: dict[str, int]) -> None:
    for seat, frame in frames.items():
        text = frame.decode()
        by_zone = may_see(master, seat)
        allowed = {f for faces in by_zone.values() for f in faces if f is not None}
        leaked = set(FACE.findall(text)) - allowed
        assert not leaked, (seat, leaked, text[:2000])
        data = json.loads(text)
        for zone in zone_items(data):
            # Each zone exactly as the seat may see it: a face where it may, else a back.
            expected = by_zone[zone["id"]]
            if "cards" in zone:
                assert [c.get("face") for c in zone["cards"]] == expected, (seat, zone)
            for card in zone.get("cards", ()):
                if card.get("back"):
                    assert set(card) <= {"id", "back", "turned", "counters"}, card
                    assert not FACE.search(card["id"]), card
                else:
                    assert card["face"] in allowed, (seat, card)
                    told[seat] = told.get(seat, 0) + 1
            if zone["shown"] == "count":
                assert "cards" not in zone


def zone_items(data: Any) -> list[dict[str, Any]]:
    view = data.get("view") or {}
    found = list(view.get("zones", ()) if isinstance(view.get("zones"), list) else ())
    found += (view.get("put") or {}).get("zones", [])
    return found


def answer_for(spec: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in spec["inputs"]:
        ids = [c["id"] for c in item["choices"]]
        if item["kind"] == "choices":
            least, most = item.get("least", 0), item.get("most") or len(ids)
            values[item["name"]] = rng.sample(ids, rng.randint(least, min(most, len(ids))))
        else:
            values[item["name"]] = rng.choice(ids)
    return values


PROGRAMS: dict[str, Any] = {}


def play(game: str, seed: int, actions: int, told: dict[str, int]) -> int:
    """Random answers until the game ends or ``actions`` are made; the actions made."""
    program = PROGRAMS.get(game)
    if program is None:
        program = PROGRAMS[game] = compile_program(checked(EXAMPLES / game, "scenario.lore"))
    table = Table(Master(program, seed), GAMES[game], "digest")
    master = table.master
    check(table.start(), master, told)
    for seat, _ in [*GAMES[game], ("GM", "")]:
        check({seat: table.snapshot(seat)}, master, told)
    rng = random.Random(seed)
    made = 0
    while made < actions and not master.session.ended:
        open_questions = master.open_questions()
        if not open_questions:
            break
        question = open_questions[0]
        spec = question.record()  # (as the wire describes it: its options as the seat sees them)
        data = {"seat": question.to, "id": question.id, "values": answer_for(spec, rng)}
        outcome = table.apply(LogEntry(table.applied + 1, "answer", data))
        assert not isinstance(outcome, Refusal), outcome
        check(outcome, master, told)
        made += 1
    return made


def test_no_seat_is_sent_a_card_face_it_may_not_see() -> None:
    told: dict[str, int] = {}
    made = {"blackpoker": 0, "klondike": 0}
    seed = 0
    while sum(made.values()) < ACTIONS:
        game = "blackpoker" if made["blackpoker"] <= made["klondike"] * 3 else "klondike"
        made[game] += play(game, seed, ACTIONS - sum(made.values()), told)
        seed += 1
    assert sum(made.values()) >= ACTIONS and made["klondike"] > 0
    # Faces were sent (each player sees its own hand, the graveyards, the columns).
    assert all(told.get(seat, 0) > 0 for seat, _ in GAMES["blackpoker"] + GAMES["klondike"])
