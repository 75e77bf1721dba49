"""Texts joined in a chain (``a + " is " + b + "."``) are joined three or four parts at
once (``Emitter.joined``): the same texts, parts worked out in the same order, the same
limit."""

from __future__ import annotations

import pytest

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from tests.runtime.programs import gm_messages, say_each


def test_chains_of_every_length_join_as_nested_concat_would() -> None:
    said = gm_messages(
        say_each(
            'aki.name + " has " + aki.hp',
            'aki.name + " " + aki.hp + " " + {1, 2} + " " + true + "."',
            '"a" + 1 + "b" + 2 + "c" + 3 + "d" + 4 + "e"',
            '"[" + ren.name + mio.name + "]"',
        )
    )
    assert said == [
        "0: Aki has 7",
        "1: Aki 7 {1, 2} true.",
        "2: a1b2c3d4e",
        "3: [RenMio]",
    ]


def test_chains_with_parts_an_f_string_cannot_hold_join_the_same() -> None:
    # Parts whose code holds a double quote, a backslash or a brace, a joined text as a
    # part, a number that is not whole: joined as one f-string where the code allows it,
    # else part by part; the same texts either way.
    said = gm_messages(
        say_each(
            r'aki.name + "\\" + aki.hp + "\\"',
            'aki.name + "{x}" + aki.hp + "}"',
            r'aki.name + ("\\" + ren.name + "\"q") + aki.hp',
            'aki.name + " " + (aki.hp + 0.5) + " " + aki.hp',
            'aki.name + (ren.name + " / " + mio.name + "!") + " " + aki.hp',
        )
    )
    assert said == [
        "0: Aki\\7\\",
        "1: Aki{x}7}",
        '2: Aki\\Ren"q7',
        "3: Aki 7.5 7",
        "4: AkiRen / Mio! 7",
    ]


PARTS_IN_ORDER = """\
import "basic.lore":url;
section t {
 function part(n : integer) : string {
  GM.message("part " + n);
  result = "<" + n + ">";
 }
 go = { ticks = 0; priority = 0; handler = @{
  GM.message(part(1) + part(2) + "-" + part(3) + part(4) + "." + part(5));
 }; }:Event;
}
"""


def test_parts_that_do_something_run_in_order() -> None:
    assert gm_messages(PARTS_IN_ORDER) == [
        "part 1",
        "part 2",
        "part 3",
        "part 4",
        "part 5",
        "<1><2>-<3><4>.<5>",
    ]


LIMITED = """\
import "basic.lore":url;
section t {
 go = { ticks = 0; priority = 0; handler = @{
  n = "xxxxxxxxx";
  b = {1, 2};
  GM.message(JOINED);
 }; }:Event;
}
"""


def limited(joined: str, limit: int) -> list[str]:
    """What the GM is told by a rule telling it ``joined``, texts joined at once being at
    most ``limit`` characters long."""
    result = check_text(LIMITED.replace("JOINED", joined), "test.lore")
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    compiled = compile_program(result)
    compiled.namespace["_MAX_TEXT"] = limit
    gm = Scripted([])
    Session(compiled, 0, Participants({"GM": gm})).run()
    return [str(r["text"]) if r["kind"] == "message" else r["message"] for r in gm.told]


@pytest.mark.parametrize(
    ("joined", "text"),
    [
        ('n + "a" + 1 + "b"', "xxxxxxxxxa1b"),
        ('n + 1 + "b" + 2', "xxxxxxxxx1b2"),
        ('n + "ab" + "c"', "xxxxxxxxxabc"),
    ],
)
def test_a_text_as_long_as_the_limit_is_told(joined: str, text: str) -> None:
    assert limited(joined, 12) == [text]


@pytest.mark.parametrize("joined", ['n + "ab" + "cd"', 'n + "" + "" + b', "n + 1 + 2 + 34"])
def test_a_text_past_the_limit_stops_the_rule(joined: str) -> None:
    told = limited(joined, 12)
    assert len(told) == 1 and "a text of more than" in told[0], told
    assert limited(joined, 100) != told
