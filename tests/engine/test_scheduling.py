"""Scheduling: every way of writing ``schedule.add`` gives the same events.

An Event literal written in place in ``schedule.add`` is compiled straight to its time and
handler (no Event object, and for ``@{ x.rule; }`` no closure); any other Event goes
through the engine's ``schedule.add``. Both must run the same handlers at the same ticks
in the same order, with the same errors.
"""

from __future__ import annotations

import pytest

from lore.engine import handler_runtime
from lore.engine import session as session_module
from lore.engine.participants import Participants, Scripted
from lore.engine.session import Limits, Session, entries_of
from lore.engine.snapshot import describe_queue
from lore.runtime.compiler import compile_program
from lore.runtime.ops import rule_of
from lore.semantics.check import check_text

HEAD = """\
import "basic.lore":url;
section plan {
 form Walker {
  name : string;
  rule act {
   GM.message(name + " acts at " + schedule.current);
  }
 }
 form Runner extends Walker {
  override rule act {
   GM.message(name + " runs at " + schedule.current);
  }
 }
 ann = { name = "Ann"; }:Walker;
 bob = { name = "Bob"; }:Runner;
"""


def run(body: str, max_ticks: int | None = None) -> tuple[list[str], list[str]]:
    """The GM's messages and the error messages of a program with ``body`` in ``plan``."""
    text = HEAD + body + "}\n"
    result = check_text(text, "plan.lore")
    assert not [d for d in result.diagnostics if d.is_error], [
        d.render() for d in result.diagnostics
    ]
    gm = Scripted([])
    session = Session(
        compile_program(result), 0, Participants({"GM": gm}), Limits(max_ticks=max_ticks)
    )
    session.run()
    told = [r.get("text") or "" for r in gm.told if r["kind"] == "message"]
    return told, [error.message for error in session.errors]


def start(handler: str) -> str:
    return f" go = {{ ticks = 0; priority = 0; handler = @{{ {handler} }}; }}:Event;\n"


def test_in_place_and_built_events_run_alike() -> None:
    in_place = start(
        "schedule.add({ ticks = schedule.current + 2[min]; priority = 1;"
        " handler = @{ bob.act; }; }:Event);"
        "schedule.add({ ticks = schedule.current + 2[min]; handler = @{ ann.act; }; }:Event);"
        "schedule.add({ ticks = 1[min]; priority = 0; }:Event);"
    )
    built = start(
        "late = { ticks = schedule.current + 2[min]; priority = 1;"
        " handler = @{ bob.act; }; }:Event;"
        "early = { ticks = schedule.current + 2[min]; handler = @{ ann.act; }; }:Event;"
        "empty = { ticks = 1[min]; priority = 0; }:Event;"
        "schedule.add(late); schedule.add(early); schedule.add(empty);"
    )
    # Ann's event has no priority (0): it runs before Bob's (1). Bob's rule is his form's.
    expected = (["Ann acts at 120[sec]", "Bob runs at 120[sec]"], [])
    assert run(in_place) == run(built) == expected


def test_a_bound_handler_keeps_the_object_it_named() -> None:
    body = (
        " rule relay(w : Walker, wait : unit[sec]) {\n"
        "  schedule.add({ ticks = schedule.current + wait; priority = 0;"
        " handler = @{ w.act; }; }:Event);\n"
        " }\n" + start("relay(ann, 5[sec]); relay(bob, 3[sec]);")
    )
    assert run(body) == (["Bob runs at 3[sec]", "Ann acts at 5[sec]"], [])


def test_handlers_held_in_variables_and_written_as_lambdas() -> None:
    body = start(
        'h = @{ GM.message("held at " + schedule.current); };'
        "schedule.add({ ticks = 7; priority = 0; handler = h; }:Event);"
        "n = 2;"
        "schedule.add({ ticks = 8; priority = 0;"
        ' handler = @{ GM.message("captured " + n); }; }:Event);'
    )
    assert run(body) == (["held at 7[sec]", "captured 2"], [])


def test_ticks_in_other_units_and_from_variables() -> None:
    body = start(
        "wait = 1[hour];"
        "schedule.add({ ticks = wait; priority = 0; handler = @{ ann.act; }; }:Event);"
        "schedule.add({ ticks = schedule.current + wait - 30[min]; priority = 0;"
        " handler = @{ bob.act; }; }:Event);"
    )
    assert run(body) == (["Bob runs at 1800[sec]", "Ann acts at 3600[sec]"], [])
    later = start(
        "schedule.add({ ticks = 10[sec] + schedule.current; priority = 0;"
        " handler = @{ ann.act; }; }:Event);"
        "schedule.add({ ticks = schedule.current + 1[min] - 1[min]; priority = 1;"
        " handler = @{ bob.act; }; }:Event);"
    )
    assert run(later) == (["Bob runs at 0[sec]", "Ann acts at 10[sec]"], [])


