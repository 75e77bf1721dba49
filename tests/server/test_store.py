"""The stores: the SQLite store and the in-memory one keep the same things the same way;
the SQLite one keeps them across a reopen, and commits many appends together."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from lore.server.postgres_store import PostgresStore
from lore.server.sqlite_store import SQLiteStore, sqlite_path
from lore.server.store import (
    ENDED,
    LogEntry,
    MemoryStore,
    Records,
    SeatRecord,
    SessionRecord,
    Snapshot,
    Store,
    StoreError,
    bundle_digest,
)
from tests.server.postgres import postgres_server, postgres_url

__all__ = ["postgres_server", "postgres_url"]  # (fixtures this file uses)

KINDS = ["memory", "sqlite", "postgres"]
Opener = Callable[[], Awaitable[Store]]


@pytest.fixture
def opener(tmp_path: Path, request: pytest.FixtureRequest) -> Opener:
    """Opens a store of the test's ``kind`` (a new database of the throwaway PostgreSQL)."""
    kind = request.node.callspec.params["kind"]
    url = request.getfixturevalue("postgres_url") if kind == "postgres" else ""

    async def open_store() -> Store:
        if kind == "memory":
            return MemoryStore()
        if kind == "sqlite":
            return SQLiteStore(tmp_path / "s.db")
        return await PostgresStore.open(url)

    return open_store


FILES = {"scenario.lore": b"section s {}", "maps/cave.xml": b"<geometry/>"}


def record(number: int = 1) -> SessionRecord:
    return SessionRecord(f"s{number}", "A session", bundle_digest(FILES), "scenario.lore", 42, 1.0)


