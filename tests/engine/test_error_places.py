"""A rule error points at the expression that failed, not at the start of its statement
or of its lambda; each frame of the Lore call stack points at the call that was running."""

from __future__ import annotations

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text

PROGRAM = """\
import "basic.lore":url;
section t {
 form Hero { name : string; hp : integer; }
 aki = { name = "Aki"; hp = 0; }:Hero;
 go = { ticks = 0; priority = 0; handler = @{
  xs = {aki}.map(@(h : Hero) h.name + ": " + 10 / h.hp);
 }; }:Event;
 go2 = { ticks = 1; priority = 0; handler = @{ GM.message("x" + {1, 2}.get(5) + 1); }; }:Event;
 go3 = { ticks = 2; priority = 0; handler = @{
  total = 1 +
   2 +
   {1}.get(3);
 }; }:Event;
 go4 = { ticks = 3; priority = 0; handler = @{
  same = {1}.get(0) + {1}.get(0) + {1}.get(7);
 }; }:Event;
}
"""


def _errors() -> list[tuple[str, list[str]]]:
    result = check_text(PROGRAM, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    session = Session(compile_program(result), 0, Participants({"GM": Scripted([])}))
    session.run()
    return [(e.location(), [f.describe() for f in e.frames]) for e in session.errors]


def test_each_error_is_at_the_expression_that_failed() -> None:
    assert _errors() == [
        # `10 / h.hp` in the lambda; the caller's frame at `{aki}.map(...)`
        (
            "t.lore:6:46",
            [
                "t.lore:6:8: in lambda in value t.go",
                "t.lore:6:46: in lambda in lambda in value t.go",
            ],
        ),
        ("t.lore:8:65", ["t.lore:8:65: in lambda in value t.go2"]),  # {1, 2}.get(5)
        ("t.lore:12:4", ["t.lore:12:4: in lambda in value t.go3"]),  # on the third line
        ("t.lore:15:36", ["t.lore:15:36: in lambda in value t.go4"]),  # the third of three gets
    ]


def test_the_error_shows_a_caret_under_it() -> None:
    result = check_text(PROGRAM, "t.lore")
    session = Session(compile_program(result), 0, Participants({"GM": Scripted([])}))
    session.run()
    rendered = session.errors[0].render().splitlines()
    assert rendered[:3] == [
        "t.lore:6:46: error: division by zero",
        '6 |   xs = {aki}.map(@(h : Hero) h.name + ": " + 10 / h.hp);',
        "  |                                              ^^^^^^^^^",
    ]
