"""Rooms restored from the store: from the latest snapshot and the log entries after it,
never by replaying a long session's whole log, and the same as the room that kept
running (what each seat was sent, the transcript, and how it goes on)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import lore.server.rooms as rooms_module
from lore.clients.seat import SeatClient, acknowledged
from lore.engine.views import GM
from lore.server.connection import Connection, Limits
from lore.server.hub import Hub
from lore.server.rooms import Room, Rooms
from lore.server.sources import load
from lore.server.sqlite_store import SQLiteStore
from lore.server.store import MemoryStore, Snapshot
from tests.server.serving import EXAMPLES, ServerThread, links

EVERY = 10


def play(client: SeatClient, answers: int) -> None:
    """Answer the seat's questions (rolling the dice) until ``answers`` were given."""
    given = 0
    while given < answers:
        client.pump(0.01)
        for query_id in list(client.state.questions):
            reply = client.answer(query_id, {"move": "roll"})
            assert acknowledged(reply) is not None, reply
            given += 1


def restored(folder: Path, session: str) -> tuple[Room, list[dict[str, Any]]]:
    """The session as a second server would restore it from the same database."""

    async def restore() -> tuple[Room, list[dict[str, Any]]]:
        work = folder / "again"
        work.mkdir(exist_ok=True)
        store = SQLiteStore(folder / "sessions.db")
        rooms = Rooms(store, work, snapshot_every=EVERY)
        try:
            record = next(r for r in await store.sessions() if r.id == session)
            room = await rooms.restore(record)
            async with room.lock:
                return room, await rooms.transcript(room)
        finally:
            await rooms.close()
            await store.close()

    return asyncio.run(restore())


def test_a_long_session_is_restored_from_its_latest_snapshot(tmp_path: Path) -> None:
    round_table = EXAMPLES / "round"
    with ServerThread(tmp_path, [round_table], snapshot_every=EVERY) as server:
        created = server.create("round")
        seats = links(created, server.base)
        # One client for all three players: the GM's seat answers on their behalf.
        gm = SeatClient(seats["GM"])
        gm.connect()
        play(gm, 45)
        assert server.server is not None
        live = server.server.rooms.by_id[created["session"]]
        again, transcript = restored(tmp_path, created["session"])
        assert live.table.applied == again.table.applied == 45
        # Only the entries after the latest snapshot were replayed, not the 45.
        assert 0 < again.snapshot_at <= 45 and again.replayed == 45 - again.snapshot_at
        assert again.replayed < EVERY
        # Every seat would be sent the same as by the room that kept running.
        for seat in live.table.streams:
            assert again.table.snapshot(seat) == live.table.snapshot(seat)
        records = gm.request({"type": "log"})["records"]
        assert json.dumps(transcript) == json.dumps(records)
        assert len([r for r in records if r["kind"] == "answer"]) == 45
        # The server itself forgot the records its snapshots took to the store.
        assert len(live.table.master.transcript.records) < len(records)


def test_an_unusable_snapshot_is_replaced_by_the_whole_log(tmp_path: Path) -> None:
    round_table = EXAMPLES / "round"
    with ServerThread(tmp_path, [round_table], snapshot_every=EVERY) as server:
        created = server.create("round")
        gm = SeatClient(links(created, server.base)["GM"])
        gm.connect()
        play(gm, 25)
        records = gm.request({"type": "log"})["records"]
        assert server.server is not None
        live = server.server.rooms.by_id[created["session"]]
        with sqlite3.connect(tmp_path / "sessions.db") as db:  # as an older Lore's, say
            db.execute("UPDATE snapshots SET data = x'c1'")
        again, transcript = restored(tmp_path, created["session"])
        assert again.snapshot_at == live.snapshot_at and 10 < again.snapshot_at <= 25
        assert again.replayed == 25
        # The records the store has are not kept twice.
        assert json.dumps(transcript) == json.dumps(records)
        for seat in live.table.streams:
            assert again.table.snapshot(seat) == live.table.snapshot(seat)


def gm_answers(rooms: Rooms, room: Room) -> Callable[[], Awaitable[int]]:
    """A coroutine function answering the room's first open question as the GM (through
    the hub, as a client's answer is): the entry's index."""
    hub = Hub(rooms)

    def ignore(_: Any) -> None:
        pass

    gm = Connection(ignore, ignore, Limits())
    gm.seat = GM

    async def answer() -> int:
        query = room.table.master.open_questions()[0]
        data = {"seat": GM, "id": query.id, "values": {"move": "roll"}}
        return await asyncio.wait_for(hub.commit(room, gm, "answer", data, None), 5)

    return answer


class SlowSnapshots(MemoryStore):
    """A store whose snapshots are stored only when the test lets them."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.asked = 0

    async def put_snapshot(self, session: str, snapshot: Snapshot) -> None:
        self.asked += 1
        await self.release.wait()
        await super().put_snapshot(session, snapshot)


def test_a_room_goes_on_while_its_snapshot_is_stored_and_keeps_no_record_twice(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        store = SlowSnapshots()
        rooms = Rooms(store, tmp_path, snapshot_every=4)
        room = await rooms.create(load(EXAMPLES / "round"))
        answer = gm_answers(rooms, room)

        while not store.asked:
            await answer()
        # The snapshot waits for the store: the next answers do not.
        taken = room.table.applied
        assert [await answer() for _ in range(3)] == [taken + 1, taken + 2, taken + 3]
        assert room.snapshot_at == 0 and store.asked == 1  # (one at a time)
        logged = asyncio.ensure_future(rooms.transcript(room))
        await asyncio.sleep(0.05)
        assert not logged.done()  # the log waits for the snapshot's records to be stored
        store.release.set()
        records = await logged
        assert room.snapshot_at == taken
        answers = [r for r in records if r["kind"] == "answer"]
        assert len(answers) == taken + 3  # each once: none both in the store and kept here
        await rooms.close()

    asyncio.run(scenario())


class SteppedClock:
    """The rooms' clock, moved on only by the steps that are meant to be slow."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def time(self) -> float:
        return time.time()


