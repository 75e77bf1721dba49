"""Unloading idle rooms: a session nobody plays holds no memory.

A played session's room keeps its engine session, its seats' streams and their kept
updates (a megabyte or more). A room with no client and no entry for
``Rooms.unload_after`` seconds is snapshotted into the store (when it changed since its
last snapshot) and dropped: the store has all of it. When one of its seats comes back
(a client says hello, the GM asks for the status or a save), ``Rooms.revive`` restores
it from that snapshot, exactly as a restart would: the same state, transcript and frames.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from lore.server.rooms import Room, Rooms

log = logging.getLogger("lore.server")


def idle(room: Room) -> bool:
    """Whether nothing of the room is under way: no client, no entry or snapshot being
    made or stored (one stored is forgotten by ``unload``). (A clock frame due is for
    no client then.)"""
    return (
        not any(room.connections.values())
        and not room.lock.locked()
        and (room.storing is None or room.storing[1].done())
    )


async def unload(rooms: Rooms, room: Room) -> bool:
    """Snapshot the room and drop it, when it is idle; whether it was dropped (not when
    its snapshot could not be stored, nor when a client came meanwhile)."""
    if rooms.by_id.get(room.id) is not room or not idle(room):
        return False
    async with room.lock:
        await rooms.stored(room)
        kept = room.table.applied > room.snapshot_at or room.table.master.transcript.records
        if kept and not await rooms.snapshot(room):
            return False  # (the store failed: kept, tried again later)
        # Nothing awaited from here: a client's hello waits for the lock meanwhile.
        if room.lock.waiters or any(room.connections.values()) or room.storing is not None:
            return False
        if rooms.nodes is None:
            rooms.unloaded[room.id] = room.record
        await rooms.drop(room)
    if rooms.nodes is not None:  # (any node may claim it when a client comes)
        await rooms.nodes.release(room.id)
    return True


class Watch:
    """Which rooms have been idle since when: a room is unloaded once it has been idle,
    its log unchanged, for ``Rooms.unload_after`` seconds."""

    def __init__(
        self,
        rooms: Rooms,
        clock: Callable[[], float] = time.monotonic,
        let_go: Callable[[], object] | None = None,
    ) -> None:
        self.rooms = rooms
        self.clock = clock
        # Called after rooms were unloaded (the server's collector then makes a full pass:
        # ``collecting.py``).
        self.let_go = let_go
        self.since: dict[str, tuple[int, float]] = {}  # room -> (its entries, idle since)

    async def sweep(self) -> int:
        """Unload the rooms idle long enough; how many were."""
        after = self.rooms.unload_after
        if after is None:
            return 0
        now = self.clock()
        due = []
        for room in list(self.rooms.by_id.values()):
            applied = room.table.applied
            seen = self.since.get(room.id)
            if not idle(room) or seen is None or seen[0] != applied:
                self.since[room.id] = (applied, now)
            elif now - seen[1] >= after:
                due.append(room)
        unloaded = 0
        for room in due:
            if await unload(self.rooms, room):
                self.since.pop(room.id, None)
                unloaded += 1
        for gone in self.since.keys() - self.rooms.by_id.keys():
            del self.since[gone]
        return unloaded

    async def run(self) -> None:
        """Sweep every quarter of ``unload_after`` (for ever: cancelled at shutdown)."""
        after = self.rooms.unload_after
        if after is None:
            return
        while True:
            await asyncio.sleep(after / 4)
            try:
                count = await self.sweep()
            except Exception:  # a fault unloading a room stops no other, nor the server
                log.exception("idle rooms were not unloaded")
                continue
            if count:
                log.info("%d idle sessions unloaded", count)
                if self.let_go is not None:
                    self.let_go()
