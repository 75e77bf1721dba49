"""A store in PostgreSQL (psycopg 3), for sites past one machine: ``--db postgresql://…``.

It keeps what the SQLite store keeps, the same way (``lore.server.store``'s protocol):
bundles by digest, sessions, seats, the log keyed by ``(session, index)``, the latest
snapshot of each session, and the transcript records, a row for each batch of them.

**Group commit.** The log entries appended while an insert is under way wait for it,
then go in together as one statement (``unnest`` of arrays): one commit, one flush of
PostgreSQL's write-ahead log, for a whole batch of answers. An entry is acknowledged
(its waiter given None) only once that statement's commit has returned; with PostgreSQL's
``synchronous_commit`` on, it is then on the disk. Appends have a connection of their
own, so that a snapshot being written never holds an answer back.

**Fencing.** The log's primary key is ``(session, idx)``: an entry whose index is taken
is refused (``ON CONFLICT DO NOTHING``, a StoreError for that entry alone; the others of
its batch are kept). A server that lost a session to another therefore cannot add to its
log: its next append fails.

**Migrations.** ``lore_schema`` holds the version of the layout. Opening a database
brings it up to date, step by step (``MIGRATIONS``), under an advisory lock so that
servers opening it at once migrate it once; a database of a newer layout is refused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import msgspec
import psycopg
from psycopg import sql

from lore.server.store import (
    OPEN,
    LogEntry,
    Records,
    SeatRecord,
    SessionRecord,
    Snapshot,
    StoreError,
    Waiter,
)

log = logging.getLogger(__name__)

# The advisory lock taken while the layout is brought up to date (any number of its own).
MIGRATION_LOCK = 0x10BE_5C4E

# The layout, one step a version: step N brings version N-1 to N.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE bundles (
        digest TEXT NOT NULL,
        path TEXT NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (digest, path)
    );
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        digest TEXT NOT NULL,
        entry TEXT NOT NULL,
        seed BIGINT NOT NULL,
        created DOUBLE PRECISION NOT NULL,
        status TEXT NOT NULL,
        records INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_by_status ON sessions (status, created, id);
    CREATE TABLE seats (
        session TEXT NOT NULL REFERENCES sessions(id),
        seat TEXT NOT NULL,
        label TEXT NOT NULL,
        token TEXT UNIQUE,
        added INTEGER NOT NULL,
        n BIGINT GENERATED ALWAYS AS IDENTITY,  -- the order seats were made in
        PRIMARY KEY (session, seat)
    );
    CREATE TABLE log (
        session TEXT NOT NULL REFERENCES sessions(id),
        idx INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (session, idx)
    );
    CREATE TABLE snapshots (
        session TEXT PRIMARY KEY REFERENCES sessions(id),
        idx INTEGER NOT NULL,
        data BYTEA NOT NULL
    );
    CREATE TABLE transcript (
        session TEXT NOT NULL REFERENCES sessions(id),
        first INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (session, first)
    );
    """,
    # 2: the nodes of a cluster (``nodes.py``) and the session each holds.
    """
    CREATE TABLE lore_nodes (
        url TEXT PRIMARY KEY,
        started DOUBLE PRECISION NOT NULL,
        beat TIMESTAMPTZ NOT NULL,
        draining BOOLEAN NOT NULL DEFAULT false
    );
    CREATE TABLE lore_owners (
        session TEXT PRIMARY KEY,
        node TEXT NOT NULL
    );
    """,
    # 3: the BCDice game system of a session's chat rolls ('': the common commands only).
    """
    ALTER TABLE sessions ADD COLUMN dice TEXT NOT NULL DEFAULT '';
    """,
)

_INSERT_LOG = (
    "INSERT INTO log (session, idx, kind, data)"
    " SELECT * FROM unnest(%s::text[], %s::int[], %s::text[], %s::text[])"
    " ON CONFLICT DO NOTHING RETURNING session, idx"
)

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()

Pending = tuple[str, int, str, str, Waiter]


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