def test_a_room_moves_to_a_thread_of_its_own_after_slow_steps_close_together_and_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = SteppedClock()
    monkeypatch.setattr(rooms_module, "time", clock)

    def slow() -> str:
        clock.now += rooms_module.SLOW_STEP * 2
        return threading.current_thread().name

    def quick() -> str:
        return threading.current_thread().name

    async def scenario() -> list[str]:
        rooms = Rooms(MemoryStore(), tmp_path)
        try:
            room = await rooms.create(load(EXAMPLES / "round"))
            ran = []
            # Two slow steps, then a long run of quick ones: they are forgotten.
            for fn in [slow, slow] + [quick] * rooms_module.SLOW_FORGIVEN + [slow, slow]:
                ran.append(await rooms.step(room, fn))
            assert not room.slow and room.slow_steps == 2
            # One quick step short of forgiving: the third slow step moves the room.
            for fn in [quick] * (rooms_module.SLOW_FORGIVEN - 1) + [slow]:
                ran.append(await rooms.step(room, fn))
            assert room.slow
            # On the engine's threads, always the same one; a long run of quick steps
            # brings the room back to the loop.
            moved = len(ran)
            for fn in [slow] + [quick] * rooms_module.SLOW_FORGIVEN + [quick]:
                ran.append(await rooms.step(room, fn))
            assert not room.slow and room.slow_steps == 0
            return ran[:moved], ran[moved:]
        finally:
            await rooms.close()

    on_loop, moved = asyncio.run(scenario())
    loop_thread = threading.current_thread().name
    assert set(on_loop) == {loop_thread}
    assert len(set(moved[:-1])) == 1 and moved[0].startswith("lore-engine")
    assert moved[-1] == loop_thread


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_records_leave_memory_between_snapshots_and_a_restore_keeps_none_twice(
    tmp_path: Path, kind: str
) -> None:
    """Records go to the store every ``records_every`` entries, snapshots come every
    ``snapshot_every``: the room keeps only the records since it last gave some, and a
    room restored (from its snapshot, or by the whole log when that cannot be used) has
    the same transcript and sends each seat the same as the one that kept running."""

    async def scenario() -> None:
        store = MemoryStore() if kind == "memory" else SQLiteStore(tmp_path / "s.db")
        rooms = Rooms(store, tmp_path / "work", snapshot_every=12, records_every=5)
        (tmp_path / "work").mkdir()
        room = await rooms.create(load(EXAMPLES / "round"))
        answer = gm_answers(rooms, room)
        most = 0
        alone = 0  # records stored without a snapshot
        for _ in range(40):
            before = (room.records_at, room.snapshot_at)
            await answer()
            await rooms.stored(room)
            assert room.table.applied - room.records_at < 5
            if room.records_at != before[0] and room.snapshot_at == before[1]:
                alone += 1
            most = max(most, len(room.table.master.transcript.records))
        # (The first snapshot comes up to 6 entries sooner, by the session's id.)
        assert 24 <= room.snapshot_at <= 36 and room.records_at >= room.snapshot_at
        assert alone >= 4
        # Five entries' records at most (4 to an answer, and the first ones).
        assert most <= 5 * 4 + 10
        async with room.lock:
            whole = await rooms.transcript(room)
        assert len([r for r in whole if r["kind"] == "answer"]) == 40

        async def again() -> Room:
            restored = await rooms.restore(room.record)
            async with restored.lock:
                assert await rooms.transcript(restored) == whole
            for seat in room.table.streams:
                assert restored.table.snapshot(seat) == room.table.snapshot(seat)
            return restored

        restored = await again()
        assert restored.snapshot_at == room.snapshot_at
        assert restored.replayed == 40 - room.snapshot_at
        # Without a usable snapshot: the whole log, and still no record twice.
        if isinstance(store, MemoryStore):
            store.snapshots[room.id] = Snapshot(room.snapshot_at, b"\xc1")
        else:
            await store._run(lambda db: db.execute("UPDATE snapshots SET data = x'c1'"))
        assert (await again()).replayed == 40
        await rooms.close()
        await store.close()

    asyncio.run(scenario())


def test_a_rooms_lock_is_taken_in_turn_and_handed_on_past_cancelled_waiters() -> None:
    async def scenario() -> list[str]:
        lock = rooms_module.EntryLock()
        order: list[str] = []

        async def entry(name: str) -> None:
            async with lock:
                order.append(name)
                await asyncio.sleep(0)

        await lock.__aenter__()  # held here
        assert lock.locked()
        waiting = [asyncio.ensure_future(entry(name)) for name in "bcd"]
        await asyncio.sleep(0)
        waiting[0].cancel()  # cancelled while it waits: passed over
        await asyncio.sleep(0)
        lock.release()  # handed to "c", which is cancelled before it goes on: it hands
        waiting[1].cancel()  # the lock on to "d"
        await asyncio.wait(waiting, timeout=5)  # (a lock kept by nobody: "d" never goes on)
        assert [task.cancelled() for task in waiting] == [True, True, False]
        assert not lock.locked() and not lock.waiters
        async with lock:  # free: taken at once
            order.append("e")
        assert not lock.locked()
        return order

    assert asyncio.run(scenario()) == ["d", "e"]
