"""Reading the files named on the command line, and printing diagnostics."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from lore.syntax.diagnostics import Diagnostic, Severity


def unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be read as a Lore file, or None when it can."""
    if not path.exists():
        return f"no such file: {path}"
    if path.is_dir():
        return f"{path} is a folder, not a file"
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        return f"cannot read {path}: {error.strerror or error}"
    return None


def usage_error(message: str) -> None:
    print(f"lore: error: {message}", file=sys.stderr)


def print_diagnostics(diagnostics: Iterable[Diagnostic]) -> tuple[int, int]:
    """Print rendered diagnostics; return the counts of errors and warnings."""
    errors = warnings = 0
    for diagnostic in diagnostics:
        print(diagnostic.render())
        if diagnostic.severity is Severity.ERROR:
            errors += 1
        elif diagnostic.severity is Severity.WARNING:
            warnings += 1
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
