"""``a + b < c`` of quantities compares the sum's value with no quantity made for it
(``ops.sum_compared``): the same answers as the sum compared, in any units of a family."""

from __future__ import annotations

import operator

from lore.runtime.ops import sum_compared
from tests.runtime.programs import gm_messages

PROGRAM = """
import "basic.lore":url;
section t {
 limit = 60[sec];
 function later(n : integer) : unit[sec] {
  GM.message("later " + n);
  result = 60[sec];
 }
 go = { ticks = 0; priority = 0; handler = @{
  start = schedule.current;
  LINES
 }; }:Event;
}
"""

COMPARED = [
    ("schedule.current + 60[sec] <= limit", "true"),
    ("schedule.current + 60[sec] < limit", "false"),
    ("start + 1[min] >= limit", "true"),
    ("start + 1[min] > 59[sec]", "true"),
    ("start + 59[sec] > limit", "false"),
    ("start + 2[min] < limit", "false"),
    ("start + 1[min] <= later(1)", "true"),  # (a limit that does something: as it was)
]


def test_sums_of_quantities_compare_as_the_sums() -> None:
    lines = "\n".join(f'  GM.message("{n}: " + ({code}));' for n, (code, _) in enumerate(COMPARED))
    told = gm_messages(PROGRAM.replace("LINES", lines))
    expected = [f"{n}: {said}" for n, (_, said) in enumerate(COMPARED)]
    assert told == [*expected[:-1], "later 1", expected[-1]]


def test_other_values_are_added_and_compared() -> None:
    assert sum_compared(1, 2, 3, operator.le) is True
    assert sum_compared(1.5, 2, 3, operator.lt) is False
