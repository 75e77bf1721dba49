"""Map tokens: each entry of a seat's map view has a distinct mark, a side seen from the
seat (own, ally, enemy, neutral, item) from the rules' ``faction``, and the rules'
``tokenState`` when an actor is down or dead; marks are made from what the seat sees."""

from __future__ import annotations

from typing import Any

from lore.engine.tokens import short_marks
from lore.engine.views import GM, view
from tests.engine.test_update_rounds import session_of

FIGHT = """
import "basic.lore":url;
section t {
 form Fighter extends Actor {
  hp : integer;
  foe : boolean = false;
  mark : string = "";
  faction -> Faction { result = if (foe) Faction.foes else Faction.party; }
  tokenState -> TokenState {
   result = if (hp < 0) TokenState.dead else if (hp == 0) TokenState.downed else TokenState.up;
  }
 }
 form Thing extends Item { }
 room = { location = "/":loc; geometry = [=[<?xml version="1.0"?>
<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="1[m]" type="4">
<line><section terrain="floor"/><section terrain="floor"/><section terrain="floor"/></line>
</geometry>]=]:xml; }:Area;
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0,0]":loc; hp = 5; }:Fighter;
 ben = { name = "Benedict"; player = "ben@example.org":jid; location = "/[0,0]":loc;
  hp = 0; }:Fighter;
 g1 = { name = "屍鬼A"; location = "/[1,0]":loc; hp = 3; foe = true; }:Fighter;
 g2 = { name = "屍鬼B"; location = "/[1,0]":loc; hp = -1; foe = true; }:Fighter;
 o1 = { name = "ゴブリン"; location = "/[2,0]":loc; hp = 3; foe = true; }:Fighter;
 o2 = { name = "ゴブリン"; location = "/[2,0]":loc; hp = 3; foe = true; mark = "👺"; }:Fighter;
 potion = { name = "Potion"; location = "/[2,0]":loc; }:Thing;
}
"""


def entries(participant: str) -> dict[str, dict[str, Any]]:
    session = session_of(FIGHT)
    session.run()
    seen = view(session, participant, messages=False)
    return {item["id"]: item for item in [*seen["actors"], *seen["objects"]]}


def test_a_player_sees_own_ally_enemy_and_item() -> None:
    seen = entries("aki@example.org")
    sides = {key.split(".")[-1]: item["side"] for key, item in seen.items()}
    assert sides == {
        "aki": "own",
        "ben": "ally",
        "g1": "enemy",
        "g2": "enemy",
        "o1": "enemy",
        "o2": "enemy",
        "potion": "item",
    }


def test_the_gm_sees_the_party_as_allies_and_the_foes_as_enemies() -> None:
    seen = entries(GM)
    assert seen["t.aki"]["side"] == "ally" and seen["t.g1"]["side"] == "enemy"


def test_downed_and_dead_are_said_and_standing_is_not() -> None:
    seen = entries(GM)
    assert seen["t.ben"]["state"] == "downed"
    assert seen["t.g2"]["state"] == "dead"
    assert "state" not in seen["t.aki"] and "state" not in seen["t.potion"]


def test_marks_are_distinct_and_short() -> None:
    seen = entries("aki@example.org")
    marks = {key.split(".")[-1]: item["mark"] for key, item in seen.items()}
    assert marks["g1"] == "屍鬼A" and marks["g2"] == "屍鬼B"
    assert marks["aki"] == "Aki" and marks["ben"] == "Ben"
    assert marks["o2"] == "👺" and marks["o1"] == "ゴブリ"
    assert len(set(marks.values())) == len(marks)


def test_short_marks_tell_alike_names_apart_and_number_equal_ones() -> None:
    names = [("ゴブリン戦士", False), ("ゴブリン弓兵", False), ("Orc", False), ("Orc", False)]
    assert short_marks(names) == ["ゴ戦士", "ゴ弓兵", "Or1", "Or2"]
    assert short_marks([("Wolf", False), ("Wolf", False)]) == ["Wo1", "Wo2"]
