"""The GM's value rulings through the rules (``lore.engine.rulings``): a sheet line with
``ruledBy`` goes through that alter, so what the alter does with the value (a death at
too low HP) and the hooks on it run as after any update; an actor's location goes
through ``relocate``, so the map's triggers fire; a member holding an object takes one
of the program's values of its form. A ruling that set something off stands: taking it
back is refused."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from lore.engine.participants import Participants, Scripted
from lore.engine.rulings import RulingError, take_back
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_paths, check_text
from tests.engine.test_update_rounds import messages
from tests.engine.test_waiting import Later

AKI = "aki@example.org"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

PROGRAM = """
section t {
 form Blade { name : string; power : integer; }
 form Hero extends Actor {
  hp : integer;
  maxHp : integer = 10;
  dead : boolean = false;
  blade : Blade;
  alter setHp(values : list<integer>) {
   self.hp := values.get1st;
   self.dead := values.get1st < 0;
  }
  alter arm(blades : list<Blade>) { self.blade := blades.get1st; }
 }
 dagger = { name = "Dagger"; power = 2; }:Blade;
 sword = { name = "Sword"; power = 5; }:Blade;
 aki = { name = "Aki"; player = "aki@example.org":jid; hp = 8; blade = dagger; }:Hero;
 sheet = { of = "Hero"; sections = { { label = "Body"; entries = {
  { member = "hp"; label = "HP"; max = "maxHp"; ruledBy = "setHp"; }:SheetEntry,
  { member = "dead"; label = "Dead"; }:SheetEntry,
  { member = "blade"; label = "Blade"; ruledBy = "arm"; }:SheetEntry
 }; }:SheetSection }; }:Sheet;
 watch = { ticks = 0; priority = 0; handler = @{
  if (WATCH) {
   system.onAlter("setHp", @(h : any) { GM.message("the hooks saw the ruling"); });
  }
 }; }:Event;
 ask = { ticks = 1; priority = 0; handler = @{
  aki.query("Go on?", { ok = integer.input; });
  GM.message("aki goes on at " + aki.hp + (if (aki.dead) " (dead)" else ""));
 }; }:Event;
}
"""


def session(watch: bool) -> tuple[Session, Later]:
    text = PROGRAM.replace("WATCH", "true" if watch else "false")
    result = check_text(text, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    aki = Later()
    s = Session(compile_program(result), 1, Participants({"GM": Scripted([]), AKI: aki}))
    assert s.run() == "waiting"
    return s, aki


def go_on(s: Session, aki: Later) -> None:
    (query,) = s.open_questions()
    assert s.answer(query.id, {"ok": 1}) is None
    s.run()


def rulings(s: Session) -> list[dict[str, Any]]:
    return [r for r in s.transcript.records if r["kind"] == "ruling"]


def test_a_ruling_goes_through_the_lines_alter_and_its_hooks_see_it() -> None:
    s, aki = session(watch=True)
    s.rule_value("t.aki", "hp", -2)
    hero = s.rt.g[next(i for sym, i, _ in s.program.values if sym.name == "aki")]
    assert hero.values["hp"] == -2 and hero.values["dead"] is True  # (the alter's own rule)
    (record,) = rulings(s)
    assert record["alter"] == "setHp" and (record["before"], record["after"]) == (8, -2)
    # The hook runs after the step that waited, as after any update of the alter.
    with pytest.raises(RulingError, match="not rewound"):
        take_back(s)
    go_on(s, aki)
    assert messages(s)[-2:] == ["aki goes on at -2 (dead)", "the hooks saw the ruling"]


def test_a_ruling_through_an_alter_is_taken_back_whole_while_nothing_followed() -> None:
    s, aki = session(watch=False)
    s.rule_value("t.aki", "hp", -2)
    take_back(s)
    go_on(s, aki)
    assert messages(s)[-1] == "aki goes on at 8"


def test_a_member_holding_an_object_takes_one_of_the_programs_values() -> None:
    s, _ = session(watch=False)
    s.rule_value("t.aki", "blade", "Sword")  # (by the name it shows, or t.sword)
    (record,) = rulings(s)
    assert (record["before"], record["after"]) == ("Dagger", "Sword")
    with pytest.raises(RulingError, match="'blade' is one of Dagger, Sword, not 'Axe'"):
        s.rule_value("t.aki", "blade", "Axe")
    s.rule_value("t.aki", "blade", "t.dagger")
    assert rulings(s)[-1]["after"] == "Dagger"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('ruledBy = "sethp"', "'sethp', which is no member of 'Hero', not an alter"),
        ('ruledBy = "hp"', "'hp', which is a field of 'Hero', not an alter"),
        ('ruledBy = "arm"', "whose parameter is no list of what the member holds"),
    ],
)
def test_lore_check_names_a_lines_alter_that_cannot_take_the_ruling(text: str, said: str) -> None:
    result = check_text(PROGRAM.replace('ruledBy = "setHp"', text), "t.lore")
    found = [d for d in result.diagnostics if d.code == "check.sheet-alter"]
    assert len(found) == 1 and said in found[0].message, [d.render() for d in found]


def paper_with_a_trap(tmp_path: Path) -> Path:
    """The paper's sample with a trigger that fires when an actor comes to the altar."""
    folder = tmp_path / "paper"
    shutil.copytree(EXAMPLES / "paper", folder)
    scenario = folder / "scenario.lore"
    text = scenario.read_text(encoding="utf-8")
    trap = """
    trap = {
        location = "/region/dungeon[1,2]":loc;
        effectiveRange = 0[m],...<1[m];
        actions = list<Action>.empty;
        handler = @(a : Actor) { GM.message("the trap springs on " + a.name); };
    }:Trigger;
}"""
    scenario.write_text(text[: text.rindex("}")] + trap + "\n", encoding="utf-8")
    return scenario


