"""Simulation (``lore.analysis.simulate``): many sessions with bots on one compiled program.

The figures of the examples, determinism (the same seed gives the same results, in one
process or several), rule errors counted with their place, stops by the limits, and
that sessions sharing a compiled program do not disturb each other.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.analysis.intervals import wilson
from lore.analysis.simulate import (
    ENDS,
    RunResult,
    SimulationError,
    Spread,
    load_program,
    run_session,
    simulate,
    summarize,
)
from lore.cli.sim_command import _whole
from lore.engine.participants import Bot, Participants
from lore.engine.session import Limits, Session
from lore.engine.transcript import Transcript
from lore.runtime.compiler import CompiledProgram

REPO = Path(__file__).resolve().parents[2]
HELLO = REPO / "examples" / "hello.lore"
TAVERN = REPO / "examples" / "tavern" / "scenario.lore"

# Counts down once a minute, then divides by zero (line 15); a session ends with no events.
OOPS = """\
import "basic.lore":url;

section oops {
 start = {
  ticks = 0;
  priority = 0;
  handler = @{ count(3); };
 }:Event;

 rule count(n : integer) {
  GM.message("n = " + n);
  if (n > 0) {
   later(n - 1);
  } else {
   x = 10 / (n - n);
  }
 }

 rule later(n : integer) {
  schedule.add({
   ticks = schedule.current + 60[sec];
   priority = 0;
   handler = @{ count(n); };
  }:Event);
 }
}
"""

# Never ends: every 10 seconds the next tick, rolling a die each time.
ENDLESS = """\
import "basic.lore":url;

