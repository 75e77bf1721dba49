"""Simulating sessions: many runs of one program with a bot for every participant.

Run ``i`` of a simulation uses the seed ``seed + i``. Each run is its own ``Session``: the
compiled program is shared, and a session does not change it (``natives.prepare`` makes
it ready for sessions once, before the first). With
several processes, each worker checks and compiles the program again (compiled rules are
Python functions made at run time: they cannot be sent to another process), and the
results are put back in seed order, so a simulation gives the same results whatever the
number of processes.

Nothing here prints: ``simulate`` gives a ``RunResult`` per run and ``summarize`` folds
them into a ``Summary``; ``lore sim`` shows it.
"""

from __future__ import annotations

import gc
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.analysis.intervals import Interval, wilson
from lore.engine.participants import Bot, Participant, Participants
from lore.engine.session import Limits, Session
from lore.engine.transcript import Record, Transcript
from lore.errors import LoreError
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import check_paths, ordered_diagnostics
from lore.syntax.diagnostics import Diagnostic, Severity, has_errors
from lore.world.static import check_world

DEFAULT_MAX_STEPS = 10_000
# How a run ends: the engine's end reasons, with a stop by a limit told apart.
ENDS = ("ended", "no-events", "no-answer", "max-ticks", "max-steps", "error")
# Distinct values of a statistic up to which its distribution is given.
MAX_DISTRIBUTION = 30
# Where a run that ended in an error other than a rule error (a bad answer) is counted.
NOT_A_RULE = "(session)"


@dataclass(frozen=True)
class RunResult:
    """What one simulated session did."""

    seed: int
    end: str  # one of ENDS
    detail: str  # the engine's word on the end (which limit, what went wrong)
    ticks: int  # the game time reached
    steps: int
    messages: int
    queries: int
    errors: tuple[tuple[str, str], ...] = ()  # (file:line:col, message) of each rule error
    outcome: str | None = None  # what system.end gave
    # The session's counters and values (system.count, system.record): (name, kind, number).
    stats: tuple[tuple[str, str, float], ...] = ()


@dataclass(frozen=True)
class Spread:
    low: float
    mean: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        if not values:
            return cls(0, 0.0, 0)
        try:
            mean = statistics.fmean(values)
        except OverflowError:  # whole numbers past a float's range (a game time of 1e308 s)
            mean = sum(values) // len(values)
        return cls(min(values), mean, max(values))

    def to_json(self) -> dict[str, float]:
        return {"min": self.low, "mean": self.mean, "max": self.high}


@dataclass(frozen=True)
class Statistic:
    """A counter or value over the sessions: a counter is 0 in a session that never
    counted it; a value is summed up over the sessions that recorded it."""

    name: str
    kind: str  # "count" or "value"
    sessions: int
    spread: Spread
    distribution: dict[float, int] | None  # value -> sessions, when there are few values

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"kind": self.kind, "sessions": self.sessions}
        found.update(self.spread.to_json())
        if self.distribution is not None:
            found["distribution"] = {_number_text(k): n for k, n in self.distribution.items()}
        return found


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass(frozen=True)
class ErrorGroup:
    """A rule error met at one place with one message: how often, in how many runs."""

    where: str
    message: str
    count: int
    runs: int

    def to_json(self, runs: int) -> dict[str, Any]:
        return {
            "where": self.where,
            "message": self.message,
            "count": self.count,
            "sessions": self.runs,
            **wilson(self.runs, runs).to_json(),
        }


