"""Sessions benchmark: what a session of one shared compiled program costs to make.

Run from the project root::

    .venv/bin/python benchmarks/sessions.py [--sessions N] [--file FILE] [--json]

A server runs many sessions of one scenario: it checks and compiles the scenario once,
and makes every session from that compiled program (``Session(program, seed, ...)``,
then ``start()``: the program's values evaluated, its world built, its first events
queued). This benchmark makes N such sessions (default 10,000) of the Lore paper's
scenario (``examples/paper/scenario.lore``, the project's copy of the paper's sample)
and keeps them all, then reports the time and the memory (tracemalloc, after a full
collection) per session (the wall time is the target's; the CPU time is shown too, as it
varies less with the machine's load), beside the baseline of a session loaded whole
(checked, compiled and started: what each session would cost without sharing), measured
in the same run.
The targets: under 0.5 ms and 30 KB a session. It exits 0, as it is a report; 1 if the
scenario does not check or a session does not start.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from lore.engine.participants import Participants
from lore.engine.session import Session
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import check_paths
from lore.syntax.diagnostics import has_errors

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "examples" / "paper" / "scenario.lore"
TARGET_MS = 0.5
TARGET_KB = 30.0
WHOLE_RUNS = 20  # sessions loaded whole, for the baseline


def load(path: Path) -> CompiledProgram:
    result = check_paths([path])
    if has_errors(result.diagnostics):
        for diagnostic in result.diagnostics[:10]:
            print(diagnostic.render(), file=sys.stderr)
        raise SystemExit(1)
    return compile_program(result)


def started(program: CompiledProgram, seed: int) -> Session:
    session = Session(program, seed, Participants())
    session.start()
    if session.errors:
        raise SystemExit(f"a session did not start: {session.errors[0].render()}")
    return session


def per_shared_session(program: CompiledProgram, count: int) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, bytes) per session made from ``program``, all kept."""
    started(program, 0)  # the first session of a program prepares it for all the others
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    kept = [started(program, seed) for seed in range(count)]
    seconds = (time.perf_counter() - start) / count
    cpu = (time.process_time() - cpu) / count
    del kept
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        kept = [started(program, seed) for seed in range(count)]
        gc.collect()
        size = (tracemalloc.get_traced_memory()[0] - base) / count
        del kept
    finally:
        tracemalloc.stop()
    return seconds, cpu, size


def per_whole_session(path: Path, runs: int) -> tuple[float, float]:
    """(seconds, bytes) of a session checked, compiled and started on its own."""
    times = []
    for seed in range(runs):
        start = time.perf_counter()
        started(load(path), seed)
        times.append(time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        kept = started(load(path), 0)
        gc.collect()
        size = tracemalloc.get_traced_memory()[0] - base
        del kept
    finally:
        tracemalloc.stop()
    return statistics.median(times), size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000, help="sessions (default 10,000)")
    parser.add_argument("--file", type=Path, default=SCENARIO, help="the scenario")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.sessions < 1:
        parser.error("--sessions must be at least 1")
    if not args.file.is_file():
        parser.error(f"no scenario at {args.file}")
    program = load(args.file)
    shared_s, shared_cpu, shared_b = per_shared_session(program, args.sessions)
    whole_s, whole_b = per_whole_session(args.file, min(WHOLE_RUNS, args.sessions))
    figures = {
        "sessions": args.sessions,
        "shared_ms": shared_s * 1000,
        "shared_cpu_ms": shared_cpu * 1000,
        "shared_kb": shared_b / 1024,
        "whole_ms": whole_s * 1000,
        "whole_kb": whole_b / 1024,
        "time_vs_whole": shared_s / whole_s,
        "memory_vs_whole": shared_b / whole_b,
        "passes": shared_s * 1000 < TARGET_MS and shared_b / 1024 < TARGET_KB,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    verdict = "PASS" if figures["passes"] else "FAIL"
    print(
        f"{args.sessions:,} sessions of {args.file.name} from one compiled program\n\n"
        f"{'':28}{'ms':>8}{'KB':>9}\n"
        f"{'shared program, each':28}{shared_s * 1000:>8.3f}{shared_b / 1024:>9.1f}"
        f"  target < {TARGET_MS} ms and < {TARGET_KB:.0f} KB  {verdict}\n"
        f"{'loaded whole (baseline)':28}{whole_s * 1000:>8.3f}{whole_b / 1024:>9.1f}\n"
        f"{'shared / whole':28}{figures['time_vs_whole']:>8.3f}{figures['memory_vs_whole']:>9.3f}\n"
        f"(CPU time of a shared session: {shared_cpu * 1000:.3f} ms; the wall time counts the"
        " machine's load too)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
