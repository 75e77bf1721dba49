"""Engine benchmark: events per second and memory per waiting event of a Lore session.

Run from the project root::

    .venv/bin/python benchmarks/engine.py [--sizes 1e3,1e4,1e5,1e6] [--events E]
        [--shapes lockstep,staggered] [--repeat K] [--quick] [--json] [--profile [TOP]]
        [--bytecodes] [--callgrind]

The workload: N actors (the size: N events always wait), each with a rule that reads and
compares a few of its members, rolls a die, requests an alter and schedules itself again
one period later. Two shapes:

- *lockstep*: every actor acts at the same times (period ``1[R]`` = 300 ticks), so each
  step runs N events at once;
- *staggered*: actor i acts at ticks i, i + N, i + 2N ...: every event has a time of its
  own, so every step runs one event (as most events of a real session do).

Each size runs about E events (default 2,000,000; at least two rounds), three ways in one
process, counting the same events:

- Lore: the ``Fighter`` form below, checked and compiled with the project's API; the
  actors are made with the runtime and their first events queued as an Event literal
  written in ``schedule.add`` is (the rule and its object), and ``Session`` runs them
  with all its semantics (two-phase steps, alters applied in the update, each handler's
  own dice, the limits counted);
- SimPy: N processes, each looping read/compare, roll with ``random.Random``, update,
  ``yield env.timeout(period)``;
- bare: a ``heapq`` loop calling a plain Python function per event.

Figures: events/s (the fastest of K runs, in CPU time of the process: on a shared
machine, wall time counts whatever else runs too; all three ways are timed alike), the
ratios against the targets (lockstep: Lore/SimPy >= 1.2, staggered: >= 1.0), and the
memory per waiting event measured with
tracemalloc: *steady* is what stays allocated after a few rounds (collected), less what
existed before the events were queued (the program, the actors): the queue, its entries
and whatever the engine keeps per event; *peak* is the highest allocation during those
rounds above the same base (what a step holds at once). ``--quick`` runs tiny sizes for a
smoke test (the figures mean nothing then). ``--bytecodes`` also counts the Python
instructions run per event by Lore and by SimPy (a tracer: slow, but the same on any
machine), with the functions that run most of them. ``--callgrind`` counts the machine
instructions per event of Lore and SimPy at each size and shape, under ``valgrind
--tool=callgrind`` (repeatable whatever else runs): each runs twice in a process of its own,
for two numbers of rounds, and the difference of the two totals over the difference of the
events leaves out the start-up, compiling and setting up. It exits 0, as it is a report; 1 if
the Lore program does not check or a run goes wrong.
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
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import FrameType
from typing import Any

import simpy

if __package__:  # imported as benchmarks.* (the tests)
    from benchmarks.callgrind import instructions as callgrind_instructions
else:  # run as a script: its folder is on the path
    from callgrind import instructions as callgrind_instructions

from lore.engine.session import Limits, Session
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.runtime.ops import rule_of
from lore.runtime.values import LoreObject
from lore.semantics.check import check_text
from lore.syntax.diagnostics import has_errors

TARGETS = {"lockstep": 1.2, "staggered": 1.0}  # Lore/SimPy
TARGET_VS_BARE = 0.3
LOCKSTEP_PERIOD = 300  # 1[R] = 5[min]
SEED = 1
NAME = "bench.lore"
MEMORY_ROUNDS = 3  # rounds run while tracemalloc is on (it slows everything down)
SIZES = (1_000, 10_000, 100_000, 1_000_000)
QUICK_SIZES = (10, 100)

LORE_PROGRAM = """\
import "basic.lore":url;

