"""The SQLite store's log layout: rows in arrival order, moved into per-session chunks when
a snapshot is stored; reads that touch one session's rows only; the earlier layout
migrated; failures that lose nothing; the same logs as the in-memory store."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.server import journal
from lore.server.sqlite_store import VERSION, SQLiteStore
from lore.server.store import (
    LogEntry,
    MemoryStore,
    SeatRecord,
    SessionRecord,
    Snapshot,
    Store,
    StoreError,
    bundle_digest,
)

T = TypeVar("T")
FILES = {"scenario.lore": b"section s {}"}

# The tables of the layout before this one (``PRAGMA user_version`` 0), as it wrote them.
EARLIER = """
CREATE TABLE bundles (
    digest TEXT NOT NULL, path TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (digest, path)
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, digest TEXT NOT NULL, entry TEXT NOT NULL,
    seed INTEGER NOT NULL, created REAL NOT NULL, status TEXT NOT NULL
);
CREATE TABLE seats (
    session TEXT NOT NULL REFERENCES sessions(id), seat TEXT NOT NULL, label TEXT NOT NULL,
    token TEXT UNIQUE, added INTEGER NOT NULL, PRIMARY KEY (session, seat)
);
CREATE TABLE log (
    session TEXT NOT NULL REFERENCES sessions(id), idx INTEGER NOT NULL,
    kind TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session, idx)
) WITHOUT ROWID;
CREATE TABLE snapshots (
    session TEXT PRIMARY KEY REFERENCES sessions(id), idx INTEGER NOT NULL, data BLOB NOT NULL
);
CREATE TABLE transcript (
    session TEXT NOT NULL REFERENCES sessions(id), idx INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session, idx)
) WITHOUT ROWID;
"""


def record(session: str) -> SessionRecord:
    return SessionRecord(session, "A session", bundle_digest(FILES), "scenario.lore", 7, 1.0)


def entry(index: int) -> LogEntry:
    return LogEntry(index, "answer", {"id": f"{index}//0", "values": {"move": "振る"}})


def with_store(path: Path, work: Callable[[SQLiteStore], Awaitable[T]]) -> T:
    async def run() -> T:
        store = SQLiteStore(path)
        try:
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(run())


async def play(store: Store, session: str, first: int, last: int, every: int = 0) -> None:
    """Append entries first..last, a snapshot after each ``every``-th."""
    for index in range(first, last + 1):
        await store.append(session, entry(index))
        if every and index % every == 0:
            await store.put_snapshot(session, Snapshot(index, f"at {index}".encode()))


def indices(entries: list[LogEntry]) -> list[int]:
    return [e.index for e in entries]


def rows(path: Path, query: str, *args: Any) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute(query, args).fetchall()
    finally:
        db.close()


def test_a_snapshot_moves_its_entries_into_a_chunk_and_a_restore_reads_what_follows(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.db"

    async def write(store: SQLiteStore) -> None:
        for session in ("a", "b"):
            await store.create(record(session), FILES, [SeatRecord(session, "GM", "GM", session)])
        for turn in range(25):  # the two sessions' rows interleaved
            await play(store, "a", 10 * turn + 1, 10 * turn + 10, every=100)
            await play(store, "b", 5 * turn + 1, 5 * turn + 5)
        assert indices(await store.log("a", 200)) == list(range(201, 251))
        with pytest.raises(StoreError, match="exists"):
            await store.append("a", entry(250))

    with_store(db, write)
    number = dict(rows(db, "SELECT session, number FROM numbers"))
    assert rows(db, "SELECT number, last FROM chunks ORDER BY number, last") == [
        (number["a"], 100),
        (number["a"], 200),
    ]
    hot = rows(db, "SELECT idx FROM journal WHERE number = ? ORDER BY at", number["a"])
    assert [i for (i,) in hot][-50:] == list(range(201, 251))

    async def read(store: SQLiteStore) -> tuple[list[int], list[int], list[int], list[int]]:
        await store.append("a", entry(251))
        return (
            indices(await store.log("a")),
            indices(await store.log("a", 200)),
            indices(await store.log("a", 150)),
            indices(await store.log("b")),
        )

    whole, after, middle, other = with_store(db, read)
    assert whole == list(range(1, 252))
    assert after == list(range(201, 252))
    assert middle == list(range(151, 252))
    assert other == list(range(1, 126))


def test_reading_a_session_s_log_searches_by_key_never_scans(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with_store(db, lambda store: store.close())
    connection = sqlite3.connect(db)
    plans = [
        " ".join(row[-1] for row in connection.execute("EXPLAIN QUERY PLAN " + query, args))
        for query, args in [(journal.CHUNKS_AFTER, (1, 0)), (journal.HOT_ROWS, ("[1, 2]",))]
    ]
    connection.close()
    assert "SEARCH chunks USING PRIMARY KEY (number=? AND last>?)" in plans[0]
    assert "SEARCH journal USING INTEGER PRIMARY KEY (rowid=?)" in plans[1]
    assert all("SCAN journal" not in plan and "SCAN chunks" not in plan for plan in plans)


def test_a_database_of_the_earlier_layout_is_migrated_when_opened(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    connection = sqlite3.connect(db)
    connection.executescript(EARLIER)
    for session, created in (("old", 1.0), ("older", 0.5)):
        connection.execute(
            "INSERT INTO sessions VALUES (?, 'T', ?, 'scenario.lore', 3, ?, 'open')",
            (session, bundle_digest(FILES), created),
        )
        connection.execute("INSERT INTO seats VALUES (?, 'GM', 'GM', ?, 0)", (session, session))
    connection.executemany(
        "INSERT INTO log VALUES ('old', ?, 'answer', ?)",
        [(i, json.dumps(entry(i).data)) for i in range(1, 2501)],
    )
    connection.execute("INSERT INTO log VALUES ('older', 1, 'chat', '{\"text\": \"やあ\"}')")
    connection.execute("INSERT INTO snapshots VALUES ('old', 1200, X'00ff')")
    connection.execute("INSERT INTO transcript VALUES ('old', 0, '[{\"n\": 0}, {\"n\": 1}]')")
    connection.commit()
    connection.close()

    async def reopen(store: SQLiteStore) -> None:
        old = await store.log("old")
        assert indices(old) == list(range(1, 2501))
        assert old[0] == entry(1)
        assert indices(await store.log("old", 1200)) == list(range(1201, 2501))
        assert await store.log("older") == [LogEntry(1, "chat", {"text": "やあ"})]
        assert await store.snapshot("old") == Snapshot(1200, b"\x00\xff")
        assert await store.transcript("old") == [{"n": 0}, {"n": 1}]
        assert [s.token for s in await store.seats("old")] == ["old"]
        with pytest.raises(StoreError, match="exists"):
            await store.append("old", entry(2500))
        await play(store, "old", 2501, 2600, every=100)
        await store.create(record("new"), FILES, [SeatRecord("new", "GM", "GM", "new")])
        await play(store, "new", 1, 3)

    with_store(db, reopen)
    assert rows(db, "PRAGMA user_version") == [(VERSION,)]
    assert rows(db, "SELECT name FROM sqlite_master WHERE name = 'log'") == []
    number = dict(rows(db, "SELECT session, number FROM numbers"))
    assert number == {"older": 1, "old": 2, "new": 3}  # in the order they were made
    lasts = [last for (last,) in rows(db, "SELECT last FROM chunks WHERE number = 2")]
    assert lasts == [1000, 1200, 2200, 2500, 2600]  # one ends at the snapshot

    async def again(store: SQLiteStore) -> tuple[list[int], list[int]]:
        return indices(await store.log("old", 2550)), indices(await store.log("new"))

    assert with_store(db, again) == (list(range(2551, 2601)), [1, 2, 3])


def test_a_database_of_a_newer_layout_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA user_version = 9")
    connection.close()
    with pytest.raises(StoreError, match=r"its layout \(9\) is of a newer Lore"):
        SQLiteStore(db)
    assert rows(db, "SELECT name FROM sqlite_master") == []


def test_a_snapshot_that_fails_loses_no_entry_and_moves_none(tmp_path: Path) -> None:
    db = tmp_path / "s.db"

    async def scenario(store: SQLiteStore) -> list[int]:
        await store.create(record("a"), FILES, [SeatRecord("a", "GM", "GM", "a")])
        await play(store, "a", 1, 30)
        await store.put_snapshot("a", Snapshot(10, b"ten", 0, ({"n": 0},)))
        # The same transcript records again: refused (with the entries it would have moved).
        failing = store.put_snapshot("a", Snapshot(30, b"thirty", 0, ({"n": 0},)))
        appending = [store.append("a", entry(31)), store.append("a", entry(32))]
        outcomes = await asyncio.gather(failing, *appending, return_exceptions=True)
        assert isinstance(outcomes[0], StoreError) and outcomes[1:] == [None, None]
        assert await store.snapshot("a") == Snapshot(10, b"ten")
        assert indices(await store.log("a", 10)) == list(range(11, 33))
        await store.put_snapshot("a", Snapshot(32, b"later", 1, ({"n": 1},)))
        assert await store.log("a", 32) == []
        return indices(await store.log("a"))

    assert with_store(db, scenario) == list(range(1, 33))
    assert rows(db, "SELECT last FROM chunks") == [(10,), (32,)]
    reread = with_store(db, lambda store: store.log("a"))
    assert indices(reread) == list(range(1, 33))


def test_a_quiet_session_s_rows_are_moved_and_the_dead_rows_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal, "SLACK", 20)
    monkeypatch.setattr(journal, "TIDY_AT", 10)
    db = tmp_path / "s.db"

    async def scenario(store: SQLiteStore) -> None:
        for session in ("quiet", "busy"):
            await store.create(record(session), FILES, [SeatRecord(session, "GM", "GM", session)])
        await play(store, "quiet", 1, 3)
        await play(store, "busy", 1, 200, every=10)
        assert indices(await store.log("quiet")) == [1, 2, 3]

    with_store(db, scenario)
    number = dict(rows(db, "SELECT session, number FROM numbers"))
    assert rows(db, "SELECT last FROM chunks WHERE number = ?", number["quiet"]) == [(3,)]
    assert rows(db, "SELECT count(*) FROM journal WHERE number = ?", number["quiet"]) == [(0,)]
    assert rows(db, "SELECT count(*) FROM journal") < [(10,)]  # dead rows deleted
    assert indices(with_store(db, lambda store: store.log("quiet"))) == [1, 2, 3]


OPS = st.lists(
    st.tuples(st.sampled_from(["append", "snapshot", "reopen"]), st.integers(0, 2)),
    max_size=40,
)


@settings(max_examples=25, deadline=None)
@given(OPS)
def test_the_sqlite_store_keeps_the_logs_the_memory_store_keeps(ops: list[tuple[str, int]]) -> None:
    import tempfile

    async def run(folder: Path) -> None:
        memory = MemoryStore()
        store = SQLiteStore(folder / "s.db")
        sessions = ["s0", "s1", "s2"]
        for session in sessions:
            for kept in (memory, store):
                await kept.create(record(session), FILES, [])
        for op, which in ops:
            session = sessions[which]
            if op == "reopen":
                await store.close()
                store = SQLiteStore(folder / "s.db")
                continue
            if op == "append":
                index = len(memory.logs[session]) + 1
                await asyncio.gather(
                    memory.append(session, entry(index)), store.append(session, entry(index))
                )
            else:
                at = len(memory.logs[session])
                for kept in (memory, store):
                    await kept.put_snapshot(session, Snapshot(at, b"x"))
            for other in sessions:
                for after in (0, 1, len(memory.logs[other]) - 1):
                    assert await store.log(other, after) == await memory.log(other, after)
        await store.close()

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(Path(folder)))


def test_a_fault_in_an_operation_fails_it_alone_and_the_store_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "s.db"

    async def scenario(store: SQLiteStore) -> None:
        await store.create(record("a"), FILES, [SeatRecord("a", "GM", "GM", "a")])
        await play(store, "a", 1, 3)
        await store.put_snapshot("a", Snapshot(3, b"three"))

        def fault(_: sqlite3.Connection) -> None:
            raise ZeroDivisionError("a fault")

        outcomes = await asyncio.gather(
            store._run(fault), store.append("a", entry(4)), return_exceptions=True
        )
        assert isinstance(outcomes[0], StoreError) and outcomes[1] is None
        assert indices(await store.log("a")) == [1, 2, 3, 4]

    with_store(db, scenario)
    connection = sqlite3.connect(db)
    connection.execute("UPDATE snapshots SET data = x'c1'")  # not zlib's: damaged
    connection.commit()
    connection.close()
    # Read as it is (the engine refuses it, and the session is replayed from its log).
    assert with_store(db, lambda store: store.snapshot("a")) == Snapshot(3, b"\xc1")


def test_servers_sharing_a_file_append_each_to_its_own_sessions_and_lose_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two stores on one file (workers after their number changed), each owning some
    sessions: arrival numbers from the file, tidying up to the oldest live row of any
    session. A session of one that stays quiet while the other's play and snapshot keeps
    its rows (a tidy by the other's own rows alone would delete them); once its owner
    moves them into a chunk, the dead rows go."""
    monkeypatch.setattr(journal, "SLACK", 10_000)  # (quiet rows stay in the journal)
    monkeypatch.setattr(journal, "TIDY_AT", 10)
    db = tmp_path / "s.db"
    with_store(db, lambda store: asyncio.sleep(0))  # (made before both open it)

    async def scenario() -> None:
        mine = SQLiteStore(db, owns=lambda session: session.startswith("a"))
        theirs = SQLiteStore(db, owns=lambda session: session.startswith("b"))
        try:
            for store, session in ((mine, "a1"), (mine, "a2"), (theirs, "b1"), (theirs, "b2")):
                seats = [SeatRecord(session, "GM", "GM", f"token-{session}")]
                await store.create(record(session), FILES, seats)
            await play(theirs, "b1", 1, 5)  # quiet from now on: its rows come first
            await asyncio.gather(
                play(mine, "a1", 1, 150, every=10),
                play(mine, "a2", 1, 150, every=25),
                play(theirs, "b2", 1, 150, every=20),
            )
            assert indices(await theirs.log("b1")) == [1, 2, 3, 4, 5]
            assert await mine.session_of("token-b2") == "b2"
            monkeypatch.setattr(journal, "SLACK", 10)  # b1 is far behind now: moved
            await play(theirs, "b2", 151, 200, every=20)
            await play(mine, "a1", 151, 160, every=10)
        finally:
            await mine.close()
            await theirs.close()

    asyncio.run(scenario())
    assert rows(db, "SELECT count(*) FROM journal")[0][0] < 100  # (the dead rows went)
    expected = {"a1": 160, "a2": 150, "b1": 5, "b2": 200}
    for session, last in expected.items():
        found = with_store(db, lambda store, session=session: store.log(session))  # type: ignore[misc]
        assert indices(found) == list(range(1, last + 1)), session