def test_an_event_in_the_past_is_refused_either_way() -> None:
    in_place = start(
        "schedule.add({ ticks = schedule.current - 1[sec]; priority = 0;"
        " handler = @{ ann.act; }; }:Event);"
    )
    built = start(
        "e = { ticks = schedule.current - 1[sec]; priority = 0; handler = @{ ann.act; }; }:Event;"
        "schedule.add(e);"
    )
    later = " later = { ticks = 5; priority = 0; handler = @{ bob.act; }; }:Event;\n"
    refused = "cannot schedule an event in the past (at -1, now is 0)"
    assert run(in_place + later) == run(built + later) == (["Bob runs at 5[sec]"], [refused])


def test_priorities_order_the_events_of_one_time_over_their_whole_range() -> None:
    top, bottom = (1 << 63) - 1, -(1 << 63)
    body = start(
        f"schedule.add({{ ticks = 4; priority = {top}; handler = @{{ bob.act; }}; }}:Event);"
        f"p = 0 - {top} - 1;"  # the lowest, from a variable: the engine's schedule.add
        "schedule.add({ ticks = 4; priority = p; handler = @{ ann.act; }; }:Event);"
        "schedule.add({ ticks = 3; priority = p + 1; handler = @{ bob.act; }; }:Event);"
        "schedule.add({ ticks = 3; priority = -1; handler = @{ ann.act; }; }:Event);"
    )
    assert bottom == -top - 1
    expected = [
        "Bob runs at 3[sec]",
        "Ann acts at 3[sec]",
        "Ann acts at 4[sec]",
        "Bob runs at 4[sec]",
    ]
    assert run(body) == (expected, [])


@pytest.mark.parametrize("priority", ["9223372036854775808", "0 - 9223372036854775809"])
def test_a_priority_past_64_bits_is_refused_either_way(priority: str) -> None:
    in_place = start(
        f"p = {priority};"
        "schedule.add({ ticks = 1; priority = p; handler = @{ ann.act; }; }:Event);"
    )
    built = start(
        f"e = {{ ticks = 1; priority = {priority}; handler = @{{ ann.act; }}; }}:Event;"
        "schedule.add(e);"
    )
    constant = start(
        f"schedule.add({{ ticks = 1; priority = {priority}; handler = @{{ ann.act; }}; }}:Event);"
    )
    later = " later = { ticks = 5; priority = 0; handler = @{ bob.act; }; }:Event;\n"
    told, errors = run(in_place + later)
    assert told == ["Bob runs at 5[sec]"]
    assert len(errors) == 1 and "priority must be between -2^63 and 2^63-1" in errors[0]
    assert run(built + later) == run(constant + later) == (told, errors)


def test_a_time_read_in_one_step_keeps_its_value_in_later_steps() -> None:
    # Steps of one event give the clock's quantity its new time in place when nothing
    # else holds it: a time a rule kept (in a member, in a closure) must not move on.
    body = (
        " form Log {\n  times : list<unit[sec]>;\n"
        "  alter keep(ts : list<unit[sec]>) { self.times := times.addAll(ts); }\n }\n"
        " log = { times = {1[hour]}; }:Log;\n"
        " rule tick {\n  now = schedule.current;\n  log.keep(now);\n"
        "  schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;"
        ' handler = @{ GM.message("was " + now + ", kept " + log.times); }; }:Event);\n'
        " }\n"
        + start("tick;")
        + " again = { ticks = 5; priority = 0; handler = @{ tick; }; }:Event;\n"
    )
    assert run(body) == (
        [
            "was 0[sec], kept {1[hour], 0[sec]}",
            "was 5[sec], kept {1[hour], 0[sec], 5[sec]}",
        ],
        [],
    )


def test_a_rule_that_reschedules_itself_runs_until_the_limit() -> None:
    body = (
        " form Clock {\n"
        "  count : integer;\n"
        "  rule tick {\n"
        "   self.advance(1);\n"
        '   GM.message("tick " + count);\n'
        "   schedule.add({ ticks = schedule.current + 10[sec]; priority = 0;"
        " handler = @{ self.tick; }; }:Event);\n"
        "  }\n"
        "  alter advance(steps : list<integer>) {\n"
        "   self.count := count + steps.sum;\n"
        "  }\n"
        " }\n"
        " clock = { count = 0; }:Clock;\n" + start("clock.tick;")
    )
    told, errors = run(body, max_ticks=30)
    # Each step reads the count as it was when the step began; the alter applies after.
    assert (told, errors) == (["tick 0", "tick 1", "tick 2", "tick 3"], [])


