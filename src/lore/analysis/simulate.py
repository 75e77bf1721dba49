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
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.analysis.dice_tally import (
    CheckRate,
    DiceOutcomes,
    DiceTally,
    check_rates,
    dice_outcomes,
)
from lore.analysis.intervals import Comparison, Interval, two_proportions, wilson
from lore.analysis.policies import Plan, Policies, PolicyError, final_scores, play
from lore.analysis.policies import participants as planned_participants
from lore.engine.participants import Bot, Participant, Participants
from lore.engine.queries import plain
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
    first_seat: str | None = None  # the seat asked the first question
    # Each seat's score at the end, by the rules' SimBot values (none without them).
    scores: tuple[tuple[str, float], ...] = ()
    # The checks of each rule: (rule, file:line:col, function via, made, succeeded).
    checks: tuple[tuple[str, str, str, int, int], ...] = ()
    # The totals of each dice command as written: (command, total, rolls).
    totals: tuple[tuple[str, int, int], ...] = ()
    cpu: float = field(default=0.0, compare=False)  # the run's CPU seconds

    @property
    def winners(self) -> tuple[str, ...]:
        """The seats whose score is highest at the end (the players of one side share
        it), when some other seat's is lower: none for a draw or without scores."""
        if not self.scores:
            return ()
        best = max(value for _, value in self.scores)
        if all(value == best for _, value in self.scores):
            return ()
        return tuple(seat for seat, value in self.scores if value == best)


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
class SeatFigures:
    """One seat over the sessions that scored it: how often it won (had the highest
    score), its mean score, and its wins when it was asked first and when not."""

    seat: str
    sessions: int
    wins: int
    mean_score: float
    first: int  # sessions in which it was asked the first question
    wins_first: int

    def to_json(self) -> dict[str, Any]:
        others = self.sessions - self.first
        return {
            "sessions": self.sessions,
            "wins": self.wins,
            **wilson(self.wins, self.sessions).to_json(),
            "mean_score": self.mean_score,
            "first": {"sessions": self.first, **wilson(self.wins_first, self.first).to_json()},
            "not_first": {
                "sessions": others,
                **wilson(self.wins - self.wins_first, others).to_json(),
            },
            "first_advantage": _advantage(
                two_proportions(self.wins - self.wins_first, others, self.wins_first, self.first)
            ),
        }


def _advantage(test: Comparison) -> dict[str, float]:
    """Going first against not: the difference of the win rates, z and its p-value."""
    return {"difference": test.difference, "z": test.z, "p": test.p_value}


@dataclass(frozen=True)
class Bin:
    """Sessions whose figure is from ``low`` to ``high`` (both included)."""

    low: int
    high: int
    sessions: int

    def to_json(self) -> dict[str, int]:
        return {"low": self.low, "high": self.high, "sessions": self.sessions}


MAX_BINS = 20


