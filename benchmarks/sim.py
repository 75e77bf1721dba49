"""Simulation benchmark: ``lore sim`` throughput, in sessions per CPU second.

Run from the project root::

    .venv/bin/python benchmarks/sim.py [--runs N] [--file FILE] [--repeat K] [--json]

It runs ``lore sim FILE --runs N`` (default: the ORM sample, 200 sessions) as a command,
with ``--jobs 1`` and ``--jobs 2``, and times each: the CPU seconds of the command and
of its worker processes (``RUSAGE_CHILDREN``: checking, compiling, starting the workers
and summing up included) and the wall time, whose ratio between one and two processes
is the ``--jobs`` scaling (on a machine with two free cores; on a loaded one it is less).
Beside them, in the same run, the baseline *engine loop*: the same N sessions run in this
process by ``analysis.simulate.run_session`` on a program compiled once (no command, no
check, no summary): what the sessions themselves cost, so that ``lore sim``'s ratio to it
is its overhead. A row for ``--policy greedy`` (every seat planning, a tenth of the
sessions) shows what the planning bots cost per session.
Figures: the fastest of K runs (default 1). It exits 0 (it is a report); 1 if a run fails.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from lore.analysis.simulate import load_program, run_session, settle
from lore.engine.session import Limits

ROOT = Path(__file__).resolve().parents[1]
ORM = ROOT / "examples" / "orm" / "scenario.lore"
BASELINE = "engine loop"


@dataclass
class Row:
    name: str
    runs: int
    cpu_s: float
    wall_s: float
    runs_per_cpu_s: float
    runs_per_wall_s: float
    vs_baseline: float = 0.0  # runs per CPU second, over the baseline's


def lore_sim(path: Path, runs: int, jobs: int, extra: list[str]) -> tuple[float, float]:
    """CPU and wall seconds of one ``lore sim`` command (its workers' CPU included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "lore", "sim", str(path), "--runs", str(runs)]
    command += ["--jobs", str(jobs), "--json", *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"lore sim failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def engine_loop(path: Path, runs: int) -> tuple[float, float]:
    program, diagnostics = load_program([path])
    if program is None:
        raise RuntimeError(f"{path} does not check: {diagnostics[0].headline()}")
    settle()
    limits = Limits(max_steps=10_000)
    started, cpu_started = time.perf_counter(), time.process_time()
    for seed in range(runs):
        run_session(program, seed, limits)
    return time.process_time() - cpu_started, time.perf_counter() - started


def row(name: str, runs: int, timed: list[tuple[float, float]]) -> Row:
    cpu = min(one[0] for one in timed)
    wall = min(one[1] for one in timed)
    return Row(name, runs, cpu, wall, runs / cpu, runs / wall)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--file", type=Path, default=ORM)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    runs, repeat = max(1, args.runs), max(1, args.repeat)
    planned = max(1, runs // 10)
    try:
        rows = [
            row(BASELINE, runs, [engine_loop(args.file, runs) for _ in range(repeat)]),
            row(
                "lore sim --jobs 1", runs, [lore_sim(args.file, runs, 1, []) for _ in range(repeat)]
            ),
            row(
                "lore sim --jobs 2", runs, [lore_sim(args.file, runs, 2, []) for _ in range(repeat)]
            ),
            row(
                "lore sim --policy greedy",
                planned,
                [lore_sim(args.file, planned, 1, ["--policy", "greedy"]) for _ in range(repeat)],
            ),
        ]
    except RuntimeError as error:
        print(f"sim benchmark: {error}", file=sys.stderr)
        return 1
    base = rows[0].runs_per_cpu_s
    for one in rows:
        one.vs_baseline = one.runs_per_cpu_s / base
    scaling = rows[2].runs_per_wall_s / rows[1].runs_per_wall_s
    if args.json:
        figures = {"file": str(args.file), "rows": [asdict(one) for one in rows]}
        print(json.dumps({**figures, "jobs_2_wall_speedup": scaling}, indent=2))
        return 0
    print(f"lore sim of {args.file} ({runs:,} sessions; greedy: {planned:,})")
    print(f"{'':26}{'sessions/CPU s':>15}{'sessions/s':>12}{'vs ' + BASELINE:>17}")
    for one in rows:
        print(
            f"{one.name:26}{one.runs_per_cpu_s:>15,.1f}{one.runs_per_wall_s:>12,.1f}"
            f"{one.vs_baseline:>17.2f}"
        )
    print(f"--jobs 2 over --jobs 1, wall time: {scaling:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
