"""The default store: one SQLite file in WAL mode, written by one thread.

Every operation runs on the store's own thread, which owns the connection. Operations
that arrive while a commit is under way are gathered and committed together (a *group
commit*): one ``fsync`` of the write-ahead log makes a whole batch of answers durable, so
many sessions answering at once do not each wait for a disk flush of their own. An
operation that fails is rolled back alone (each runs in a savepoint); the others of its
batch are kept. The log entries appended in one turn of the event loop go to the store's
thread as one operation (one insert of many rows), each still acknowledged only once its
batch is committed; a batch of nothing but such inserts is one statement, which SQLite
commits by itself (no begin and commit around it). The log's layout (rows in arrival
order, moved into a chunk per session when its transcript records, or its snapshot, are
stored) is ``lore.server.journal``'s; a database of the earlier layout (the log clustered
by session, ``PRAGMA user_version`` 0) is migrated when opened. The transcript records
stored at once (``Records``, or with a snapshot) are one row, a JSON array, compressed
like the snapshot (a row of one record, as earlier servers kept them, is read too).
``synchronous=FULL``: a commit has reached the disk when it returns, so a ``kill -9`` (or
a power cut) loses nothing that was acknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import queue
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from lore.server import trace
from lore.server.journal import LEVEL, ROWS_AT_ONCE, TABLES, Journal, Row, migrate
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

T = TypeVar("T")
log = logging.getLogger(__name__)
Operation = Callable[[sqlite3.Connection], Any]
Item = tuple[Operation, "asyncio.Future[Any] | None"]  # (None: ``LogRows``' own waiters)
Result = tuple["asyncio.Future[Any] | Waiter", Any, BaseException | None]
# The layout's version (``PRAGMA user_version``): 0 was the log clustered by session.
VERSION = 2  # 2: sessions.dice
# The connection's page cache: the journal's live rows (read again when a snapshot moves
# them into a chunk, a hundred entries later) stay in it rather than being read back from
# the file (SQLite's default is 2 MiB).
CACHE_KIB = 32 * 1024
LOCK_WAIT = 10.0  # seconds a server sharing the file waits for its write lock, at most

SCHEMA = """
CREATE TABLE IF NOT EXISTS bundles (
    digest TEXT NOT NULL,
    path TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (digest, path)
);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    digest TEXT NOT NULL,
    entry TEXT NOT NULL,
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    status TEXT NOT NULL,
    dice TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS seats (
    session TEXT NOT NULL REFERENCES sessions(id),
    seat TEXT NOT NULL,
    label TEXT NOT NULL,
    token TEXT UNIQUE,
    added INTEGER NOT NULL,
    PRIMARY KEY (session, seat)
);
CREATE TABLE IF NOT EXISTS snapshots (
    session TEXT PRIMARY KEY REFERENCES sessions(id),
    idx INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS transcript (
    session TEXT NOT NULL REFERENCES sessions(id),
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session, idx)
) WITHOUT ROWID;
"""


def sqlite_path(url: str) -> Path:
    """The file of a ``--db`` URL: ``sqlite:///relative.db``, ``sqlite:////abs.db`` or a
    plain path (ValueError for another kind of database)."""
    if "://" not in url:
        return Path(url)
    scheme, _, rest = url.partition("://")
    if scheme != "sqlite":
        raise ValueError(
            f"'{scheme}' databases are not supported; use sqlite:///FILE, a file path, or"
            " postgresql://USER@HOST/DB"
        )
    if not rest.startswith("/") or rest == "/":
        raise ValueError(f"'{url}' names no file: write sqlite:///FILE")
    return Path(rest[1:])


class SQLiteStore:
    """A store in one SQLite file (created when missing)."""

    def __init__(self, path: Path, owns: Callable[[str], bool] | None = None) -> None:
        self.path = path
        # The sessions it appends to, when other servers share the file (``Journal``).
        self.owns = owns
        self.queue: queue.SimpleQueue[Item | None] = queue.SimpleQueue()
        # The rows appended in this turn of the loop, and their futures.
        self.appending: tuple[list[Row], list[Waiter]] = ([], [])
        ready: Future[None] = Future()
        self.thread = threading.Thread(
            target=self._serve, args=(ready,), name="lore-store", daemon=True
        )
        self.thread.start()
        ready.result()  # raises what opening the file raised

    # ------------------------------------------------------------ the store's thread

    def _open(self) -> tuple[sqlite3.Connection, Journal]:
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
            connection.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version > VERSION:
                raise StoreError(
                    f"cannot open {self.path}: its layout ({version}) is of a newer Lore"
                )
            connection.executescript(SCHEMA + TABLES)
            journal = Journal(connection, self.owns)
            if version < VERSION:
                connection.execute("BEGIN IMMEDIATE")
                migrate(connection, journal)
                connection.execute(f"PRAGMA user_version = {VERSION}")
                connection.execute("COMMIT")
            if self.owns is not None:  # (shared: waits for the lock are ``begin``'s)
                connection.execute("PRAGMA busy_timeout = 0")
        except BaseException:
            connection.close()
            raise
        return connection, journal

    def _serve(self, ready: Future[None]) -> None:
        try:
            connection, self.journal = self._open()
        except (sqlite3.Error, OSError) as error:
            ready.set_exception(StoreError(f"cannot open {self.path}: {error}"))
            return
        except StoreError as error:
            ready.set_exception(error)
            return
        ready.set_result(None)
        while True:
            item = self.queue.get()
            if item is None:
                break
            batch = [item]
            while True:  # everything that waits joins this commit
                try:
                    more = self.queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self.queue.put(None)
                    break
                batch.append(more)
            start = time.perf_counter()
            try:
                self._commit(connection, batch)
            except Exception as error:  # (a fault of the store's own: its thread goes on)
                log.exception("the store failed a batch of %d operations", len(batch))
                with contextlib.suppress(sqlite3.Error):
                    if connection.in_transaction:
                        connection.execute("ROLLBACK")
                    self.journal.load(connection)
                failed = StoreError(f"the store failed: {type(error).__name__}: {error}")
                _wake([result for op, future in batch for result in _failed(op, future, failed)])
            if trace.recorder is not None:
                rows = sum(len(op.rows) if isinstance(op, LogRows) else 0 for op, _ in batch)
                others = sum(0 if isinstance(op, LogRows) else 1 for op, _ in batch)
                detail = f"{rows} {others}"
                trace.recorder.note("commit", start, time.perf_counter() - start, detail)
        connection.close()

    def _commit(self, connection: sqlite3.Connection, batch: list[Item]) -> None:
        appends = [operation for operation, _ in batch if isinstance(operation, LogRows)]
        if sum(len(a.rows) for a in appends) <= ROWS_AT_ONCE:
            if len(appends) == len(batch):
                self._commit_rows(connection, appends)
                return
            if appends and all(isinstance(op, (LogRows, PutRecords)) for op, _ in batch):
                # Snapshots (or records) with appends: the appends first, committed and acknowledged
                # on their own, then the snapshots (moving rows into chunks, compressing:
                # their answers waited for all that, three times a plain commit). The
                # order changes nothing stored: a snapshot moves its session's rows up
                # to its entry, all stored before it was taken; the rows appended with
                # it are of later entries or other sessions.
                self._commit_rows(connection, appends)
                batch = [item for item in batch if not isinstance(item[0], LogRows)]
        results: list[Result] = []
        # An operation alone needs no savepoint: when it fails, the transaction is rolled
        # back. (Every statement costs the thread the GIL back once or more, which it may
        # wait for while the event loop's thread is busy: a commit takes as few as it can.)
        alone = len(batch) == 1
        try:
            self.begin(connection)
            for operation, future in batch:
                if not alone:
                    connection.execute("SAVEPOINT op")
                try:
                    value = operation(connection)
                except Exception as error:  # (the operation's own fault: it alone fails)
                    connection.execute("ROLLBACK" if alone else "ROLLBACK TO op")
                    self.journal.load(connection)  # (what it had changed is undone)
                    results += _failed(operation, future, _store_error(error))
                else:
                    if isinstance(operation, LogRows):  # (each entry its own outcome)
                        results += operation.results(value)
                    else:
                        assert future is not None  # (only ``LogRows`` have none)
                        results.append((future, value, None))
                if not alone:
                    connection.execute("RELEASE op")
            if connection.in_transaction:
                connection.execute("COMMIT")
        except sqlite3.Error as error:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            self.journal.load(connection)
            failed = _store_error(error)
            results = [result for op, future in batch for result in _failed(op, future, failed)]
        _wake(results)

    def _commit_rows(self, connection: sqlite3.Connection, appends: list[LogRows]) -> None:
        """Commit log rows (of one or more appends) with one statement, outside any
        transaction: SQLite commits it by itself (``synchronous=FULL``: synced when it
        returns). One statement, not three (begin, insert, commit), so the store's thread
        takes the GIL back as few times as it can: while the event loop is busy, each
        time may wait for the switch interval."""
        shared = self.owns is not None
        if shared:  # (the file's write lock taken first, waited for as ``begin`` does)
            try:
                self.begin(connection)
            except sqlite3.Error as error:
                _fail_all(appends, error)
                return
        if len(appends) == 1:
            append = appends[0]
            results = append.results(self.journal.insert(connection, append.rows))
        else:
            outcomes = self.journal.insert(connection, [row for a in appends for row in a.rows])
            results = []
            start = 0
            for append in appends:
                end = start + len(append.rows)
                results += append.results(outcomes[start:end])
                start = end
        if shared:
            try:
                connection.execute("COMMIT")
            except sqlite3.Error as error:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
                self.journal.load(connection)
                _fail_all(appends, error)
                return
        loop = appends[0].loop
        if all(append.loop is loop for append in appends):  # (one server: its loop)
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(_settle, results)
        else:
            _wake(results)

    def begin(self, connection: sqlite3.Connection) -> None:
        """Begin a write transaction. Shared with other servers (``owns``), the file's
        write lock may be held by one of them for a commit's time: it is tried again
        and again, waiting a little longer each time (from 50 us up to 2 ms, for
        ``LOCK_WAIT`` seconds in all), where SQLite's own busy handler would sleep
        whole milliseconds from the first wait."""
        if self.owns is None:
            connection.execute("BEGIN IMMEDIATE")
            return
        wait, deadline = 0.00005, time.monotonic() + LOCK_WAIT
        while True:
            try:
                connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if (
                    error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY
                    or time.monotonic() > deadline
                ):
                    raise
            time.sleep(wait)
            wait = min(wait * 2, 0.002)

    async def _run(self, operation: Callable[[sqlite3.Connection], T]) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self.queue.put((operation, future))
        return await future

    # ------------------------------------------------------------ writing

    async def create(
        self, record: SessionRecord, files: dict[str, bytes], seats: list[SeatRecord]
    ) -> None:
        def operation(db: sqlite3.Connection) -> None:
            db.executemany(
                "INSERT OR IGNORE INTO bundles (digest, path, data) VALUES (?, ?, ?)",
                [(record.digest, path, data) for path, data in sorted(files.items())],
            )
            db.execute(
                "INSERT INTO sessions (id, title, digest, entry, seed, created, status, dice)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
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
            db.executemany(
                "INSERT INTO seats (session, seat, label, token, added) VALUES (?, ?, ?, ?, ?)",
                [(s.session, s.seat, s.label, s.token, s.added) for s in seats],
            )
            self.journal.add(db, record.id)

        await self._run(operation)

    def append(self, session: str, entry: LogEntry) -> asyncio.Future[None]:
        """(A future, not a coroutine: awaited by the hub for the entries other than
        answers.)"""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.append_then(session, entry, done)
        return done

    def append_then(self, session: str, entry: LogEntry, waiter: Waiter) -> None:
        """(The hub's for every answer: no future, and no task to wake when it is
        stored. The waiter's loop is the running one: ``asyncio.get_running_loop`` costs
        a system call.)"""
        rows, waiting = self.appending
        rows.append((session, entry.index, entry.kind, _encode(entry.data).decode()))
        waiting.append(waiter)
        if len(rows) == 1:
            waiter.get_loop().call_soon(self._append_all)

    def _append_all(self) -> None:
        """Give the store's thread the entries appended in this turn of the loop, as one
        operation; each entry's future gets its own outcome from the store's thread (no
        future of the batch's own, and no callback more on the loop)."""
        rows, waiting = self.appending
        self.appending = ([], [])
        # (Their loop is the one running this: the same for every waiter of the turn.)
        self.queue.put((LogRows(self.journal, rows, waiting, waiting[0].get_loop()), None))

    async def put_seat(self, seat: SeatRecord) -> None:
        def operation(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO seats (session, seat, label, token, added) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (session, seat) DO UPDATE SET label = excluded.label,"
                " token = excluded.token",
                (seat.session, seat.seat, seat.label, seat.token, seat.added),
            )

        await self._run(operation)

    async def delete_seat(self, session: str, seat: str) -> None:
        def operation(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM seats WHERE session = ? AND seat = ?", (session, seat))

        await self._run(operation)

    async def set_status(self, session: str, status: str) -> None:
        def operation(db: sqlite3.Connection) -> None:
            db.execute("UPDATE sessions SET status = ? WHERE id = ?", (status, session))

        await self._run(operation)

    async def put_snapshot(self, session: str, snapshot: Snapshot) -> None:
        await self._run(PutSnapshot(self.journal, session, snapshot))

    async def put_records(self, session: str, records: Records) -> None:
        put = PutRecords(self.journal, session, records.index, records.first, records.records)
        await self._run(put)

    # ------------------------------------------------------------ reading

    async def sessions(self, status: str = OPEN) -> list[SessionRecord]:
        def operation(db: sqlite3.Connection) -> list[SessionRecord]:
            rows = db.execute(
                "SELECT id, title, digest, entry, seed, created, status, dice FROM sessions"
                " WHERE status = ? ORDER BY created, id",
                (status,),
            ).fetchall()
            return [SessionRecord(*row) for row in rows]

        return await self._run(operation)

    async def files(self, digest: str) -> dict[str, bytes]:
        def operation(db: sqlite3.Connection) -> dict[str, bytes]:
            rows = db.execute("SELECT path, data FROM bundles WHERE digest = ?", (digest,))
            return {path: bytes(data) for path, data in rows}

        return await self._run(operation)

    async def seats(self, session: str) -> list[SeatRecord]:
        def operation(db: sqlite3.Connection) -> list[SeatRecord]:
            rows = db.execute(
                "SELECT session, seat, label, token, added FROM seats WHERE session = ?"
                " ORDER BY added, rowid",
                (session,),
            ).fetchall()
            return [SeatRecord(*row) for row in rows]

        return await self._run(operation)

    async def session_of(self, token: str) -> str | None:
        def operation(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "SELECT seats.session FROM seats JOIN sessions ON sessions.id = seats.session"
                " WHERE seats.token = ? AND sessions.status = ?",
                (token, OPEN),
            ).fetchone()
            return None if row is None else str(row[0])

        return await self._run(operation)

    async def holder(self, token: str) -> tuple[SessionRecord, SeatRecord] | None:
        def operation(db: sqlite3.Connection) -> tuple[SessionRecord, SeatRecord] | None:
            row = db.execute(
                "SELECT sessions.id, title, digest, entry, seed, created, status, dice, seat,"
                " label, added FROM seats JOIN sessions ON sessions.id = seats.session"
                " WHERE seats.token = ?",
                (token,),
            ).fetchone()
            if row is None:
                return None
            seat = SeatRecord(row[0], row[8], row[9], token, row[10])
            return SessionRecord(*row[:8]), seat

        return await self._run(operation)

    async def snapshot(self, session: str) -> Snapshot | None:
        def operation(db: sqlite3.Connection) -> Snapshot | None:
            row = db.execute(
                "SELECT idx, data, packed FROM snapshots WHERE session = ?", (session,)
            ).fetchone()
            if row is None:
                return None
            data = bytes(row[1])
            if row[2]:
                try:
                    data = zlib.decompress(data)
                except zlib.error as error:  # (as stored: the engine refuses it, and the
                    log.warning("snapshot of %s: %s", session, error)  # log is replayed)
            return Snapshot(row[0], data)

        return await self._run(operation)

    async def transcript(self, session: str) -> list[dict[str, Any]]:
        def operation(db: sqlite3.Connection) -> list[dict[str, Any]]:
            rows = db.execute(
                "SELECT data FROM transcript WHERE session = ? ORDER BY idx", (session,)
            ).fetchall()
            records: list[dict[str, Any]] = []
            for (data,) in rows:
                found = json.loads(zlib.decompress(data) if isinstance(data, bytes) else data)
                if isinstance(found, list):  # the records a snapshot brought
                    records += found
                else:  # one record (as servers before kept them)
                    records.append(found)
            return records

        return await self._run(operation)

    async def transcript_length(self, session: str) -> int:
        return await self._run(lambda db: transcript_end(db, self.journal, session))

    async def log(self, session: str, after: int = 0) -> list[LogEntry]:
        return await self._run(lambda db: self.journal.read(db, session, after))

    async def close(self) -> None:
        self.queue.put(None)
        await asyncio.to_thread(self.thread.join)


class PutRecords:
    """An operation storing transcript records (``Records``): the session's log rows up
    to their entry moved into a chunk, the records kept (one row: a JSON array, numbered
    by its first record); the store's thread may commit it after the appends that came
    with it. The records are encoded here, by the caller (the event loop): the encoder
    holds the GIL, so on the store's thread it would stop the loop all the same."""

    __slots__ = ("count", "first", "index", "journal", "records", "session")

    def __init__(
        self,
        journal: Journal,
        session: str,
        index: int,
        first: int,
        records: tuple[dict[str, Any], ...],
    ) -> None:
        self.journal = journal
        self.session = session
        self.index = index
        self.first = first
        self.count = len(records)
        self.records = _encode(records) if records else None

    def __call__(self, db: sqlite3.Connection) -> None:
        session, journal = self.session, self.journal
        journal.move(db, session, self.index)  # (undone if the rest fails)
        if self.records is not None:  # (compressed on this thread: zlib lets go of the GIL)
            end = transcript_end(db, journal, session)
            if self.first != end:
                raise StoreError(
                    f"the records of {session} from {self.first} are out of order ({end} kept)"
                )
            db.execute(
                "INSERT INTO transcript (session, idx, data) VALUES (?, ?, ?)",
                (session, self.first, zlib.compress(self.records, LEVEL)),
            )
            journal.records_end[session] = self.first + self.count


class PutSnapshot(PutRecords):
    """An operation storing a session's snapshot with its records (``PutRecords``), the
    snapshot replacing the one before."""

    __slots__ = ("data",)

    def __init__(self, journal: Journal, session: str, snapshot: Snapshot) -> None:
        super().__init__(journal, session, snapshot.index, snapshot.first, snapshot.records)
        self.data = snapshot.data

    def __call__(self, db: sqlite3.Connection) -> None:
        super().__call__(db)
        db.execute(
            "INSERT INTO snapshots (session, idx, data, packed) VALUES (?, ?, ?, 1)"
            " ON CONFLICT (session) DO UPDATE SET idx = excluded.idx, data = excluded.data,"
            " packed = 1",
            (self.session, self.index, zlib.compress(self.data, LEVEL)),
        )


class LogRows:
    """An operation appending log rows (``Journal.insert``), each row's future waiting
    for its own outcome (the operation has no future of its own: its item's is None):
    the store's thread commits the rows of several at once with one statement, and
    wakes their loop once (``loop``: the waiters' own)."""

    __slots__ = ("journal", "loop", "rows", "waiting")

    def __init__(
        self,
        journal: Journal,
        rows: list[Row],
        waiting: list[Waiter],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.journal = journal
        self.rows = rows
        self.waiting = waiting
        self.loop = loop

    def __call__(self, db: sqlite3.Connection) -> list[StoreError | None]:
        return self.journal.insert(db, self.rows)

    def results(self, outcomes: list[StoreError | None]) -> list[Result]:
        """Each row's future with its outcome (``Journal.insert``'s)."""
        return [(done, None, problem) for done, problem in zip(self.waiting, outcomes, strict=True)]


def _failed(
    operation: Operation, future: asyncio.Future[Any] | None, error: StoreError
) -> list[Result]:
    """The results of an operation that failed: its future's, or each row's."""
    if isinstance(operation, LogRows):
        return [(done, None, error) for done in operation.waiting]
    assert future is not None
    return [(future, None, error)]


def _fail_all(appends: list[LogRows], error: BaseException) -> None:
    """Refuse every row of these appends, for the same error."""
    failed = _store_error(error)
    _wake([result for append in appends for result in _failed(append, None, failed)])


def transcript_end(db: sqlite3.Connection, journal: Journal, session: str) -> int:
    """How many transcript records the store has of a session: the number of the first
    record of its last row, and how many that row holds (kept in ``journal``)."""
    found = journal.records_end.get(session)
    if found is not None:
        return found
    row = db.execute(
        "SELECT idx, data FROM transcript WHERE session = ? ORDER BY idx DESC LIMIT 1",
        (session,),
    ).fetchone()
    end = 0
    if row is not None:
        idx, data = row
        kept = json.loads(zlib.decompress(data) if isinstance(data, bytes) else data)
        end = int(idx) + (len(kept) if isinstance(kept, list) else 1)
    journal.records_end[session] = end
    return end


def _wake(results: list[Result]) -> None:
    """Give each waiting event loop its results: one wake-up for the whole batch, not one
    per entry."""
    by_loop: dict[asyncio.AbstractEventLoop, list[Result]] = {}
    for result in results:
        by_loop.setdefault(result[0].get_loop(), []).append(result)
    for loop, done in by_loop.items():
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(_settle, done)


def _settle(results: list[Result]) -> None:
    for future, value, problem in results:
        if future.done():  # (cancelled, or failed already by a fault of the store's)
            continue
        if problem is not None:
            future.set_exception(problem)
        else:
            future.set_result(value)


_encode = msgspec.json.Encoder().encode


def _store_error(error: BaseException) -> StoreError:
    if isinstance(error, StoreError):
        return error
    return StoreError(f"the store refused it: {error}")
