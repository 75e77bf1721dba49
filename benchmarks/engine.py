"""Engine benchmark: how many events per second a Lore session runs.

Run from the project root::

    .venv/bin/python benchmarks/engine.py [--actors N] [--rounds R] [--repeat K] [--json]
        [--no-freeze] [--profile [TOP]]

The workload: N actors (default 1,000), each with a rule that reads and compares a few of
its members, rolls a die, requests an alter and schedules itself again one round (``[R]`` =
5 minutes) later; R rounds (default 1,000), so N x R events (10^6 by default). The same
logic runs three ways in one process:

- Lore: the program below, generated as text, checked and compiled with the project's API
  and run by ``Session`` with ``Limits(max_ticks=...)`` (all the engine's semantics: a step
  per round, requests grouped and applied in the update phase, each handler's own dice,
  the limits counted);
- SimPy: N processes, each looping read/compare, roll with ``random.Random``, update,
  ``yield env.timeout(300)``;
- bare: a ``heapq`` loop calling a plain Python function per event.

It prints events/s for each, the ratios Lore/SimPy and Lore/bare against the targets
(Lore >= SimPy, Lore >= 0.3 x bare) with PASS/FAIL, and the peak memory per pending event
(see ``traced_peak``). It exits 0, as it is a report; 1 if the Lore program does not check
or its run goes wrong. ``--profile`` adds the top of a cProfile of a short Lore run.
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
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import simpy

from lore.engine.session import Limits, Session
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import check_text
from lore.syntax.diagnostics import has_errors

TARGET_VS_SIMPY = 1.0
TARGET_VS_BARE = 0.3
ROUND_TICKS = 300  # 1[R] = 5[min]
SEED = 1
NAME = "bench.lore"  # a name in <...> would make the events not be scheduled at start
MEMORY_ROUNDS = 20  # rounds run while tracemalloc is on (it slows everything down)


# ---------------------------------------------------------------- the workload


@dataclass
class ActorSpec:
    hp: int
    attack: int
    guard: int


def actor_specs(count: int) -> list[ActorSpec]:
    rng = random.Random(SEED)
    return [
        ActorSpec(rng.randint(10, 30), rng.randint(0, 3), rng.randint(5, 15)) for _ in range(count)
    ]


LORE_HEAD = """\
import "basic.lore":url;