def test_a_member_named_in_a_handler_is_read_when_it_runs() -> None:
    body = (
        " form Pair {\n"
        "  partner : Walker;\n"
        "  rule later {\n"
        "   schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;"
        " handler = @{ partner.act; }; }:Event);\n"
        "   self.swap(bob);\n"
        "  }\n"
        "  alter swap(walkers : list<Walker>) {\n"
        "   self.partner := walkers.get1st;\n"
        "  }\n"
        " }\n"
        " pair = { partner = ann; }:Pair;\n" + start("pair.later;")
    )
    # The partner changed in the update phase of tick 0: at tick 1 it is Bob.
    assert run(body) == (["Bob runs at 1[sec]"], [])


def test_schedule_events_are_the_events_waiting() -> None:
    body = (
        " rule report {\n"
        "  waiting = schedule.events;\n"
        '  GM.message("waiting " + waiting.length);\n'
        "  waiting.foreach(@(e : Event) {\n"
        '   GM.message("at " + e.ticks + " priority " + e.priority);\n'
        "  });\n"
        " }\n"
        + start(
            "schedule.add({ ticks = 9; priority = 0; handler = @{ report; }; }:Event);"
            "schedule.add({ ticks = 4; priority = 2; handler = @{ bob.act; }; }:Event);"
            "schedule.add({ ticks = 4; priority = 1; handler = @{ report; }; }:Event);"
            "report;"  # what is added in a step joins the queue after it
        )
        + " again = { ticks = 6; priority = 0; handler = @{\n"
        "  first = schedule.events.get1st;\n"
        "  schedule.add({ ticks = 7; priority = 0; handler = first.handler; }:Event);\n"
        " }; }:Event;\n"
    )
    # At 0 the scenario's event `again` waits; at 4 (priority 1) Bob's and the event at 9
    # wait. At 6 `again` reads the first event waiting (the report at 9) and schedules its
    # handler at 7 too.
    assert run(body) == (
        [
            "waiting 1",
            "at 6[sec] priority 0",
            "waiting 3",
            "at 4[sec] priority 2",
            "at 6[sec] priority 0",
            "at 9[sec] priority 0",
            "Bob runs at 4[sec]",
            "waiting 1",
            "at 9[sec] priority 0",
            "waiting 0",
        ],
        [],
    )


def test_too_many_events_to_list_is_a_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(handler_runtime, "MAX_LIST", 3)
    body = ' rule count { GM.message("waiting " + schedule.events.length); }\n' + start(
        "schedule.add({ ticks = 5; priority = 0; handler = @{ count; }; }:Event);"
        "schedule.add({ ticks = 6; priority = 0; handler = @{ count; }; }:Event);"
        "schedule.add({ ticks = 7; priority = 0; handler = @{ count; }; }:Event);"
        "schedule.add({ ticks = 8; priority = 0; handler = @{ count; }; }:Event);"
        "schedule.add({ ticks = 9; priority = 0; handler = @{ count; }; }:Event);"
    )
    # At 5 four events wait (at 6 to 9), one more than the limit; then 3, 2, 1 and 0.
    assert run(body) == (
        ["waiting 3", "waiting 2", "waiting 1", "waiting 0"],
        ["more than 3 events wait: too many to list"],
    )


def queued_session() -> Session:
    """Ann and Bob's `act` queued straight into the engine: Ann and Bob at 5, Bob alone at
    6, Ann at 7, then Bob at 7 (the time Ann had alone becomes shared)."""
    result = check_text(HEAD + "}\n", "plan.lore")
    session = Session(compile_program(result), 0, Participants({"GM": Scripted([])}))
    session.start()
    ann, bob = (session.rt.g[i] for _, i, _ in session.program.values)
    for ticks, who in ((5, ann), (5, bob), (6, bob), (7, ann), (7, bob)):
        session.push(ticks, 0, rule_of(who, "act"), who)
    return session


def told(session: Session) -> list[str]:
    return [r["text"] for r in session.transcript.records if r["kind"] == "message"]


def test_events_alone_and_sharing_a_time_run_in_order_through_snapshots() -> None:
    session = queued_session()
    # A time of one event holds its entry, a shared time the list of its entries.
    layout = {session.key_parts(key)[0]: type(bucket) for key, bucket in session.buckets.items()}
    assert layout == {5: list, 6: tuple, 7: list}
    assert describe_queue(session) == [
        "at 5[sec], priority 0: rule plan.Walker.act of plan.ann",
        "at 5[sec], priority 0: rule plan.Runner.act of plan.bob",
        "at 6[sec], priority 0: rule plan.Runner.act of plan.bob",
        "at 7[sec], priority 0: rule plan.Walker.act of plan.ann",
        "at 7[sec], priority 0: rule plan.Runner.act of plan.bob",
    ]
    expected = [
        "Ann acts at 5[sec]",
        "Bob runs at 5[sec]",
        "Bob runs at 6[sec]",
        "Ann acts at 7[sec]",
        "Bob runs at 7[sec]",
    ]
    data = session.snapshot()
    session.run()
    assert told(session) == expected
    restored = Session.restore(session.program, data)
    assert [type(bucket) for bucket in restored.buckets.values()] == list(layout.values())
    restored.run()
    assert told(restored) == expected
    # A queue saved with a list for every time (as older snapshots hold it) runs alike.
    older = queued_session()
    older.buckets = {key: entries_of(bucket) for key, bucket in older.buckets.items()}
    older.run()
    assert told(older) == expected


