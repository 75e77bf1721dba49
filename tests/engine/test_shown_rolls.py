"""Rolls at the table (``lore.engine.shown_rolls``): a Roll's card, what it says of every
die, and the seats that see it."""

from __future__ import annotations

from typing import Any

from lore.engine.session import Session
from tests.engine.harness import Answers, records, run_handler

# Aki and Ben are in the hall; Cho, alone in the cellar; a ghoul (the GM's) in the hall.
HEAD = """import "basic.lore":url;
section t {
 form Hero extends Actor {
  rule check { roll(2d6).titled("探索").show; }
 }
 aki = { name = "Aki"; player = "aki@x":jid; location = "/hall[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 ben = { name = "Ben"; player = "ben@x":jid; location = "/hall[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 cho = { name = "Cho"; player = "cho@x":jid; location = "/cellar[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 ghoul = { name = "Ghoul"; location = "/hall[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 world = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="hall" /><point label="cellar" />
</geometry>]=]:xml; }:Area;
 hall = { location = "/[hall]":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 cellar = { location = "/[cellar]":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
"""


def cards(handler: str, dice: list[int], answers: Answers | None = None) -> list[dict[str, Any]]:
    return records(shown(handler, dice, answers), "roll")


def shown(handler: str, dice: list[int], answers: Answers | None = None) -> Session:
    return run_handler(HEAD, handler, dice, answers)


def test_a_card_says_who_rolled_for_what_the_dice_modifiers_total_target_and_outcome() -> None:
    [card] = cards('aki.roll(3d6).titled("命中判定").plus(4).withTarget(12).show;', [5, 1, 2])
    assert card == {
        "tick": 0,
        "kind": "roll",
        "to": ["GM", "aki@x", "ben@x"],
        "by": "Aki",
        "seat": "aki@x",
        "title": "命中判定",
        "dice": [{"face": 5, "sides": 6}, {"face": 1, "sides": 6}, {"face": 2, "sides": 6}],
        "modifiers": [4],
        "total": 12,
        "target": 12,
        "outcome": "success",
        "text": "[5 1 2]",
    }


def test_a_target_not_reached_fails_and_a_judged_roll_keeps_its_verdict() -> None:
    missed, judged = cards(
        "aki.roll(2d6).withTarget(8).show;"
        " aki.roll(2d6).withTarget(8).judged(false, false, true).show;",
        [3, 4, 6, 6],
    )
    assert (missed["total"], missed["outcome"]) == (7, "failure")
    assert (judged["total"], judged["outcome"], judged["fumble"]) == (12, "failure", True)


def test_dice_kept_out_rolled_again_and_added_by_explode_are_marked() -> None:
    [card] = cards(
        "r = aki.roll(4d6).reroll(@(f : integer) : boolean { result = f == 1; }).dropLowest(1)"
        ".explode(@(f : integer) : boolean { result = f == 6; }); r.show;",
        # 4d6: 1 6 3 5; the 1 rolls again: 2, which drops; the 6 explodes: 6, then 4.
        [1, 6, 3, 5, 2, 6, 4],
    )
    assert card["dice"] == [
        {"face": 1, "sides": 6, "rerolled": True},
        {"face": 2, "sides": 6, "dropped": True},
        {"face": 6, "sides": 6},
        {"face": 3, "sides": 6},
        {"face": 5, "sides": 6},
        {"face": 6, "sides": 6, "exploded": True},
        {"face": 4, "sides": 6, "exploded": True},
    ]
    assert card["total"] == 6 + 3 + 5 + 6 + 4


def test_modifiers_stay_in_the_total_of_a_roll_kept_after_them() -> None:
    [card] = cards("aki.roll(3d6).plus(2).keepHighest(2).show;", [1, 4, 6])
    assert (card["total"], card["modifiers"]) == (12, [2])
    assert [d.get("dropped", False) for d in card["dice"]] == [True, False, False]


def test_a_dice_command_shows_bcdice_text_and_its_flags() -> None:
    [card] = cards('aki.roll("2D6+3>=10").titled("鍵開け").show;', [6, 3])
    assert card["text"] == "(2D6+3>=10) ＞ 9[6,3]+3 ＞ 12 ＞ 成功"
    assert (card["command"], card["outcome"], card["total"]) == ("2D6+3>=10", "success", 12)
    assert card["to"] == ["GM", "aki@x", "ben@x"]


def test_by_default_the_seats_that_see_the_rolling_actor_see_its_roll() -> None:
    aki, cho, ghoul, gm = cards(
        "aki.roll(1d6).show; cho.roll(1d6).show; ghoul.roll(1d6).show; GM.roll(1d6).show;",
        [1, 2, 3, 4],
    )
    assert aki["to"] == ["GM", "aki@x", "ben@x"]  # Cho is in the cellar
    assert cho["to"] == ["GM", "cho@x"]
    assert ghoul["to"] == ["GM", "aki@x", "ben@x"] and ghoul["seat"] == "GM"
    assert gm["to"] == ["GM"] and gm["by"] == "GM"  # the GM's own dice: behind the screen


def test_a_rule_makes_a_roll_secret_or_shows_it_to_every_seat() -> None:
    gm, roller, table, typed = cards(
        "aki.roll(1d6).forGM.show; aki.roll(1d6).forRoller.show;"
        ' ghoul.roll(1d6).forTable.show; aki.roll("S1D6").show;',
        [1, 2, 3, 4],
    )
    assert (gm["to"], gm["secret"], gm["audience"]) == (["GM"], True, "GM")
    assert (roller["to"], roller["audience"]) == (["GM", "aki@x"], "roller")
    assert table["to"] == ["GM", "aki@x", "ben@x", "cho@x"] and "secret" not in table
    assert (typed["to"], typed["audience"]) == (["GM", "aki@x"], "roller")


def test_a_roll_is_shown_once_when_its_step_runs_again_after_an_answer() -> None:
    session = shown(
        'aki.roll(1d6).titled("a").show;'
        ' q = aki.query("?", { n = integer.input; }); aki.roll(1d6).titled("b").show;',
        [2, 5],
        answers={"aki@x": [{"n": 1}]},
    )
    assert [card["title"] for card in records(session, "roll")] == ["a", "b"]


def test_an_actors_check_in_its_own_rules_is_its_roll() -> None:
    [card] = cards("aki.check;", [3, 3])
    assert (card["by"], card["title"], card["to"]) == ("Aki", "探索", ["GM", "aki@x", "ben@x"])