section bench {
 [R] = 5[min];

 form Fighter extends Actor {
  hp : integer;
  attack : integer;
  guard : integer;

  rule act {
   roll = 1D6.roll;
   if (hp > guard & roll + attack >= 5) {
    self.hurt(roll);
   } else {
    self.hurt(-roll);
   }
   schedule.add({
    ticks = schedule.current + 1[R];
    priority = 0;
    handler = @{ self.act; };
   }:Event);
  }

  alter hurt(amounts : list<integer>) {
   self.hp := hp - amounts.sum;
  }
 }
"""


def lore_program(specs: list[ActorSpec]) -> str:
    """The Lore source: the Fighter form, then each actor and its first event (at 0)."""
    lines = [LORE_HEAD]
    for i, spec in enumerate(specs):
        lines.append(
            f' a{i} = {{ name = "a{i}"; hp = {spec.hp}; attack = {spec.attack}; '
            f"guard = {spec.guard}; }}:Fighter;\n"
            f" e{i} = {{ ticks = 0; priority = 0; handler = @{{ a{i}.act; }}; }}:Event;\n"
        )
    lines.append("}\n")
    return "".join(lines)


def compile_lore(text: str) -> CompiledProgram:
    result = check_text(text, NAME)
    if has_errors(result.diagnostics):
        for diagnostic in result.diagnostics[:10]:
            print(diagnostic.render(), file=sys.stderr)
        raise SystemExit(1)
    return compile_program(result)


def lore_session(program: CompiledProgram, rounds: int) -> Session:
    """A started session: every actor's first event is queued (events at 0 ... rounds-1)."""
    session = Session(program, seed=0, limits=Limits(max_ticks=ROUND_TICKS * (rounds - 1)))
    session.start()
    return session


def run_lore(program: CompiledProgram, actors: int, rounds: int) -> int:
    """Run the session; the number of events that ran (checked against what must have)."""
    session = lore_session(program, rounds)
    reason = session.run()
    if session.errors or reason != "stopped" or session.steps != rounds:
        message = session.errors[0].render() if session.errors else reason
        raise SystemExit(f"the Lore run went wrong: {message} after {session.steps} steps")
    return actors * rounds


class State:
    __slots__ = ("attack", "guard", "hp")

    def __init__(self, spec: ActorSpec) -> None:
        self.hp = spec.hp
        self.attack = spec.attack
        self.guard = spec.guard


def simpy_setup(specs: list[ActorSpec]) -> simpy.Environment:
    env = simpy.Environment()
    rng = random.Random(0)

    def fighter(state: State) -> Any:
        while True:
            roll = rng.randint(1, 6)
            if state.hp > state.guard and roll + state.attack >= 5:
                state.hp -= roll
            else:
                state.hp += roll
            yield env.timeout(ROUND_TICKS)

    for spec in specs:
        env.process(fighter(State(spec)))
    return env


def run_simpy(specs: list[ActorSpec], rounds: int) -> int:
    env = simpy_setup(specs)
    env.run(until=ROUND_TICKS * rounds)  # runs the events at 0 ... rounds-1
    return len(specs) * rounds


def bare_act(state: State, rng: random.Random) -> None:
    roll = rng.randint(1, 6)
    if state.hp > state.guard and roll + state.attack >= 5:
        state.hp -= roll
    else:
        state.hp += roll


def bare_setup(specs: list[ActorSpec]) -> list[tuple[int, int, State]]:
    queue = [(0, seq, State(spec)) for seq, spec in enumerate(specs)]
    heapq.heapify(queue)
    return queue


def run_bare(specs: list[ActorSpec], rounds: int) -> int:
    queue = bare_setup(specs)
    rng = random.Random(0)
    end = ROUND_TICKS * rounds
    seq = len(queue)
    events = 0
    while queue:
        ticks, _, state = heapq.heappop(queue)
        if ticks >= end:
            break
        bare_act(state, rng)
        events += 1
        seq += 1
        heapq.heappush(queue, (ticks + ROUND_TICKS, seq, state))
    return events


# ---------------------------------------------------------------- measuring


def timed(run: Callable[[], int], repeat: int) -> tuple[int, float]:
    """(events, seconds) of the fastest of ``repeat`` runs, each after a full collection."""
    events, best = 0, float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        events = run()
        best = min(best, time.perf_counter() - start)
    return events, best


def traced_peak(run: Callable[[], object]) -> int:
    """The peak of the memory ``run`` allocates, in bytes, measured by tracemalloc.

    The method: with tracemalloc on, the peak is reset right before the call and read
    after it; the memory traced before the call (the compiled program, the specs) is
    subtracted. A run builds the whole state (actors, queue, pending events) and then
    runs MEMORY_ROUNDS rounds, so the peak holds everything an event keeps while it
    waits (queue entry, event object, handler closure), what a step allocates while it
    runs, and each actor's own state, as every actor has exactly one pending event.
    Divided by the number of actors it is the peak memory per pending event.
    """
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    return peak - before


@dataclass
class Report:
    actors: int
    rounds: int
    repeat: int
    frozen: bool
    events: int
    lore_events_per_s: float
    simpy_events_per_s: float
    bare_events_per_s: float
    lore_vs_simpy: float
    lore_vs_bare: float
    lore_bytes_per_pending_event: float
    simpy_bytes_per_pending_event: float
    bare_bytes_per_pending_event: float

    def passes(self) -> dict[str, bool]:
        return {
            "vs SimPy": self.lore_vs_simpy >= TARGET_VS_SIMPY,
            "vs bare": self.lore_vs_bare >= TARGET_VS_BARE,
        }


def measure(actors: int, rounds: int, repeat: int, freeze: bool = True) -> Report:
    specs = actor_specs(actors)
    program = compile_lore(lore_program(specs))
    if freeze:
        # The checked and compiled program lives as long as the process: like ``lore sim``,
        # take it (and all that exists now) out of the collector's way, so that full
        # collections do not scan it again and again. The three runs below all gain alike.
        gc.collect()
        gc.freeze()
    lore_events, lore_time = timed(lambda: run_lore(program, actors, rounds), repeat)
    simpy_events, simpy_time = timed(lambda: run_simpy(specs, rounds), repeat)
    bare_events, bare_time = timed(lambda: run_bare(specs, rounds), repeat)
    assert lore_events == simpy_events == bare_events
    lore_rate = lore_events / lore_time
    simpy_rate = simpy_events / simpy_time
    bare_rate = bare_events / bare_time
    memory_rounds = min(rounds, MEMORY_ROUNDS)
    lore_peak = traced_peak(lambda: run_lore(program, actors, memory_rounds))
    simpy_peak = traced_peak(lambda: run_simpy(specs, memory_rounds))
    bare_peak = traced_peak(lambda: run_bare(specs, memory_rounds))
    return Report(
        actors=actors,
        rounds=rounds,
        repeat=repeat,
        frozen=freeze,
        events=lore_events,
        lore_events_per_s=lore_rate,
        simpy_events_per_s=simpy_rate,
        bare_events_per_s=bare_rate,
        lore_vs_simpy=lore_rate / simpy_rate,
        lore_vs_bare=lore_rate / bare_rate,
        lore_bytes_per_pending_event=lore_peak / actors,
        simpy_bytes_per_pending_event=simpy_peak / actors,
        bare_bytes_per_pending_event=bare_peak / actors,
    )


def profile(actors: int, rounds: int, top: int) -> str:
    program = compile_lore(lore_program(actor_specs(actors)))
    gc.collect()
    gc.freeze()
    session = lore_session(program, rounds)
    profiler = cProfile.Profile()
    profiler.runcall(session.run)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


# ---------------------------------------------------------------- reporting


def format_table(report: Report) -> str:
    passes = report.passes()

    def status(ok: bool) -> str:
        return "PASS" if ok else "FAIL"

    lines = [
        f"{report.actors:,} actors x {report.rounds:,} rounds = {report.events:,} events"
        f" (fastest of {report.repeat}; program {'frozen' if report.frozen else 'not frozen'})",
        "",
        f"{'':24}{'events/s':>12}{'bytes/pending event':>22}",
        f"{'Lore':24}{report.lore_events_per_s:>12,.0f}"
        f"{report.lore_bytes_per_pending_event:>22,.0f}",
        f"{'SimPy':24}{report.simpy_events_per_s:>12,.0f}"
        f"{report.simpy_bytes_per_pending_event:>22,.0f}",
        f"{'bare heapq loop':24}{report.bare_events_per_s:>12,.0f}"
        f"{report.bare_bytes_per_pending_event:>22,.0f}",
        "",
        f"Lore/SimPy {report.lore_vs_simpy:6.2f}  target >= {TARGET_VS_SIMPY:.1f}  "
        f"{status(passes['vs SimPy'])}",
        f"Lore/bare  {report.lore_vs_bare:6.2f}  target >= {TARGET_VS_BARE:.1f}  "
        f"{status(passes['vs bare'])}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actors", type=int, default=1_000, help="actors (default 1,000)")
    parser.add_argument("--rounds", type=int, default=1_000, help="rounds (default 1,000)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each, the fastest counts (default 3)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--no-freeze",
        action="store_true",
        help="leave the compiled program in the garbage collector's generations",
    )
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=25,
        default=None,
        metavar="TOP",
        help="also print the top TOP functions of a cProfile of a 20-round Lore run",
    )
    args = parser.parse_args(argv)
    if args.actors < 1 or args.rounds < 1 or args.repeat < 1:
        parser.error("--actors, --rounds and --repeat must be at least 1")
    report = measure(args.actors, args.rounds, args.repeat, freeze=not args.no_freeze)
    if args.json:
        figures: dict[str, Any] = asdict(report)
        figures["targets"] = {"vs SimPy": TARGET_VS_SIMPY, "vs bare": TARGET_VS_BARE}
        figures["passes"] = report.passes()
        print(json.dumps(figures, indent=2))
    else:
        print(format_table(report))
    if args.profile is not None:
        print(profile(args.actors, min(args.rounds, MEMORY_ROUNDS), args.profile))
    return 0


if __name__ == "__main__":
    sys.exit(main())