@dataclass(frozen=True)
class Summary:
    runs: int
    first_seed: int
    ends: dict[str, int]
    errors: tuple[ErrorGroup, ...]
    ticks: Spread
    steps: Spread
    messages: int
    queries: int
    limits: dict[str, int | None] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)  # how many sessions ended so
    statistics: tuple[Statistic, ...] = ()

    @property
    def messages_per_run(self) -> float:
        return self.messages / self.runs if self.runs else 0.0

    @property
    def queries_per_run(self) -> float:
        return self.queries / self.runs if self.runs else 0.0

    def rate(self, count: int) -> Interval:
        """The rate of ``count`` sessions of the summary's, with its 95% interval."""
        return wilson(count, self.runs)

    def rates(self) -> dict[str, Interval]:
        """Every rate the summary gives, by a name (``ends/no-answer``,
        ``outcomes/won``, ``errors/file:line:col``): what ``--until-ci`` waits on."""
        found = {f"ends/{end}": self.rate(count) for end, count in self.ends.items()}
        found.update((f"outcomes/{o}", self.rate(n)) for o, n in self.outcomes.items())
        found.update((f"errors/{g.where}: {g.message}", self.rate(g.runs)) for g in self.errors)
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.runs,
            "seeds": [self.first_seed, self.first_seed + self.runs - 1] if self.runs else [],
            "limits": self.limits,
            "ends": self.ends,
            "end_rates": {end: self.rate(count).to_json() for end, count in self.ends.items()},
            "errors": [group.to_json(self.runs) for group in self.errors],
            "ticks": self.ticks.to_json(),
            "steps": self.steps.to_json(),
            "messages": {"total": self.messages, "per_session": self.messages_per_run},
            "queries": {"total": self.queries, "per_session": self.queries_per_run},
            "outcomes": {
                outcome: {"sessions": count, **self.rate(count).to_json()}
                for outcome, count in self.outcomes.items()
            },
            "statistics": {stat.name: stat.to_json() for stat in self.statistics},
        }


# ---------------------------------------------------------------- running


def load_program(paths: Sequence[Path]) -> tuple[CompiledProgram | None, list[Diagnostic]]:
    """Check ``paths`` (the world too) and compile them; no program when there are errors."""
    result = check_paths(list(paths))
    diagnostics = ordered_diagnostics(result.program, result.diagnostics + check_world(result))
    if has_errors(diagnostics):
        return None, diagnostics
    return compile_program(result), diagnostics


class CountingTranscript(Transcript):
    """Counts the records of each kind instead of keeping them (a run can be long)."""

    def __init__(self) -> None:
        super().__init__()
        self.kinds: Counter[str] = Counter()

    def add(self, record: Record) -> None:
        self.kinds[record["kind"]] += 1
        for listener in self.listeners:
            listener(record)


def _bot(who: str) -> Participant:
    return Bot()


def run_session(program: CompiledProgram, seed: int, limits: Limits) -> RunResult:
    """One session with bots for everyone. Ctrl-C stops the simulation, not just the run."""
    transcript = CountingTranscript()
    session = Session(program, seed, Participants(default=_bot), limits, transcript)
    reason = session.run()
    detail: str = getattr(session, "detail", "")
    if reason == "stopped" and detail == "interrupted":
        raise KeyboardInterrupt
    end = detail if reason == "stopped" and detail in ENDS else reason
    errors = [(error.location(), error.message) for error in session.errors]
    if reason == "error" and not errors:
        errors.append((NOT_A_RULE, detail or "the session could not go on"))
    return RunResult(
        seed=seed,
        end=end,
        detail=detail,
        ticks=session.ticks,
        steps=session.steps,
        messages=transcript.kinds["message"],
        queries=transcript.kinds["query"],
        errors=tuple(errors),
        outcome=session.outcome[1] if session.outcome is not None else None,
        stats=_stats_of(session),
    )


def _stats_of(session: Session) -> tuple[tuple[str, str, float], ...]:
    """A session's counters (summed) and values (the last one), in the order first met."""
    found: dict[str, tuple[str, float]] = {}
    for _, kind, name, value in session.stats:
        before = found.get(name)
        if kind == "count":
            found[name] = (kind, (before[1] if before else 0) + value)
        else:
            found[name] = (kind, value)
    return tuple((name, kind, value) for name, (kind, value) in found.items())


