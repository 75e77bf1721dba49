"""Runaway rules: each ends in a RuleError at its Lore place, and the session goes on.

``lore/runaway.lore`` has one event per way of going wrong (endless recursion, a pool of
a billion dice, an endless and a huge foreach, a huge list, division by zero, a member
with no value (of another object and of the rule's own), an alter that fails, a text
doubled or a number squared without end). Each error is recorded in the transcript as
kind ``error`` with the place in the Lore file, the GM is told, the step's changes and
events are discarded, and the next event still runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from lore.engine.participants import Bot, Participants, Scripted
from lore.engine.queries import MAX_PLAIN_DEPTH, MAX_PLAIN_ITEMS, Query, plain
from lore.engine.session import Limits, Session
from lore.engine.transcript import Transcript
from lore.runtime.compiler import compile_program
from lore.runtime.values import MAX_SHOWN, show
from lore.semantics.check import check_paths, check_text

RUNAWAY = Path(__file__).parent / "lore" / "runaway.lore"
LINES = RUNAWAY.read_text(encoding="utf-8").splitlines()


def place(snippet: str) -> str:
    """``file:line:col`` of the one line that holds ``snippet`` (where it starts)."""
    found = [(n, line.index(snippet)) for n, line in enumerate(LINES, 1) if snippet in line]
    assert len(found) == 1, snippet
    line, column = found[0]
    return f"{RUNAWAY}:{line}:{column + 1}"


DEPTH = "rules call each other more than 10000 deep"
NO_LABEL = "has no value for 'label'"
BILLION = "1000000000 dice are more than the limit of 10000 in one roll"
# (tick, message, the statement where it went wrong)
EXPECTED = [
    (1, DEPTH, "deeper(n + 1);"),  # the call that went one level too deep
    (2, BILLION, "1000000000 d6;"),
    (3, BILLION, "(x)d6.roll"),
    (4, DEPTH, "xs.foreach(@(x : integer) { again(xs); });"),
    (5, "one handler ran more than 1000000 rule calls, list steps and dice", "xs.foreach(@(y"),
    (6, "a list of more than 1000000 elements", "xs.addAll(xs), times"),
    (7, "division by zero", "a / b;"),
    (8, "remainder by zero", "7 % zero"),
    (9, "<Actor runaway.npc> has no value for 'player'", "npc.player);"),
    (10, "division by zero", "n / (parts.sum - parts.sum);"),  # in the alter
    (11, f"<runaway.Counter runaway.counter> {NO_LABEL}", "label);"),
    (12, "a text of more than 10000000 characters", "text + text, times"),
    (13, "a whole number larger than 2^13000", "n * n, times"),
]


def run_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[Any], str]:
    transcript = tmp_path / "runaway.jsonl"
    status = main(["run", str(RUNAWAY), "--transcript", str(transcript)])
    output = capsys.readouterr()
    records = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    return status, records, output.out + output.err


def test_each_runaway_is_an_error_at_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, records, _ = run_cli(tmp_path, capsys)
    errors = [r for r in records if r["kind"] == "error"]
    assert errors == [
        {"tick": tick, "kind": "error", "to": "GM", "message": message, "where": place(snippet)}
        for tick, message, snippet in EXPECTED
    ]
    assert status == 0  # the session went on to its end


def test_the_session_goes_on_without_the_failed_steps_effects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, records, _ = run_cli(tmp_path, capsys)
    # counter.bump(1), (2) and (5) were asked for in steps that failed; the event for tick
    # 100 was scheduled by one of them. None of it happened.
    assert records[-2:] == [
        {"tick": 14, "kind": "message", "to": "GM", "text": "counter 0", "format": "text"},
        {"tick": 14, "kind": "end", "reason": "no-events"},
    ]
    assert all(r.get("text") != "never" for r in records)


def test_no_traceback_reaches_the_user(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, output = run_cli(tmp_path, capsys)
    assert "Traceback" not in output
    assert f"[Day 1, 00:00] rule error at {place('deeper(n + 1);')}: {DEPTH}" in output
    assert 'File "' not in output
    # Under it, for the rule's author: the line, the hint and the Lore call stack, with a
    # recursion's repeated frames folded.
    line = place("deeper(n + 1);").split(":")[-2]
    assert f"    {line} |   deeper(n + 1);\n" in output
    assert "    hint: a rule probably calls itself without end (to walk" in output
    assert f"      {place('deeper(n + 1);')}: in rule runaway.deeper\n" in output
    assert "      (the same 9998 more times)\n" in output


def test_the_gm_is_told() -> None:
    result = check_paths([RUNAWAY])
    gm = Scripted([])
    transcript = Transcript()
    session = Session(compile_program(result), 0, Participants({"GM": gm}), None, transcript)
    assert session.run() == "no-events"
    told = [record for record in gm.told if record["kind"] == "error"]
    assert [(r["tick"], r["message"], r["where"]) for r in told] == [
        (tick, message, place(snippet)) for tick, message, snippet in EXPECTED
    ]
    assert [error.message for error in session.errors] == [m for _, m, _ in EXPECTED]
    assert gm.told[-1]["text"] == "counter 0"


def test_a_value_that_fails_at_the_start_ends_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.lore"
    broken.write_text(
        'import "basic.lore":url;\n'
        "section broken {\n"
        " zero = {0}.get(0);\n"  # not folded by the checker: 10 / 0 would be a check error
        " share = 10 / zero;\n"
        ' start = { ticks = 0; priority = 0; handler = @{ GM.message("x"); }; }:Event;\n'
        "}\n",
        encoding="utf-8",
    )
    transcript = tmp_path / "t.jsonl"
    status = main(["run", str(broken), "--transcript", str(transcript)])
    output = capsys.readouterr()
    records = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert records == [
        {
            "tick": 0,
            "kind": "error",
            "to": "GM",
            "message": "division by zero",
            "where": f"{broken}:4:10",
        },
        {"tick": 0, "kind": "end", "reason": "error", "message": "division by zero"},
    ]
    assert status == 1
    assert "Traceback" not in output.out + output.err


LOOP = """\
import "basic.lore":url;
section loop {
 form Echo {
  rule again {
   schedule.add({ ticks = schedule.current; priority = 0; handler = @{ self.again; }; }:Event);
  }
 }
 echo = {}:Echo;
 start = { ticks = 0; priority = 0; handler = @{ echo.again; }; }:Event;
 later = { ticks = 5; priority = 0; handler = @{ GM.message("later"); }; }:Event;
}
"""


def test_events_that_keep_the_time_from_moving_are_stopped() -> None:
    result = check_text(LOOP, "loop.lore")
    assert result.ok
    gm = Scripted([])
    limits = Limits(max_steps_at_once=50)
    session = Session(compile_program(result), 0, Participants({"GM": gm}), limits)
    assert session.run() == "no-events"  # the session went on
    errors = [r for r in gm.told if r["kind"] == "error"]
    assert errors == [
        {
            "tick": 0,
            "kind": "error",
            "to": "GM",
            "message": "more than 50 steps at 0[sec]: events keep scheduling events at the"
            " same time",
            "where": "loop.lore:5:4",
        }
    ]
    assert session.steps == 52  # 50 steps, the one dropped, then the event at 5
    assert gm.told[-1]["text"] == "later"


BUDGETS = """\
import "basic.lore":url;
section budgets {
 function count(n : integer) : list<integer> {
  if (n == 0) { result = list<integer>.empty; } else { result = count(n - 1).add(n); }
 }
 form Tally {
  total : integer = 0;
  alter add(xs : list<integer>) {
   count(20).foreach(@(x : integer) { });
   self.total := total + xs.sum;
  }
 }
 tally = {}:Tally;
 go = { ticks = 0; priority = 0; handler = @{
  count(40).foreach(@(x : integer) { });
  tally.add(1);
 }; }:Event;
 show = { ticks = 1; priority = 0; handler = @{ GM.message("total " + tally.total); }; }:Event;
}
"""


def test_an_alter_has_a_budget_of_its_own() -> None:
    # The handler takes about 80 of the 100 operations, the alter about 40: each is within
    # its own budget (they are not added up).
    result = check_text(BUDGETS, "budgets.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    session = Session(compile_program(result), 0, Participants({"GM": gm}), Limits(max_ops=100))
    assert session.run() == "no-events"
    assert [r.get("text") or r.get("message") for r in gm.told] == ["total 1"]


GROWING_TIME = """\
import "basic.lore":url;
section growing {
 function grow(time : unit[sec], f : integer, n : integer) : unit[sec] {
  if (n == 0) {
   result = time;
  } else {
   result = grow(time * f, f, n - 1);
  }
 }
 go = { ticks = 0; priority = 0; handler = @{
  f = 1000000000 * 1000000000 * 1000000000 * 1000000000;
  GM.message("took " + grow(1[sec], f, 140));
 }; }:Event;
}
"""


def test_a_quantity_grown_without_end_is_stopped() -> None:
    result = check_text(GROWING_TIME, "growing.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    session = Session(compile_program(result), 0, Participants({"GM": gm}))
    assert session.run() == "no-events"
    assert [(r["message"], r["where"]) for r in gm.told] == [
        ("a whole number larger than 2^13000", "growing.lore:7:18")  # at `time * f`
    ]


SPAWNING = """\
import "basic.lore":url;
section spawning {
 form Cell {
  rule split {
   schedule.add({ ticks = schedule.current + 1[sec]; handler = @{ self.split; }; }:Event);
   schedule.add({ ticks = schedule.current + 1[sec]; handler = @{ self.split; }; }:Event);
  }
 }
 cell = {}:Cell;
 go = { ticks = 0; priority = 0; handler = @{ cell.split; }; }:Event;
 later = { ticks = 50; priority = 0; handler = @{ GM.message("still here"); }; }:Event;
}
"""


def test_events_that_multiply_are_stopped() -> None:
    result = check_text(SPAWNING, "spawning.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    limits = Limits(max_events=100)
    session = Session(compile_program(result), 0, Participants({"GM": gm}), limits)
    assert session.run() == "no-events"
    # 1, 2, 4, ... events a second: at 6 the 64 splits would leave 128 waiting. That step
    # is dropped, which ends the chain; the later event still runs.
    assert [(r["tick"], r.get("message") or r.get("text"), r.get("where")) for r in gm.told] == [
        (
            6,
            "more than 100 events would wait: events keep scheduling more events (this "
            "step and the 0 waiting events of its handlers are dropped)",
            "spawning.lore:5:4",
        ),
        (50, "still here", None),
    ]


STAGGERED = """section spawning {
 rule spawn {
  schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;
                 handler = @{ spawning.spawn; }; }:Event);
  schedule.add({ ticks = schedule.current + 2[sec]; priority = 1;
                 handler = @{ spawning.spawn; }; }:Event);
 }
 go = { ticks = 0; priority = 0; handler = @{ spawning.spawn; }; }:Event;
 later = { ticks = 500; priority = 0; handler = @{ GM.message("still here"); }; }:Event;
}
"""


def test_events_that_multiply_over_several_steps_are_all_dropped() -> None:
    # Each event schedules one a second later and one two seconds later: the events
    # waiting grow like Fibonacci's numbers over steps of both priorities. Dropping the
    # step that passes the limit is not enough: the events of its handlers that wait go
    # too, so the limit fires once and the growth stops.
    result = check_text(STAGGERED, "staggered.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    session = Session(compile_program(result), 0, Participants({"GM": gm}), Limits(max_events=1000))
    assert session.run() == "no-events"
    told = [(r["tick"], r.get("message") or r.get("text")) for r in gm.told]
    assert len(told) == 2
    assert told[0][1].startswith("more than 1000 events would wait: events keep scheduling")
    assert told[1] == (500, "still here")
    assert session.pending() == 0


LISTS = "\n".join(f"  l{i + 1} = {{l{i}, l{i}}};" for i in range(40))
SHARED = f"""\
section shared {{
 enum Go {{ on{{ caption = "on"; }} }}
 rule ask {{
  l0 = {{1}};
{LISTS}
  picked = GM.query("a big list", {{ shown = l40; go = Go.input; }});
  GM.message("asked");
 }}
 start = {{ ticks = 0; priority = 0; handler = @{{ shared.ask; }}; }}:Event;
}}
"""


class Asked(Scripted):
    """Answers from a list and keeps the questions asked."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        super().__init__(answers)
        self.queries: list[Query] = []

    def ask(self, query: Query, stream: Any) -> dict[str, Any] | None:
        self.queries.append(query)
        return super().ask(query, stream)


