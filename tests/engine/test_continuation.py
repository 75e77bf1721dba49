"""A resumable session (the server's) keeps a step of one handler waiting where it asked,
and goes on from there when the answer comes: it must be exactly the same as running the
step again from its start (what every other session does).

Sessions are run both ways in lockstep, with the same answers, and their transcripts and
snapshots compared byte for byte after every ``run()``: over a scenario written for it
(dice, objects made before and after the questions, two questions a step, hooks, counts,
secrets, an error after an answer, steps of several handlers and a ``foreach``), over the
examples (the paper's scenario among them) and over generated programs. Meanwhile the
resumable one is disturbed at random: snapshots taken, continuations dropped, the session
restored from its snapshot, runs in another thread. Each way back to running the step
again (``Session.settle``) is tested on its own.
"""

from __future__ import annotations

import gc
import json
import random
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore.dice import FixedSource
from lore.engine import continuation
from lore.engine.participants import Bot, Participants
from lore.engine.queries import Query
from lore.engine.randomness import Stream
from lore.engine.session import Limits, Session
from lore.engine.system_commands import chat_roll
from lore.engine.transcript import Transcript
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import check_paths, check_text
from tests.engine.test_restore_property import TEMPLATE as GENERATED
from tests.engine.test_restore_property import bodies
from tests.engine.test_waiting import Later

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SCENARIO = """\
import "basic.lore":url;
section cont {
 enum Move { strike; guard; }
 form Hero extends Actor {
  hp : integer;
  slot : integer;
  rule turn {
   system.count("turns", 1);
   system.on("struck", @(v : any) { GM.message("struck " + v); });
   before = 1D6.roll;
   mark = { name = "mark " + before; description = "made before"; }:Feature;
   self.message(name + " rolled " + before);
   first = self.query("move", { move = Move.input; n = integer.input; });
   after = 2D6.roll;
   late = { name = "mark " + after; description = "made after"; }:Feature;
   self.keep(mark);
   self.keep(late);
   GM.message(name + " " + first.n + " then " + after);
   second = self.query("again", { n = integer.input; });
   self.message("quotient " + 12 / (second.n - 3));
   select (first.move) {
    case (Move.strike) { ogre.hurt(second.n + after); system.signal("struck", second.n); }
    default { self.addKnownSecret("key" + second.n % 3); }
   }
   if (second.n == 9) { system.end("nine"); }
   if (schedule.current + 1[sec] <= 4[sec]) {
    schedule.add({ ticks = schedule.current + 1[sec]; priority = slot;
     handler = @{ self.turn; }; }:Event);
   }
  }
  alter keep(fs : list<Feature>) { self.features := features.addAll(fs); }
 }
 form Ogre extends Actor {
  hp : integer;
  alter hurt(amounts : list<integer>) { self.hp := hp - amounts.sum; }
 }
 table = { location = "/":loc; description = "a table"; geometry = [=[
<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point">
 <point label="0" />
</geometry>
]=]:xml; }:Area;
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc; hp = 10; slot = 0;
   features = list<Feature>.empty; items = list<Item>.empty;
   knownSecrets = list<string>.empty; }:Hero;
 ren = { name = "Ren"; player = "ren@example.org":jid; location = "/[0]":loc; hp = 10; slot = 1;
   features = list<Feature>.empty; items = list<Item>.empty;
   knownSecrets = list<string>.empty; }:Hero;
 ogre = { name = "Oni"; location = "/[0]":loc; hp = 40; features = list<Feature>.empty;
   items = list<Item>.empty; knownSecrets = list<string>.empty; }:Ogre;
 gem0 = { name = "gem0"; location = "/[0]":loc; features = list<Feature>.empty;
   secrets = {{ key = "key0"; mode = Secret.Mode.hide; }:Secret}; }:Item;
 gem1 = { name = "gem1"; location = "/[0]":loc; features = list<Feature>.empty;
   secrets = {{ key = "key1"; mode = Secret.Mode.hide; }:Secret}; }:Item;
 hit = { pattern = "HIT{n}"; help = "HIT2: 2d6";
   handler = @(n : list<integer>) : Roll { result = GM.roll((n.get(0))d6); }; }:Command;
 first = { ticks = 0; priority = 0; handler = @{ aki.turn; }; }:Event;
 second = { ticks = 0; priority = 1; handler = @{ ren.turn; }; }:Event;
 both1 = { ticks = 10; priority = 0; handler = @{ aki.turn; }; }:Event;
 both2 = { ticks = 10; priority = 0; handler = @{ ren.turn; }; }:Event;
 all = { ticks = 12; priority = 0; handler = @{
  system.allPC.foreach(@(a : Actor) { select (a) { as (h : Hero) { h.turn; } default { } } });
 }; }:Event;
}
"""
SEATS = ("GM", "aki@example.org", "ren@example.org")
LIMITS = Limits(max_ticks=30, max_events=500)
# The examples' game time runs in rounds, hours and days.
LONG = Limits(max_ticks=10**8, max_steps=5_000, max_events=500)
_PROGRAMS: dict[str, CompiledProgram] = {}


