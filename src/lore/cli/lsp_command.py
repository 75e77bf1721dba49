"""``lore lsp``: the language server, for editors (the Language Server Protocol on
standard input and output)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Serve an editor the Language Server Protocol on standard input and output: "
        "diagnostics as you type, definitions, references, hover, completion, outline, "
        "rename, quick fixes, formatting and inlay hints."
    )
    parser.add_argument(
        "--stdio", action="store_true", help="talk on standard input and output (the default)"
    )


def run(args: argparse.Namespace) -> int:
    from lore.lsp.server import serve

    serve()
    return 0
