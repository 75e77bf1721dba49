"""The SQLite store's log: recent entries in arrival order, older ones in per-session chunks.

A log entry is first a row of ``journal``, whose key is its arrival number: the rows of
one commit, whatever their sessions, fill the journal's last page or two, so a commit of
many sessions' answers writes a few pages to the write-ahead log, not one per session (a
log clustered by session dirties a page per row). When a session's transcript records (or
its snapshot) are stored, its rows up to their entry go, in the same transaction, into one
row of ``chunks`` (keyed by
the session's number and its last entry's index: a zlib-compressed JSON array of
``[index, kind, data]``). Reading a session's log after an index reads its chunks after
that index and its rows still in the journal (found through the journal's index in
memory, below), never another session's rows; restoring after a snapshot reads only what
came after it (a snapshot moves its rows too: a chunk ends at its entry).

Rows moved into chunks stay in the journal, dead, until the journal's oldest live row is
past them: then they are deleted as one run from the journal's start (whole pages freed,
not one page touched per row). A session that stays quiet while others play would keep
its old rows alive and the journal long: once its oldest row is far behind (more than four
times the live rows, plus ``SLACK``), its rows are moved into a chunk of their own.

The journal has no index of its own (an index by session would be clustered by session,
and dirty a page per row again): the store's thread keeps, in memory, each session's
number, its last index, and the arrival numbers of its rows still in the journal (a few
hundred bytes per playing session), read from the database when it opens, and again
after anything is rolled back. Sessions are numbered (``numbers``), so that chunks are
keyed by an integer, not by the 32-character id.

Several servers (the workers of ``lore serve --workers``) may share the file, each
appending only to the sessions it owns (``owns``): each indexes only its own sessions,
takes the next arrival number from the journal in the transaction that appends (which
holds the file's write lock), and tidies the journal up to the oldest live row of any
session, as the database has them.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

import msgspec

from lore.server.store import LogEntry, StoreError

Row = tuple[str, int, str, str]  # a log entry to append: session, index, kind, data (JSON)
INSERT = "INSERT INTO journal (at, number, idx, kind, data) VALUES "
# Rows inserted by one statement (one step of SQLite, where ``executemany`` takes one per
# row, and each step costs the store's thread the GIL back: with the event loop busy, a
# wait of up to the switch interval, 5 ms, a row).
ROWS_AT_ONCE = 200
SLACK = 4096  # journal rows a quiet session may keep behind beyond four times the live ones
TIDY_AT = 1024  # dead rows at the journal's start worth deleting in one run
CHUNK = 1000  # entries to a chunk at most, when an old log is moved into chunks
LEVEL = 3  # of zlib, for chunks, snapshots and transcript records (a tenth of their size)

# A session's rows still in the journal, by their arrival numbers (a JSON array).
HOT_ROWS = (
    "SELECT idx, kind, data FROM journal WHERE at IN (SELECT value FROM json_each(?)) ORDER BY idx"
)
MOVING_ROWS = HOT_ROWS.replace("data FROM", "CAST(data AS BLOB) FROM")  # (bytes, for Raw)
CHUNKS_AFTER = "SELECT entries FROM chunks WHERE number = ? AND last > ? ORDER BY last"
# The arrival number of the oldest row of any session not moved into a chunk.
OLDEST_LIVE = (
    "SELECT min(at) FROM journal WHERE idx >"
    " coalesce((SELECT max(last) FROM chunks WHERE chunks.number = journal.number), 0)"
)

TABLES = """
CREATE TABLE IF NOT EXISTS numbers (
    number INTEGER PRIMARY KEY,
    session TEXT NOT NULL UNIQUE REFERENCES sessions(id)
);
CREATE TABLE IF NOT EXISTS journal (
    at INTEGER PRIMARY KEY,
    number INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    number INTEGER NOT NULL,
    last INTEGER NOT NULL,
    entries BLOB NOT NULL,
    PRIMARY KEY (number, last)
) WITHOUT ROWID;
"""


class Journal:
    """The log's tables and the store thread's index of them (see the module's doc)."""

    def __init__(self, db: sqlite3.Connection, owns: Callable[[str], bool] | None = None) -> None:
        # Which sessions it appends to, sharing the file with others (None: all, alone).
        self.owns = owns
        self.numbers: dict[str, int] = {}
        self.last: dict[int, int] = {}  # a session's last index (0: none yet)
        self.hot: dict[int, list[tuple[int, int]]] = {}  # (index, arrival) of live rows
        self.next = 1  # the next arrival number
        self.start = 1  # no journal row comes before
        self.tidied = 0  # the arrival number when the journal was last tidied
        # How many transcript records the store has of a session, once asked (the SQLite
        # store's to check; forgotten with the rest of the index after a rollback).
        self.records_end: dict[str, int] = {}
        self.load(db)

    def load(self, db: sqlite3.Connection) -> None:
        """Read the index from the database (at opening, and after a rollback)."""
        owns = self.owns
        self.numbers = {
            session: number
            for session, number in db.execute("SELECT session, number FROM numbers")
            if owns is None or owns(session)
        }
        moved = {number: 0 for number in self.numbers.values()}
        for number, last in db.execute(
            "SELECT number, (SELECT max(last) FROM chunks WHERE chunks.number = numbers.number)"
            " FROM numbers"
        ):
            if number in moved:
                moved[number] = last or 0
        self.last = dict(moved)
        self.hot = {}
        self.records_end = {}
        start, end = db.execute("SELECT min(at), max(at) FROM journal").fetchone()
        self.start = start or 1
        self.next = (end or 0) + 1
        for number, idx, at in db.execute("SELECT number, idx, at FROM journal ORDER BY at"):
            if number in moved and idx > moved[number]:  # (else another's, or dead)
                self.hot.setdefault(number, []).append((idx, at))
                self.last[number] = max(self.last.get(number, 0), idx)

    def add(self, db: sqlite3.Connection, session: str) -> None:
        """Number a new session (in the transaction that creates it)."""
        cursor = db.execute("INSERT INTO numbers (session) VALUES (?)", (session,))
        number = cursor.lastrowid
        assert number is not None
        self.numbers[session] = number
        self.last[number] = 0

    # ------------------------------------------------------------ appending

    def insert(self, db: sqlite3.Connection, rows: list[Row]) -> list[StoreError | None]:
        """Append log rows, many to a statement; each gets its outcome. A row for an
        unknown session or an index already taken is refused; the rows of a statement
        that fails are inserted one by one, each refused alone (a statement that fails
        changes nothing)."""
        outcomes: list[StoreError | None] = [None] * len(rows)
        numbers, last = self.numbers, self.last
        taking: dict[int, int] = {}  # the last index of a session among these rows
        made: list[tuple[int, int, int, str, str]] = []  # the rows to insert
        positions: list[int] = []  # theirs in ``rows``
        at = self.next
        for position, (session, idx, kind, data) in enumerate(rows):
            number = numbers.get(session)
            if number is None:
                outcomes[position] = StoreError(f"no session {session}")
            elif idx <= taking.get(number, last[number]):
                outcomes[position] = StoreError(f"log entry {idx} of {session} exists")
            else:
                taking[number] = idx
                made.append((at, number, idx, kind, data))
                positions.append(position)
                at += 1
        for start in range(0, len(made), ROWS_AT_ONCE):
            chunk = made[start : start + ROWS_AT_ONCE]
            try:
                self._insert(db, chunk)
            except sqlite3.Error:
                pass
            else:
                continue
            for position, row in zip(positions[start : start + ROWS_AT_ONCE], chunk, strict=True):
                try:
                    self._insert(db, [row])
                except sqlite3.Error as error:
                    outcomes[position] = StoreError(f"the store refused it: {error}")
        return outcomes

    def _insert(self, db: sqlite3.Connection, rows: list[tuple[int, int, int, str, str]]) -> None:
        """Insert journal rows with one statement; once it succeeded, index them. (Shared
        with others, the rows' arrival numbers are SQLite's: the journal's last plus 1,
        2 ..., given in the statement, which holds the file's write lock.)"""
        if self.owns is None:
            db.execute(insert_statement(len(rows)), tuple(chain.from_iterable(rows)))
        else:
            values = chain.from_iterable((None, *row[1:]) for row in rows)
            cursor = db.execute(insert_statement(len(rows)), tuple(values))
            assert cursor.lastrowid is not None
            first = cursor.lastrowid - len(rows) + 1
            rows = [(first + n, *row[1:]) for n, row in enumerate(rows)]
        hot, last = self.hot, self.last
        for at, number, idx, _, _ in rows:
            hot.setdefault(number, []).append((idx, at))
            last[number] = idx
        self.next = rows[-1][0] + 1  # (the rows' arrival numbers are ascending)

    # ------------------------------------------------------------ moving into chunks

    def move(self, db: sqlite3.Connection, session: str, upto: int) -> None:
        """Move a session's journal rows up to index ``upto`` into a chunk (when its
        records or snapshot of that index are stored, in the same transaction), then tidy the
        journal."""
        number = self.numbers.get(session)
        if number is None:
            raise StoreError(f"no session {session}")
        self._move(db, number, upto)
        self.tidy(db)

    def _move(self, db: sqlite3.Connection, number: int, upto: int) -> None:
        hot = self.hot.get(number, [])
        moving = [(idx, at) for idx, at in hot if idx <= upto]
        if not moving:
            return
        found = db.execute(MOVING_ROWS, (json.dumps([at for _, at in moving]),)).fetchall()
        db.execute(
            "INSERT INTO chunks (number, last, entries) VALUES (?, ?, ?)",
            (number, found[-1][0], pack(found)),
        )
        kept = [(idx, at) for idx, at in hot if idx > upto]
        if kept:
            self.hot[number] = kept
        else:
            self.hot.pop(number, None)

    def tidy(self, db: sqlite3.Connection) -> None:
        """Delete the dead rows at the journal's start, once there are enough of them to
        be worth a run; first move the rows of a session far behind into a chunk. (It
        looks at every session's rows: once per ``TIDY_AT`` rows appended at most.)"""
        if self.next - self.tidied < TIDY_AT:
            return
        self.tidied = self.next
        live = sum(len(rows) for rows in self.hot.values())
        behind = self.next - 4 * live - SLACK
        for number in [n for n, rows in self.hot.items() if rows[0][1] < behind]:
            self._move(db, number, self.last[number])
        if self.owns is None:
            oldest = min((rows[0][1] for rows in self.hot.values()), default=self.next)
        else:  # (others' rows too, which only the database knows; the last row is kept,
            # so that SQLite's next arrival number stays past every number used)
            self.start, end = db.execute("SELECT min(at), max(at) FROM journal").fetchone()
            self.start, end = self.start or 1, end or 1
            oldest = min(db.execute(OLDEST_LIVE).fetchone()[0] or end, end)
        if oldest - self.start >= TIDY_AT:
            db.execute("DELETE FROM journal WHERE at < ?", (oldest,))
            self.start = oldest

    # ------------------------------------------------------------ reading

    def read(self, db: sqlite3.Connection, session: str, after: int) -> list[LogEntry]:
        """A session's entries after index ``after``, in order: its chunks after it, then
        its journal rows."""
        number = self.numbers.get(session)
        if number is None:
            return []
        found: list[LogEntry] = []
        for (entries,) in db.execute(CHUNKS_AFTER, (number, after)):
            found += [LogEntry(i, k, d) for i, k, d in unpack(entries) if i > after]
        hot = [at for idx, at in self.hot.get(number, []) if idx > after]
        if hot:
            rows = db.execute(HOT_ROWS, (json.dumps(hot),))
            found += [LogEntry(idx, kind, _decode(data)) for idx, kind, data in rows]
        return found


def insert_statement(count: int) -> str:
    """The statement inserting ``count`` journal rows: one text per count, made once (the
    connection's statement cache finds it by the same string, its hash kept)."""
    found = INSERTS.get(count)
    if found is None:
        found = INSERTS[count] = INSERT + ", ".join(["(?, ?, ?, ?, ?)"] * count)
    return found


INSERTS: dict[int, str] = {}


def pack(rows: Iterable[tuple[int, str, str | bytes]]) -> bytes:
    """A chunk: the entries (index, kind, data as JSON text) as one compressed JSON array."""
    text = _encode([(idx, kind, msgspec.Raw(data)) for idx, kind, data in rows])
    return zlib.compress(text, LEVEL)


def unpack(entries: bytes) -> list[tuple[int, str, Any]]:
    return [(idx, kind, data) for idx, kind, data in _decode(zlib.decompress(entries))]


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def migrate(db: sqlite3.Connection, journal: Journal) -> None:
    """Move a log of the earlier layout (table ``log``, clustered by the session's id) into
    chunks, and drop it; number the sessions; mark the snapshots kept uncompressed; give
    the sessions of before layout 2 no dice system (in the caller's transaction)."""
    if "dice" not in [row[1] for row in db.execute("PRAGMA table_info(sessions)")]:
        db.execute("ALTER TABLE sessions ADD COLUMN dice TEXT NOT NULL DEFAULT ''")
    columns = [row[1] for row in db.execute("PRAGMA table_info(snapshots)")]
    if "packed" not in columns:  # (0: kept as they are; 1: compressed with zlib)
        db.execute("ALTER TABLE snapshots ADD COLUMN packed INTEGER NOT NULL DEFAULT 0")
    db.execute(
        "INSERT INTO numbers (session) SELECT id FROM sessions"
        " WHERE id NOT IN (SELECT session FROM numbers) ORDER BY created, id"
    )
    journal.load(db)
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'log'").fetchone():
        snapshots = dict(db.execute("SELECT session, idx FROM snapshots"))
        for session, number in journal.numbers.items():
            rows = db.execute(
                "SELECT idx, kind, data FROM log WHERE session = ? ORDER BY idx", (session,)
            )
            for part in chunked(rows.fetchall(), snapshots.get(session, 0)):
                db.execute(
                    "INSERT INTO chunks (number, last, entries) VALUES (?, ?, ?)",
                    (number, part[-1][0], pack(part)),
                )
        db.execute("DROP TABLE log")
    journal.load(db)


def chunked(
    rows: list[tuple[int, str, str]], snapshot: int
) -> Iterable[list[tuple[int, str, str]]]:
    """Rows in chunks of at most ``CHUNK``, one ending at the snapshot's entry (so that a
    restore reads no chunk of entries before it)."""
    part: list[tuple[int, str, str]] = []
    for row in rows:
        part.append(row)
        if len(part) == CHUNK or row[0] == snapshot:
            yield part
            part = []
    if part:
        yield part