def histogram(values: Sequence[int]) -> tuple[Bin, ...]:
    """Up to ``MAX_BINS`` bins of equal width (whole numbers) over the values."""
    if not values:
        return ()
    low, high = min(values), max(values)
    width = max(1, -(-(high - low + 1) // MAX_BINS))
    counts = Counter((value - low) // width for value in values)
    bins = (high - low) // width + 1
    return tuple(
        Bin(low + i * width, min(high, low + (i + 1) * width - 1), counts.get(i, 0))
        for i in range(bins)
    )


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
    seats: tuple[SeatFigures, ...] = ()
    # The sides: seats whose scores were equal in every session, with the sessions their
    # side won (``+``-joined seats -> (seats, sessions, wins)).
    sides: tuple[tuple[str, tuple[str, ...], int, int], ...] = ()
    step_bins: tuple[Bin, ...] = ()
    tick_bins: tuple[Bin, ...] = ()
    checks: tuple[CheckRate, ...] = ()
    dice: tuple[DiceOutcomes, ...] = ()

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
        found.update((f"seats/{s.seat}", wilson(s.wins, s.sessions)) for s in self.seats)
        found.update((f"sides/{side[0]}", wilson(side[3], side[2])) for side in self.sides)
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
            "seats": {seat.seat: seat.to_json() for seat in self.seats},
            "sides": {
                name: {
                    "seats": list(seats),
                    "sessions": sessions,
                    "wins": wins,
                    **wilson(wins, sessions).to_json(),
                }
                for name, seats, sessions, wins in self.sides
            },
            "histograms": {
                "steps": [one.to_json() for one in self.step_bins],
                "ticks": [one.to_json() for one in self.tick_bins],
            },
            "checks": [check.to_json() for check in self.checks],
            "dice": {one.command: one.to_json() for one in self.dice},
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
    """Counts the records of each kind instead of keeping them (a run can be long),
    and the checks and dice totals among them."""

    def __init__(self) -> None:
        super().__init__()
        self.kinds: Counter[str] = Counter()
        self.first_seat: str | None = None
        self.dice = DiceTally()

    def add(self, record: Record) -> None:
        kind = record["kind"]
        self.kinds[kind] += 1
        if kind == "query" and self.first_seat is None:
            self.first_seat = record.get("to")
        elif kind == "dice" or kind == "roll":
            self.dice.note(record)
        for listener in self.listeners:
            listener(record)


def _bot(who: str) -> Participant:
    return Bot()


def run_session(
    program: CompiledProgram, seed: int, limits: Limits, policies: Policies | None = None
) -> RunResult:
    """One session with bots for everyone (random ones, or as ``policies`` and the
    rules' SimBots say). Ctrl-C stops the simulation, not just the run."""
    started = time.process_time()
    session, transcript, reason = played(program, seed, limits, policies)
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
        first_seat=transcript.first_seat,
        scores=final_scores(session),
        checks=transcript.dice.check_counts(),
        totals=transcript.dice.total_counts(),
        cpu=time.process_time() - started,
    )


def played(
    program: CompiledProgram, seed: int, limits: Limits, policies: Policies | None = None
) -> tuple[Session, CountingTranscript, str]:
    """A session of the simulation run to its end, its transcript's counts, its end."""
    transcript = CountingTranscript()
    policies = policies or Policies()  # (none given: as the rules' SimBots say)
    if policies.all_random:
        session = Session(program, seed, Participants(default=_bot), limits, transcript)
        transcript.dice.session = session
        return session, transcript, session.run()
    plan = Plan(policies)
    made: list[Session] = []
    session = Session(program, seed, planned_participants(plan, made), limits, transcript)
    made.append(session)
    transcript.dice.session = session
    try:
        return session, transcript, play(session, plan)
    except PolicyError as error:
        raise SimulationError(str(error)) from None


def answers_of(
    program: CompiledProgram, seed: int, limits: Limits, policies: Policies | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The answers each seat gave in run ``seed`` (run again: the same run), as an answers
    file of ``lore run`` holds them: each with the id of its question."""
    session, _, _ = played(program, seed, limits, policies)
    found: dict[str, list[dict[str, Any]]] = {}
    for answer in session.answers:
        entry: dict[str, Any] = (
            {"back": True} if answer.back else {"values": _plain_values(answer.values)}
        )
        if answer.query is not None:
            entry["query"] = answer.query
        found.setdefault(answer.seat, []).append(entry)
    return found


def _plain_values(values: dict[str, Any]) -> dict[str, Any]:
    return {name: plain(value) for name, value in values.items()}


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
    policies: Policies | None = None,
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
            result = run_session(program, one, limits, policies)
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
        jobs,
        mp_context=context,
        initializer=_start_worker,
        initargs=(list(paths), limits, policies),
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
_worker: tuple[CompiledProgram, Limits, Policies | None] | str = "the worker has not started"


def _start_worker(paths: list[Path], limits: Limits, policies: Policies | None) -> None:
    # A failing initializer would make the pool start workers without end: the failure
    # is kept, and reported by the first run asked of this worker.
    global _worker
    program, diagnostics = load_program(paths)
    if program is None:
        problems = [d.headline() for d in diagnostics if d.severity is Severity.ERROR]
        _worker = "the program changed and no longer checks: " + "; ".join(problems[:3])
        return
    settle()
    _worker = (program, limits, policies)


def _run_in_worker(seed: int) -> RunResult:
    if isinstance(_worker, str):
        raise SimulationError(_worker)
    program, limits, policies = _worker
    return run_session(program, seed, limits, policies)


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
        seats=_seats(ordered),
        sides=_sides(ordered),
        step_bins=histogram([result.steps for result in ordered]),
        tick_bins=histogram([result.ticks for result in ordered]),
        checks=check_rates([result.checks for result in ordered]),
        dice=dice_outcomes([result.totals for result in ordered]),
    )


def _sides(ordered: list[RunResult]) -> tuple[tuple[str, tuple[str, ...], int, int], ...]:
    """Seats on one side: their scores were the same in every session that scored them."""
    by_seat: dict[str, list[float]] = {}
    for result in ordered:
        for seat, value in result.scores:
            by_seat.setdefault(seat, []).append(value)
    groups: dict[tuple[float, ...], list[str]] = {}
    for seat, values in by_seat.items():
        groups.setdefault(tuple(values), []).append(seat)
    found = []
    for seats in groups.values():
        sessions = len(by_seat[seats[0]])
        wins = sum(1 for result in ordered if seats[0] in result.winners)
        found.append((" + ".join(seats), tuple(seats), sessions, wins))
    return tuple(found)


def _seats(ordered: list[RunResult]) -> tuple[SeatFigures, ...]:
    scores: dict[str, list[float]] = {}
    wins: Counter[str] = Counter()
    first: Counter[str] = Counter()
    wins_first: Counter[str] = Counter()
    for result in ordered:
        winners = result.winners
        for seat, value in result.scores:
            scores.setdefault(seat, []).append(value)
            won = seat in winners
            wins[seat] += won
            if result.first_seat == seat:
                first[seat] += 1
                wins_first[seat] += won
    return tuple(
        SeatFigures(
            seat, len(values), wins[seat], statistics.fmean(values), first[seat], wins_first[seat]
        )
        for seat, values in scores.items()
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