section bench {
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
    ticks = schedule.current + PERIOD[sec];
    priority = 0;
    handler = @{ self.act; };
   }:Event);
  }

  alter hurt(amounts : list<integer>) {
   self.hp := hp - amounts.sum;
  }
 }
}
"""


# ---------------------------------------------------------------- the workload


@dataclass(frozen=True)
class Shape:
    name: str
    actors: int
    rounds: int

    @property
    def period(self) -> int:
        return LOCKSTEP_PERIOD if self.name == "lockstep" else self.actors

    def offset(self, actor: int) -> int:
        """When actor ``actor`` acts first."""
        return 0 if self.name == "lockstep" else actor

    @property
    def end(self) -> int:
        """The first tick not run: every actor acts ``rounds`` times before it."""
        return self.period * self.rounds

    @property
    def events(self) -> int:
        return self.actors * self.rounds


@dataclass
class Spec:
    hp: int
    attack: int
    guard: int


def actor_specs(count: int) -> list[Spec]:
    rng = random.Random(SEED)
    return [Spec(rng.randint(10, 30), rng.randint(0, 3), rng.randint(5, 15)) for _ in range(count)]


def compile_lore(period: int) -> CompiledProgram:
    result = check_text(LORE_PROGRAM.replace("PERIOD", str(period)), NAME)
    if has_errors(result.diagnostics):
        for diagnostic in result.diagnostics[:10]:
            print(diagnostic.render(), file=sys.stderr)
        raise SystemExit(1)
    return compile_program(result)


def lore_session(program: CompiledProgram, shape: Shape) -> Session:
    """A started session with no events yet (the program declares none); its waiting
    limit is raised to hold the shape's actors (the default, 100,000, is a table's)."""
    limits = Limits(max_ticks=shape.end - 1, max_events=max(Limits.max_events, 2 * shape.actors))
    session = Session(program, seed=0, limits=limits)
    session.start()
    return session


def lore_actors(session: Session, specs: list[Spec]) -> list[LoreObject]:
    form = session.program.form_by_name["bench.Fighter"]
    rt = session.rt
    return [
        rt.new(form, {"name": f"a{i}", "hp": s.hp, "attack": s.attack, "guard": s.guard})
        for i, s in enumerate(specs)
    ]


def lore_queue(session: Session, actors: list[LoreObject], shape: Shape) -> None:
    """Each actor's first event, as an Event literal in ``schedule.add`` is queued."""
    act = rule_of(actors[0], "act")
    for i, actor in enumerate(actors):
        session.push(shape.offset(i), 0, act, actor)


def lore_prepared(program: CompiledProgram, specs: list[Spec], shape: Shape) -> Session:
    session = lore_session(program, shape)
    lore_queue(session, lore_actors(session, specs), shape)
    return session


def run_lore(session: Session, shape: Shape) -> int:
    """Run the session; the number of events that ran (checked against what must have)."""
    reason = session.run()
    steps = shape.rounds if shape.name == "lockstep" else shape.events
    if session.errors or reason != "stopped" or session.steps != steps:
        message = session.errors[0].render() if session.errors else reason
        raise SystemExit(f"the Lore run went wrong: {message} after {session.steps} steps")
    if session.pending() != shape.actors:
        raise SystemExit(f"the Lore run left {session.pending()} events, not {shape.actors}")
    return shape.events


class State:
    __slots__ = ("attack", "guard", "hp")

    def __init__(self, spec: Spec) -> None:
        self.hp = spec.hp
        self.attack = spec.attack
        self.guard = spec.guard


def simpy_setup(specs: list[Spec], shape: Shape) -> simpy.Environment:
    env = simpy.Environment()
    rng = random.Random(0)
    period = shape.period

    def fighter(state: State, offset: int) -> Any:
        if offset:
            yield env.timeout(offset)
        while True:
            roll = rng.randint(1, 6)
            if state.hp > state.guard and roll + state.attack >= 5:
                state.hp -= roll
            else:
                state.hp += roll
            yield env.timeout(period)

    for i, spec in enumerate(specs):
        env.process(fighter(State(spec), shape.offset(i)))
    return env


def run_simpy(env: simpy.Environment, shape: Shape) -> int:
    env.run(until=shape.end)
    return shape.events


def bare_act(state: State, rng: random.Random) -> None:
    roll = rng.randint(1, 6)
    if state.hp > state.guard and roll + state.attack >= 5:
        state.hp -= roll
    else:
        state.hp += roll


