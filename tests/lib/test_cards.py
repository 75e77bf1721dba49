"""The cards library (``cards.lore``): a zone's changes of one step in the order asked,
draws one by one, shuffles counted and fair to the seed, flips and turns; and Klondike's
rules on it (the triangle dealt, the put rules)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lore.engine.views import view
from tests.engine.harness import errors, messages, play

REPO = Path(__file__).resolve().parents[2]

HEAD = """import "cards.lore":url;
section t {
 deck = { name = "deck"; cards = pack({Suit.spades}, (1,...,5).toList); }:Zone;
 hand = { name = "hand"; }:Zone;
 function faces(z : Zone) : string { result = z.cards.map(@(c : Card) c.face).join(" "); }
"""


def run(handler: str, then: str) -> list[str]:
    text = (
        HEAD
        + f" go = {{ ticks = 0; priority = 0; handler = @{{ {handler}"
        + f" schedule.then(@{{ {then} }}); }}; }}:Event;\n}}\n"
    )
    session = play(text)
    assert not errors(session), errors(session)
    return messages(session, "GM")


def test_a_draw_moves_the_top_cards_one_by_one() -> None:
    said = run("deck.draw(2, hand);", 'GM.message(faces(deck) + " / " + faces(hand));')
    assert said == ["♠A ♠2 ♠3 / ♠5 ♠4"]


def test_the_changes_of_a_step_apply_in_the_order_asked() -> None:
    said = run(
        "deck.moveTo({deck.top}, hand); hand.moveTo({deck.top}, deck); deck.putUnder({deck.top});",
        'GM.message(faces(deck) + " / " + faces(hand));',
    )
    # ♠5 left the deck, came back on top from the hand, and was put under (twice in the
    # deck: a put does not look for the card elsewhere).
    assert said == ["♠5 ♠A ♠2 ♠3 ♠4 ♠5 / "]


def test_a_shuffle_is_counted_and_the_same_for_the_same_seed() -> None:
    first = run("deck.shuffle;", 'GM.message(faces(deck) + " " + deck.shuffles);')
    again = run("deck.shuffle;", 'GM.message(faces(deck) + " " + deck.shuffles);')
    assert first == again and first[0].endswith(" 1")
    assert sorted(first[0].split()[:5]) == ["♠2", "♠3", "♠4", "♠5", "♠A"]


def test_flip_turn_and_counters() -> None:
    said = run(
        "deck.top.flip; deck.top.turn; deck.top.counted(2); deck.top.counted(1);",
        'GM.message("" + deck.top.faceUp + " " + deck.top.turned + " " + deck.top.counters);',
    )
    assert said == ["true true 3"]


def test_the_gm_sees_every_face_and_a_player_its_own() -> None:
    text = (
        HEAD + ' p = { name = "P"; player = "p@example.org":jid; features = list<Feature>.empty;'
        " items = list<Item>.empty; knownSecrets = list<string>.empty; }:Actor;\n"
        ' mine = { name = "mine"; owners = {p}; mine = Visibility.all;'
        " others = Visibility.count; cards = pack({Suit.hearts}, {1, 2}); }:Zone;\n}\n"
    )
    session = play(text)
    gm = {z["id"]: z for z in view(session, "GM")["zones"]}
    player = {z["id"]: z for z in view(session, "p@example.org")["zones"]}
    assert [c["face"] for c in gm["mine"]["cards"]] == ["♥A", "♥2"]
    assert [c["face"] for c in player["mine"]["cards"]] == ["♥A", "♥2"]
    assert all(c["back"] for c in player["deck"]["cards"])  # face down, open to all
    assert player["deck"]["shown"] == "open"


def test_klondike_deals_the_triangle_and_plays_its_answers(tmp_path: Path) -> None:
    transcript = tmp_path / "k.jsonl"
    folder = REPO / "examples" / "klondike"
    argv = ["--answers", str(folder / "answers.json"), "--transcript", str(transcript)]
    subprocess.run(
        [sys.executable, "-m", "lore", "run", str(folder / "scenario.lore"), *argv],
        check=True,
        capture_output=True,
        env={"PYTHONPATH": str(REPO / "src")},
    )
    records = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert records[-1]["reason"] == "no-answer"
    assert not [r for r in records if r["kind"] == "error"]
    moves = [r["text"] for r in records if r["kind"] == "message" and "→" in r["text"]]
    # Aces go to the foundations; every card put on a column goes under one of the other
    # colour, one rank higher.
    assert any(m.endswith("→ f1") and m.startswith("♠A") for m in moves), moves
    assert len(moves) >= 10
