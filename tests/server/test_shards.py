"""The store in one file per worker: new sessions go to the worker's own file, every
server finds every session in the file that has it, whatever its number of workers."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lore.server.shards import ShardedStore, open_store, shard_path, shards
from lore.server.sqlite_store import SQLiteStore
from lore.server.store import ENDED, LogEntry, SeatRecord, SessionRecord, Snapshot, bundle_digest

FILES = {"scenario.lore": b"section s {}", "chest.png": b"\x89PNG"}


def record(session: str, created: float) -> SessionRecord:
    return SessionRecord(session, "A session", bundle_digest(FILES), "scenario.lore", 7, created)


def test_the_files_of_a_store(tmp_path: Path) -> None:
    db = tmp_path / "lore-sessions.db"
    assert shard_path(db, 0) == db
    assert shard_path(db, 2) == tmp_path / "lore-sessions.w2.db"
    assert shards(db) == [0]
    assert shards(db, 3) == [0, 1, 2]
    for name in (
        "lore-sessions.w4.db",
        "lore-sessions.w0.db",
        "other.w1.db",
        "lore-sessions.wx.db",
    ):
        (tmp_path / name).touch()
    assert shards(db) == [0, 4]


def test_sessions_are_kept_in_their_workers_files_and_found_by_any_server(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"

    async def scenario() -> None:
        workers = [await open_store(db, own, at_least=2) for own in (0, 1)]
        assert all(isinstance(store, ShardedStore) for store in workers)
        for own, store in enumerate(workers):
            session = f"s{own}"
            await store.create(
                record(session, own), FILES, [SeatRecord(session, "GM", "GM", f"t{own}")]
            )
            for index in (1, 2, 3):
                await store.append(session, LogEntry(index, "answer", {"n": index}))
            await store.put_snapshot(session, Snapshot(2, b"state"))
        for store in workers:
            await store.close()
        # Each file has its worker's session.
        for own in (0, 1):
            alone = SQLiteStore(shard_path(db, own))
            assert [r.id for r in await alone.sessions()] == [f"s{own}"]
            await alone.close()
        # One server (no workers) has them all, and appends to each in its own file.
        one = await open_store(db)
        assert [r.id for r in await one.sessions()] == ["s0", "s1"]
        assert await one.session_of("t1") == "s1" and await one.session_of("t9") is None
        assert await one.files(bundle_digest(FILES)) == FILES
        assert [e.index for e in await one.log("s1", 2)] == [3]
        stored = await one.snapshot("s1")
        assert stored is not None and stored.index == 2
        await one.append("s1", LogEntry(4, "answer", {"n": 4}))
        await one.set_status("s0", ENDED)
        assert [r.id for r in await one.sessions()] == ["s1"]
        await one.close()
        alone = SQLiteStore(shard_path(db, 1))
        assert [e.index for e in await alone.log("s1")] == [1, 2, 3, 4]
        await alone.close()

    asyncio.run(scenario())


def test_an_ended_session_is_found_in_its_file_with_its_seats(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"

    async def scenario() -> None:
        worker = await open_store(db, 1, at_least=2)
        await worker.create(record("s1", 1), FILES, [SeatRecord("s1", "GM", "GM", "t1")])
        await worker.set_status("s1", ENDED)
        await worker.close()
        one = await open_store(db)  # (another server: the session is in worker 1's file)
        found = await one.holder("t1")
        assert found is not None and found[0].id == "s1" and found[0].status == ENDED
        assert [s.token for s in await one.seats("s1")] == ["t1"]
        await one.close()

    asyncio.run(scenario())
