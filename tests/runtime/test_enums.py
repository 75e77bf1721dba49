"""Enums at run time: an enum that extends another has the other's values too."""

from __future__ import annotations

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from tests.runtime.programs import gm_messages

EXTENDED = """\
import "basic.lore":url;
section t {
 enum A { a1{caption="一";} a2{caption="二";} }
 enum B extends A { b1{caption="三";} }
 go = { ticks = 0; priority = 0; handler = @{
  GM.message("values " + B.values + " " + B.values.length);
  picked = GM.query("pick", { v = B.input; });
  GM.message("picked " + picked.v + " " + picked.v.caption);
  GM.message("A " + A.values + ", B.a1 " + B.a1.caption);
 }; }:Event;
}
"""


def test_an_extended_enum_has_the_values_of_the_one_it_extends() -> None:
    result = check_text(EXTENDED, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([{"v": "a2"}])
    session = Session(compile_program(result), 0, Participants({"GM": gm}))
    assert session.run() == "no-events"
    told = [r for r in gm.told if r["kind"] == "message"]
    assert [r["text"] for r in told] == [
        "values {a1, a2, b1} 3",
        "picked a2 二",
        "A {a1, a2}, B.a1 一",
    ]
    query = next(r for r in session.transcript.records if r["kind"] == "query")
    assert query["choices"] == {"v": ["a1", "a2", "b1"]}


def test_lambdas_without_parameters_run() -> None:
    program = """\
import "basic.lore":url;
section t {
 one = @ -> real 1.5;
 two = @ : integer { result = 2; };
 go = { ticks = 0; priority = 0; handler = @{
  kept : @<-> real> = one;
  GM.message("sum " + (kept() + two()));
 }; }:Event;
}
"""
    assert gm_messages(program) == ["sum 3.5"]


SHARED_RULES = """\
import "basic.lore":url;
section t {
 enum Condition {
  caption : string;
  level : integer = 0;
  fine{caption="元気"; level=0;}
  tired{caption="疲労"; level=1;}
  down{caption="気絶"; level=2;}
  worse -> Condition {
   result = Condition.down;
   if (self.level == 0) { result = Condition.tired; }
  }
  function twice() : integer { result = level * 2; }
  function plus(n : integer) -> integer { result = twice() + n; }
  rule tell(who : string) { GM.message(who + " is " + caption + " (" + self.plus(1) + ")"); }
  function later() : @<-> integer> { result = @ -> integer level + 10; }
 }
 go = { ticks = 0; priority = 0; handler = @{
  c : Condition = Condition.fine;
  GM.message("worse " + c.worse + " then " + c.worse.worse);
  for (v in Condition.values) { v.tell("Aki"); }
  f = Condition.tired.later();
  GM.message("later " + f() + " twice " + Condition.down.twice());
 }; }:Event;
}
"""


def test_the_accessors_functions_and_rules_of_an_enum_run_on_the_value() -> None:
    # They passed the checker and failed on every run with a NameError of the compiler.
    assert gm_messages(SHARED_RULES) == [
        "worse tired then down",
        "Aki is 元気 (1)",
        "Aki is 疲労 (3)",
        "Aki is 気絶 (5)",
        "later 11 twice 4",
    ]