def test_an_actors_place_goes_through_relocate_and_the_maps_triggers_fire(tmp_path: Path) -> None:
    result = check_paths([paper_with_a_trap(tmp_path)])
    assert result.ok, [d.render() for d in result.diagnostics]
    chihiro = Later()
    members = {"GM": Scripted([]), "Chihiro_Shiiji@xmpp.xgmtk.org": chihiro}
    s = Session(compile_program(result), 1, Participants(members))
    assert s.run() == "waiting"
    pc = next(a for a in s.rt.system.values["allPC"] if a.values["name"] == "Chihiro")
    with pytest.raises(RulingError, match="no place of the session"):
        s.rule_value(pc.label, "location", "/region/nowhere[9,9]")
    s.rule_value(pc.label, "location", "/region/dungeon[1,2]")
    assert str(pc.values["location"]) == "/region/dungeon[1,2]"
    (record,) = rulings(s)
    assert record["alter"] == "relocate"
    (query,) = s.open_questions()
    assert s.answer(query.id, {"action": query.inputs[0].choices[0]}) is None
    s.run()
    assert "the trap springs on Chihiro" in messages(s)


def paper_session(tmp_path: Path) -> tuple[Session, Any]:
    result = check_paths([paper_with_a_trap(tmp_path)])
    assert result.ok, [d.render() for d in result.diagnostics]
    members = {"GM": Scripted([]), "Chihiro_Shiiji@xmpp.xgmtk.org": Later()}
    s = Session(compile_program(result), 1, Participants(members))
    assert s.run() == "waiting"
    pc = next(a for a in s.rt.system.values["allPC"] if a.values["name"] == "Chihiro")
    return s, pc


def test_a_list_is_ruled_whole_and_an_object_a_secret_hides_is_told_to_the_gm_alone(
    tmp_path: Path,
) -> None:
    s, pc = paper_session(tmp_path)
    # The hidden chest, given to Chihiro: the ruling is the GM's to read, not her seat's.
    s.rule_value(pc.label, "items", "scenario.chest")
    assert [item.label for item in pc.values["items"]] == ["scenario.chest"]
    (record,) = rulings(s)
    assert record["to"] == ["GM"] and record["secret"] is True
    s.rule_value(pc.label, "items", [])
    assert pc.values["items"] == ()
    with pytest.raises(RulingError, match="'items' is one of"):
        s.rule_value(pc.label, "items", "scenario.chest, scenario.nothing")
    with pytest.raises(RulingError, match="'items' is a list: give its items, not 3"):
        s.rule_value(pc.label, "items", 3)
    assert pc.values["items"] == ()


def test_a_sheet_line_leaves_out_what_a_secret_hides_from_the_seat(tmp_path: Path) -> None:
    from lore.engine.table_view import table_view

    s, pc = paper_session(tmp_path)
    s.rule_value(pc.label, "items", "scenario.chest")

    def items(seat: str) -> Any:
        found = table_view(s, seat)
        assert found is not None
        (sheet,) = found["sheets"]
        lines = [e for section in sheet["sections"] for e in section["entries"]]
        return next(e for e in lines if e["member"] == "items")

    chihiro = "Chihiro_Shiiji@xmpp.xgmtk.org"
    assert items(chihiro)["value"] == []  # (she does not know the chest's secret)
    assert items("GM")["value"] == ["scenario.chest"]
    pc.values["knownSecrets"] = ("secret0",)  # (as addKnownSecret leaves it)
    assert items(chihiro)["value"] == ["scenario.chest"]


def test_an_improvised_check_that_does_more_than_roll_is_a_rule_error_and_undone() -> None:
    from lore.dice.source import FixedSource
    from lore.engine.gm_checks import improvised_check
    from lore.runtime.errors import RuleError

    text = PROGRAM.replace(
        " dagger = {",
        """ greedy = { label = "Check"; abilities = {"luck"};
  handler = @(who : Actor, a : string, m : integer, t : integer) : Roll {
   aki.setHp(1);
   system.on("x", @(v : any) { });
   result = who.roll(2d6);
  };
 }:GMCheck;
 dagger = {""",
    )
    result = check_text(text.replace("WATCH", "false"), "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    s = Session(compile_program(result), 1, Participants({"GM": Scripted([]), AKI: Later()}))
    assert s.run() == "waiting"
    hooks = list(s.hooks)
    with pytest.raises(RuleError, match=r"the check t\.greedy only rolls dice"):
        improvised_check(s, "t.greedy", "t.aki", "luck", 0, 0, FixedSource([3, 4]))
    hero = s.rt.g[next(i for sym, i, _ in s.program.values if sym.name == "aki")]
    assert hero.values["hp"] == 8 and s.hooks == hooks
