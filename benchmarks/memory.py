"""Memory benchmark: a session's memory does not grow with its history.

Run from the project root::

    .venv/bin/python benchmarks/memory.py [--events 1e3,1e5] [--json]

The workload: one event after another, each making a new object, altering it and
dropping it (``Thing``s that nothing keeps). After each number of events the memory the
session still holds is measured with tracemalloc (after a full collection), less what
existed before it started; the figure is the ratio of the memory after the most events
to that after the fewest: a session that keeps nothing it no longer needs stays near
1 (target: within 2x). It exits 0, as it is a report.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tracemalloc

from lore.engine.session import Limits, Session
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import check_text
from lore.syntax.diagnostics import has_errors

TARGET = 2.0
PROGRAM = """\
import "basic.lore":url;

section churn {
 form Thing {
  hp : integer;
  alter hurt(amounts : list<integer>) {
   self.hp := hp - amounts.sum;
  }
 }

 rule tick {
  thing = { hp = 10; }:Thing;
  thing.hurt(1);
  schedule.add({ ticks = schedule.current + 1[sec]; priority = 0; handler = @{ tick; }; }:Event);
 }

 start = { ticks = 0; priority = 0; handler = @{ tick; }; }:Event;
}
"""


def compiled() -> CompiledProgram:
    result = check_text(PROGRAM, "churn.lore")
    if has_errors(result.diagnostics):
        for diagnostic in result.diagnostics:
            print(diagnostic.render(), file=sys.stderr)
        raise SystemExit(1)
    return compile_program(result)


def retained(program: CompiledProgram, events: int) -> int:
    """Bytes the session holds after ``events`` events (each one step), less the base."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        session = Session(program, 0, limits=Limits(max_steps=events))
        reason = session.run()
        if reason != "stopped" or session.steps != events or session.errors:
            raise SystemExit(f"the run went wrong: {reason} after {session.steps} steps")
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
        del session
    finally:
        tracemalloc.stop()
    return held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--events",
        type=lambda text: [int(float(part)) for part in text.split(",")],
        default=[1_000, 100_000],
        help="numbers of events, fewest first (default 1e3,1e5)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    program = compiled()
    held = {events: retained(program, events) for events in args.events}
    fewest, most = min(held), max(held)
    ratio = held[most] / held[fewest]
    if args.json:
        print(json.dumps({"retained_bytes": held, "ratio": ratio, "target": TARGET}, indent=2))
        return 0
    for events, size in held.items():
        print(f"{events:>10,} events: {size:>12,} bytes retained")
    verdict = "PASS" if ratio <= TARGET else "FAIL"
    print(f"ratio {most:,} / {fewest:,} events: {ratio:.2f}  target <= {TARGET:.1f}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
