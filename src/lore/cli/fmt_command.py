"""``lore fmt FILE... [--write | --check]``: the canonical layout of Lore files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lore.cli.atomic import write_atomically
from lore.cli.io import print_diagnostics, read_failure, summary, unreadable, usage_error
from lore.syntax.parser import parse
from lore.syntax.source import SourceFile


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Print a Lore file in the canonical layout (comments kept)."
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if a file is not in the canonical layout"
    )


def run(args: argparse.Namespace) -> int:
    from lore.syntax.printer import format_module

    paths: list[Path] = args.files
    status = 0
    for path in paths:
        problem = unreadable(path)
        if problem is not None:
            usage_error(problem)
            return 2
        try:
            source = SourceFile.from_path(path)
        except OSError as error:
            usage_error(read_failure(path, error))
            return 2
        result = parse(source)
        if not result.ok:
            errors, warnings = print_diagnostics(result.diagnostics)
            summary(errors, warnings)
            status = 1
            continue
        formatted = format_module(result)
        if args.check:
            if formatted != source.text:
                print(
                    f"{path}: not in the canonical layout (run 'lore fmt --write {path}')",
                    file=sys.stderr,
                )
                status = 1
        elif args.write:
            if formatted != source.text:
                try:
                    write_atomically(path, formatted)
                except OSError as error:
                    usage_error(f"cannot write {path}: {error.strerror or error}")
                    status = 1
        else:
            sys.stdout.write(formatted)
    return status
