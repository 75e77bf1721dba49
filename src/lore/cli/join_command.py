"""``lore join URL``: play one seat of an online session (``lore serve``) from the
terminal. URL is the seat's link, ``http://host:8000/play?session=ID#TOKEN``. Each
question is asked with numbered menus, like ``lore run``; a line typed while no question
is open goes to the chat, where a dice command (``2D6+3>=10``) rolls, as in the web
client's chat; a line that starts with ``/`` is for the chat even while a question is
asked; ``<`` typed at a question goes back (the answer before it is taken back and that
question asked again). What other seats send is printed without its control characters.
Ctrl-D leaves."""

from __future__ import annotations

import argparse
import textwrap

from lore.cli.main import plain
from lore.clients.chat_commands import CHAT_HELP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # Shown as it is (the chat commands are a table): filled here.
    parser.description = textwrap.fill(" ".join(plain(__doc__ or "").split()), 78)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = "\n".join(line.removeprefix("   ") for line in CHAT_HELP.splitlines())
    parser.add_argument(
        "url", metavar="URL", help="the seat's link, http://HOST:PORT/play?session=ID#TOKEN"
    )


def run(args: argparse.Namespace) -> int:
    from lore.clients.join import play

    return play(args.url)
