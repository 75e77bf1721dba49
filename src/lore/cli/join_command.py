"""``lore join URL``: play one seat of an online session (``lore serve``) from the
terminal. URL is the seat's link, ``http://host:8000/play?session=ID#TOKEN``: each question is asked
with numbered menus; a line typed while no question is open goes to the chat (``/roll
2D6`` rolls dice); Ctrl-D leaves."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__
    parser.add_argument(
        "url", metavar="URL", help="the seat's link, http://HOST:PORT/play?session=ID#TOKEN"
    )


def run(args: argparse.Namespace) -> int:
    from lore.clients.join import play

    return play(args.url)