def test_dropping_waiting_events_keeps_the_others_in_order() -> None:
    session = queued_session()
    ann = session.rt.g[session.program.values[0][1]]
    assert session.drop_waiting({rule_of(ann, "act")}) == 2
    assert session.pending() == 3
    # Each time is left with one event: its entry, no longer a list.
    assert [type(bucket) for bucket in session.buckets.values()] == [tuple, tuple, tuple]
    session.run()
    assert told(session) == ["Bob runs at 5[sec]", "Bob runs at 6[sec]", "Bob runs at 7[sec]"]


@pytest.mark.parametrize(
    "handler",
    [
        "n = 1;",  # adds nothing
        "schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;"
        " handler = @{ go2; }; }:Event);",
        "schedule.add({ ticks = 9; priority = 0; handler = @{ go2; }; }:Event);"
        "schedule.add({ ticks = 9; priority = 1; handler = @{ go2; }; }:Event);",
        "schedule.add({ ticks = 9; priority = 0; handler = @{ go2; }; }:Event); n = 1 / 0;",
    ],
)
def test_the_waiting_count_is_the_queue_after_every_kind_of_step(handler: str) -> None:
    # A step of one event counts its event as waiting until it ends (see Session.singles):
    # whatever it adds, and when it goes wrong, the count ends as the queue is.
    body = f" rule go2 {{ {handler} }}\n" + start("go2;")
    result = check_text(HEAD + body + "}\n", "plan.lore")
    session = Session(compile_program(result), 0, Participants({"GM": Scripted([])}))
    session.limits = Limits(max_steps=3)
    session.run()
    assert session.steps >= 1
    assert session.pending() == session.count_waiting()


WIDE_ORDER = (
    ' rule at(p : integer) { GM.message("at " + schedule.current + " " + p);'
    "  if (schedule.current < 3[sec]) {"
    "   schedule.add({ ticks = schedule.current + 1[sec]; priority = PRIORITY;"
    "    handler = @{ at(PRIORITY); }; }:Event);"
    "   schedule.add({ ticks = schedule.current + 1[sec]; priority = 100;"
    "    handler = @{ at(100); }; }:Event); } }\n"
    " go = { ticks = 0; priority = 0; handler = @{ at(0); }; }:Event;\n"
)


@pytest.mark.parametrize("priority", [-5, 127, 128, -129, 1000, -(2**63), 2**63 - 1])
def test_priorities_of_any_size_order_the_events(priority: int) -> None:
    """Priorities outside the queue's narrow layout (-128 to 127) turn its keys wide in the
    middle of a run (from a step of one event, in place): the order stays (ticks, priority)."""
    told, errors = run(WIDE_ORDER.replace("PRIORITY", str(priority)))
    first, second = sorted((priority, 100))
    assert errors == []
    assert told == [
        "at 0[sec] 0",
        *(f"at 1[sec] {p}" for p in (first, second)),
        *(f"at 2[sec] {p}" for p in (first, first, second, second)),
        *(f"at 3[sec] {p}" for p in [first] * 4 + [second] * 4),
    ]


def test_a_priority_past_64_bits_is_an_error() -> None:
    _, errors = run(WIDE_ORDER.replace("PRIORITY", str(2**63)))
    assert errors == [f"an event's priority must be between -2^63 and 2^63-1, not {2**63}"]


@pytest.mark.parametrize("priority", [0, 1000])
def test_snapshots_hold_wide_keys_whatever_the_layout(priority: int) -> None:
    """A snapshot is the same whether the queue's keys are narrow or wide, and a restored
    session narrows them again when its priorities fit."""
    text = HEAD + WIDE_ORDER.replace("PRIORITY", str(priority)) + "}\n"
    program = compile_program(check_text(text, "plan.lore"))
    session = Session(program, 0, Participants({"GM": Scripted([])}), Limits(max_steps=4))
    session.run()
    data = session.snapshot()
    widened = Session.restore(program, data)
    widened.rekey(session_module.KEY_SHIFT, session_module.BIAS)
    assert widened.snapshot() == data
    restored = Session.restore(program, data)
    assert (restored.shift == session_module.NARROW_SHIFT) == (priority < 128)
    assert restored.snapshot() == data
    assert describe_queue(restored) == describe_queue(session)
