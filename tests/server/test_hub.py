"""An answer's commit through the hub: acknowledged only once its entry is durable,
refused with nothing changed when the store fails it, and a connection's next message
handled only after its answer was."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lore.engine.views import GM
from lore.server.connection import Connection, Limits
from lore.server.hub import Hub
from lore.server.protocol import encode
from lore.server.rooms import Room, Rooms
from lore.server.sources import load
from lore.server.store import LogEntry, MemoryStore, StoreError, Waiter
from tests.server.serving import EXAMPLES


class HeldStore(MemoryStore):
    """A store whose appends are durable only when the test says (``settle``), or fail."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[tuple[str, LogEntry, Waiter]] = []

    def append_then(self, session: str, entry: LogEntry, waiter: Waiter) -> None:
        self.held.append((session, entry, waiter))

    def settle(self, fail: bool = False) -> None:
        held, self.held = self.held, []
        for session, entry, waiter in held:
            if fail:
                waiter.set_exception(StoreError("the disk is full"))
            else:
                self._append(session, entry)
                waiter.set_result(None)


class Client:
    def __init__(self, seat: str) -> None:
        self.frames: list[dict[str, Any]] = []
        self.connection = Connection(self.write, self.end, Limits())
        self.connection.seat = seat

    def write(self, frame: bytes) -> None:
        self.frames.append(json.loads(frame))

    def end(self, code: int) -> None:
        raise AssertionError(f"closed with {code}")


async def joined(tmp_path: Path, store: HeldStore) -> tuple[Hub, Room, Client]:
    """A room of the round table with the GM's client joined (it answers every seat)."""
    rooms = Rooms(store, tmp_path)
    hub = Hub(rooms)
    room = await rooms.create(load(EXAMPLES / "round"))
    client = Client(GM)
    client.connection.session = room.id
    room.connections[GM] = {client.connection}
    room.table.listen(GM)
    return hub, room, client


async def answer(hub: Hub, room: Room, client: Client, ref: int) -> None:
    query = room.table.master.open_questions()[0]
    seq = room.table.streams[GM].seq
    message = {"type": "answer", "id": query.id, "values": {"move": "roll"}, "seq": seq}
    handling = hub.receive(client.connection, encode({**message, "ref": ref}))
    if handling is not None:
        await handling


def test_an_answer_is_acknowledged_only_once_its_entry_is_durable(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = HeldStore()
        hub, room, client = await joined(tmp_path, store)
        await answer(hub, room, client, 1)
        await asyncio.sleep(0)
        assert client.frames == [] and len(store.held) == 1 and room.lock.locked()
        store.settle()
        assert [f.get("ack") for f in client.frames] == [1] and client.frames[0]["ref"] == 1
        assert store.logs[room.id][0].kind == "answer" and not room.lock.locked()

    asyncio.run(scenario())


def test_an_answer_the_store_fails_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = HeldStore()
        hub, room, client = await joined(tmp_path, store)
        question = room.table.master.open_questions()[0].id
        await answer(hub, room, client, 1)
        store.settle(fail=True)
        assert hub.finishing  # (the room is reloaded in a task of its own)
        await asyncio.gather(*hub.finishing)
        assert [(f["type"], f.get("code"), f.get("ref")) for f in client.frames[-1:]] == [
            ("error", "internal", 1)
        ]
        assert all("ack" not in f for f in client.frames)
        again = hub.rooms.by_id[room.id]
        assert again is not room and again.table.applied == 0 and not again.lock.locked()
        assert again.table.master.open_questions()[0].id == question
        await answer(hub, again, client, 2)
        store.settle()
        assert client.frames[-1]["ack"] == 1 and client.frames[-1]["ref"] == 2

    asyncio.run(scenario())


def test_a_connections_next_message_waits_for_its_answer(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = HeldStore()
        hub, room, client = await joined(tmp_path, store)
        await answer(hub, room, client, 1)

        async def ping() -> None:  # (as the connection's task hands it on: ``Socket.run``)
            committing = client.connection.committing
            assert committing is not None
            await committing.settled()
            handling = hub.receive(client.connection, encode({"type": "ping", "ref": 2}))
            assert handling is not None
            await handling

        pinged = asyncio.ensure_future(ping())
        for _ in range(5):
            await asyncio.sleep(0)
        assert client.frames == [] and not pinged.done()
        store.settle()
        await pinged
        assert [(f["type"], f.get("ref")) for f in client.frames] == [("update", 1), ("pong", 2)]
        assert client.connection.committing is None

    asyncio.run(scenario())
