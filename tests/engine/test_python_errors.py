"""Values the checker only knows as ``any`` can meet an operation they do not support;
the GM then reads what went wrong in the reference's words, at the Lore place."""

from __future__ import annotations

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.runtime.python_errors import plain_message
from lore.semantics.check import check_text

PROGRAM = """\
import "basic.lore":url;
section odd {
 x : any = "a";
 minus = { ticks = 0; priority = 0; handler = @{ GM.message("v " + (x - 1)); }; }:Event;
 less = { ticks = 1; priority = 0; handler = @{ GM.message("v " + (x < 1)); }; }:Event;
 negated = { ticks = 2; priority = 0; handler = @{ GM.message("v " + (-x)); }; }:Event;
 fine = { ticks = 3; priority = 0; handler = @{ GM.message("x is " + x); }; }:Event;
}
"""


def test_errors_of_values_of_any_type_are_in_lore_words() -> None:
    result = check_text(PROGRAM, "odd.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    session = Session(compile_program(result), 0, Participants({"GM": gm}))
    assert session.run() == "no-events"
    assert [(r["tick"], r.get("message") or r.get("text"), r.get("where")) for r in gm.told] == [
        (0, "cannot use - on a string and an integer", "odd.lore:4:69"),
        (1, "cannot compare a string and an integer with <", "odd.lore:5:68"),
        (2, "cannot use - on a string", "odd.lore:6:71"),
        (3, "x is a", None),
    ]


def test_each_kind_of_python_message() -> None:
    cases = {
        TypeError("unsupported operand type(s) for *: 'Quantity' and 'str'"): (
            "cannot use * on a quantity and a string"
        ),
        TypeError("'>=' not supported between instances of 'tuple' and 'int'"): (
            "cannot compare a list and an integer with >="
        ),
        TypeError("bad operand type for unary -: 'LoreObject'"): "cannot use - on an object",
        TypeError("'int' object is not callable"): "an integer cannot be called: it is no rule",
        TypeError("object of type 'bool' has no len()"): "a boolean has no length",
        TypeError("'float' object is not iterable"): "a real is not a list",
        AttributeError("'str' object has no attribute 'form'"): (
            "a string is not an object of a form"
        ),
        TypeError("'Widget' object is not callable"): (
            "a value (Widget) cannot be called: it is no rule"
        ),
        ValueError("something else"): "ValueError: something else",
    }
    for error, words in cases.items():
        assert plain_message(error) == words
