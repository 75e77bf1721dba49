"""Idle rooms are snapshotted and unloaded, and restored exactly when a seat comes back."""

from __future__ import annotations

import asyncio
import gc
import json
import tracemalloc
import weakref
from pathlib import Path
from typing import Any

from lore.engine.views import GM
from lore.server.connection import Connection, Limits
from lore.server.hub import Hub
from lore.server.rooms import Rooms
from lore.server.sources import load
from lore.server.sqlite_store import SQLiteStore
from lore.server.unloading import Watch
from tests.server.serving import EXAMPLES


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def client(seat: str = "") -> tuple[Connection, list[bytes]]:
    """A connection whose frames are kept."""
    frames: list[bytes] = []

    def ignore(*_: Any) -> None:
        pass

    connection = Connection(frames.append, ignore, Limits())
    connection.seat = seat
    return connection, frames


async def answer(hub: Hub, room_id: str, times: int) -> None:
    """Answer the room's first open question as the GM, ``times`` times (as a client's
    answer is committed, through the hub)."""
    gm, _ = client(GM)
    for _ in range(times):
        room = hub.rooms.by_id[room_id]
        query = room.table.master.open_questions()[0]
        data = {"seat": GM, "id": query.id, "values": {"move": "roll"}}
        assert await asyncio.wait_for(hub.commit(room, gm, "answer", data, None), 5) > 0


async def idle_for(watch: Watch, clock: Clock, seconds: float) -> int:
    """Sweep, let ``seconds`` pass, sweep again: how many rooms were unloaded. (The
    records and snapshots stored in the background are first let through: it takes the
    store milliseconds, not the seconds a sweep comes after.)"""
    for room in list(watch.rooms.by_id.values()):
        if room.storing is not None:
            await asyncio.wait_for(asyncio.shield(room.storing[1]), 5)
    unloaded = await watch.sweep()
    clock.now += seconds
    return unloaded + await watch.sweep()


def rooms_of(folder: Path, name: str) -> tuple[Rooms, SQLiteStore]:
    work = folder / name
    work.mkdir()
    store = SQLiteStore(folder / f"{name}.db")
    return Rooms(store, work, snapshot_every=25, records_every=10, unload_after=60), store


async def transcript_of(rooms: Rooms, room_id: str) -> list[dict[str, object]]:
    room = rooms.by_id[room_id]
    async with room.lock:
        return await rooms.transcript(rooms.by_id[room_id])


def test_an_unloaded_room_resumes_exactly_as_one_never_unloaded(tmp_path: Path) -> None:
    async def scenario() -> None:
        kept, kept_store = rooms_of(tmp_path, "kept")
        dropped, dropped_store = rooms_of(tmp_path, "dropped")
        bundle = load(EXAMPLES / "round")
        one = await kept.create(bundle, seed=7)
        other = await dropped.create(bundle, seed=7)
        kept_hub, dropped_hub = Hub(kept), Hub(dropped)
        await answer(kept_hub, one.id, 17)
        await answer(dropped_hub, other.id, 17)
        clock = Clock()
        watch = Watch(dropped, clock)
        # A client connected: not idle, however long.
        gm, _ = client()
        token = other.seats[GM].token
        assert token is not None
        assert await dropped_hub.hello(gm, json.dumps({"type": "hello", "token": token}))
        assert await idle_for(watch, clock, 600) == 0
        await dropped_hub.leave(gm)
        assert await idle_for(watch, clock, 59) == 0  # idle, not yet long enough
        clock.now += 1
        assert await watch.sweep() == 1
        assert other.id not in dropped.by_id and other.id in dropped.unloaded
        assert dropped.open_count() == 1
        # A seat comes back: its hello restores the room from the store.
        back, frames = client()
        player = next(s for s in other.seats.values() if s.seat != GM)
        assert player.token is not None
        hello = json.dumps({"type": "hello", "token": player.token})
        room = await dropped_hub.hello(back, hello)
        assert room is not None and room is dropped.by_id[other.id] and room is not other
        assert dropped.unloaded == {} and room.replayed == 17 - room.snapshot_at
        assert json.loads(frames[0])["type"] == "welcome"
        for seat in one.table.streams:
            assert room.table.snapshot(seat) == one.table.snapshot(seat)
        await dropped_hub.leave(back)
        # Both go on alike, and their transcripts are the same.
        await answer(kept_hub, one.id, 9)
        await answer(dropped_hub, other.id, 9)
        assert await transcript_of(dropped, other.id) == await transcript_of(kept, one.id)
        for seat in one.table.streams:
            assert dropped.by_id[other.id].table.snapshot(seat) == one.table.snapshot(seat)
        for rooms, store in ((kept, kept_store), (dropped, dropped_store)):
            await rooms.close()
            await store.close()

    asyncio.run(scenario())


def test_an_unloaded_room_resumes_for_the_gms_save_and_status(tmp_path: Path) -> None:
    async def scenario() -> None:
        rooms, store = rooms_of(tmp_path, "one")
        room = await rooms.create(load(EXAMPLES / "round"), seed=3)
        await answer(Hub(rooms), room.id, 5)
        clock = Clock()
        assert await idle_for(Watch(rooms, clock), clock, 60) == 1
        token = room.seats[GM].token
        assert token is not None and rooms.find(token) is None
        found = await rooms.find_loaded(token)
        assert found is not None and found[1] == GM and found[0].table.applied == 5
        await rooms.close()
        await store.close()

    asyncio.run(scenario())


def test_played_sessions_left_idle_give_back_most_of_what_play_took(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int, int]:
        rooms, store = rooms_of(tmp_path, "many")
        bundle = load(EXAMPLES / "round")
        hub = Hub(rooms)
        # (The program, compiled once, stays.)
        ids = [(await rooms.create(bundle, seed=0)).id]
        await answer(hub, ids[0], 1)
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for seed in range(1, 40):
            ids.append((await rooms.create(bundle, seed=seed)).id)
        for room_id in ids:
            await answer(hub, room_id, 30)
        played = tracemalloc.get_traced_memory()[0]
        sessions = [weakref.ref(rooms.by_id[room_id].table.master.session) for room_id in ids]
        clock = Clock()
        assert await idle_for(Watch(rooms, clock), clock, 60) == len(ids)
        gc.collect()
        idle = tracemalloc.get_traced_memory()[0]
        # None of the engine sessions stays (a step that waited in an engine thread's
        # greenlet held its session there).
        assert [ref for ref in sessions if ref() is not None] == []
        tracemalloc.stop()
        await rooms.close()
        await store.close()
        return before, played, idle

    before, played, idle = asyncio.run(scenario())
    added = played - before
    assert added > 2_000_000, added  # (40 played sessions: the test measures something)
    # At least half of what the sessions took is given back once they are unloaded.
    assert idle - before < added / 2, (before, played, idle)


def test_the_watch_unloads_idle_rooms_by_itself_and_asks_for_a_full_collection(
    tmp_path: Path,
) -> None:
    async def scenario() -> list[str]:
        rooms, store = rooms_of(tmp_path, "timed")
        rooms.unload_after = 0.2
        room = await rooms.create(load(EXAMPLES / "round"), seed=1)
        await answer(Hub(rooms), room.id, 3)
        asked: list[str] = []
        watching = asyncio.create_task(Watch(rooms, let_go=lambda: asked.append("full")).run())
        for _ in range(100):
            await asyncio.sleep(0.05)
            if rooms.unloaded:
                break
        watching.cancel()
        assert room.id in rooms.unloaded and room.id not in rooms.by_id
        await rooms.close()
        await store.close()
        return asked

    assert asyncio.run(scenario()) == ["full"]
