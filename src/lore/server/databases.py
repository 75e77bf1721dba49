"""Which database ``--db`` names, opening its store, listing its sessions, and holding it
for one server.

``--db`` is a SQLite file (a path, or ``sqlite:///FILE``: the default, one machine) or a
PostgreSQL server (``postgresql://user@host/db``). Until servers share a database as
nodes, one server uses a database at a time: a SQLite file is locked (``workers``'
``lock_store``), a PostgreSQL database by an advisory lock its server holds on a
connection of its own (free the moment that server's connection ends, also when it is
killed).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.server.listing import Listed, listed
from lore.server.postgres_store import PostgresStore, is_postgres_url, shown_url
from lore.server.shards import open_store
from lore.server.sqlite_store import sqlite_path
from lore.server.store import ENDED, OPEN, Store, StoreError
from lore.server.workers import StoreLocked

# The advisory lock of "a server uses this database" (any number of its own).
SERVING_LOCK = 0x10BE_5E4F


@dataclass(frozen=True)
class Database:
    url: str  # as given
    path: Path | None  # the SQLite file; None: a PostgreSQL database

    @property
    def shown(self) -> str:
        return str(self.path) if self.path is not None else shown_url(self.url)


def database(url: str) -> Database:
    """The database of a ``--db`` value (ValueError for a kind Lore does not know)."""
    if is_postgres_url(url):
        return Database(url, None)
    return Database(url, sqlite_path(url))


async def open_database(
    db: Database, own: int = 0, owns: Callable[[str], bool] | None = None, at_least: int = 1
) -> Store:
    """The store of ``db`` (StoreError when it cannot be opened)."""
    if db.path is not None:
        return await open_store(db.path, own, owns, at_least)
    return await PostgresStore.open(db.url)


async def listed_in(db: Database) -> list[Listed]:
    """Every session the database keeps, oldest first (none when there is no file)."""
    if db.path is not None:
        return await asyncio.to_thread(listed, db.path)
    store = await PostgresStore.open(db.url)
    try:
        found = []
        for record in [*await store.sessions(OPEN), *await store.sessions(ENDED)]:
            found.append(Listed(record, tuple(await store.seats(record.id))))
    finally:
        await store.close()
    return sorted(found, key=lambda listed: (listed.record.created, listed.record.id))


@dataclass
class Hold:
    """A PostgreSQL database held for this server: the connection holding its lock."""

    connection: Any

    async def release(self) -> None:
        await self.connection.close()


async def hold_postgres(db: Database, wait: float) -> Hold:
    """Take the database's serving lock, waiting up to ``wait`` seconds for the server
    that has it to stop (StoreLocked after that; StoreError when it cannot be reached)."""
    import psycopg

    try:
        connection = await psycopg.AsyncConnection.connect(db.url, autocommit=True)
    except psycopg.Error as error:
        raise StoreError(f"cannot open {db.shown}: {str(error).strip().splitlines()[0]}") from None
    deadline = time.monotonic() + wait
    while True:
        cursor = await connection.execute("SELECT pg_try_advisory_lock(%s)", (SERVING_LOCK,))
        row = await cursor.fetchone()
        if row is not None and row[0]:
            return Hold(connection)
        if time.monotonic() > deadline:
            await connection.close()
            raise StoreLocked(f"{db.shown} is used by another lore serve (it holds its lock)")
        await asyncio.sleep(0.2)