section endless {
 start = {
  ticks = 0;
  priority = 0;
  handler = @{ tick; };
 }:Event;

 rule tick {
  if (1D6.roll == 6) {
   GM.message("six");
  }
  schedule.add({
   ticks = schedule.current + 10[sec];
   priority = 0;
   handler = @{ tick; };
  }:Event);
 }
}
"""


def load(path: Path) -> CompiledProgram:
    program, diagnostics = load_program([path])
    assert program is not None, [d.render() for d in diagnostics]
    return program


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_hello_ends_with_no_events_after_one_greeting() -> None:
    results = simulate(load(HELLO), [HELLO], runs=3)
    summary = summarize(results, 0)
    assert summary.runs == 3
    assert summary.ends == {
        "ended": 0,
        "no-events": 3,
        "no-answer": 0,
        "max-ticks": 0,
        "max-steps": 0,
        "error": 0,
    }
    assert summary.errors == ()
    assert (summary.ticks.low, summary.ticks.mean, summary.ticks.high) == (0, 0.0, 0)
    assert (summary.steps.low, summary.steps.mean, summary.steps.high) == (1, 1.0, 1)
    assert (summary.messages, summary.messages_per_run) == (3, 1.0)
    assert summary.queries == 0


def test_tavern_runs_until_the_step_limit_with_bots_answering() -> None:
    limits = Limits(max_steps=4)  # (the inn closes after 5 steps or more with these seeds)
    results = simulate(load(TAVERN), [TAVERN], runs=4, seed=10, limits=limits)
    assert [result.seed for result in results] == [10, 11, 12, 13]
    summary = summarize(results, 10, limits)
    assert summary.ends["max-steps"] == 4
    assert summary.errors == ()
    assert (summary.steps.low, summary.steps.high) == (4, 4)
    assert summary.ticks.low > 0
    # Each adventurer is asked for a plan on its turns; the GM is told of the start.
    assert summary.queries >= 4 * 4
    assert summary.messages >= 4
    assert summary.to_json()["seeds"] == [10, 13]
    assert summary.to_json()["limits"] == {"max_steps": 4, "max_ticks": None}


def test_the_same_seed_gives_the_same_results() -> None:
    program = load(TAVERN)
    limits = Limits(max_steps=100)
    first = simulate(program, [TAVERN], runs=3, seed=5, limits=limits)
    again = simulate(program, [TAVERN], runs=3, seed=5, limits=limits)
    assert first == again
    other = simulate(program, [TAVERN], runs=3, seed=6, limits=limits)
    assert other[:2] == first[1:]  # run i of seed S is the run of seed S + i
    assert first[0] != first[1]  # the seed matters


def test_several_processes_give_the_same_results_as_one() -> None:
    program = load(TAVERN)
    limits = Limits(max_steps=60)
    one = simulate(program, [TAVERN], runs=5, seed=3, limits=limits, jobs=1)
    seen: list[int] = []
    two = simulate(
        program,
        [TAVERN],
        runs=5,
        seed=3,
        limits=limits,
        jobs=2,
        progress=lambda result: seen.append(result.seed),
    )
    assert two == one
    assert sorted(seen) == [3, 4, 5, 6, 7]


def test_a_rule_error_is_counted_at_its_place(tmp_path: Path) -> None:
    path = write(tmp_path, "oops.lore", OOPS)
    summary = summarize(simulate(load(path), [path], runs=4), 0)
    assert summary.ends["no-events"] == 4
    assert len(summary.errors) == 1
    group = summary.errors[0]
    assert (group.where, group.message) == (f"{path}:15:8", "division by zero")
    assert (group.count, group.runs) == (4, 4)
    assert summary.messages == 4 * 4  # n = 3, 2, 1, 0
    assert summary.ticks.high == 180
    assert summary.to_json()["errors"] == [
        {
            "where": f"{path}:15:8",
            "message": "division by zero",
            "count": 4,
            "sessions": 4,
            **wilson(4, 4).to_json(),
        }
    ]


def test_stops_by_the_limits_are_counted(tmp_path: Path) -> None:
    path = write(tmp_path, "endless.lore", ENDLESS)
    program = load(path)
    by_steps = summarize(simulate(program, [path], runs=2, limits=Limits(max_steps=25)))
    assert by_steps.ends["max-steps"] == 2
    assert by_steps.steps.high == 25
    assert by_steps.ticks.high == 240
    by_ticks = summarize(simulate(program, [path], runs=2, limits=Limits(max_ticks=100)))
    assert by_ticks.ends["max-ticks"] == 2
    assert (by_ticks.ticks.high, by_ticks.steps.high) == (100, 11)
    assert set(by_ticks.ends) == set(ENDS)


def test_a_run_result_tells_how_it_ended(tmp_path: Path) -> None:
    path = write(tmp_path, "endless.lore", ENDLESS)
    result = run_session(load(path), 7, Limits(max_steps=3))
    assert result == RunResult(
        seed=7,
        end="max-steps",
        detail="max-steps",
        ticks=20,
        steps=3,
        messages=result.messages,
        queries=0,
    )


def transcript_of(program: CompiledProgram, seed: int, steps: int) -> list[str]:
    transcript = Transcript()
    session = Session(
        program, seed, Participants(default=lambda who: Bot()), Limits(max_steps=steps), transcript
    )
    session.run()
    return transcript.lines()


def test_sessions_sharing_a_program_do_not_disturb_each_other() -> None:
    program = load(TAVERN)
    alone = [transcript_of(program, seed, 80) for seed in (1, 2)]
    # The first session gave the prelude's forms the engine's rules; no session changes more.
    methods = {name: dict(form.methods) for name, form in program.form_by_name.items()}
    # Two sessions in turns, a step of one then a step of the other, on one program.
    transcripts = [Transcript(), Transcript()]
    sessions = [
        Session(
            program, seed, Participants(default=lambda who: Bot()), Limits(max_steps=80), transcript
        )
        for seed, transcript in zip((1, 2), transcripts, strict=True)
    ]
    for session in sessions:
        session.start()
    for _ in range(80):
        for session in sessions:
            if session.pending() and session.outcome is None:
                session.step()
    for session in sessions:
        session.run()  # ends them (by their outcome: the inn closes; or at the step limit)
    assert [transcript.lines() for transcript in transcripts] == alone
    # A later session finds the program as the first one left it.
    assert transcript_of(program, 1, 80) == alone[0]
    assert {name: dict(form.methods) for name, form in program.form_by_name.items()} == methods


@pytest.mark.parametrize("path", [HELLO, TAVERN], ids=["hello", "tavern"])
def test_a_program_with_check_errors_is_not_compiled(path: Path, tmp_path: Path) -> None:
    broken = write(tmp_path, "broken.lore", path.read_text(encoding="utf-8") + "\nnonsense")
    program, diagnostics = load_program([broken])
    assert program is None
    assert any(d.render().startswith(f"{broken}:") for d in diagnostics)


def test_a_worker_that_finds_the_program_broken_stops_the_simulation(tmp_path: Path) -> None:
    path = write(tmp_path, "hello.lore", HELLO.read_text(encoding="utf-8"))
    program = load(path)
    path.write_text("section broken {", encoding="utf-8")  # changed after the check
    with pytest.raises(SimulationError, match="no longer checks"):
        simulate(program, [path], runs=2, jobs=2)


def test_a_spread_of_game_times_past_a_floats_range_is_exact() -> None:
    # A mutated scenario waited 1e308 seconds: its ticks do not fit in a float, and the
    # summary of a sim took their mean with floats (an OverflowError shown to the user).
    huge = 10**400
    spread = Spread.of([huge, huge + 2])
    assert (spread.low, spread.mean, spread.high) == (huge, huge + 1, huge + 2)
    assert _whole(spread.mean, 1) == f"{huge + 1:,}.0"
    assert _whole(Spread.of([3, 4]).mean, 1) == "3.5"
