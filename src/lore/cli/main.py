"""``lore``: check, format (and later run) Lore programs.

Exit codes: 0 clean (warnings allowed), 1 errors in the program, 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from lore import __version__
from lore.cli import check_command, fmt_command, run_command, sim_command

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lore", description="Lore: rules and scenarios for tabletop sessions."
    )
    parser.add_argument("--version", action="version", version=f"lore {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    check = commands.add_parser(
        "check",
        help="report the problems of Lore files",
        description="Parse and check Lore files and what they "
        "import; print each problem with its place.",
    )
    check.add_argument("files", nargs="+", type=Path, metavar="FILE")
    check.set_defaults(handler=check_command.run)

    fmt = commands.add_parser(
        "fmt",
        help="print Lore files in the canonical layout",
        description="Print a Lore file in the canonical layout (comments kept).",
    )
    fmt.add_argument("files", nargs="+", type=Path, metavar="FILE")
    mode = fmt.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if a file is not in the canonical layout"
    )
    fmt.set_defaults(handler=fmt_command.run)

    run = commands.add_parser(
        "run", help="run a session in the terminal", description=run_command.__doc__
    )
    run_command.add_arguments(run)
    run.set_defaults(handler=run_command.run)

    sim = commands.add_parser(
        "sim",
        help="run many sessions with bots and sum up what happened",
        description=sim_command.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim_command.add_arguments(sim)
    sim.set_defaults(handler=sim_command.run)

    from lore.cli import dice_command  # roll, odds

    dice_command.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
