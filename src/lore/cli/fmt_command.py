"""``lore fmt FILE... [--write | --check]``: the canonical layout of Lore files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lore.cli.io import print_diagnostics, read_failure, summary, unreadable, usage_error
from lore.syntax.parser import parse
from lore.syntax.source import SourceFile


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
                path.write_text(formatted, encoding="utf-8")
        else:
            sys.stdout.write(formatted)
    return status