class PostgresStore:
    """The ``Store`` protocol on a PostgreSQL database (``open`` makes one)."""

    def __init__(
        self, url: str, main: psycopg.AsyncConnection[Any], writer: psycopg.AsyncConnection[Any]
    ) -> None:
        self.url = url
        self.main = main  # every operation but appends
        self.writer = writer  # appends only
        self.pending: list[Pending] = []
        self.flushing: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: str, migrations: Sequence[str] = MIGRATIONS) -> PostgresStore:
        """Connect (two connections) and bring the layout up to date; StoreError when the
        database cannot be reached or is of a newer layout."""
        try:
            main = await psycopg.AsyncConnection.connect(url, autocommit=True)
        except psycopg.Error as error:
            raise StoreError(f"cannot open {shown_url(url)}: {_reason(error)}") from None
        try:
            await migrate(main, migrations, url)
            writer = await psycopg.AsyncConnection.connect(url, autocommit=True)
        except psycopg.Error as error:
            await main.close()
            raise StoreError(f"cannot open {shown_url(url)}: {_reason(error)}") from None
        except BaseException:
            await main.close()
            raise
        return cls(url, main, writer)

    # ------------------------------------------------------------ writing

    async def create(
        self, record: SessionRecord, files: dict[str, bytes], seats: list[SeatRecord]
    ) -> None:
        async def operation(db: psycopg.AsyncConnection[Any]) -> None:
            async with db.cursor() as cursor:
                await cursor.executemany(
                    "INSERT INTO bundles (digest, path, data) VALUES (%s, %s, %s)"
                    " ON CONFLICT DO NOTHING",
                    [(record.digest, path, data) for path, data in sorted(files.items())],
                )
                await cursor.execute(
                    "INSERT INTO sessions (id, title, digest, entry, seed, created, status,"
                    " dice) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    (
                        record.id,
                        record.title,
                        record.digest,
                        record.entry,
                        record.seed,
                        record.created,
                        record.status,
                        record.dice,
                    ),
                )
                await cursor.executemany(
                    "INSERT INTO seats (session, seat, label, token, added)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    [(s.session, s.seat, s.label, s.token, s.added) for s in seats],
                )

        await self._transaction(operation)

    def append(self, session: str, entry: LogEntry) -> asyncio.Future[None]:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.append_then(session, entry, done)
        return done

    def append_then(self, session: str, entry: LogEntry, waiter: Waiter) -> None:
        data = _encoder.encode(entry.data).decode()
        self.pending.append((session, entry.index, entry.kind, data, waiter))
        if self.flushing is None:
            self.flushing = waiter.get_loop().create_task(self._flush())

    async def _flush(self) -> None:
        """Insert what waits, a batch at a time, until nothing does."""
        try:
            while self.pending:
                batch, self.pending = self.pending, []
                await self._insert(batch)
        finally:
            self.flushing = None

    async def _insert(self, batch: list[Pending]) -> None:
        columns: list[list[Any]] = [[], [], [], []]
        for row in batch:
            for column, value in zip(columns, row[:4], strict=False):
                column.append(value)
        try:
            self.writer = await self._alive(self.writer)
            async with self.writer.cursor() as cursor:
                await cursor.execute(_INSERT_LOG, columns)
                stored = {(session, index) for session, index in await cursor.fetchall()}
        except psycopg.Error as error:
            failed = StoreError(f"the log could not be written: {_reason(error)}")
            for *_, waiter in batch:
                _settle(waiter, failed)
            return
        for session, index, _, _, waiter in batch:
            if (session, index) in stored:
                _settle(waiter, None)
            else:
                _settle(waiter, StoreError(f"log entry {index} of {session} is taken"))

    async def put_seat(self, seat: SeatRecord) -> None:
        await self._execute(
            "INSERT INTO seats (session, seat, label, token, added) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (session, seat) DO UPDATE SET label = excluded.label,"
            " token = excluded.token",
            (seat.session, seat.seat, seat.label, seat.token, seat.added),
        )

    async def delete_seat(self, session: str, seat: str) -> None:
        await self._execute("DELETE FROM seats WHERE session = %s AND seat = %s", (session, seat))

    async def set_status(self, session: str, status: str) -> None:
        await self._execute("UPDATE sessions SET status = %s WHERE id = %s", (status, session))

    async def put_snapshot(self, session: str, snapshot: Snapshot) -> None:
        async def operation(db: psycopg.AsyncConnection[Any]) -> None:
            await _add_records(db, session, snapshot.first, snapshot.records)
            await db.execute(
                "INSERT INTO snapshots (session, idx, data) VALUES (%s, %s, %s)"
                " ON CONFLICT (session) DO UPDATE SET idx = excluded.idx, data = excluded.data",
                (session, snapshot.index, snapshot.data),
            )

        await self._transaction(operation)

    async def put_records(self, session: str, records: Records) -> None:
        async def operation(db: psycopg.AsyncConnection[Any]) -> None:
            await _add_records(db, session, records.first, records.records)

        await self._transaction(operation)

    # ------------------------------------------------------------ reading

    async def sessions(self, status: str = OPEN) -> list[SessionRecord]:
        rows = await self._fetch(
            "SELECT id, title, digest, entry, seed, created, status, dice FROM sessions"
            " WHERE status = %s ORDER BY created, id",
            (status,),
        )
        return [SessionRecord(*row) for row in rows]

    async def files(self, digest: str) -> dict[str, bytes]:
        rows = await self._fetch("SELECT path, data FROM bundles WHERE digest = %s", (digest,))
        return {path: bytes(data) for path, data in rows}

    async def seats(self, session: str) -> list[SeatRecord]:
        rows = await self._fetch(
            "SELECT session, seat, label, token, added FROM seats WHERE session = %s"
            " ORDER BY added, n",
            (session,),
        )
        return [SeatRecord(*row) for row in rows]

    async def session_of(self, token: str) -> str | None:
        rows = await self._fetch(
            "SELECT s.id FROM seats t JOIN sessions s ON s.id = t.session"
            " WHERE t.token = %s AND s.status = %s",
            (token, OPEN),
        )
        return str(rows[0][0]) if rows else None

    async def holder(self, token: str) -> tuple[SessionRecord, SeatRecord] | None:
        rows = await self._fetch(
            "SELECT s.id, s.title, s.digest, s.entry, s.seed, s.created, s.status, s.dice,"
            " t.session, t.seat, t.label, t.token, t.added"
            " FROM seats t JOIN sessions s ON s.id = t.session WHERE t.token = %s",
            (token,),
        )
        if not rows:
            return None
        row = rows[0]
        return SessionRecord(*row[:8]), SeatRecord(*row[8:])

    async def snapshot(self, session: str) -> Snapshot | None:
        rows = await self._fetch("SELECT idx, data FROM snapshots WHERE session = %s", (session,))
        return Snapshot(rows[0][0], bytes(rows[0][1])) if rows else None

    async def transcript(self, session: str) -> list[dict[str, Any]]:
        rows = await self._fetch(
            "SELECT data FROM transcript WHERE session = %s ORDER BY first", (session,)
        )
        found: list[dict[str, Any]] = []
        for (data,) in rows:
            found.extend(_decoder.decode(data))
        return found

    async def transcript_length(self, session: str) -> int:
        rows = await self._fetch("SELECT records FROM sessions WHERE id = %s", (session,))
        return int(rows[0][0]) if rows else 0

    async def log(self, session: str, after: int = 0) -> list[LogEntry]:
        rows = await self._fetch(
            "SELECT idx, kind, data FROM log WHERE session = %s AND idx > %s ORDER BY idx",
            (session, after),
        )
        return [LogEntry(index, kind, _decoder.decode(data)) for index, kind, data in rows]

    async def close(self) -> None:
        if self.flushing is not None:
            await asyncio.shield(self.flushing)
        await self.writer.close()
        await self.main.close()

    # ------------------------------------------------------------ running

    async def _alive(
        self, connection: psycopg.AsyncConnection[Any]
    ) -> psycopg.AsyncConnection[Any]:
        """The connection, or a new one where it broke (the server restarted, or ended it):
        what failed on the old one was said failed; what comes after goes on."""
        if not connection.broken and not connection.closed:
            return connection
        log.warning("the connection to %s broke: connecting again", shown_url(self.url))
        return await psycopg.AsyncConnection.connect(self.url, autocommit=True)

    async def _execute(self, query: str, params: tuple[Any, ...]) -> None:
        try:
            self.main = await self._alive(self.main)
            await self.main.execute(query, params)
        except psycopg.Error as error:
            raise StoreError(_reason(error)) from None

    async def _fetch(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            self.main = await self._alive(self.main)
            async with self.main.cursor() as cursor:
                await cursor.execute(query, params)
                return await cursor.fetchall()
        except psycopg.Error as error:
            raise StoreError(_reason(error)) from None

    async def _transaction(self, operation: Any) -> None:
        try:
            self.main = await self._alive(self.main)
            async with self.main.transaction():
                await operation(self.main)
        except psycopg.Error as error:
            raise StoreError(_reason(error)) from None


async def _add_records(
    db: psycopg.AsyncConnection[Any], session: str, first: int, records: tuple[dict[str, Any], ...]
) -> None:
    """Add a batch of transcript records; ``first`` must be the number kept (the count
    of the session's row is moved on in the same statement that checks it)."""
    cursor = await db.execute(
        "UPDATE sessions SET records = records + %s WHERE id = %s AND records = %s"
        " RETURNING records",
        (len(records), session, first),
    )
    if await cursor.fetchone() is None:
        raise StoreError(f"the records of {session} from {first} are out of order")
    if records:
        await db.execute(
            "INSERT INTO transcript (session, first, data) VALUES (%s, %s, %s)",
            (session, first, _encoder.encode(list(records)).decode()),
        )


async def migrate(
    db: psycopg.AsyncConnection[Any], migrations: Sequence[str], url: str = ""
) -> int:
    """Bring the layout up to ``len(migrations)``, once however many servers open the
    database at once; the version it is at after."""
    async with db.transaction():
        await db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await db.execute("CREATE TABLE IF NOT EXISTS lore_schema (version INTEGER NOT NULL)")
        cursor = await db.execute("SELECT version FROM lore_schema")
        row = await cursor.fetchone()
        version = int(row[0]) if row is not None else 0
        if row is None:
            await db.execute("INSERT INTO lore_schema (version) VALUES (0)")
        if version > len(migrations):
            raise StoreError(
                f"cannot open {shown_url(url)}: its layout ({version}) is of a newer Lore"
            )
        for step in range(version, len(migrations)):
            await db.execute(sql.SQL(migrations[step]))
            log.info("the database's layout is now version %d", step + 1)
        await db.execute("UPDATE lore_schema SET version = %s", (len(migrations),))
    return len(migrations)


def _settle(waiter: Waiter, error: StoreError | None) -> None:
    if waiter.done():
        return
    if error is None:
        waiter.set_result(None)
    else:
        waiter.set_exception(error)


def _reason(error: psycopg.Error) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def shown_url(url: str) -> str:
    """The URL without its password, for messages."""
    scheme, _, rest = url.partition("://")
    credentials, at, place = rest.rpartition("@")
    if not at:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}@{place}"
