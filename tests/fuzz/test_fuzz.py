"""The fuzzing campaign with a small budget (about a minute): mutated seeds and generated
programs, each run by ``lore`` in a child process with a time limit and a memory cap. A
traceback, a case over its limits, a signal or an unknown exit status fails the test,
with the case's files saved to run again. ``scripts/fuzz --minutes 60`` runs it longer."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from lore.engine.participants import Bot, Participants
from lore.engine.session import Limits as SessionLimits
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from lore.syntax.parser import MAX_NESTING
from tests.fuzz.campaign import Tally, mutation_batch, program_cases, warm_up
from tests.fuzz.harness import LORE_PACKAGE, Case, Limits, Outcome, run_case
from tests.fuzz.mutate import Mutator
from tests.fuzz.programs import Program, programs
from tests.fuzz.seeds import seeds

HELLO = Path(__file__).resolve().parents[2] / "examples" / "hello.lore"
CASE = Case("hello", {"hello.lore": HELLO.read_bytes()}, ("check", "hello.lore"))


@pytest.fixture(scope="module")
def warm() -> None:
    warm_up()


def failures_of(tally: Tally) -> list[str]:
    """The new failures, each with what it printed (its traceback)."""
    return [f"{s}\n{tally.failures[s][1].detail}" for s in tally.new_failures()]


# ---------------------------------------------------------------- the harness itself


def test_a_clean_case_is_ok() -> None:
    outcome = run_case(CASE)
    assert (outcome.kind, outcome.status, outcome.out) == ("ok", 0, "")


def raises(argv: list[str]) -> int:
    raise KeyError("a bug")


def loops(argv: list[str]) -> int:
    while True:
        pass


def eats(argv: list[str]) -> int:
    hoard = []
    while True:
        hoard.append(bytearray(10**7))


def exits_oddly(argv: list[str]) -> int:
    return 3


def prints_a_traceback(argv: list[str]) -> int:
    print("Traceback (most recent call last):\n  something went wrong")
    return 1


@pytest.mark.parametrize(
    ("entry", "kind", "signature", "cpu"),
    [
        (raises, "traceback", "check: KeyError", 1),
        (loops, "time", "check: time", 1),
        # (In a whole run, forked from a large pytest process, filling 300 MB took the
        # child over a second of CPU, twice in a row: the memory limit is what must end
        # it, so the CPU limit stands well clear of it.)
        (eats, "memory", "check: memory", 10),
        (exits_oddly, "status", "check: status", 1),
        (prints_a_traceback, "traceback", "check: something went wrong", 1),
    ],
)
def test_the_harness_tells_what_went_wrong(
    entry: object, kind: str, signature: str, cpu: int
) -> None:
    assert callable(entry)
    # The CPU and memory limits end the child; the wall clock is only a backstop, long
    # enough that a child starved of the CPU on a busy machine is not taken for a loop.
    outcome = run_case(CASE, Limits(cpu=cpu, wall=30, memory=300 * 1024 * 1024), entry=entry)
    assert outcome.kind == kind, outcome  # (what killed it, and when, if not that)
    assert outcome.failed
    assert outcome.signature(CASE) == signature


def test_a_traceback_is_placed_in_lores_own_code_whatever_the_checkout_is_called() -> None:
    # A checkout named "lore" holds the tests and the virtual environment too: a frame
    # there is not Lore's code, though "/lore/" is in its path.
    printer = LORE_PACKAGE / "syntax" / "printer.py"
    trace = (
        "Traceback (most recent call last):\n"
        f'  File "{printer}", line 3, in render\n'
        '  File "/home/someone/lore/tests/fuzz/test_fuzz.py", line 9, in raises\n'
        '  File "/home/someone/lore/.venv/lib/python3.11/site-packages/x.py", line 1, in f\n'
        "KeyError: 1\n"
    )
    outcome = Outcome("traceback", 1, trace, 0.1)
    assert outcome.signature(CASE) == "check: KeyError at lore/syntax/printer.py:render"
    alone = Outcome("traceback", 1, trace.replace(str(printer), "/home/someone/lore/x.py"), 0.1)
    assert alone.signature(CASE) == "check: KeyError"


def test_every_time_out_is_kept_and_a_traceback_once(tmp_path: Path) -> None:
    tally = Tally(report=lambda text: None, out=tmp_path)
    slow = [Case("slow", {"a.lore": str(n).encode()}, ("sim", "a.lore")) for n in range(3)]
    broken = [Case("broken", {"a.lore": str(n).encode()}, ("check", "a.lore")) for n in range(2)]
    late = Outcome("time", None, "over its CPU time", 60.0)
    trace = Outcome("traceback", 1, 'Traceback\n  File "x.py"\nKeyError: 1', 0.1)
    for case in [*slow, slow[0], *broken]:
        tally.record(case, trace if case.name == "broken" else late)
    assert sorted(tally.signatures.items()) == [("check: KeyError", 2), ("sim: time", 4)]
    # three different slow programs (the one that came twice once), one of the tracebacks
    assert len(tally.failures) == 4
    assert len(list(tmp_path.iterdir())) == 4
    assert len(tally.new_failures()) == 4
    assert "sim: time: 4 cases" in tally.summary()


# ---------------------------------------------------------------- the campaign, small


def test_mutations_of_the_seeds(warm: None, tmp_path: Path) -> None:
    kinds = {seed.name.split("/")[0].split(" ")[0] for seed in seeds()}
    assert {"examples", "docs", "tests"} <= kinds
    assert any("save" in seed.name for seed in seeds())
    tally = Tally(report=lambda text: None, out=tmp_path)
    mutation_batch(tally, Mutator(random.Random(2024), seeds()), 300)
    assert sum(tally.cases.values()) == 300
    assert set(tally.cases) == {"check", "fmt", "run", "sim"}
    assert failures_of(tally) == []


@settings(
    max_examples=15,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(programs())
def test_generated_programs(program: Program) -> None:
    tally = Tally(report=lambda text: None)
    for case in program_cases(program, random.Random(0)):
        tally.run(case)
    assert failures_of(tally) == [], program.text


# ---------------------------------------------------------------- fixed cases

# The shape of generated programs the campaign found running past their time (rules on
# one line each, as generated): a rule that runs every second (r0) starts one (r1) whose
# loops call rules that loop and schedule, so that each of its steps scheduled events by
# the hundred thousand until the waiting limit stopped it, seconds a step. Now each stops
# at the handler's limit of 10,000 events (here r1 would schedule 12,348).
FLOODING = Path(__file__).parent / "cases" / "flooding.lore"


def test_a_flood_of_scheduled_events_is_stopped_at_the_handler() -> None:
    # r1 calls r2 7 times, r2 calls r3 49 times, and r3 schedules 36 events: 12,348 in all.
    result = check_text(FLOODING.read_text(encoding="utf-8"), "flooding.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    session = Session(compile_program(result), 3, limits=SessionLimits(max_steps=20))
    assert session.run() == "stopped"
    assert session.steps == 20
    # Ten seconds of r0 and r1; each r1 stopped at the 10,001st event it scheduled: 277
    # calls of r3 scheduled 9,972, and the 29th of the next is its second schedule.add.
    assert [(e.message, e.location()) for e in session.errors] == [
        ("one handler scheduled more than 10000 events", "flooding.lore:11:219")
    ] * 10
    assert session.pending() == 1  # the next r0: nothing r1 scheduled waits


# More programs of the campaign, kept as drawn. rolling.lore: a recursion without end
# that rolls 10,000 dice a call took over a minute a step (the 10,000-deep nesting limit
# let it roll 50 million dice); each die now counts as an operation. asking.lore: a
# recursion that asks at each call; each answer runs the step again from its start, so
# the 10,000 questions a step could ask cost their square (20 s a step); a step may now
# ask 1,000 and send 1,000 messages (its calls send more messages than they ask, so the
# messages limit ends it first). multiplying.lore: events that multiply, each a recursion
# sending a message a call; a step that reached the old 10,000 messages cost a 400-step run
# of it two minutes. doubling.lore: each handler schedules two more and works through a
# chain of 200 whole-number operations; it reached the old waiting limit, 1,000,000, after
# a million handlers (35 s a session); the limit is now 100,000. nesting.lore: a rule that
# calls itself from a foreach body, down to the depth limit: each body's dice stream was
# made from its whole path, so 5,000 nested bodies cost their square (30 s a session); it
# is now made from the enclosing body's in one step.
SLOW = [
    (
        "rolling",
        20,
        "no-events",
        "one handler ran more than 1000000 rule calls, list steps and dice",
        "13:38",
    ),
    ("asking", 20, "no-events", "more than 1000 messages in one step", "14:331"),
    ("multiplying", 30, "stopped", "more than 1000 messages in one step", "14:12"),
    (
        "doubling",
        50,
        "no-events",
        "more than 100000 events would wait: events keep scheduling more events (this step"
        " and the 0 waiting events of its handlers are dropped)",
        "9:113",
    ),
    ("nesting", 50, "no-events", "rules call each other more than 10000 deep", "9:171"),
]


@pytest.mark.parametrize(("name", "steps", "end", "message", "where"), SLOW)
def test_the_campaigns_slow_programs_end_at_a_limit(
    name: str, steps: int, end: str, message: str, where: str
) -> None:
    path = Path(__file__).parent / "cases" / f"{name}.lore"
    result = check_text(path.read_text(encoding="utf-8"), f"{name}.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    participants = Participants({"GM": Bot()})
    session = Session(compile_program(result), 3, participants, SessionLimits(max_steps=steps))
    assert session.run() == end
    assert [(e.message, e.location()) for e in session.errors] == [
        (message, f"{name}.lore:{where}")
    ]


def dotted(parts: int) -> bytes:
    """A program whose section nests ``parts`` sections in one another by a dotted name,
    inside one section of braces, with a value and an event in the innermost."""
    name = ".".join(f"s{n}" for n in range(parts))
    return (
        "section top {\n"
        f" section {name} {{\n"
        "  size = 6;\n"
        '  start = { ticks = 0; priority = 0; handler = @{ GM.message("ok"); }; }:Event;\n'
        " }\n"
        "}\n"
    ).encode()


def test_a_dotted_section_name_is_nesting_up_to_the_limit() -> None:
    # The campaign found `section a.b.c...` with some 3,000 parts: the parser let it pass
    # (its parts are one name), and the world's check walked the sections recursively: a
    # RecursionError. Each part after the first is now a level of nesting for the limit.
    fine = {"deep.lore": dotted(MAX_NESTING - 10)}  # the event, its handler and call nest too
    for argv in (("check", "deep.lore"), ("run", "deep.lore")):
        outcome = run_case(Case("dotted", fine, argv))
        assert (outcome.kind, outcome.status) == ("ok", 0), outcome.detail
    assert "ok" in run_case(Case("dotted", fine, ("run", "deep.lore"))).out
    too_deep = {"deep.lore": dotted(3000)}
    outcome = run_case(Case("dotted", too_deep, ("check", "deep.lore")))
    assert (outcome.kind, outcome.status) == ("ok", 1)
    assert "deep.lore:2:" in outcome.out
    assert f"error: nesting deeper than {MAX_NESTING} levels" in outcome.out
    assert "a dotted name nests each part" in outcome.out


def chained(links: int) -> bytes:
    """A program with a value made of a chain of ``links`` members after a list."""
    return f"section s {{\n l = {{1, 2}};\n x = l{'.reverse' * links};\n}}\n".encode()


def test_a_chain_of_members_is_nesting_up_to_the_limit() -> None:
    # The campaign found `system.allP.allP...` with some 3,000 links: the parser let it
    # pass (it reads a chain in a loop), and `lore fmt` printed the tree it makes, one
    # member inside the next, recursively: a RecursionError. Each link is now a level.
    fine = {"chain.lore": chained(MAX_NESTING - 10)}
    outcome = run_case(Case("chain", fine, ("fmt", "chain.lore")))
    assert (outcome.kind, outcome.status) == ("ok", 0), outcome.detail
    assert ".reverse.reverse;" in outcome.out
    too_deep = {"chain.lore": chained(3000)}
    for argv in (("check", "chain.lore"), ("fmt", "chain.lore")):
        outcome = run_case(Case("chain", too_deep, argv))
        assert (outcome.kind, outcome.status) == ("ok", 1), outcome.detail
        assert "chain.lore:3:" in outcome.out
        assert f"error: nesting deeper than {MAX_NESTING} levels" in outcome.out
        assert "give a part of the chain a name first" in outcome.out
