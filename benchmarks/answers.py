"""Answer benchmark: the server's CPU per answer, without the network.

Run from the project root::

    .venv/bin/python benchmarks/answers.py [--tables N] [--answers A] [--repeat K]
        [--json] [--profile [TOP] [--together]]

The workload is ``benchmarks/server.py``'s: N sessions (default 50) of the round-table
example, made endless, with 3 player seats each; their questions are answered in turn
(``roll``) by log entries given to the session's ``Table`` (``Table.apply``: the engine
runs the answered step and the rest of the turn, then each seat's update is made and
encoded), A answers in all (default 6,000). It times, in one process, the same answers
three ways:

- *table*: ``Table.apply`` of an answer entry (what the server does per answer but for
  the store and the sockets);
- *engine*: the session master alone (``Master.answer``, then its open questions): the
  engine's share of it;
- *engine, run again*: the same with a session that runs a waiting step again from its
  start when its answer comes, instead of going on where it asked (``Session(...,
  resumable=False)``, as sessions other than the server's do): what the continuation
  saves. The two are timed in the same run, answer for answer in turn (each first every
  other time), so that the machine's other work weighs on both alike;
- *bare*: the baseline, the same turn in plain Python: the question looked up, two dice
  rolled with ``random.Random``, the messages built with f-strings, the next turn pushed
  on a ``heapq``, and the three seats' update frames encoded with msgspec: what a
  hand-written server of this one game would do per answer.

The same is timed for a second workload, *together*: the three players' turns come at
the same time (one step of three handlers, each asking its player), so three questions
are open at once and answered one by one. A step of several handlers is not kept where it
asked: each answer runs the step again (the handlers answered already get their answers,
the others ask again), resumable session or not.

Figures: microseconds of CPU time per answer (the process's, so that the machine's other
work weighs little; the fastest of K runs, default 3) and each one's ratio to *bare*.
``--profile`` prints cProfile's top functions (by own time) of a *table* run.
``--callgrind`` counts machine instructions per answer instead (``valgrind
--tool=callgrind``: repeatable whatever else runs), of *table* with every seat's updates
made, of *table* with the players' alone (as ``lore serve`` makes them while the GM has
no client: the GM's stream is kept, its updates not encoded), and of *engine*: each in a
process of its own, twice (``CALLGRIND_ANSWERS``), the difference counted.
The cyclic collector runs with the server's thresholds (``lore serve`` raises them), so
that its share of an answer is the server's.
It exits 0 (it is a report).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import heapq
import io
import json
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import msgspec

if __package__:  # imported as benchmarks.* (the tests)
    from benchmarks.callgrind import instructions as callgrind_instructions
else:  # run as a script: its folder is on the path
    from callgrind import instructions as callgrind_instructions

from lore.cli.serve_command import collect_for_serving
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table

ROOT = Path(__file__).resolve().parents[1]
ROUND = ROOT / "examples" / "round"
SEATS = [("aki@example.org", "Aki"), ("ren@example.org", "Ren"), ("sora@example.org", "Sora")]


@dataclass
class Figures:
    tables: int
    answers: int
    table_us: float = 0.0
    engine_us: float = 0.0
    rerun_us: float = 0.0
    bare_us: float = 0.0
    table_ratio: float = 0.0  # table / bare
    engine_ratio: float = 0.0  # engine / bare
    # The workload whose steps ask the three players at once (see the module's doc).
    together_table_us: float = 0.0
    together_engine_us: float = 0.0
    together_rerun_us: float = 0.0


def endless_program(folder: Path, together: bool = False) -> CompiledProgram:
    """The round table, made endless; ``together``: the three players' turns all start at
    the first tick (and so stay together), one step asking all three."""
    text = (ROUND / "scenario.lore").read_text(encoding="utf-8")
    text = text.replace("last = 60[sec];", "last = 1000000000[sec];")
    if together:
        text = text.replace("ticks = 1;", "ticks = 0;").replace("ticks = 2;", "ticks = 0;")
    (folder / "scenario.lore").write_text(text, encoding="utf-8")
    return compile_program(checked(folder, "scenario.lore"))


def table_run(
    program: CompiledProgram, tables: int, answers: int, players: bool = False
) -> Callable[[], float]:
    """A run of ``answers`` answers over fresh tables: the seconds ``Table.apply`` took
    (``players``: only the players' seats listen, the GM's updates are not made)."""

    def run() -> float:
        made = [Table(Master(program, seed), SEATS, "digest") for seed in range(tables)]
        for table in made:
            if players:
                table.listening = {seat for seat, _ in SEATS}
            table.start()
        spent = 0.0
        clock = time.process_time
        for number in range(answers):
            table = made[number % tables]
            question = table.master.open_questions()[0]
            data = {"seat": question.to, "id": question.id, "values": {"move": "roll"}}
            entry = LogEntry(table.applied + 1, "answer", data)
            start = clock()
            outcome = table.apply(entry)
            spent += clock() - start
            assert not isinstance(outcome, Refusal), outcome
        for table in made:
            table.master.session.settle()  # (a step kept waiting holds its session)
        return spent

    return run


def engine_runs(
    program: CompiledProgram, tables: int, answers: int
) -> Callable[[], tuple[float, float]]:
    """The same answers given to the session masters alone, and to masters whose
    sessions run a waiting step again (not resumable), in turn: the seconds each took."""

    def run() -> tuple[float, float]:
        kinds = (True, False)
        masters = {
            kind: [Master(program, seed, resumable=kind) for seed in range(tables)]
            for kind in kinds
        }
        questions: dict[bool, list[Any]] = {}
        for kind in kinds:
            for master in masters[kind]:
                master.start()
            questions[kind] = [master.open_questions()[0] for master in masters[kind]]
        spent = {True: 0.0, False: 0.0}
        clock = time.process_time
        for number in range(answers):
            index = number % tables
            for kind in kinds if number % 2 else kinds[::-1]:  # each first in turn
                master = masters[kind][index]
                start = clock()
                problem = master.answer(questions[kind][index].id, {"move": "roll"})
                found = master.open_questions()
                spent[kind] += clock() - start
                assert problem is None, problem
                questions[kind][index] = found[0]
        for master in masters[True]:
            master.session.settle()
        return spent[True], spent[False]

    return run


def bare_run(tables: int, answers: int) -> Callable[[], float]:
    """The baseline: the round-table turn written in plain Python."""
    encode = msgspec.json.Encoder().encode
    names = ["Aki", "Ren", "Sora"]

    def run() -> float:
        rng = random.Random(5)
        games = [
            {"scores": [0, 0, 0], "queue": [(0, 0), (1, 1), (2, 2)], "open": "0//0", "seq": 0}
            for _ in range(tables)
        ]
        spent = 0.0
        clock = time.process_time
        for number in range(answers):
            game = games[number % tables]
            start = clock()
            queue: list[tuple[int, int]] = game["queue"]  # type: ignore[assignment]
            tick, who = heapq.heappop(queue)
            assert game["open"]
            points = [rng.randint(1, 6), rng.randint(1, 6)]
            scores: list[int] = game["scores"]  # type: ignore[assignment]
            scores[who] += sum(points)
            said = f"{names[who]} は {points} を出した。"
            heapq.heappush(queue, (tick + 3, who))
            nxt = queue[0][1]
            title = f"{names[nxt]} の手番（得点 {scores[nxt]}）"
            game["open"] = f"{tick + 1}//0"
            game["seq"] += 1  # type: ignore[operator]
            for seat in range(3):
                frame: dict[str, Any] = {"type": "update", "seq": game["seq"], "view": {}}
                frame["messages"] = [{"kind": "message", "tick": tick, "text": said}]
                frame["closed"] = [f"{tick}//0"]
                if seat == nxt:
                    frame["opened"] = [{"id": game["open"], "title": title, "inputs": []}]
                encode(frame)
            spent += clock() - start
        return spent

    return run


def fastest(run: Callable[[], float], repeat: int) -> float:
    return min(run() for _ in range(repeat))


def measure(
    tables: int, answers: int, repeat: int, programs: tuple[CompiledProgram, CompiledProgram]
) -> Figures:
    """Both workloads (``programs``: turns in turn, turns together)."""
    figures = Figures(tables, answers)
    per = 1e6 / answers
    figures.bare_us = fastest(bare_run(tables, answers), repeat) * per
    found = []
    for program in programs:
        both = [engine_runs(program, tables, answers)() for _ in range(repeat)]
        table = fastest(table_run(program, tables, answers), repeat) * per
        engine = min(engine for engine, _ in both) * per
        found.append((table, engine, min(rerun for _, rerun in both) * per))
    (figures.table_us, figures.engine_us, figures.rerun_us) = found[0]
    (figures.together_table_us, figures.together_engine_us, figures.together_rerun_us) = found[1]
    figures.table_ratio = figures.table_us / figures.bare_us
    figures.engine_ratio = figures.engine_us / figures.bare_us
    return figures


def report(figures: Figures) -> str:
    return "\n".join(
        [
            f"{figures.answers} answers over {figures.tables} sessions (round table)",
            f"  table (Table.apply)  {figures.table_us:8.1f} us/answer"
            f"  {figures.table_ratio:6.1f} x bare",
            f"  engine (Master)      {figures.engine_us:8.1f} us/answer"
            f"  {figures.engine_ratio:6.1f} x bare",
            f"  engine, run again    {figures.rerun_us:8.1f} us/answer"
            f"  {figures.rerun_us / figures.bare_us:6.1f} x bare",
            f"  bare Python turn     {figures.bare_us:8.1f} us/answer  (baseline)",
            "the three turns together (one step asking all three: it runs again per answer)",
            f"  table (Table.apply)  {figures.together_table_us:8.1f} us/answer"
            f"  {figures.together_table_us / figures.bare_us:6.1f} x bare",
            f"  engine (Master)      {figures.together_engine_us:8.1f} us/answer"
            f"  {figures.together_engine_us / figures.bare_us:6.1f} x bare",
            f"  engine, run again    {figures.together_rerun_us:8.1f} us/answer"
            f"  {figures.together_rerun_us / figures.bare_us:6.1f} x bare",
        ]
    )


def profile(program: CompiledProgram, tables: int, answers: int, top: int) -> str:
    run = table_run(program, tables, answers)
    profiler = cProfile.Profile()
    profiler.enable()
    run()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


# Answers of the two runs --callgrind compares (their difference is what it counts).
CALLGRIND_ANSWERS = (200, 1200)
CALLGRIND_WAYS = ("table", "players", "engine")


def run_alone(way: str, tables: int, answers: int) -> None:
    """One run of ``way`` (``CALLGRIND_WAYS``): what --callgrind measures."""
    with tempfile.TemporaryDirectory(prefix="lore-answers-") as folder:
        program = endless_program(Path(folder))
    collect_for_serving()
    if way == "engine":  # (the resumable sessions of ``engine_runs`` alone)
        masters = [Master(program, seed) for seed in range(tables)]
        for master in masters:
            master.start()
        for number in range(answers):
            master = masters[number % tables]
            master.answer(master.open_questions()[0].id, {"move": "roll"})
            master.open_questions()
    else:
        table_run(program, tables, answers, players=way == "players")()


def instructions(way: str, tables: int, answers: int) -> int:
    """The machine instructions a process running ``run_alone`` executes, by callgrind."""
    return callgrind_instructions(__file__, f"{way},{tables},{answers}")


def callgrind(tables: int) -> str:
    """Machine instructions per answer of each way (see the module's docstring)."""
    few, many = CALLGRIND_ANSWERS
    found = {}
    for way in CALLGRIND_WAYS:
        counts = [instructions(way, tables, answers) for answers in (few, many)]
        found[way] = (counts[1] - counts[0]) / (many - few)
    engine = found["engine"]
    return "\n".join(
        [
            f"machine instructions per answer (callgrind; {tables} sessions, round table)",
            f"  table (Table.apply), every seat    {found['table']:10,.0f}"
            f"  engine and more: {found['table'] - engine:9,.0f}",
            f"  table, the players' seats alone    {found['players']:10,.0f}"
            f"  engine and more: {found['players'] - engine:9,.0f}",
            f"  engine (Master)                    {engine:10,.0f}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--answers", type=int, default=6000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", type=int, nargs="?", const=30, default=None)
    parser.add_argument(
        "--together", action="store_true", help="profile the turns-together workload"
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="count machine instructions per answer instead (valgrind)",
    )
    parser.add_argument("--alone", help=argparse.SUPPRESS)  # way,tables,answers
    args = parser.parse_args(argv)
    if args.alone:
        way, tables, answers = args.alone.split(",")
        run_alone(way, int(tables), int(answers))
        return 0
    if args.callgrind:
        print(callgrind(args.tables))
        return 0
    with tempfile.TemporaryDirectory(prefix="lore-answers-") as folder:
        program = endless_program(Path(folder))
    with tempfile.TemporaryDirectory(prefix="lore-answers-") as folder:
        together = endless_program(Path(folder), together=True)
    thresholds = gc.get_threshold()
    collect_for_serving()  # the server's collector thresholds, as `lore serve` sets them
    try:
        if args.profile is not None:
            chosen = together if args.together else program
            print(profile(chosen, args.tables, args.answers, args.profile))
            return 0
        figures = measure(args.tables, args.answers, args.repeat, (program, together))
    finally:
        gc.set_threshold(*thresholds)
    print(json.dumps(asdict(figures), indent=1) if args.json else report(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
