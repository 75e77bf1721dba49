"""``lore``: check, format, run and simulate Lore programs.

Exit codes: 0 clean (warnings allowed), 1 errors in the program, 2 usage error, 130
when interrupted (Ctrl-C).

Each command lives in a module, with ``add_arguments(parser)`` (its arguments, and its
description when it has a long one) and ``run(args)`` (the exit code); a module of
several commands names them ``add_NAME_arguments`` and ``run_NAME``. Only the module of
the command being run is imported: ``lore check`` does not pay for the engine, nor
``lore --version`` for anything.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    import argparse

from lore import __version__
from lore.cli import by_ctrl_c, take_ctrl_c
from lore.syntax.recursion import collector_paused

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2

# name: (module, the one-line help that `lore --help` lists)
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("lore.cli.check_command", "report the problems of Lore files"),
    "fmt": ("lore.cli.fmt_command", "print Lore files in the canonical layout"),
    "run": ("lore.cli.run_command", "run a session in the terminal"),
    "sim": ("lore.cli.sim_command", "run many sessions with bots and sum up what happened"),
    "test": ("lore.cli.playtest_command", "replay answers files against their blessed transcripts"),
    "serve": ("lore.cli.serve_command", "serve online sessions to browsers"),
    "sessions": (
        "lore.cli.sessions_command",
        "print the sessions lore serve keeps, with their links",
    ),
    "join": ("lore.cli.join_command", "play one seat of an online session"),
    "roll": ("lore.cli.dice_command", "roll a BCDice dice command (2D6+3>=10)"),
    "odds": ("lore.cli.dice_command", "print the exact odds of a dice command"),
    "lsp": ("lore.cli.lsp_command", "serve an editor the Language Server Protocol"),
}


@cache
def _formatter() -> type[argparse.HelpFormatter]:
    """argparse's help layout, given the terminal's width without importing ``shutil``
    (argparse imports it, and with it the compression modules, for every argument).
    Made when a parser is built: ``lore check FILE...`` does not import argparse."""
    import argparse

    class Formatter(argparse.HelpFormatter):
        def __init__(
            self,
            prog: str,
            indent_increment: int = 2,
            max_help_position: int = 24,
            width: int | None = None,
        ) -> None:
            width = width or _columns() - 2
            super().__init__(prog, indent_increment, max_help_position, width)

    return Formatter


def _columns() -> int:
    """The terminal's width, as ``shutil.get_terminal_size`` tells it."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of the ``lore`` command, with the arguments of ``command`` (and no other
    command: that is all a run of it needs), or of every command (None, or a name that
    is not a command: for the list of commands in the help and in errors)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="lore",
        description="Lore: rules and scenarios for tabletop sessions.",
        formatter_class=_formatter(),
    )
    parser.add_argument("--version", action="version", version=f"lore {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    chosen = [command] if command in COMMANDS else list(COMMANDS)
    for name in chosen:
        module_name, help_text = COMMANDS[name]
        sub = commands.add_parser(
            name, help=help_text, description=help_text, formatter_class=_formatter()
        )
        if command is None or name == command:
            module = importlib.import_module(module_name)
            add = getattr(module, f"add_{name}_arguments", None) or module.add_arguments
            add(sub)
            make_plain(sub)  # the descriptions are docstrings, in reST
            sub.set_defaults(handler=getattr(module, f"run_{name}", None) or module.run)
    return parser


# reST's inline markup, which the commands' descriptions (their modules' docstrings) are
# written in: ``literal``, :role:`target` (or :role:`text <target>`), `interpreted`,
# **strong**, *emphasis* (a star beside a word character is arithmetic: 2D6*3 stays).
MARKUP = (
    r"``(.+?)``",
    r":[\w.-]+(?::[\w.-]+)?:`([^`<]*?)(?:\s*<[^`>]*>)?`",
    r"(?<![\w`])`([^`\s](?:[^`]*[^`\s])?)`_{0,2}(?![\w`])",
    r"(?<![\w*])\*\*(\S(?:.*?\S)?)\*\*(?![\w*])",
    r"(?<![\w*])\*(\S(?:.*?\S)?)\*(?![\w*])",
)


def plain(text: str) -> str:
    """``text`` without reST's inline markup, as ``--help`` shows it."""
    import re  # (compiled when a help is made, not for every command line)

    for pattern in MARKUP:
        text = re.sub(pattern, r"\1", text, flags=re.DOTALL)
    return text


def make_plain(parser: argparse.ArgumentParser) -> None:
    """The description, epilog and argument helps of ``parser`` in plain text."""
    parser.description = plain(parser.description) if parser.description else None
    parser.epilog = plain(parser.epilog) if parser.epilog else None
    for action in parser._actions:
        if isinstance(action.help, str):
            action.help = plain(action.help)


def command_of(argv: Sequence[str]) -> str:
    """The command ``argv`` asks for ("" when there is none: only options)."""
    return next((arg for arg in argv if not arg.startswith("-")), "")


def plain_arguments(arguments: list[str]) -> argparse.Namespace | None:
    """The arguments of a command line that is a command and plain words (no option), when
    the command reads such a line itself (``plain_arguments`` in its module: ``lore check
    FILE...``), as its parser would; None for any other line, which the parser reads.
    Importing argparse and building the parser cost a small check about a seventh of its
    time (argparse asks gettext for every message, and gettext imports locale)."""
    command = arguments[0] if arguments else ""
    if command not in COMMANDS or any(word.startswith("-") for word in arguments):
        return None
    module = importlib.import_module(COMMANDS[command][0])
    read = getattr(module, "plain_arguments", None)
    return None if read is None else read(arguments[1:])


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:
        # Importing the command is inside: a Ctrl-C while it loads is an interruption
        # like any other, not a traceback.
        with collector_paused():  # importing a command makes many objects and no garbage
            args = plain_arguments(arguments)
            if args is None:
                args = build_parser(command_of(arguments)).parse_args(arguments)
        if take_ctrl_c():  # and swallowed by code that loaded
            raise KeyboardInterrupt
        status: int = args.handler(args)
    except KeyboardInterrupt:
        take_ctrl_c()
        print("lore: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:
        if not by_ctrl_c(error):
            raise
        take_ctrl_c()
        print("lore: interrupted", file=sys.stderr)
        return 130
    return status


# Commands that end at once when done (see ``entry``): they hold no server, database or
# worker that would want Python's orderly shutdown.
QUICK = frozenset({"check", "fmt", "roll", "odds"})


def entry() -> NoReturn:
    """The ``lore`` command (its script, and ``python -m lore``).

    A quick command ends the process at once after ``main``: freeing a run's objects one
    by one as Python shuts down costs about as much as checking a small file, and the
    system frees them anyway (mypy ends the same way). The output is flushed first, and
    these commands close every file they write before they return. The others end as
    usual."""
    status = main()
    if command_of(sys.argv[1:]) not in QUICK:
        sys.exit(status)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(status)


if __name__ == "__main__":
    entry()