def scenario() -> CompiledProgram:
    found = _PROGRAMS.get("scenario")
    if found is None:
        result = check_text(SCENARIO, "cont.lore")
        assert result.ok, [d.render() for d in result.diagnostics]
        found = _PROGRAMS["scenario"] = compile_program(result)
    return found


def example(name: str, entry: str = "scenario.lore") -> CompiledProgram:
    found = _PROGRAMS.get(name)
    if found is None:
        result = check_paths([EXAMPLES / name / entry])
        assert result.ok, [d.render() for d in result.diagnostics]
        found = _PROGRAMS[name] = compile_program(result)
    return found


def later() -> Participants:
    return Participants(default=lambda who: Later())


def new(program: CompiledProgram, seed: int, resumable: bool, limits: Limits = LIMITS) -> Session:
    return Session(program, seed, later(), limits, resumable=resumable)


Answerer = Callable[[Query, int], dict[str, Any]]


def bot_answers(seed: int) -> Answerer:
    """Answers a bot picks, from a stream of their own (the same for both sessions)."""

    def answer(query: Query, number: int) -> dict[str, Any]:
        stream = Stream(seed, number)
        return {item.name: Bot.pick(item, stream) for item in query.inputs}

    return answer


def drawn_answers(values: list[int]) -> Answerer:
    """The scenario's answers: a move and numbers, in turn from ``values``."""

    def answer(query: Query, number: int) -> dict[str, Any]:
        value = values[number % len(values)]
        found: dict[str, Any] = {"n": value}
        if any(item.name == "move" for item in query.inputs):
            found["move"] = "strike" if value % 2 else "guard"
        return found

    return answer


def state(session: Session) -> tuple[str, bytes, str]:
    """What must be the same both ways: the transcript, the snapshot and the open
    questions, as bytes."""
    records = json.dumps(session.transcript.records, ensure_ascii=False, sort_keys=True)
    opened = json.dumps([q.record() for q in session.open_questions()], ensure_ascii=False)
    return records, session.snapshot(), opened


def same(fast: Session, slow: Session) -> None:
    """``fast`` and ``slow`` are in the same state (told briefly when not: the assertion's
    own account of two long texts takes minutes)."""
    for what, mine, theirs in zip(
        ("transcript", "snapshot", "questions"), state(fast), state(slow), strict=True
    ):
        if mine != theirs:
            pairs = enumerate(zip(mine, theirs, strict=False))
            at = next((i for i, (a, b) in pairs if a != b), min(len(mine), len(theirs)))
            near = slice(max(0, at - 60), at + 60)
            pytest.fail(f"the {what}s differ at {at}: {mine[near]!r} / {theirs[near]!r}")


def disturb(session: Session, how: str) -> Session:
    """Something that must change nothing: a snapshot, a dropped continuation, the
    session restored from its snapshot (with the same transcript)."""
    if how == "snapshot":
        session.snapshot()
    elif how == "settle":
        session.settle()
    elif how == "restore":
        session.settle()  # (a kept step holds its session: greenlets' frames are not
        # looked into by the cyclic collector, so a session dropped with one is never freed)
        return Session.restore(
            session.program,
            session.snapshot(),
            participants=later(),
            transcript=session.transcript,
            limits=session.limits,
            resumable=True,
        )
    return session


def run_in(session: Session, thread: bool) -> str:
    if not thread:
        return session.run()
    found: list[str] = []
    worker = threading.Thread(target=lambda: found.append(session.run()))
    worker.start()
    worker.join()
    return found[0]


def lockstep(
    program: CompiledProgram,
    seed: int,
    answer: Answerer,
    disturbances: list[str] = (),  # type: ignore[assignment]
    most: int = 40,
    limits: Limits = LIMITS,
) -> tuple[int, int]:
    """Run a resumable session and one that runs its steps again side by side, with the
    same answers, comparing them after every run; how many runs waited, and how many of
    those kept their step where it asked."""
    sessions = [new(program, seed, True, limits), new(program, seed, False, limits)]
    try:
        return _lockstep(sessions, answer, disturbances, most)
    except (AssertionError, pytest.fail.Exception) as error:
        # Told without the sessions: a failure's traceback holds the frames that hold
        # them, and Hypothesis keeps the failures it finds while it shrinks one.
        told = str(error)
    finally:
        for session in sessions:
            session.settle()  # (see ``disturb``: a kept step would hold it for good)
        sessions.clear()
    pytest.fail(told)


