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
    try:
        from lore.lsp.server import serve
    except ImportError as missing:  # an install without the server's framework
        from lore.cli.io import usage_error

        usage_error(f"lore lsp needs the pygls package ({missing}): pip install pygls")
        return 2
    serve()
    return 0
