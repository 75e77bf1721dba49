"""The clock's quantity (``schedule.current``) is moved on in place by a step only when
nothing else holds it: a time a rule kept stays the time it was."""

from __future__ import annotations

from lore.engine.participants import Bot, Participants
from lore.engine.session import Session
from tests.engine.harness import compiled

PROGRAM = """\
import "basic.lore":url;
section t {
 form Keeper {
  seen : unit[sec];
  alter note(at : list<unit[sec]>) { self.seen := at.last; }
 }
 k = { seen = 0[sec]; }:Keeper;
 ask = { ticks = 2; priority = 0; handler = @{
  GM.query("now?", { ok = boolean.input; });
  k.note(schedule.current);
 }; }:Event;
 later = { ticks = 7; priority = 0; handler = @{
  GM.query("again?", { ok = boolean.input; });
  GM.message("seen " + k.seen + " now " + schedule.current);
 }; }:Event;
}
"""


def test_a_kept_time_stays_as_it_was() -> None:
    for resumable in (False, True):
        session = Session(compiled(PROGRAM), 0, Participants({"GM": Bot()}), resumable=resumable)
        session.run()
        told = [r["text"] for r in session.transcript.records if r["kind"] == "message"]
        assert told == ["seen 2[sec] now 7[sec]"], resumable
