"""``lore sim FILE --runs N [--seed S] [--max-ticks T] [--max-steps K] [--jobs J] [--json]
[--policy [SEAT=]POLICY]...``.

Runs N sessions of FILE with a bot answering for the GM and every player (at random,
among the valid answers; or, with --policy greedy or montecarlo, or as the rules' SimBot
values say, for the best score the rules declare), session i with the seed S+i, and
prints what they did, every rate with its Wilson 95% interval: how
they ended, the rule errors met (by place, with counts), the game time and steps
reached, the messages sent and the queries asked. A session stops after K steps
(default 10,000; 0 for no limit) or once the game time passes T ticks, so that a
simulation of a session that never ends ends. With --jobs J the sessions run in J
processes; the figures are the same as with one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tqdm import tqdm

from lore.analysis.intervals import Interval, two_proportions, wilson
from lore.analysis.policies import (
    DEFAULT_CANDIDATES,
    DEFAULT_HORIZON,
    DEFAULT_PLAYOUTS,
    Policies,
)
from lore.analysis.report import SavedRun, render
from lore.analysis.report_texts import LANGUAGES
from lore.analysis.simulate import (
    DEFAULT_MAX_STEPS,
    RunResult,
    SimulationError,
    Summary,
    answers_of,
    load_program,
    settle,
    simulate,
    summarize,
)
from lore.cli.atomic import write_atomically
from lore.cli.io import no_events_note, print_diagnostics, read_failure, unreadable, usage_error
from lore.cli.language import chosen_language
from lore.engine.session import Limits
from lore.runtime.compiler import CompiledProgram
from lore.syntax.files import describe
from lore.syntax.source import display_width

LABELS = {
    "ended": "ended by a rule",
    "no-events": "no events left",
    "no-answer": "no answer",
    "max-ticks": "stopped at --max-ticks",
    "max-steps": "stopped at --max-steps",
    "error": "error",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument("--runs", type=int, required=True, metavar="N", help="sessions to run")
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="the seed of the first session (default 0)"
    )
    parser.add_argument(
        "--max-ticks",
        type=int,
        default=None,
        metavar="T",
        help="stop a session once its game time would pass T ticks (default: no limit)",
    )
    parser.add_argument(
        "--max-steps",
        type=int,
        default=DEFAULT_MAX_STEPS,
        metavar="K",
        help=f"stop a session after K steps (default {DEFAULT_MAX_STEPS:,}; 0 for no limit)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="J", help="run the sessions in J processes"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--policy",
        action="append",
        default=[],
        metavar="[SEAT=]POLICY",
        help="how the bots answer: random, greedy (the best by the rules' SimBot score one "
        "step ahead) or montecarlo (the best mean score over random playouts), for every "
        "seat or for SEAT (GM, a player's seat); repeatable (default: as the rules' SimBot "
        "values say, else random)",
    )
    parser.add_argument(
        "--candidates",
        type=int,
        default=DEFAULT_CANDIDATES,
        metavar="C",
        help=f"answers a planning bot weighs per question, at most (default {DEFAULT_CANDIDATES})",
    )
    parser.add_argument(
        "--playouts",
        type=int,
        default=DEFAULT_PLAYOUTS,
        metavar="P",
        help=f"random playouts per answer of a montecarlo bot (default {DEFAULT_PLAYOUTS})",
    )
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        metavar="OUT.html",
        help="also write a report page (charts, intervals, runs to replay with lore run)",
    )
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=None,
        help="the language of the report (default: as the locale says, LORE_LANG first)",
    )
    parser.add_argument(
        "--until-ci",
        type=float,
        default=None,
        metavar="W",
        help="keep running (--runs at a time, doubling) until every rate's 95%% interval is "
        f"within +-W (0.02 for 2 points), or {MAX_UNTIL_CI:,} sessions",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        default=None,
        metavar="OTHER.lore",
        help="also simulate OTHER.lore with the same seeds and compare every rate "
        "(two-proportion z test)",
    )
    parser.add_argument(
        "--horizon",
        type=int,
        default=DEFAULT_HORIZON,
        metavar="H",
        help=f"steps a montecarlo playout runs, at most (default {DEFAULT_HORIZON})",
    )


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    paths = [path] if args.compare is None else [path, args.compare]
    problem = next(filter(None, map(unreadable, paths)), None)
    if problem is None:
        problem = bad_numbers(args)
    if problem is None and args.report is not None:
        problem = refused_report(args.report, paths)
    policies = Policies()
    if problem is None:
        try:
            policies = Policies.parse(
                args.policy,
                candidates=args.candidates,
                playouts=args.playouts,
                horizon=args.horizon,
            )
        except ValueError as error:
            problem = str(error)
    if problem is not None:
        usage_error(problem)
        return 2
    programs = []
    for one in paths:
        try:
            program, diagnostics = load_program([one])
        except OSError as error:
            usage_error(read_failure(one, error))
            return 2
        if program is None:
            print_diagnostics(diagnostics)
            return 1
        programs.append(program)
    settle()
    limits = Limits(max_steps=args.max_steps or None, max_ticks=args.max_ticks)
    try:
        results, reached = _simulated(programs[0], path, args, limits, policies)
        other = None
        if args.compare is not None:
            other, _ = _simulated(programs[1], args.compare, args, limits, policies, len(results))
    except SimulationError as error:
        print(f"lore: error: {error}", file=sys.stderr)
        return 1
    summary = summarize(results, args.seed, limits)
    figures: dict[str, Any] = {"file": str(path), **summary.to_json()}
    if args.policy:
        figures["policies"] = policies.to_json()
    if args.until_ci is not None:
        figures["until_ci"] = {"width": args.until_ci, "reached": reached}
    compared = None
    if other is not None:
        compared = comparison(summary, summarize(other, args.seed, limits), str(args.compare))
        figures["compare"] = compared
    if args.report is not None:
        try:
            saved = save_runs(programs[0], path, results, args.report, limits, policies)
            write_atomically(
                args.report, render(figures, args.lang or chosen_language(), saved, compared)
            )
        except OSError as error:
            print(
                f"lore: error: cannot write the report {args.report}: {describe(error)}",
                file=sys.stderr,
            )
            return 1
    if args.json:
        print(json.dumps(figures, ensure_ascii=False, indent=2))
    else:
        print(format_summary(summary, str(path)))
        if compared is not None:
            print(format_comparison(compared))
    if summary.steps.high == 0:
        print(no_events_note(path), file=sys.stderr)
    return 0


# Sessions --until-ci runs at most (unless --runs asks for more to start with).
MAX_UNTIL_CI = 100_000


def _simulated(
    program: CompiledProgram,
    path: Path,
    args: argparse.Namespace,
    limits: Limits,
    policies: Policies,
    runs: int | None = None,
) -> tuple[list[RunResult], bool]:
    """The runs of one program: ``--runs`` of them (or ``runs``), or with --until-ci,
    batches (doubling) until every rate's interval is within the width asked; and
    whether it was reached."""
    wanted = runs or args.runs
    bar = tqdm(
        total=wanted,
        unit="session",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        leave=False,
        dynamic_ncols=True,
    )

    def advance(result: RunResult) -> None:
        bar.update(1)

    found: list[RunResult] = []
    try:
        batch = wanted
        while True:
            found.extend(
                simulate(
                    program,
                    [path],
                    batch,
                    args.seed + len(found),
                    limits,
                    args.jobs,
                    progress=advance,
                    policies=policies,
                )
            )
            if runs is not None or args.until_ci is None:
                return found, True
            widest = max(rate.half_width for rate in summarize(found, args.seed).rates().values())
            if widest <= args.until_ci:
                return found, True
            batch = min(len(found), MAX_UNTIL_CI - len(found))
            if batch <= 0:
                return found, False
            bar.total = len(found) + batch
            bar.refresh()
    finally:
        bar.close()


def comparison(first: Summary, second: Summary, name: str) -> dict[str, Any]:
    """Each rate of two simulations side by side, with the two-proportion z test."""
    counts = []
    for summary in (first, second):
        found = {f"ends/{end}": n for end, n in summary.ends.items()}
        found.update((f"outcomes/{outcome}", n) for outcome, n in summary.outcomes.items())
        found.update((f"seats/{seat.seat}", seat.wins) for seat in summary.seats)
        found.update((f"sides/{side[0]}", side[3]) for side in summary.sides)
        counts.append(found)
    keys = list(dict.fromkeys([*counts[0], *counts[1]]))
    return {
        "file": name,
        "sessions": second.runs,
        "rates": {
            key: two_proportions(
                counts[0].get(key, 0), first.runs, counts[1].get(key, 0), second.runs
            ).to_json()
            for key in keys
        },
    }


def format_comparison(compared: dict[str, Any]) -> str:
    lines = [f"compared with {compared['file']} (same seeds; B - A, two-proportion z test):"]
    width = max((display_width(key) for key in compared["rates"]), default=0)
    for key, test in compared["rates"].items():
        padding = " " * (width - display_width(key))
        lines.append(
            f"  {key}{padding}  A {100 * test['a']['rate']:5.1f}%  "
            f"B {100 * test['b']['rate']:5.1f}%  {100 * test['difference']:+6.1f}  "
            f"z {test['z']:+.2f}  p {test['p']:.3f}"
        )
    return "\n".join(lines)


def save_runs(
    program: CompiledProgram,
    path: Path,
    results: list[RunResult],
    report: Path,
    limits: Limits,
    policies: Policies,
) -> list[SavedRun]:
    """The slowest run and the oddest one, run again with their answers kept, as answers
    files beside the report (``NAME-runs/``), with the ``lore run`` command of each."""
    picked = pick_runs(results)
    if not picked:
        return []
    folder = report.with_name(report.stem + "-runs")
    folder.mkdir(exist_ok=True)
    saved = []
    for kind, result, why, detail in picked:
        target = folder / f"{kind}-seed-{result.seed}.answers.json"
        answers = answers_of(program, result.seed, limits, policies)
        write_atomically(target, json.dumps(answers, ensure_ascii=False, indent=1) + "\n")
        command = f"lore run {path} --seed {result.seed} --answers {target}"
        saved.append(SavedRun(kind, result.seed, str(target), why, detail, command))
    return saved


def pick_runs(results: list[RunResult]) -> list[tuple[str, RunResult, str, str]]:
    """(kind, run, why, detail) of the slowest run and of the oddest: the first with a
    rule error, else one of the rarest outcome (when outcomes differ), else the one whose
    length is the farthest from the mean."""
    if not results:
        return []
    slowest = max(results, key=lambda result: result.cpu)
    picked = [("slowest", slowest, "time", f"{slowest.cpu:.3f}")]
    erring = [result for result in results if result.errors]
    outcomes = Counter(result.outcome for result in results)
    if erring:
        odd, why, detail = erring[0], "error", erring[0].errors[0][0]
    elif len(outcomes) > 1:
        rarest = min(outcomes, key=lambda outcome: (outcomes[outcome], str(outcome)))
        odd = next(result for result in results if result.outcome == rarest)
        why, detail = "outcome", str(rarest)
    else:
        mean = sum(result.steps for result in results) / len(results)
        odd = max(results, key=lambda result: abs(result.steps - mean))
        why, detail = "length", f"{odd.steps:,}"
    picked.append(("oddest", odd, why, detail))
    return picked


def refused_report(report: Path, inputs: list[Path]) -> str | None:
    """Why the report cannot be written at ``report`` (or would replace a file simulated)."""
    from lore.cli.run_command import same_file, unwritable

    problem = unwritable(report)
    if problem is not None:
        return f"cannot write --report {report}: {problem}"
    for source in inputs:
        if same_file(report, source):
            return f"--report {report} would overwrite {source}, a file simulated"
    return None


def bad_numbers(args: argparse.Namespace) -> str | None:
    if args.runs < 1:
        return f"--runs must be at least 1 (got {args.runs})"
    if args.jobs < 1:
        return f"--jobs must be at least 1 (got {args.jobs})"
    if args.max_steps < 0:
        return f"--max-steps must be 0 (no limit) or more (got {args.max_steps})"
    if args.max_ticks is not None and args.max_ticks < 0:
        return f"--max-ticks must be 0 or more (got {args.max_ticks})"
    if args.until_ci is not None and not 0 < args.until_ci < 0.5:
        return f"--until-ci must be above 0 and below 0.5 (got {args.until_ci})"
    return None


def format_summary(summary: Summary, name: str) -> str:
    last = summary.first_seed + summary.runs - 1
    lines = [
        f"{name}: {summary.runs:,} session{'s' if summary.runs != 1 else ''} with bots "
        f"(seeds {summary.first_seed}..{last})",
        "ended:",
    ]
    width = max(len(label) for label in LABELS.values())
    for end, count in summary.ends.items():
        lines.append(
            f"  {LABELS.get(end, end):<{width}}  {count:>7,}  {rate_text(summary.rate(count))}"
        )
    total = sum(group.count for group in summary.errors)
    if not summary.errors:
        lines.append("rule errors: none")
    else:
        kinds = len(summary.errors)
        lines.append(f"rule errors: {total:,} ({kinds} kind{'s' if kinds != 1 else ''})")
        for group in summary.errors:
            sessions = f"{group.runs:,} session{'s' if group.runs != 1 else ''}"
            lines.append(
                f"  {group.where}: {group.message}  ({group.count:,} times in {sessions}: "
                f"{rate_text(summary.rate(group.runs))})"
            )
    for label, spread in (("ticks", summary.ticks), ("steps", summary.steps)):
        lines.append(
            f"{label + ':':<10}min {_whole(spread.low)}  mean {_whole(spread.mean, 1)}  "
            f"max {_whole(spread.high)}"
        )
    lines.append(
        f"{'messages:':<10}{summary.messages:,} in all, {summary.messages_per_run:,.1f} per session"
    )
    lines.append(
        f"{'queries:':<10}{summary.queries:,} in all, {summary.queries_per_run:,.1f} per session"
    )
    lines.extend(format_outcomes(summary))
    return "\n".join(lines)


def rate_text(rate: Interval) -> str:
    """A rate with its Wilson 95% interval: ``26.0% (95% CI 15.9-39.6%)``."""
    return f"{100 * rate.rate:5.1f}%  (95% CI {100 * rate.low:.1f}-{100 * rate.high:.1f}%)"


def _whole(value: float, decimals: int = 0) -> str:
    """A count or a game time in ticks: a whole number past a float's range is written
    whole (a game time of 1e308 seconds)."""
    if isinstance(value, int):
        return f"{value:,}" + ("." + "0" * decimals if decimals else "")
    return f"{value:,.{decimals}f}"


def format_outcomes(summary: Summary) -> list[str]:
    """The outcomes rules ended the sessions with, and their counters and values."""
    lines = []
    if summary.outcomes:
        lines.append("outcomes:")
        # Outcomes are often Japanese ("勝利"): pad by the columns a terminal shows.
        width = max(display_width(outcome) for outcome in summary.outcomes)
        for outcome, count in summary.outcomes.items():
            padding = " " * (width - display_width(outcome))
            lines.append(f"  {outcome}{padding}  {count:>7,}  {rate_text(summary.rate(count))}")
    if summary.seats:
        lines.append("seats (won: the highest score the rules' SimBot gives at the end):")
        width = max(display_width(seat.seat) for seat in summary.seats)
        for seat in summary.seats:
            padding = " " * (width - display_width(seat.seat))
            others = seat.sessions - seat.first
            lines.append(
                f"  {seat.seat}{padding}  won {seat.wins:,} of {seat.sessions:,}  "
                f"{rate_text(wilson(seat.wins, seat.sessions))}  mean score "
                f"{seat.mean_score:,.3f}"
            )
            lines.append(
                f"  {' ' * width}  asked first in {seat.first:,}: won "
                f"{rate_text(wilson(seat.wins_first, seat.first)).strip()}; in the other "
                f"{others:,}: {rate_text(wilson(seat.wins - seat.wins_first, others)).strip()}"
            )
    if summary.sides:
        lines.append("sides (seats whose scores were always equal):")
        width = max(display_width(side[0]) for side in summary.sides)
        for name, _, sessions, wins in summary.sides:
            padding = " " * (width - display_width(name))
            lines.append(
                f"  {name}{padding}  won {wins:,} of {sessions:,}  "
                f"{rate_text(wilson(wins, sessions))}"
            )
    if summary.statistics:
        lines.append("statistics:")
        for stat in summary.statistics:
            spread = stat.spread
            lines.append(
                f"  {stat.name} ({stat.kind}, {stat.sessions:,} sessions): min {spread.low:,.6g}"
                f"  mean {spread.mean:,.3f}  max {spread.high:,.6g}"
            )
            if stat.distribution is not None:
                shown = "  ".join(
                    f"{_short(value)}: {count:,}" for value, count in stat.distribution.items()
                )
                lines.append(f"    {shown}")
    lines.extend(format_dice(summary))
    return lines


def format_dice(summary: Summary) -> list[str]:
    """The checks each rule made, and the mean total of each dice command beside the
    exact one."""
    lines = []
    if summary.checks:
        lines.append("checks (rolls with a target, by the rule that made them):")
        lines.extend(
            f"  {one.rule} at {one.where}{f' via {one.via}' if one.via else ''}: "
            f"{one.successes:,} of {one.checks:,} succeeded  "
            + rate_text(wilson(one.successes, one.checks))
            for one in summary.checks
        )
    if summary.dice:
        lines.append("dice (totals seen, mean beside the exact one):")
        for one in summary.dice:
            mean = one.exact.mean() if one.exact is not None else None
            exact = "no exact odds" if mean is None else f"exact {float(mean):,.3f}"
            lines.append(f"  {one.command}: {one.rolls:,} rolls, mean {one.mean:,.3f} ({exact})")
    return lines


def _short(value: float) -> str:
    return f"{value:g}"