def seats(session: str) -> list[SeatRecord]:
    return [
        SeatRecord(session, "GM", "GM", "t-gm"),
        SeatRecord(session, "p@x", "Aki", f"t-{session}"),
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_a_store_keeps_sessions_seats_logs_and_snapshots(opener: Opener, kind: str) -> None:
    async def scenario() -> None:
        store = await opener()
        await store.create(record(), FILES, seats("s1"))
        await store.append("s1", LogEntry(1, "answer", {"id": "0//0", "values": {"a": "五"}}))
        await store.append("s1", LogEntry(2, "chat", {"text": "hi"}))
        with pytest.raises(StoreError):
            await store.append("s1", LogEntry(2, "chat", {"text": "twice"}))
        await store.put_seat(SeatRecord("s1", "p@x", "Aki", None))
        await store.put_snapshot("s1", Snapshot(2, b"\x00data"))
        assert [r.id for r in await store.sessions()] == ["s1"]
        assert await store.files(record().digest) == FILES
        assert [(s.seat, s.token) for s in await store.seats("s1")] == [
            ("GM", "t-gm"),
            ("p@x", None),
        ]
        entries = await store.log("s1")
        assert [(e.index, e.kind) for e in entries] == [(1, "answer"), (2, "chat")]
        assert entries[0].data["values"] == {"a": "五"}
        assert [e.index for e in await store.log("s1", after=1)] == [2]
        assert await store.snapshot("s1") == Snapshot(2, b"\x00data")
        await store.set_status("s1", ENDED)
        assert await store.sessions() == []
        await store.close()

    asyncio.run(scenario())


def test_the_sqlite_store_keeps_everything_across_a_reopen(tmp_path: Path) -> None:
    async def write() -> None:
        store = SQLiteStore(tmp_path / "s.db")
        await store.create(record(), FILES, seats("s1"))
        await asyncio.gather(
            *(store.append("s1", LogEntry(i, "chat", {"n": i})) for i in range(1, 451))
        )
        await store.close()

    async def read() -> list[int]:
        store = SQLiteStore(tmp_path / "s.db")
        found = [e.data["n"] for e in await store.log("s1")]
        await store.close()
        return found

    asyncio.run(write())
    assert asyncio.run(read()) == list(range(1, 451))  # more than one statement's rows


def test_entries_appended_together_are_stored_or_refused_one_by_one(tmp_path: Path) -> None:
    async def scenario() -> list[object]:
        store = SQLiteStore(tmp_path / "s.db")
        await store.create(record(), FILES, seats("s1"))
        await store.append("s1", LogEntry(1, "chat", {"n": 1}))
        indices = [*range(2, 300), 1, 300]  # one already stored, in the second statement
        outcomes = await asyncio.gather(
            *(store.append("s1", LogEntry(i, "chat", {"n": i})) for i in indices),
            return_exceptions=True,
        )
        found = [e.data["n"] for e in await store.log("s1")]
        await store.close()
        return [*outcomes, found]

    *outcomes, found = asyncio.run(scenario())
    assert [type(o).__name__ for o in outcomes if o is not None] == ["StoreError"]
    assert isinstance(outcomes[-2], StoreError)
    assert found == list(range(1, 301))


async def busy_store(folder: Path) -> tuple[SQLiteStore, asyncio.Future[None]]:
    """A store with session ``s1`` and its first entry, its thread busy for a while (the
    future of that operation): what is asked meanwhile waits for one commit."""
    store = SQLiteStore(folder / "s.db")
    await store.create(record(), FILES, seats("s1"))
    await store.append("s1", LogEntry(1, "chat", {"n": 1}))
    busy = asyncio.ensure_future(store._run(lambda db: time.sleep(0.3)))
    await asyncio.sleep(0.05)  # the store's thread sleeps in that operation
    return store, busy


def test_appends_that_waited_for_one_commit_are_stored_by_one_statement_each_refused_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Appends of several loop turns, queued while the store's thread is busy, are
    committed together (one statement, committed by SQLite itself); an entry already
    stored is refused alone, its batch's other entries are kept, and they last."""

    together: list[int] = []  # the appends of each one-statement commit
    commit_rows = SQLiteStore._commit_rows

    def counted(self: SQLiteStore, db: Any, appends: list[Any]) -> None:
        together.append(len(appends))
        commit_rows(self, db, appends)

    monkeypatch.setattr(SQLiteStore, "_commit_rows", counted)

    async def scenario() -> list[object]:
        store, busy = await busy_store(tmp_path)
        first = [
            asyncio.ensure_future(store.append("s1", LogEntry(i, "chat", {"n": i}))) for i in (2, 3)
        ]
        await asyncio.sleep(0)  # a later turn of the loop: another operation
        await asyncio.sleep(0)
        later = [
            asyncio.ensure_future(store.append("s1", LogEntry(i, "chat", {"n": i}))) for i in (1, 4)
        ]
        await busy
        outcomes = await asyncio.gather(*first, *later, return_exceptions=True)
        await store.close()
        return outcomes

    outcomes = asyncio.run(scenario())
    assert [type(o).__name__ for o in outcomes] == [
        "NoneType",
        "NoneType",
        "StoreError",
        "NoneType",
    ]

    async def reopened() -> list[int]:
        store = SQLiteStore(tmp_path / "s.db")
        found = [e.data["n"] for e in await store.log("s1")]
        await store.close()
        return found

    assert asyncio.run(reopened()) == [1, 2, 3, 4]


def test_appends_committed_with_other_operations_each_get_their_own_outcome(
    tmp_path: Path,
) -> None:
    """Appends that wait with an operation of another kind (a seat) are committed in one
    transaction with it (not by one statement): each entry still gets its own outcome,
    the one refused alone."""

    async def scenario() -> list[object]:
        store, busy = await busy_store(tmp_path)
        appended = [
            asyncio.ensure_future(store.append("s1", LogEntry(i, "chat", {"n": i})))
            for i in (2, 1, 3)
        ]
        seat = asyncio.ensure_future(store.put_seat(SeatRecord("s1", "p9", "late", "t9", 3)))
        await busy
        outcomes = await asyncio.gather(*appended, seat, return_exceptions=True)
        found = [e.data["n"] for e in await store.log("s1")]
        late = [s.seat for s in await store.seats("s1")]
        await store.close()
        return [*outcomes, found, late[-1]]

    *outcomes, found, late = asyncio.run(scenario())
    assert [type(o).__name__ for o in outcomes] == [
        "NoneType",
        "StoreError",
        "NoneType",
        "NoneType",
    ]
    assert found == [1, 2, 3] and late == "p9"


def test_appends_waiting_with_snapshots_are_committed_and_acknowledged_first(
    tmp_path: Path,
) -> None:
    """Appends and snapshots that waited for one commit: the appends are committed (one
    statement) and acknowledged before the snapshots are stored, and everything is kept
    as if in the order they came: the snapshot's rows in its chunk, the later ones after."""

    async def scenario() -> tuple[list[str], list[int], Snapshot | None]:
        store = SQLiteStore(tmp_path / "s.db")
        await store.create(record(1), FILES, seats("s1"))
        await store.create(record(2), FILES, [SeatRecord("s2", "GM", "GM", "t-gm2")])
        for index in (1, 2):
            await store.append("s1", LogEntry(index, "chat", {"n": index}))
        busy = asyncio.ensure_future(store._run(lambda db: time.sleep(0.3)))
        await asyncio.sleep(0.05)  # the store's thread sleeps in that operation
        done: list[str] = []
        waiting = {
            "snapshot": store.put_snapshot("s1", Snapshot(2, b"two", 0, ({"n": 1},))),
            "s1 entry 3": store.append("s1", LogEntry(3, "chat", {"n": 3})),
            "s2 entry 1": store.append("s2", LogEntry(1, "chat", {"n": 1})),
        }
        futures = []
        for name, waited in waiting.items():
            future = asyncio.ensure_future(waited)
            future.add_done_callback(lambda _, name=name: done.append(name))
            futures.append(future)
            await asyncio.sleep(0)  # (each in a turn of the loop of its own)
        await busy
        await asyncio.gather(*futures)
        found = [e.data["n"] for e in await store.log("s1")]
        await store.close()
        store = SQLiteStore(tmp_path / "s.db")  # (and as stored: after a reopen)
        assert [e.data["n"] for e in await store.log("s1")] == found
        assert [e.data["n"] for e in await store.log("s1", 2)] == [3]
        snapshot = await store.snapshot("s1")
        assert await store.transcript("s1") == [{"n": 1}]
        await store.close()
        return done, found, snapshot

    done, found, snapshot = asyncio.run(scenario())
    assert done == ["s1 entry 3", "s2 entry 1", "snapshot"]
    assert found == [1, 2, 3]
    assert snapshot == Snapshot(2, b"two")


def test_a_snapshot_keeps_its_transcript_records_in_order(tmp_path: Path) -> None:
    async def scenario() -> list[dict[str, object]]:
        store = SQLiteStore(tmp_path / "s.db")
        await store.create(record(), FILES, seats("s1"))
        first = tuple({"kind": "message", "n": n} for n in range(450))
        await store.put_snapshot("s1", Snapshot(5, b"one", 0, first))
        second = tuple({"kind": "message", "n": n} for n in range(450, 460))
        await store.put_snapshot("s1", Snapshot(9, b"two", 450, second))
        found = await store.transcript("s1")
        assert await store.snapshot("s1") == Snapshot(9, b"two")
        await store.close()
        return found

    assert [r["n"] for r in asyncio.run(scenario())] == list(range(460))


@pytest.mark.parametrize("kind", KINDS)
def test_records_between_snapshots_join_the_transcript_and_the_log_stays_whole(
    opener: Opener, kind: str
) -> None:
    """Records stored without a snapshot add to the transcript in order (out of order:
    refused, nothing kept); the log reads the same whole and after the snapshot (the
    SQLite store moves the rows up to the records' entry into a chunk)."""

    def message(n: int) -> dict[str, Any]:
        return {"kind": "message", "n": n}

    async def scenario() -> None:
        store = await opener()
        await store.create(record(), FILES, seats("s1"))
        assert await store.transcript_length("s1") == 0
        for index in range(1, 13):
            await store.append("s1", LogEntry(index, "chat", {"n": index}))
            if index == 3:
                await store.put_records("s1", Records(3, 0, tuple(map(message, range(5)))))
            if index == 6:
                later = tuple(map(message, range(5, 9)))
                await store.put_snapshot("s1", Snapshot(6, b"six", 5, later))
            if index == 9:
                with pytest.raises(StoreError):  # (records 9 and 10 are missing)
                    await store.put_records("s1", Records(9, 11, (message(11),)))
                await store.put_records("s1", Records(9, 9, (message(9), message(10))))
        assert await store.transcript_length("s1") == 11
        assert [r["n"] for r in await store.transcript("s1")] == list(range(11))
        assert await store.snapshot("s1") == Snapshot(6, b"six")
        assert [e.data["n"] for e in await store.log("s1")] == list(range(1, 13))
        assert [e.index for e in await store.log("s1", 6)] == list(range(7, 13))
        assert [e.index for e in await store.log("s1", 9)] == [10, 11, 12]
        await store.close()

    asyncio.run(scenario())


def test_records_kept_one_to_a_row_are_read_with_those_of_later_snapshots(
    tmp_path: Path,
) -> None:
    async def scenario() -> list[dict[str, object]]:
        store = SQLiteStore(tmp_path / "s.db")
        await store.create(record(), FILES, seats("s1"))
        await store.close()
        db = sqlite3.connect(tmp_path / "s.db")  # as a server that kept a row per record
        rows = [("s1", n, json.dumps({"kind": "message", "n": n})) for n in range(3)]
        db.executemany("INSERT INTO transcript (session, idx, data) VALUES (?, ?, ?)", rows)
        db.commit()
        db.close()
        store = SQLiteStore(tmp_path / "s.db")
        later = tuple({"kind": "message", "n": n} for n in range(3, 6))
        await store.put_snapshot("s1", Snapshot(4, b"two", 3, later))
        found = await store.transcript("s1")
        assert await store.transcript_length("s1") == 6
        await store.close()
        return found

    assert [r["n"] for r in asyncio.run(scenario())] == list(range(6))


def test_database_urls() -> None:
    assert sqlite_path("sqlite:///sessions.db") == Path("sessions.db")
    assert sqlite_path("sqlite:////var/lore/s.db") == Path("/var/lore/s.db")
    assert sqlite_path("plain.db") == Path("plain.db")
    with pytest.raises(ValueError, match="not supported; use sqlite:///FILE, a file path, or"):
        sqlite_path("mysql://host/db")
    with pytest.raises(StoreError, match="cannot open"):
        SQLiteStore(Path("/nonexistent-folder/x/s.db"))


@pytest.mark.parametrize("kind", KINDS)
def test_a_tokens_session_and_seat_are_found_open_or_ended(opener: Opener, kind: str) -> None:
    async def scenario() -> None:
        store = await opener()
        await store.create(record(), FILES, seats("s1"))
        found = await store.holder("t-s1")
        assert found is not None
        assert (found[0].id, found[0].status, found[1].seat, found[1].label) == (
            "s1",
            "open",
            "p@x",
            "Aki",
        )
        await store.set_status("s1", ENDED)
        assert await store.session_of("t-gm") is None  # (the open sessions' only)
        found = await store.holder("t-gm")
        assert found is not None and found[0].status == ENDED and found[1].seat == "GM"
        assert await store.holder("t-nobody") is None
        await store.put_seat(SeatRecord("s1", "p@x", "Aki", None))  # revoked
        assert await store.holder("t-s1") is None
        await store.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("kind", KINDS)
def test_a_sessions_dice_system_is_kept(opener: Opener, kind: str) -> None:
    async def scenario() -> tuple[str, str]:
        store = await opener()
        try:
            await store.create(replace(record(), dice="SwordWorld2.5"), FILES, seats("s1"))
            holder = await store.holder("t-gm")
            assert holder is not None
            return (await store.sessions())[0].dice, holder[0].dice
        finally:
            await store.close()

    assert asyncio.run(scenario()) == ("SwordWorld2.5", "SwordWorld2.5")
