"""``{}`` where a list is expected runs as the empty list, whatever its element type."""

from __future__ import annotations

from tests.runtime.programs import gm_messages

PROGRAM = """\
import "basic.lore":url;
section t {
 form Clock {
  times : list<unit[sec]> = {};
  names : list<string>;
  alter timed(given : list<unit[sec]>) {
   self.times := given;
  }
  alter reset(keep : list<unit[sec]>) {
   self.times := {};
  }
 }
 clock = { names = {}; }:Clock;
 spans : list<unit[m]> = {};
 rolls : list<dice> = {};
 nested : list<list<integer>> = {};
 function count(xs : list<unit[sec]>) : integer {
  result = xs.length;
 }
 first = { ticks = 0; priority = 0; handler = @{
  GM.message("sizes " + {clock.times.length, clock.names.length, spans.length,
   rolls.length, nested.length, count({})});
  local : list<unit[sec]> = {};
  GM.message("" + local.addAll({}).add(3[sec]) + " " + nested.add({}));
  GM.message("" + (clock.times == {}) + " " + (if (true) ({1[m]}) else {}));
  clock.timed(5[sec]);
 }; }:Event;
 second = { ticks = 1; priority = 0; handler = @{
  GM.message("times " + clock.times);
  clock.reset(1[sec]);
 }; }:Event;
 third = { ticks = 2; priority = 0; handler = @{
  GM.message("times " + clock.times);
 }; }:Event;
}
"""


def test_empty_braces_run_as_empty_lists() -> None:
    assert gm_messages(PROGRAM) == [
        "sizes {0, 0, 0, 0, 0, 0}",
        "{3[sec]} {{}}",
        "true {1[m]}",
        "times {5[sec]}",
        "times {}",
    ]
