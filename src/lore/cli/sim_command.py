"""``lore sim FILE --runs N [--seed S] [--max-ticks T] [--max-steps K] [--jobs J] [--json]``.

Runs N sessions of FILE with a bot answering for the GM and every player (at random,
among the valid answers), session i with the seed S+i, and prints what they did: how
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
from pathlib import Path
from typing import Any

from tqdm import tqdm

from lore.analysis.intervals import Interval
from lore.analysis.simulate import (
    DEFAULT_MAX_STEPS,
    RunResult,
    SimulationError,
    Summary,
    load_program,
    settle,
    simulate,
    summarize,
)
from lore.cli.io import no_events_note, print_diagnostics, read_failure, unreadable, usage_error
from lore.engine.session import Limits
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


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    problem = unreadable(path)
    if problem is None:
        problem = bad_numbers(args)
    if problem is not None:
        usage_error(problem)
        return 2
    try:
        program, diagnostics = load_program([path])
    except OSError as error:
        usage_error(read_failure(path, error))
        return 2
    if program is None:
        print_diagnostics(diagnostics)
        return 1
    settle()
    limits = Limits(max_steps=args.max_steps or None, max_ticks=args.max_ticks)
    bar = tqdm(
        total=args.runs,
        unit="session",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        leave=False,
        dynamic_ncols=True,
    )

    def advance(result: RunResult) -> None:
        bar.update(1)

    try:
        results = simulate(
            program, [path], args.runs, args.seed, limits, args.jobs, progress=advance
        )
    except SimulationError as error:
        bar.close()
        print(f"lore: error: {error}", file=sys.stderr)
        return 1
    finally:
        bar.close()
    summary = summarize(results, args.seed, limits)
    if args.json:
        figures: dict[str, Any] = {"file": str(path), **summary.to_json()}
        print(json.dumps(figures, ensure_ascii=False, indent=2))
    else:
        print(format_summary(summary, str(path)))
    if summary.steps.high == 0:
        print(no_events_note(path), file=sys.stderr)
    return 0


def bad_numbers(args: argparse.Namespace) -> str | None:
    if args.runs < 1:
        return f"--runs must be at least 1 (got {args.runs})"
    if args.jobs < 1:
        return f"--jobs must be at least 1 (got {args.jobs})"
    if args.max_steps < 0:
        return f"--max-steps must be 0 (no limit) or more (got {args.max_steps})"
    if args.max_ticks is not None and args.max_ticks < 0:
        return f"--max-ticks must be 0 or more (got {args.max_ticks})"
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
    return lines


def _short(value: float) -> str:
    return f"{value:g}"