def bare_setup(specs: list[Spec], shape: Shape) -> list[tuple[int, int, State]]:
    queue = [(shape.offset(i), i, State(spec)) for i, spec in enumerate(specs)]
    heapq.heapify(queue)
    return queue


def run_bare(queue: list[tuple[int, int, State]], shape: Shape) -> int:
    rng = random.Random(0)
    end, period = shape.end, shape.period
    seq = len(queue)
    events = 0
    while queue:
        ticks, _, state = queue[0]
        if ticks >= end:
            break
        bare_act(state, rng)
        events += 1
        seq += 1
        heapq.heapreplace(queue, (ticks + period, seq, state))
    return events


# ---------------------------------------------------------------- measuring


def timed(prepare: Callable[[], Any], run: Callable[[Any], int], repeat: int) -> float:
    """Events/s of the fastest of ``repeat`` runs (each prepared, then collected, first),
    in CPU time of this process."""
    best = 0.0
    for _ in range(repeat):
        state = prepare()
        gc.collect()
        start = time.process_time()
        events = run(state)
        best = max(best, events / max(time.process_time() - start, 1e-9))
        del state
    return best


def traced(
    prepare: Callable[[], Any], queue: Callable[[Any], Any], run: Callable[[Any], int], waiting: int
) -> tuple[float, float]:
    """(steady, peak) bytes per waiting event, measured by tracemalloc (see the module's
    docstring): the base is taken once the objects exist and before the events are
    queued."""
    gc.collect()
    tracemalloc.start()
    try:
        state = prepare()
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        queued = queue(state)
        run(queued)
        peak = tracemalloc.get_traced_memory()[1]
        gc.collect()
        steady = tracemalloc.get_traced_memory()[0]
        del state, queued
    finally:
        tracemalloc.stop()
    return (steady - base) / waiting, (peak - base) / waiting


@dataclass
class Report:
    shape: str
    waiting: int
    rounds: int
    events: int
    repeat: int
    lore_events_per_s: float
    simpy_events_per_s: float
    bare_events_per_s: float
    lore_vs_simpy: float
    lore_vs_bare: float
    lore_steady_bytes_per_waiting_event: float
    simpy_steady_bytes_per_waiting_event: float
    bare_steady_bytes_per_waiting_event: float
    lore_peak_bytes_per_waiting_event: float
    simpy_peak_bytes_per_waiting_event: float
    bare_peak_bytes_per_waiting_event: float

    def passes(self) -> bool:
        return self.lore_vs_simpy >= TARGETS[self.shape]


