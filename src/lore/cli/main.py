"""``lore``: check, format, run and simulate Lore programs.

Exit codes: 0 clean (warnings allowed), 1 errors in the program, 2 usage error.

Each command lives in a module of its own, with ``add_arguments(parser)`` (its
arguments, and its description when it has a long one) and ``run(args)`` (the exit
code). Only the module of the command being run is imported: ``lore check`` does not
pay for the engine, nor ``lore --version`` for anything.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from lore import __version__

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2

# name: (module, the one-line help that `lore --help` lists)
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("lore.cli.check_command", "report the problems of Lore files"),
    "fmt": ("lore.cli.fmt_command", "print Lore files in the canonical layout"),
    "run": ("lore.cli.run_command", "run a session in the terminal"),
    "sim": ("lore.cli.sim_command", "run many sessions with bots and sum up what happened"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of the ``lore`` command, with the arguments of ``command`` (None: of
    every command; the others are listed with their help only)."""
    parser = argparse.ArgumentParser(
        prog="lore", description="Lore: rules and scenarios for tabletop sessions."
    )
    parser.add_argument("--version", action="version", version=f"lore {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    for name, (module_name, help_text) in COMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if command is None or name == command:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)
            sub.set_defaults(handler=module.run)
    return parser


def command_of(argv: Sequence[str]) -> str:
    """The command ``argv`` asks for ("" when there is none: only options)."""
    return next((arg for arg in argv if not arg.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_of(arguments))
    args = parser.parse_args(arguments)
    try:
        status: int = args.handler(args)
    except KeyboardInterrupt:
        print("lore: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    return status


if __name__ == "__main__":
    sys.exit(main())
