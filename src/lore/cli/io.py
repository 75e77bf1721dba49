"""Reading the files named on the command line, and printing diagnostics."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from lore.syntax.diagnostics import Diagnostic, Severity, limit_per_file
from lore.syntax.files import describe, why_not_readable


def unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be read (as a Lore or answers file), or None when it looks
    readable; nothing is opened (a pipe would wait for a writer)."""
    problem = why_not_readable(path)
    if problem is None:
        return None
    if problem == "no such file":
        return f"no such file: {path}"
    return f"cannot read {path}: {problem}"


def read_failure(path: Path, error: OSError) -> str:
    """The usage error for a file that could not be read after all."""
    return f"cannot read {path}: {describe(error)}"


def usage_error(message: str) -> None:
    print(f"lore: error: {message}", file=sys.stderr)


def warning(message: str) -> None:
    """Something the command did otherwise than asked, and went on (its status is not
    changed by it)."""
    print(f"lore: warning: {message}", file=sys.stderr)


def print_diagnostics(diagnostics: Iterable[Diagnostic]) -> tuple[int, int]:
    """Print rendered diagnostics (at most ``MAX_PER_FILE`` a file); return the counts
    of errors and warnings (all of them)."""
    found = list(diagnostics)
    for diagnostic in limit_per_file(found):
        print(diagnostic.render())
    errors = sum(1 for d in found if d.severity is Severity.ERROR)
    warnings = sum(1 for d in found if d.severity is Severity.WARNING)
    return errors, warnings


def summary(errors: int, warnings: int) -> None:
    sys.stdout.flush()
    if errors or warnings:
        parts = [f"{errors} error{'s' if errors != 1 else ''}"] if errors else []
        if warnings:
            parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
        print(", ".join(parts), file=sys.stderr)


def no_events_note(path: Path) -> str:
    """What to say when a file has nothing to run (its session ends before it starts)."""
    return (
        f"lore: nothing happened: {path} has no events to run\n"
        "  hint: a scenario starts with an Event value at the top of a section, like\n"
        '    start = { ticks = 0; priority = 0; handler = @{ GM.message("hello"); }; }:Event;\n'
        "  (the events of the files it imports do not start: those are libraries)"
    )