def _lockstep(
    sessions: list[Session], answer: Answerer, disturbances: list[str], most: int
) -> tuple[int, int]:
    fast, slow = sessions
    waited = kept = 0
    number = 0
    for turn in range(most):
        how = disturbances[turn % len(disturbances)] if disturbances else ""
        reason = run_in(fast, how == "thread")
        assert slow.run() == reason
        same(fast, slow)
        if reason != "waiting":
            break
        waited += 1
        kept += fast.worker is not None and fast.worker.kept is not None
        fast = disturb(fast, how)
        sessions.append(fast)
        for query in slow.open_questions():
            values = answer(query, number)
            number += 1
            refused = slow.answer(query.id, values, seat=query.to)
            assert fast.answer(query.id, values, seat=query.to) == refused
        same(fast, slow)
    return waited, kept


def test_the_scenario_goes_on_where_it_asked_and_the_same_as_running_again() -> None:
    waited, kept = lockstep(scenario(), 3, drawn_answers([4, 5, 7, 2, 8]))
    assert waited >= 10
    assert kept >= waited // 2  # the steps of one handler (not those of two, or a foreach)


def test_a_kept_step_runs_its_handler_once() -> None:
    resumed = []
    original = continuation.wait_here

    def counted(rt: Any, key: Any) -> Any:
        done = original(rt, key)
        if done is not False:  # (the handler kept where it asked went on)
            resumed.append(key)
        return done

    continuation.wait_here = counted
    try:
        session = new(scenario(), 1, True)
        assert session.run() == "waiting"
        (query,) = session.open_questions()
        assert session.worker is not None and session.worker.kept is not None
        assert session.answer(query.id, {"move": "guard", "n": 4}) is None
        assert session.run() == "waiting"  # at the step's second question
        assert session.worker is not None and session.worker.kept is not None
    finally:
        continuation.wait_here = original
    assert len(resumed) == 1  # it went on where it asked, once
    # What was told before the first question is told once.
    told = [r["text"] for r in session.transcript.records if r["kind"] == "message"]
    assert len([t for t in told if "rolled" in t]) == 1


@pytest.mark.parametrize("value", [3, 9])
def test_an_error_or_an_end_after_the_answer_is_the_same(value: int) -> None:
    # 3: a division by zero after the second answer (the step is dropped and the GM
    # told, at the same place); 9: the session ends with an outcome.
    lockstep(scenario(), 0, drawn_answers([5, value]))
    fast = new(scenario(), 0, True)
    for values in ({"move": "strike", "n": 5}, {"n": value}):
        assert fast.run() == "waiting"
        (query,) = fast.open_questions()
        assert fast.answer(query.id, values) is None
    fast.run()
    kinds = [r["kind"] for r in fast.transcript.records]
    assert ("error" in kinds) == (value == 3)
    assert (fast.ended == "ended") == (value == 9)


@pytest.mark.parametrize("how", ["snapshot", "settle", "restore", "thread"])
def test_disturbed_the_same(how: str) -> None:
    waited, _ = lockstep(scenario(), 5, drawn_answers([6, 1, 8, 4]), [how, ""])
    assert waited >= 10


def test_an_outcome_after_a_step_run_again_then_resumed_ends_the_same() -> None:
    # Restored, the session runs its waiting step again, which asks again and is kept;
    # resumed by the next answer, the step after it reaches an outcome: the run ends
    # after that one step, as a session running its steps again does (found by the
    # property below).
    disturbances = ["restore", "restore", "settle", "snapshot", "snapshot", ""]
    lockstep(scenario(), 28205, drawn_answers([1, 1, 5, 9, 7, 1, 4]), disturbances)


@pytest.mark.parametrize(
    ("name", "entry"),
    [
        ("paper", "scenario.lore"),
        ("round", "scenario.lore"),
        ("expedition", "scenario.lore"),
        ("ninja", "scenario.lore"),
        ("tavern", "scenario.lore"),
        ("blackpoker", "scenario.lore"),
    ],
)
def test_the_examples_go_on_the_same(name: str, entry: str) -> None:
    waited, kept = lockstep(example(name, entry), 7, bot_answers(11), most=30, limits=LONG)
    # (30 runs that waited, or fewer when a rule ends the example first: the tavern
    # closes, the expedition ends at sunset.)
    assert waited >= 15 and kept >= 10, (waited, kept)


SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
DISTURBANCES = st.lists(st.sampled_from(["", "", "snapshot", "settle", "restore"]), max_size=6)


@SETTINGS
@given(
    values=st.lists(st.integers(0, 9), min_size=1, max_size=8),
    seed=st.integers(0, 2**16),
    disturbances=DISTURBANCES,
)
def test_the_scenario_with_any_answers(
    values: list[int], seed: int, disturbances: list[str]
) -> None:
    lockstep(scenario(), seed, drawn_answers(values), disturbances)


@SETTINGS
@given(
    name=st.sampled_from(["paper", "round", "expedition", "tavern"]),
    seed=st.integers(0, 2**16),
    answers=st.integers(0, 2**16),
    disturbances=DISTURBANCES,
)
def test_the_examples_with_any_answers(
    name: str, seed: int, answers: int, disturbances: list[str]
) -> None:
    lockstep(example(name), seed, bot_answers(answers), disturbances, most=20, limits=LONG)


@SETTINGS
@given(
    body=bodies(),
    seed=st.integers(0, 2**16),
    answers=st.integers(0, 2**16),
    disturbances=DISTURBANCES,
)
def test_generated_programs(
    tmp_path_factory: pytest.TempPathFactory,
    body: list[str],
    seed: int,
    answers: int,
    disturbances: list[str],
) -> None:
    numbers = random.Random(seed)
    text = GENERATED.format(
        body="\n".join(f"   {line}" for line in body),
        hp0=numbers.randint(1, 30),
        hp1=numbers.randint(1, 30),
        power0=numbers.randint(0, 5),
        power1=numbers.randint(0, 5),
    )
    folder = tmp_path_factory.mktemp("generated")
    (folder / "fz.lore").write_text(text, encoding="utf-8")
    result = check_paths([folder / "fz.lore"])
    assert result.ok, [d.render() for d in result.diagnostics] + [text]
    lockstep(compile_program(result), seed, bot_answers(answers), disturbances)


# ------------------------------------------------------------ each way back to running again


def kept_session(seed: int = 2) -> Session:
    session = new(scenario(), seed, True)
    assert session.run() == "waiting"
    assert session.worker is not None and session.worker.kept is not None
    return session


def answer_all(session: Session, values: dict[str, Any]) -> None:
    for query in session.open_questions():
        assert session.answer(query.id, values) is None


def same_as_running_again(
    change: Callable[[Session], object], values: dict[str, Any], dropped: bool = True
) -> None:
    """``change`` applied to a session kept waiting and to one that runs its steps
    again: the kept step is dropped (when ``dropped``), and both go on the same."""
    fast, slow = kept_session(), new(scenario(), 2, False)
    slow.run()
    change(fast)
    change(slow)
    assert (fast.worker is None or fast.worker.kept is None) == dropped
    answer_all(fast, values)
    answer_all(slow, values)
    assert fast.run() == slow.run()
    same(fast, slow)


def test_reopen_drops_the_kept_step() -> None:
    same_as_running_again(Session.reopen, {"move": "guard", "n": 2})


def test_a_stop_drops_the_kept_step() -> None:
    def stop(session: Session) -> None:
        session.stop_requested = True
        assert session.run() == "stopped"

    same_as_running_again(stop, {"move": "guard", "n": 2})


def test_fire_soon_drops_the_kept_step() -> None:
    def fire(session: Session) -> None:
        session.settle()  # (what fire_soon does first; its trigger needs a world)

    same_as_running_again(fire, {"move": "strike", "n": 6})


def test_a_command_typed_in_the_chat_drops_the_kept_step() -> None:
    def typed(session: Session) -> None:
        found = chat_roll(session, "HIT2", "aki@example.org", FixedSource([3, 4]))
        assert found is not None and found.total == 7

    same_as_running_again(typed, {"move": "strike", "n": 6})


def test_a_plain_chat_line_keeps_it() -> None:
    def typed(session: Session) -> None:
        assert chat_roll(session, "hello", "aki@example.org", FixedSource([])) is None

    same_as_running_again(typed, {"move": "strike", "n": 6}, dropped=False)


def test_an_answer_in_another_thread_runs_the_step_again() -> None:
    fast, slow = kept_session(), new(scenario(), 2, False)
    slow.run()
    worker = fast.worker
    assert worker is not None
    answer_all(fast, {"move": "guard", "n": 1})
    answer_all(slow, {"move": "guard", "n": 1})
    assert run_in(fast, thread=True) == slow.run()
    assert worker.kept is None  # dropped; a new worker of that thread kept the next step
    same(fast, slow)


