"""``lore check FILE...``: parse and check each file with what it imports."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

from lore.cli.io import print_diagnostics, read_failure, summary, unreadable, usage_error
from lore.semantics.check import check_paths, ordered_diagnostics
from lore.syntax.diagnostics import Diagnostic
from lore.world.static import check_world

if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Parse and check Lore files and what they import; print each problem with its place."
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE")


def plain_arguments(words: list[str]) -> argparse.Namespace | None:
    """``lore check FILE...`` without options, as ``add_arguments``'s parser reads it
    (see ``lore.cli.main.plain_arguments``); None when there is no file."""
    if not words:
        return None
    # A SimpleNamespace holds the same attributes (run reads nothing else), without
    # importing argparse.
    read = SimpleNamespace(command="check", files=[Path(word) for word in words], handler=run)
    return cast("argparse.Namespace", read)


def run(args: argparse.Namespace) -> int:
    paths: list[Path] = args.files
    for path in paths:
        problem = unreadable(path)
        if problem is not None:
            usage_error(problem)
            return 2
    seen: set[tuple[str, int, int, str]] = set()
    shown: list[Diagnostic] = []
    for path in paths:
        try:
            result = check_paths([path])
        except OSError as error:
            usage_error(read_failure(path, error))
            return 2
        found = ordered_diagnostics(result.program, result.diagnostics + check_world(result))
        for diagnostic in found:
            key = (
                diagnostic.source.name,
                diagnostic.span.start,
                diagnostic.span.end,
                diagnostic.message,
            )
            if key not in seen:
                seen.add(key)
                shown.append(diagnostic)
    errors, warnings = print_diagnostics(shown)
    summary(errors, warnings)
    return 1 if errors else 0