def test_a_list_that_holds_the_same_list_twice_is_shown_cut() -> None:
    # l40 holds l39 twice, which holds l38 twice ...: 2^40 ones written out in full.
    result = check_text(SHARED, "shared.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Asked([{"go": "on"}])
    session = Session(compile_program(result), 0, Participants({"GM": gm}))
    assert session.run() == "no-events"
    [query] = gm.queries
    [(name, shown)] = query.texts
    assert name == "shown"
    assert len(shown) == MAX_SHOWN + 1 and shown.endswith("…")
    assert shown.startswith("{" * 40 + "{1}, {1}}")


def test_shown_and_json_values_are_bounded() -> None:
    shared: tuple[object, ...] = (1,)
    deep: tuple[object, ...] = (1,)
    for _ in range(40):
        shared = (shared, shared)
    for _ in range(5000):
        deep = (deep,)
    assert len(show(shared)) == MAX_SHOWN + 1
    assert show(deep, 20) == "{" * 20 + "…"
    assert show((1, (2, 3), (), "a", True, 1.5)) == "{1, {2, 3}, {}, a, true, 1.5}"
    as_json = plain(shared)
    assert json.dumps(as_json).count("1") <= MAX_PLAIN_ITEMS
    assert json.dumps(plain(deep)).count("[") == MAX_PLAIN_DEPTH


FAN_OUT = """\
section fan {
 rule grow {
  GM.message("grow");
  {1, 2, 3}.foreach(@(i : integer) {
   schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;
                  handler = @{ fan.grow; }; }:Event);
  });
 }
 rule start {
  tens = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  tens.foreach(@(a : integer) { tens.foreach(@(b : integer) { tens.foreach(@(c : integer) {
   schedule.add({ ticks = 1; priority = 0; handler = @{ fan.grow; }; }:Event);
  }); }); });
 }
 go = { ticks = 0; priority = 0; handler = @{ fan.start; }; }:Event;
}
"""


def test_a_step_stops_as_soon_as_its_events_pass_the_limit() -> None:
    # 1,000 handlers at tick 1 each schedule 3 more: with room for 2,000 waiting events
    # the step stops after the 667th handler, not after the 1,000th.
    result = check_text(FAN_OUT, "fan.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    session = Session(compile_program(result), 0, Participants({"GM": gm}), Limits(max_events=2000))
    assert session.run() == "no-events"
    grown = [r for r in gm.told if r.get("text") == "grow"]
    errors = [r for r in gm.told if r["kind"] == "error"]
    assert len(grown) == 667
    assert [r["tick"] for r in errors] == [1]
    assert errors[0]["message"].startswith("more than 2000 events would wait")


ASKING = """\
section asking {
 enum Go { on{ caption = "on"; } }
 rule ask {
  {1, 2, 3}.foreach(@(i : integer) {
   picked = GM.query("again?", { go = Go.input; });
   schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;
                  handler = @{ asking.ask; }; }:Event);
  });
 }
 go = { ticks = 0; priority = 0; handler = @{ asking.ask; }; }:Event;
 later = { ticks = 100; priority = 0; handler = @{ GM.message("still here"); }; }:Event;
}
"""


def test_a_step_asking_too_many_questions_is_stopped() -> None:
    # Each handler asks three questions and schedules three more handlers: the steps
    # ask 3, 9, 27, 81 questions; with a limit of 50 the fourth step is dropped.
    result = check_text(ASKING, "asking.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Bot()
    transcript = Transcript()
    session = Session(
        compile_program(result),
        0,
        Participants({"GM": gm}),
        Limits(max_questions=50),
        transcript,
    )
    assert session.run() == "no-events"
    records = transcript.records
    errors = [r for r in records if r["kind"] == "error"]
    assert [(r["tick"], r["message"]) for r in errors] == [
        (3, "more than 50 questions in one step")
    ]
    assert [r["tick"] for r in records if r["kind"] == "query"].count(3) == 50
    assert any(r.get("text") == "still here" for r in records)


CHATTY = """\
section chatty {
 rule talk {
  {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}.foreach(@(i : integer) {
   {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}.foreach(@(j : integer) { GM.message("hello"); });
  });
 }
 go = { ticks = 0; priority = 0; handler = @{ chatty.talk; }; }:Event;
 later = { ticks = 1; priority = 0; handler = @{ GM.message("still here"); }; }:Event;
}
"""


def test_a_step_sending_too_many_messages_is_stopped() -> None:
    result = check_text(CHATTY, "chatty.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    limits = Limits(max_messages=30)
    session = Session(compile_program(result), 0, Participants({"GM": gm}), limits)
    assert session.run() == "no-events"
    told = [(r["tick"], r.get("text") or r.get("message")) for r in gm.told]
    assert told == [
        *[(0, "hello")] * 30,
        (0, "more than 30 messages in one step"),
        (1, "still here"),
    ]


# A handler that schedules in a loop (ten thousand a round), and one whose rules each
# schedule and call the next one three times (3^12 calls): both would add a million events
# before the waiting limit saw them, in each step they run. A later event shows the
# session goes on.
SCHEDULING = """\
import "basic.lore":url;
section busy {
 rule looping {
  tens = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  tens.foreach(@(a : integer) { tens.foreach(@(b : integer) {
   tens.foreach(@(c : integer) { tens.foreach(@(e : integer) {
    GM.message("scheduled");
    schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;
                   handler = @{ busy.idle; }; }:Event);
   }); });
  }); });
 }
 rule multiplying(depth : integer) {
  if (depth > 0) {
   {1, 2, 3}.foreach(@(i : integer) {
    GM.message("scheduled");
    schedule.add({ ticks = schedule.current + 1[min]; priority = 1;
                   handler = @{ busy.idle; }; }:Event);
    busy.multiplying(depth - 1);
   });
  }
 }
 rule idle { }
 first = { ticks = 0; priority = 0; handler = @{ busy.looping; }; }:Event;
 second = { ticks = 5; priority = 0; handler = @{ busy.multiplying(12); }; }:Event;
 later = { ticks = 10; priority = 0; handler = @{ GM.message("still here"); }; }:Event;
}
"""


def test_a_handler_scheduling_without_end_is_stopped() -> None:
    result = check_text(SCHEDULING, "busy.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    # Messages are counted to see where each handler stopped: their own limit is higher.
    limits = Limits(max_adds=100, max_messages=1000)
    session = Session(compile_program(result), 0, Participants({"GM": gm}), limits)
    assert session.run() == "no-events"
    told = [(r["tick"], r.get("text") or r.get("message"), r.get("where")) for r in gm.told]
    error = "one handler scheduled more than 100 events"
    # Each step stopped at the 101st event it scheduled, at the schedule.add; its events
    # were dropped with it, and the later one ran.
    assert told == [
        *[(0, "scheduled", None)] * 101,
        (0, error, "busy.lore:8:5"),
        *[(5, "scheduled", None)] * 101,
        (5, error, "busy.lore:17:5"),
        (10, "still here", None),
    ]
    assert [e.message for e in session.errors] == [error, error]
    assert session.errors[0].hint is not None and "loop" in session.errors[0].hint


def test_scheduling_up_to_the_limit_is_allowed() -> None:
    # The same handler, under a limit it does not pass: its 10,000 events all run.
    result = check_text(SCHEDULING, "busy.lore")
    gm = Scripted([])
    limits = Limits(max_adds=10_000, max_messages=20_000, max_ticks=1)
    session = Session(compile_program(result), 0, Participants({"GM": gm}), limits)
    assert session.run() == "stopped"
    assert session.errors == []
    assert session.steps == 2  # the loop's step, then the step of its 10,000 events
    assert session.pending() == 2  # the two events of the section wait


ROLLING = """\
section rolling {
 function pool(n : integer) : integer { result = (10000d6).roll + rolling.pool(n + 1); }
 rule roll { GM.message("" + rolling.pool(0)); }
 go = { ticks = 0; priority = 0; handler = @{ rolling.roll; }; }:Event;
 later = { ticks = 1; priority = 0; handler = @{ GM.message("still here"); }; }:Event;
}
"""


def test_dice_rolled_count_against_the_operations_limit() -> None:
    # A runaway recursion that rolls 10,000 dice a call: the dice are counted, so it
    # ends at the operations limit after about a hundred calls (10,000 deep, it took a
    # sim half a minute a step), not at the nesting limit.
    result = check_text(ROLLING, "rolling.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    transcript = Transcript()
    session = Session(
        compile_program(result), 0, Participants({"GM": Scripted([])}), Limits(), transcript
    )
    assert session.run() == "no-events"
    errors = [r for r in transcript.records if r["kind"] == "error"]
    assert [(r["tick"], r["message"], r["where"]) for r in errors] == [
        (
            0,
            "one handler ran more than 1000000 rule calls, list steps and dice",
            "rolling.lore:2:50",
        )
    ]
    assert any(r.get("text") == "still here" for r in transcript.records)


def test_dice_within_the_operations_limit_are_rolled() -> None:
    # 99 pools of 10,000 dice: 990,000 dice, under the limit with the calls around them.
    text = ROLLING.replace("+ rolling.pool(n + 1)", "").replace(
        'GM.message("" + rolling.pool(0));',
        "total = 0; for (i in 1,...,99) { total = total + rolling.pool(i); }"
        ' GM.message("" + total);',
    )
    result = check_text(text, "rolling.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    transcript = Transcript()
    session = Session(
        compile_program(result), 0, Participants({"GM": Scripted([])}), Limits(), transcript
    )
    assert session.run() == "no-events"
    assert not [r for r in transcript.records if r["kind"] == "error"]
    told = [r["text"] for r in transcript.records if r["kind"] == "message"]
    assert told[1:] == ["still here"]
    assert 99 * 10_000 <= int(told[0]) <= 99 * 60_000


DEEP_ASKING = """\
section deep {
 enum Choice { one{ caption = "one"; } two{ caption = "two"; } }
 rule ask {
  q = GM.query("pick", { pick = Choice.input; });
  deep.ask;
 }
 go = { ticks = 0; priority = 0; handler = @{ deep.ask; }; }:Event;
 later = { ticks = 1; priority = 0; handler = @{ GM.message("still here"); }; }:Event;
}
"""


def test_a_recursion_that_asks_ends_at_the_default_questions_limit() -> None:
    # The fuzzing campaign's shape: a step that asks in a recursion without end. Each
    # answer runs the step again from its start, so its cost is the square of its
    # questions: the default limit (1,000) ends it, not the nesting limit (10,000).
    result = check_text(DEEP_ASKING, "deep.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    transcript = Transcript()
    session = Session(compile_program(result), 0, Participants({"GM": Bot()}), Limits(), transcript)
    assert session.run() == "no-events"
    errors = [r for r in transcript.records if r["kind"] == "error"]
    assert [(r["tick"], r["message"]) for r in errors] == [
        (0, "more than 1000 questions in one step")
    ]
    assert [r["kind"] for r in transcript.records].count("query") == 1000
    assert any(r.get("text") == "still here" for r in transcript.records)
