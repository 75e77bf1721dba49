"""Texts joined in a chain (``a + " is " + b + "."``) run as one call per three or four
parts (``ops.concat4``): the same texts, parts worked out in the same order, the same
limit."""

from __future__ import annotations

import pytest

from lore.runtime.errors import LimitExceeded
from lore.runtime.lists import MAX_TEXT
from lore.runtime.ops import concat, concat4
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


def test_the_limit_holds_for_every_call() -> None:
    long = "x" * (MAX_TEXT - 3)
    assert concat4(long, "a", 1, "b") == concat(concat(concat(long, "a"), 1), "b")
    assert concat4(long, 1, "b", "") == long + "1b"
    with pytest.raises(LimitExceeded):
        concat4(long, "ab", "cd", "")
    with pytest.raises(LimitExceeded):
        concat4(long, "", "", (1, 2))