def measure(name: str, actors: int, events: int, repeat: int) -> Report:
    rounds = max(2, events // actors)
    shape = Shape(name, actors, rounds)
    specs = actor_specs(actors)
    program = compile_lore(shape.period)
    lore = timed(lambda: lore_prepared(program, specs, shape), lambda s: run_lore(s, shape), repeat)
    simpy_rate = timed(lambda: simpy_setup(specs, shape), lambda e: run_simpy(e, shape), repeat)
    bare = timed(lambda: bare_setup(specs, shape), lambda q: run_bare(q, shape), repeat)

    few = Shape(name, actors, min(rounds, MEMORY_ROUNDS))

    def lore_base() -> tuple[Session, list[LoreObject]]:
        session = lore_session(program, few)
        return session, lore_actors(session, specs)

    def lore_queued(base: tuple[Session, list[LoreObject]]) -> Session:
        lore_queue(base[0], base[1], few)
        return base[0]

    lore_memory = traced(lore_base, lore_queued, lambda s: run_lore(s, few), actors)
    # SimPy and the bare loop make their state and their events together: their base is
    # the states alone, made the same way.
    simpy_memory = traced(
        lambda: [State(spec) for spec in specs],
        lambda _: simpy_setup(specs, few),
        lambda e: run_simpy(e, few),
        actors,
    )
    bare_memory = traced(
        lambda: [State(spec) for spec in specs],
        lambda _: bare_setup(specs, few),
        lambda q: run_bare(q, few),
        actors,
    )
    return Report(
        shape=name,
        waiting=actors,
        rounds=rounds,
        events=shape.events,
        repeat=repeat,
        lore_events_per_s=lore,
        simpy_events_per_s=simpy_rate,
        bare_events_per_s=bare,
        lore_vs_simpy=lore / simpy_rate,
        lore_vs_bare=lore / bare,
        lore_steady_bytes_per_waiting_event=lore_memory[0],
        simpy_steady_bytes_per_waiting_event=simpy_memory[0],
        bare_steady_bytes_per_waiting_event=bare_memory[0],
        lore_peak_bytes_per_waiting_event=lore_memory[1],
        simpy_peak_bytes_per_waiting_event=simpy_memory[1],
        bare_peak_bytes_per_waiting_event=bare_memory[1],
    )


def profile(name: str, actors: int, rounds: int, top: int) -> str:
    shape = Shape(name, actors, rounds)
    session = lore_prepared(compile_lore(shape.period), actor_specs(actors), shape)
    profiler = cProfile.Profile()
    profiler.runcall(session.run)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def count_bytecodes(run: Callable[[], Any]) -> Counter[str]:
    """The Python instructions ``run`` executes, by function (C code counts none)."""
    counts: Counter[str] = Counter()

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        if event == "opcode":
            counts[frame.f_code.co_name] += 1
        return tracer

    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return counts


def bytecodes(name: str, actors: int, rounds: int, top: int = 6) -> str:
    """Instructions per event of Lore and SimPy for ``rounds`` rounds of ``actors``."""
    shape = Shape(name, actors, rounds)
    specs = actor_specs(actors)
    session = lore_prepared(compile_lore(shape.period), specs, shape)
    env = simpy_setup(specs, shape)
    lines = []
    for who, run in (("Lore", session.run), ("SimPy", lambda: run_simpy(env, shape))):
        counts = count_bytecodes(run)
        total = sum(counts.values()) / shape.events
        most = ", ".join(f"{f} {n / shape.events:.0f}" for f, n in counts.most_common(top))
        lines.append(f"{name:10}{who:6}{total:7.0f} per event ({most})")
    return "\n".join(lines)


# Rounds of the two runs --callgrind compares (their difference is what it counts).
CALLGRIND_ROUNDS = (10, 50)


def run_alone(who: str, name: str, actors: int, rounds: int) -> None:
    """Prepare and run one way (``lore`` or ``simpy``) once: what --callgrind measures."""
    shape = Shape(name, actors, rounds)
    specs = actor_specs(actors)
    program = compile_lore(shape.period)
    gc.collect()  # as ``main`` and ``timed`` do before the timed runs
    gc.freeze()
    if who == "lore":
        session = lore_prepared(program, specs, shape)
        gc.collect()
        run_lore(session, shape)
    else:
        env = simpy_setup(specs, shape)
        gc.collect()
        run_simpy(env, shape)


def instructions(who: str, name: str, actors: int, rounds: int) -> int:
    """The machine instructions a process running ``run_alone`` executes, by callgrind."""
    return callgrind_instructions(__file__, f"{who},{name},{actors},{rounds}")


def callgrind(name: str, actors: int) -> str:
    """Machine instructions per event of Lore and SimPy (see the module's docstring)."""
    few, many = CALLGRIND_ROUNDS
    figures = []
    for who in ("lore", "simpy"):
        counts = [instructions(who, name, actors, rounds) for rounds in (few, many)]
        figures.append((counts[1] - counts[0]) / ((many - few) * actors))
    return (
        f"{name:10}{actors:>10,}{figures[0]:>10,.0f}{figures[1]:>10,.0f}"
        f"{figures[1] / figures[0]:>9.2f}"
    )


# ---------------------------------------------------------------- reporting


def format_table(reports: list[Report]) -> str:
    def memory(r: Report, who: str) -> str:
        figures = asdict(r)
        steady = figures[f"{who}_steady_bytes_per_waiting_event"]
        peak = figures[f"{who}_peak_bytes_per_waiting_event"]
        return f"{steady:,.0f}/{peak:,.0f}"

    lines = [
        "events/s (CPU time, the fastest run); bytes per waiting event: steady/peak (see --help)",
        "",
        f"{'shape':10}{'waiting':>10}{'events':>11}{'Lore':>10}{'SimPy':>10}{'bare':>10}"
        f"{'L/SimPy':>9}{'L/bare':>8}  {'target':11}{'Lore B':>13}{'SimPy B':>13}{'bare B':>11}",
    ]
    for r in reports:
        verdict = f">={TARGETS[r.shape]:.1f} {'PASS' if r.passes() else 'FAIL'}"
        lines.append(
            f"{r.shape:10}{r.waiting:>10,}{r.events:>11,}{r.lore_events_per_s:>10,.0f}"
            f"{r.simpy_events_per_s:>10,.0f}{r.bare_events_per_s:>10,.0f}"
            f"{r.lore_vs_simpy:>9.2f}{r.lore_vs_bare:>8.2f}  {verdict:11}"
            f"{memory(r, 'lore'):>13}{memory(r, 'simpy'):>13}{memory(r, 'bare'):>11}"
        )
    return "\n".join(lines)


def sizes(text: str) -> list[int]:
    return [int(float(part)) for part in text.split(",") if part]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", type=sizes, default=list(SIZES), help="waiting events (default 1e3,...,1e6)"
    )
    parser.add_argument(
        "--events", type=float, default=2e6, help="events run per size (default 2e6)"
    )
    parser.add_argument(
        "--shapes", default="lockstep,staggered", help="lockstep, staggered or both (default)"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each, the fastest counts (default 1)"
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for a smoke test")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=25,
        default=None,
        metavar="TOP",
        help="also print the top TOP functions of a cProfile of a short Lore run per shape",
    )
    parser.add_argument(
        "--bytecodes",
        action="store_true",
        help="also count the Python instructions per event of Lore and SimPy (1,000 actors)",
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="count machine instructions per event of Lore and SimPy instead (valgrind)",
    )
    parser.add_argument("--alone", help=argparse.SUPPRESS)  # who,shape,actors,rounds
    args = parser.parse_args(argv)
    if args.alone:
        who, name, actors, rounds = args.alone.split(",")
        run_alone(who, name, int(actors), int(rounds))
        return 0
    shapes = [name for name in args.shapes.split(",") if name]
    if any(name not in TARGETS for name in shapes):
        parser.error("--shapes takes lockstep and/or staggered")
    chosen = list(QUICK_SIZES) if args.quick else args.sizes
    events = 1_000 if args.quick else int(args.events)
    if args.repeat < 1 or any(size < 1 for size in chosen):
        parser.error("--repeat and the sizes must be at least 1")
    # The compiled program and what exists now live as long as the process: like `lore
    # sim`, take them out of the collector's way (all three ways gain alike).
    gc.collect()
    gc.freeze()
    if args.callgrind:
        print("machine instructions per event (callgrind; SimPy/Lore: above 1, Lore runs fewer)")
        print(f"{'shape':10}{'waiting':>10}{'Lore':>10}{'SimPy':>10}{'S/Lore':>9}")
        for size in chosen:
            for name in shapes:
                print(callgrind(name, size), flush=True)
        return 0
    reports = [measure(name, size, events, args.repeat) for size in chosen for name in shapes]
    if args.json:
        figures = [{**asdict(r), "target": TARGETS[r.shape], "passes": r.passes()} for r in reports]
        print(json.dumps(figures, indent=2))
    else:
        print(format_table(reports))
    if args.profile is not None:
        for name in shapes:
            print(f"\n{name}:\n{profile(name, 1_000, MEMORY_ROUNDS * 10, args.profile)}")
    if args.bytecodes:
        print("\nPython instructions per event (1,000 actors, 20 rounds):")
        for name in shapes:
            print(bytecodes(name, 1_000, 20))
    return 0


if __name__ == "__main__":
    sys.exit(main())
