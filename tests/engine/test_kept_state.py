"""A step kept where it asked (``continuation.keep``, in a resumable session) leaves the
session as a waiting step does (``Session.wait_for_answers``: ``Runtime.rest`` and
``happenings.discard_step``), though ``keep`` writes that work out: what the handler
asked for so far (an alter, an event, an object made, a hook, a count, an outcome) is
put aside, and the runtime's place and containers are as ``rest`` leaves them."""

from __future__ import annotations

from typing import Any

import pytest

from lore.engine.session import Session
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import check_text
from tests.engine.test_continuation import later

PROGRAM = """\
import "basic.lore":url;
section kept {
 form Hero extends Actor {
  hp : integer;
  rule turn {
   BEFORE
   said = self.query("how much", { n = integer.input; });
   self.hurt(said.n);
  }
  alter hurt(amounts : list<integer>) { self.hp := hp - amounts.sum; }
 }
 table = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc; hp = 10;
  features = list<Feature>.empty; items = list<Item>.empty; knownSecrets = list<string>.empty;
 }:Hero;
 go = { ticks = 0; priority = 0; handler = @{ GM.message("start"); }; }:Event;
 first = { ticks = 1; priority = 0; handler = @{ aki.turn; }; }:Event;
}
"""

# What the handler does before it asks.
BEFORE = {
    "nothing": "",
    "an alter": "self.hurt(1);",
    "an event": "schedule.add({ ticks = schedule.current + 5[sec];"
    ' handler = @{ GM.message("x"); }; }:Event);',
    "an object": 'mark = { name = "mark"; description = "made"; }:Feature;',
    "a hook and a count": 'system.on("hit", @(v : any) { }); system.count("turns", 1);',
    "an outcome": 'system.end("over");',
    "all": 'self.hurt(2); mark = { name = "m"; description = "d"; }:Feature; '
    'system.count("turns", 1); schedule.add({ ticks = schedule.current + 5[sec]; '
    'handler = @{ GM.message("y"); }; }:Event);',
}


def program(before: str) -> CompiledProgram:
    result = check_text(PROGRAM.replace("BEFORE", before), "kept.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    return compile_program(result)


def waiting(compiled: CompiledProgram, resumable: bool) -> Session:
    session = Session(compiled, 0, later(), resumable=resumable)
    assert session.run() == "waiting"
    return session


def left(session: Session) -> dict[str, Any]:
    """What a waiting step leaves of the runtime and the session."""
    rt = session.rt
    return {
        "first_request": rt.first_request,
        "requests": rt.requests,
        "adds": rt.adds,
        "created": rt.created,
        "removing": rt.removing,
        "depth": rt.depth,
        "path": rt.path,
        "alter_index": rt.alter_index,
        "suspended": rt.suspended,
        "hooks": len(session.hooks),
        "stats": list(session.stats),
        "outcome": session.outcome,
        "waiting": [seq for seq, _, _ in session.waiting or ()],
        "queued": session.queued,
        "open": list(session.open),
        "snapshot": session.snapshot(),
    }


@pytest.mark.parametrize("before", list(BEFORE))
def test_a_kept_step_leaves_the_session_as_a_waiting_one(before: str) -> None:
    compiled = program(BEFORE[before])
    kept, rerun = waiting(compiled, True), waiting(compiled, False)
    assert kept.worker is not None and kept.worker.kept is not None  # (kept, not run again)
    assert rerun.worker is None
    assert left(kept) == left(rerun)
    # What was put aside comes back when the answer does: the two go on alike.
    for session in (kept, rerun):
        (query,) = session.open_questions()
        assert session.answer(query.id, {"n": 3}) is None
        session.run()
    assert left(kept) == left(rerun)
    assert kept.transcript.records == rerun.transcript.records