def simulate(
    program: CompiledProgram,
    paths: Sequence[Path],
    runs: int,
    seed: int = 0,
    limits: Limits | None = None,
    jobs: int = 1,
    progress: Callable[[RunResult], None] | None = None,
) -> list[RunResult]:
    """Run ``runs`` sessions (seeds ``seed``, ``seed + 1``, ...) in ``jobs`` processes.

    ``program`` is ``paths`` checked and compiled (workers compile ``paths`` again);
    ``progress`` is called as each run ends. The results are in seed order.
    """
    limits = limits or Limits(max_steps=DEFAULT_MAX_STEPS)
    seeds = range(seed, seed + runs)
    jobs = max(1, min(jobs, runs))
    if jobs == 1:
        results = []
        for one in seeds:
            result = run_session(program, one, limits)
            if progress is not None:
                progress(result)
            results.append(result)
        return results
    # Imported here: most simulations run in one process, and these imports are slow.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    found: list[RunResult] = []
    context = multiprocessing.get_context("spawn")
    # concurrent.futures rather than multiprocessing.Pool: when a run fails, the runs
    # not started are cancelled and the workers stop (Pool.terminate can hang there).
    pool = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_start_worker, initargs=(list(paths), limits)
    )
    try:
        futures = [pool.submit(_run_in_worker, one) for one in seeds]
        for future in as_completed(futures):
            result = future.result()
            if progress is not None:
                progress(result)
            found.append(result)
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return sorted(found, key=lambda result: result.seed)


class SimulationError(LoreError):
    """A simulation could not go on (a worker found the program changed and broken)."""


# A worker process's program and limits (or why it has none), set by ``_start_worker``.
_worker: tuple[CompiledProgram, Limits] | str = "the worker has not started"


def _start_worker(paths: list[Path], limits: Limits) -> None:
    # A failing initializer would make the pool start workers without end: the failure
    # is kept, and reported by the first run asked of this worker.
    global _worker
    program, diagnostics = load_program(paths)
    if program is None:
        problems = [d.headline() for d in diagnostics if d.severity is Severity.ERROR]
        _worker = "the program changed and no longer checks: " + "; ".join(problems[:3])
        return
    settle()
    _worker = (program, limits)


def _run_in_worker(seed: int) -> RunResult:
    if isinstance(_worker, str):
        raise SimulationError(_worker)
    program, limits = _worker
    return run_session(program, seed, limits)


def settle() -> None:
    """Take what exists now (the checked and compiled program, which lives as long as
    the process) out of the garbage collector's way: the collector then does not scan
    it again in every full collection while sessions run."""
    gc.collect()
    gc.freeze()


# ---------------------------------------------------------------- summing up


def summarize(
    results: Iterable[RunResult], first_seed: int = 0, limits: Limits | None = None
) -> Summary:
    ordered = sorted(results, key=lambda result: result.seed)
    ends = dict.fromkeys(ENDS, 0)
    for result in ordered:
        ends[result.end] = ends.get(result.end, 0) + 1
    counts: Counter[tuple[str, str]] = Counter()
    runs_with: Counter[tuple[str, str]] = Counter()
    for result in ordered:
        counts.update(result.errors)
        runs_with.update(set(result.errors))
    groups = tuple(
        ErrorGroup(where, message, count, runs_with[(where, message)])
        for (where, message), count in sorted(
            counts.items(), key=lambda item: (-item[1], item[0][0], item[0][1])
        )
    )
    return Summary(
        runs=len(ordered),
        first_seed=ordered[0].seed if ordered else first_seed,
        ends=ends,
        errors=groups,
        ticks=Spread.of([result.ticks for result in ordered]),
        steps=Spread.of([result.steps for result in ordered]),
        messages=sum(result.messages for result in ordered),
        queries=sum(result.queries for result in ordered),
        limits={"max_steps": limits.max_steps, "max_ticks": limits.max_ticks}
        if limits is not None
        else {},
        outcomes=dict(sorted(Counter(r.outcome for r in ordered if r.outcome).items())),
        statistics=_statistics(ordered),
    )


def _statistics(ordered: list[RunResult]) -> tuple[Statistic, ...]:
    kinds: dict[str, str] = {}
    for result in ordered:
        for name, kind, _ in result.stats:
            kinds.setdefault(name, kind)
    found = []
    for name in sorted(kinds):
        values: list[float] = []
        for result in ordered:
            mine = [value for other, _, value in result.stats if other == name]
            if mine:
                values.append(mine[0])
            elif kinds[name] == "count":
                values.append(0)
        tally = Counter(values)
        distribution = dict(sorted(tally.items())) if len(tally) <= MAX_DISTRIBUTION else None
        found.append(Statistic(name, kinds[name], len(values), Spread.of(values), distribution))
    return tuple(found)
