"""lore sessions [--db URL] [--url BASE] [--open]

Prints the sessions that lore serve keeps (in --db, default lore-sessions.db, as for
lore serve), oldest first: each one's id, title, state (open, or ended by the GM or by
its rules) and start, then its GM link and an invite per player seat. The database is
read as it is, also while a server serves it; nothing is changed. The links start with
the server's address (--url, default http://127.0.0.1:8000, where lore serve listens
unless told otherwise). A GM link lets whoever has it run the session: keep it to
yourself.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from lore.cli.io import usage_error

DEFAULT_URL = "http://127.0.0.1:8000"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__.split("\n\n", 1)[1]  # (the usage line: argparse's)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--db",
        default="lore-sessions.db",
        metavar="URL",
        help="sqlite:///FILE or a file path (the default), or postgresql://USER@HOST/DB",
    )
    parser.add_argument(
        "--url",
        default=DEFAULT_URL,
        metavar="BASE",
        help=f"the server's address, as the players reach it (default {DEFAULT_URL})",
    )
    parser.add_argument("--open", action="store_true", help="only the open sessions")


def run(args: argparse.Namespace) -> int:
    from lore.cli.links import print_links
    from lore.server.databases import database, listed_in
    from lore.server.store import OPEN, StoreError

    try:
        db = database(args.db)
    except ValueError as error:
        usage_error(str(error))
        return 2
    if db.path is not None and not db.path.is_file():
        usage_error(f"there is no {db.path}: lore serve makes it (or name the file with --db)")
        return 2
    try:
        found = asyncio.run(listed_in(db))
    except StoreError as error:
        usage_error(str(error))
        return 2
    if args.open:
        found = [session for session in found if session.record.status == OPEN]
    if not found:
        print(f"No {'open ' if args.open else ''}sessions in {db.shown}.")
        return 0
    base = args.url.rstrip("/")
    for session in found:
        record = session.record
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.created))
        print(f"{record.id}  {record.title}  ({record.status}, started {started})")
        print_links(base, session.seats)
    return 0
