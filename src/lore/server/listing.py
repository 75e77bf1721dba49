"""The sessions a store keeps, read from its files as they are: read-only, without a
server (``lore sessions``, and ``lore serve --ready`` of several workers). The files of
every worker are read (``lore.server.shards``); a server may be serving them meanwhile.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from lore.server.shards import shard_path, shards
from lore.server.store import SeatRecord, SessionRecord, StoreError


@dataclass(frozen=True, slots=True)
class Listed:
    """A session as the store keeps it: its record and its seats (GM first)."""

    record: SessionRecord
    seats: tuple[SeatRecord, ...]


def listed(db: Path) -> list[Listed]:
    """Every session of the store of ``db``, oldest first (StoreError when a file cannot
    be read; none when there is no file)."""
    found: list[Listed] = []
    for index in shards(db):
        path = shard_path(db, index)
        if path.is_file():
            found += read(path)
    return sorted(found, key=lambda listed: (listed.record.created, listed.record.id))


def read(path: Path) -> list[Listed]:
    """The sessions of one file of a store."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise StoreError(f"cannot read {path}: {error}") from None
    try:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(sessions)")]
        dice = "dice" if "dice" in columns else "''"  # (a file of before layout 2 has none)
        sessions = connection.execute(
            f"SELECT id, title, digest, entry, seed, created, status, {dice} FROM sessions"
        ).fetchall()
        seats = connection.execute(
            "SELECT session, seat, label, token, added FROM seats ORDER BY added, rowid"
        ).fetchall()
    except sqlite3.Error as error:
        raise StoreError(f"cannot read {path}: {error} (is it a Lore sessions file?)") from None
    finally:
        connection.close()
    by_session: dict[str, list[SeatRecord]] = {}
    for row in seats:
        by_session.setdefault(row[0], []).append(SeatRecord(*row))
    return [Listed(SessionRecord(*row), tuple(by_session.get(row[0], ()))) for row in sessions]