def test_steps_of_several_handlers_and_foreach_bodies_run_again() -> None:
    fast = new(scenario(), 4, True)
    answer = drawn_answers([5, 6, 7, 8])
    number = 0
    kept_at: list[tuple[int, bool]] = []
    while fast.run() == "waiting":
        kept_at.append((fast.ticks, fast.worker is not None and fast.worker.kept is not None))
        for query in fast.open_questions():
            assert fast.answer(query.id, answer(query, number)) is None
            number += 1
    assert all(kept for tick, kept in kept_at if tick < 10)
    assert not any(kept for tick, kept in kept_at if tick >= 10)
    assert any(tick >= 10 for tick, _ in kept_at)


def test_a_snapshot_of_a_kept_step_is_that_of_the_waiting_step() -> None:
    fast, slow = kept_session(), new(scenario(), 2, False)
    slow.run()
    assert fast.snapshot() == slow.snapshot()
    assert fast.worker is not None and fast.worker.kept is not None  # (still kept)
    restored = Session.restore(scenario(), fast.snapshot(), participants=later(), limits=LIMITS)
    for session in (fast, slow, restored):
        answer_all(session, {"move": "strike", "n": 7})
        session.run()
    same(fast, slow)
    restored_same = restored.snapshot() == slow.snapshot()
    assert restored_same


def test_given_dice_run_the_step_again() -> None:
    # Dice given in order are drawn again by a step run again: such a session keeps no
    # step (it would roll other dice).
    dice = FixedSource([1, 2, 3, 4, 5, 6] * 20)
    session = Session(scenario(), 0, later(), LIMITS, dice=dice, resumable=True)
    assert session.run() == "waiting"
    assert session.worker is None


def test_the_operations_of_a_handler_count_across_its_question() -> None:
    text = """\
import "basic.lore":url;
section ops {
 go = { ticks = 0; priority = 0; handler = @{
  a = 60D6.roll;
  q = GM.query("go on", { n = integer.input; });
  b = 60D6.roll;
  GM.message("sum " + (a + b + q.n));
 }; }:Event;
}
"""
    result = check_text(text, "ops.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    program = compile_program(result)
    sessions = [
        Session(program, 0, later(), Limits(max_ops=100), resumable=resumable)
        for resumable in (True, False)
    ]
    for session in sessions:
        assert session.run() == "waiting"
        answer_all(session, {"n": 1})
        session.run()
    fast, slow = sessions
    same(fast, slow)
    errors = [r for r in fast.transcript.records if r["kind"] == "error"]
    assert [r["message"] for r in errors] == [
        "one handler ran more than 100 rule calls, list steps and dice"
    ]
    assert errors[0]["where"] == "ops.lore:6:7"  # the dice after the question


def test_an_idle_session_is_freed_and_a_settled_one_too() -> None:
    session = new(scenario(), 0, True)
    session.run()
    answer_all(session, {"move": "guard", "n": 1})
    session.settle()
    session.run()
    session.settle()
    gone = weakref.ref(session)
    del session
    gc.collect()
    assert gone() is None


def test_a_session_whose_run_ended_in_its_worker_is_freed() -> None:
    # The run of steps ends in the worker (max-steps), which stays idle: it holds nothing
    # of the session, and a later run goes on in it.
    session = new(scenario(), 0, True, Limits(max_steps=1, max_events=500))
    reason = session.run()
    while reason == "waiting":
        for query in session.open_questions():
            values = {"move": "guard", "n": 1} if query.title != "again" else {"n": 1}
            assert session.answer(query.id, values) is None
        reason = session.run()
    assert reason == "stopped"
    worker = session.worker
    assert worker is not None and worker.kept is None and not worker.thread.dead
    assert session.run() == "stopped" and session.worker is worker
    gone = weakref.ref(session)
    del session
    gc.collect()
    assert gone() is None


def test_a_transcript_given_to_a_restored_session_goes_on() -> None:
    # (the lockstep's "restore": the records before the snapshot are kept)
    transcript = Transcript()
    fast = Session(scenario(), 0, later(), LIMITS, transcript, resumable=True)
    fast.run()
    restored = disturb(fast, "restore")
    assert restored.transcript is transcript and restored.worker is None


def test_a_settled_session_is_freed_when_dropped() -> None:
    """A kept step holds its session (the cyclic collector does not look into a
    suspended greenlet's frames): settled first, a waiting session is freed, worker and
    all."""
    waiting = kept_session()
    worker = waiting.worker
    waiting.settle()
    assert waiting.worker is None and worker is not None and worker.thread.dead
    found = weakref.ref(waiting)
    del waiting, worker
    gc.collect()
    assert found() is None
