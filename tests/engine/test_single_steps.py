"""Steps of one event, as ``Session.singles`` runs them (the step's key kept at the top of
the heap until the event it adds replaces it): events added at the step's own time and
priority, beside a waiting event, at other priorities, steps that fail, wait or pass a
limit. Each program runs as the general path runs it (a resumable session runs every
step through ``Session.step``), and the queue is whole after it."""

from __future__ import annotations

import pytest

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text

HEAD = """
import "basic.lore":url;
section t {
 form Ticker {
  n : integer;
  trace : integer;
  alter count(v : list<integer>) { self.n := n + v.length; self.trace := trace * 31 + v.sum; }
  rule act {
   self.count(schedule.priority + 2);
   BODY
  }
 }
 a = { n = 0; trace = 0; }:Ticker;
 b = { n = 100; trace = 0; }:Ticker;
 first = { ticks = 0; priority = 0; handler = @{ a.act; }; }:Event;
 last = { ticks = 30; priority = 9; handler = @{
  GM.message(a.n + " " + a.trace + " " + b.n + " " + b.trace);
 }; }:Event;
 EXTRA
}
"""
# (No step but the last tells anything: a step after one that told something is run
# through ``Session.begin``, not as a step of one event.)


def add(ticks: str, priority: int = 0, who: str = "self") -> str:
    return (
        f"schedule.add({{ ticks = {ticks}; priority = {priority};"
        f" handler = @{{ {who}.act; }}; }}:Event);"
    )


PROGRAMS = {
    # The same key as the step's: a new step at the same time and priority.
    "same key": (f"if (n < 4) {{ {add('schedule.current')} }}", "", None),
    # Into the bucket of a waiting event: a step of two events.
    "beside a waiting one": (
        f"if (n < 3) {{ {add('schedule.current + 5[sec]')} }}",
        "other = { ticks = 5; priority = 0; handler = @{ b.act; }; }:Event;",
        None,
    ),
    # Other priorities at the same time, before and after the step's.
    "priorities": (
        f"if (n < 2) {{ {add('schedule.current', 1)} {add('schedule.current', -1, 'b')} }}",
        "",
        None,
    ),
    # Two events added by one step, and none.
    "two and none": (
        f"if (n < 3) {{ {add('schedule.current + 1[sec]')} {add('schedule.current + 2[sec]')} }}",
        "",
        None,
    ),
    # A step that goes wrong: dropped, the others go on.
    "failing": (
        f'if (n == 2) {{ GM.message({{1}}.filter(@(x : integer) x > 1).get1st + ""); }}'
        f" if (n < 5) {{ {add('schedule.current + 1[sec]')} }}",
        "other = { ticks = 7; priority = 0; handler = @{ b.act; }; }:Event;",
        None,
    ),
    # A step that ends the session: no step runs after it.
    "outcome": (
        f'if (n == 2) {{ system.end("won"); }} {add("schedule.current + 1[sec]")}',
        "",
        None,
    ),
    # Steps that remove an object, and make one, while hooks look: the hooks run after
    # the step, and the steps after it go on.
    "hooks": (
        "if (n == 1) { system.remove(orc); }"
        ' if (n == 3) { imp = { name = "Imp"; location = "/[0]":loc; }:Actor; }'
        f" if (n < 4) {{ {add('schedule.current + 1[sec]')} }}",
        'orc = { name = "Orc"; location = "/[0]":loc; }:Actor;'
        " watch = { ticks = 0; priority = -1; handler = @{"
        ' system.onRemove("Actor", @(x : any) { a.count(7); });'
        ' system.onCreate("Actor", @(x : any) { b.count(9); });'
        " }; }:Event;",
        None,
    ),
    # Too many steps at one time: the step past the limit is dropped.
    "at once": (add("schedule.current"), "", Limits(max_steps_at_once=4)),
    # Too many events waiting: the step and the events of its handler are dropped.
    "waiting": (
        f"{add('schedule.current + 1[sec]')} {add('schedule.current + 2[sec]')}",
        "other = { ticks = 3; priority = 5; handler = @{ b.count(1); }; }:Event;",
        Limits(max_events=6),
    ),
}


def session_of(case: str, resumable: bool) -> Session:
    body, extra, limits = PROGRAMS[case]
    text = HEAD.replace("BODY", body).replace("EXTRA", extra)
    result = check_text(text, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    participants = Participants({"GM": Scripted([])})
    limits = limits or Limits(max_ticks=40)
    return Session(compile_program(result), 1, participants, limits, resumable=resumable)


def outcome(session: Session) -> tuple[str, list[str], list[str]]:
    reason = session.run()
    assert sorted(session.keys) == sorted(session.buckets)  # no key without its events
    assert session.queued == session.count_waiting()
    shown = [r["text"] for r in session.transcript.records if r["kind"] == "message"]
    return reason, shown, [e.message for e in session.errors]


@pytest.mark.parametrize("case", sorted(PROGRAMS))
def test_as_the_general_path_runs_it(case: str) -> None:
    assert outcome(session_of(case, False)) == outcome(session_of(case, True))


def test_an_event_at_the_steps_own_key_runs_in_a_step_of_its_own() -> None:
    reason, shown, errors = outcome(session_of("same key", False))
    assert shown == [f"5 {sum(2 * 31**k for k in range(5))} 100 0"]  # five steps at 0
    assert not errors and reason == "no-events"


def test_priorities_and_a_waiting_event_order_the_steps() -> None:
    # a at p0, b at p-1, a at p1, then b at p-1 each time a adds one (n < 2).
    _, shown, _ = outcome(session_of("priorities", False))
    assert shown == [f"3 {(2 * 31 + 3) * 31 + 3} 102 {1 * 31 + 1}"]
    # The waiting b runs before the a added beside it (it was queued first), in one step.
    _, shown, _ = outcome(session_of("beside a waiting one", False))
    assert shown == [f"4 {sum(2 * 31**k for k in range(4))} 101 2"]  # at 0, 5, 10, 15


def test_a_step_that_ends_the_session_is_the_last() -> None:
    reason, shown, errors = outcome(session_of("outcome", False))
    assert (reason, shown, errors) == ("ended", [], [])


def test_hooks_run_after_steps_of_one_event() -> None:
    reason, shown, errors = outcome(session_of("hooks", False))
    assert not errors and reason == "no-events"
    a_n, _, b_n, _ = shown[0].split()
    # a acts at n = 0, 1 (removes one: +1), 3 (makes one) and 4; b counts the one made.
    assert (int(a_n), int(b_n)) == (4 + 1, 100 + 1)


def test_steps_that_fail_or_pass_a_limit_leave_a_whole_queue() -> None:
    for case in ("failing", "at once", "waiting"):
        _, shown, errors = outcome(session_of(case, False))
        assert errors and shown, case


def test_a_run_stops_after_max_steps_steps() -> None:
    # singles counts the steps it runs up to the limit; the general path checks it before
    # each step: both stop after the same step, with the same state.
    for steps in (1, 2, 3, 5):  # (the program runs 6 steps)
        runs = []
        for resumable in (False, True):
            session = session_of("two and none", resumable)
            session.limits = Limits(max_steps=steps, max_ticks=40)
            reason = session.run()
            values = session.rt.g
            runs.append((reason, session.steps, session.ticks, repr(values), session.pending()))
            counts = [v.values["n"] for v in values if getattr(v, "values", {}).get("n")]
            runs.append(tuple(counts))
        assert runs[0] == runs[2] and runs[0][:2] == ("stopped", steps), runs
        assert runs[1] == runs[3]
