"""Two alters writing one member of one object in one step: the checker warns where it
sees it (one body calling both on one receiver), and nowhere else."""

from __future__ import annotations

from lore.semantics.check import check_text

HERO = """\
section s {
 form Hero {
  hp : integer;
  name : string = "";
  alter damage(ns : list<integer>) { self.hp := hp - ns.sum; }
  alter heal(ns : list<integer>) { hp := hp + ns.sum; }
  alter rename(ns : list<string>) { self.name := ns.get1st; }
  rule fight { BODY }
 }
 aki = { hp = 7; }:Hero;
 ren = { hp = 7; }:Hero;
 go = { ticks = 0; priority = 0; handler = @{ HANDLER }; }:Event;
}
"""


def lost(fight: str = "", handler: str = "") -> list[tuple[int, int, str]]:
    text = HERO.replace("BODY", fight).replace("HANDLER", handler)
    result = check_text(text, "hero.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    found = []
    for d in result.diagnostics:
        if d.code == "check.lost-write":
            at = d.source.position(d.span.start)
            found.append((at.line, at.column, d.message))
    return found


def test_two_alters_of_one_member_in_one_handler_are_said_at_the_second() -> None:
    [(line, column, message)] = lost(handler="aki.damage(3); aki.heal(2);")
    assert (line, column) == (12, 62)
    assert message.startswith("'damage' and 'heal' both write 'hp' of 'aki' in this step")


def test_in_a_forms_rule_the_receiver_is_its_own_object() -> None:
    [(line, _, message)] = lost(fight="damage(1); self.heal(2);")
    assert line == 8
    assert "of 'self'" in message


def test_what_runs_in_one_step_only_is_said() -> None:
    assert lost(handler="aki.damage(3); aki.damage(1);") == []  # one alter: both values
    assert lost(handler="aki.damage(3); ren.heal(2);") == []  # two objects
    assert lost(handler='aki.damage(3); aki.rename("x");') == []  # two members
    assert lost(handler="if (true) { aki.damage(1); } else { aki.heal(1); }") == []
    assert lost(handler="if (true) { aki.damage(1); } else if (false) { aki.heal(1); }") == []
    # A lambda may run in another step (schedule.then: after this update).
    assert lost(handler="aki.damage(3); schedule.then(@{ aki.heal(2); });") == []


def test_calls_in_ifs_and_loops_that_may_both_run_are_said_once() -> None:
    found = lost(
        handler="aki.damage(1); if (true) { aki.heal(1); } for (i in 1,...,2) { aki.heal(i); }"
    )
    assert len(found) == 1
