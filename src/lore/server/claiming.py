"""The rooms of a node (``nodes.py``): claimed when a client of theirs comes, handed over
when the node drains, dropped when another node took them.

A node keeps only the rooms whose locks it holds. A client's hello naming a session that
no room here has is *reached* (``reach``): the session is claimed and restored here when
no node holds it, else the client is told which node does (``Moved``). On ``SIGTERM`` a
node *hands over* every room (``hand_over``): it stops claiming, snapshots each room,
releases its lock and sends its clients to another node alive, before it stops. A node
that finds it no longer holds a room's lock (its lock connection broke meanwhile, and
another node may have claimed the session) *deposes* the room: its clients are sent to
the session's owner, and nothing of it is written again.
"""

from __future__ import annotations

import asyncio
import logging
import zlib
from dataclasses import dataclass
from types import FrameType

import uvicorn

from lore.server.connection import CLOSE_ELSEWHERE
from lore.server.protocol import Code, encode
from lore.server.rooms import Room, Rooms
from lore.server.store import StoreError

log = logging.getLogger("lore.server")

CLAIM_WAIT = 2.0  # seconds a hello waits for a session's owner that is letting it go
CLAIM_STEP = 0.05


@dataclass(frozen=True)
class Moved:
    """A session another node holds: where its clients go (None: no node alive says it
    holds it yet, as while its owner lets it go: connect again shortly)."""

    session: str
    url: str | None


async def reach(rooms: Rooms, token: str) -> tuple[Room, str] | Moved | None:
    """The room and seat of a token, its session claimed and restored here when no node
    holds it; Moved when another node does (or when the database cannot say now: with
    no URL, ask again); None when the token is no seat's."""
    found = rooms.find(token)
    if found is not None or not token:
        return found
    try:
        held = await rooms.store.holder(token)
        if held is None or held[1].token != token:
            return None
        record = held[0]
        moved = await claimed(rooms, record.id)
    except StoreError as error:
        log.warning("a link's session could not be claimed now: %s", error)
        return Moved("", None)
    if moved is not None:
        return moved
    nodes = rooms.nodes
    assert nodes is not None
    async with rooms.reviving:  # (two clients of it at once: restored once)
        if record.id not in rooms.by_id:
            try:
                await rooms.restore(record)
            except StoreError as error:  # (the database is away: ask again later)
                log.warning("session %s was not restored now: %s", record.id, error)
                await nodes.release(record.id)
                return Moved(record.id, None)
            except Exception as error:  # (as ``restore_all``: the session is shown broken)
                log.error("session %s was not restored: %s", record.id, error)
                rooms.broken[record.id] = f"{type(error).__name__}: {error}"
                await nodes.release(record.id)
                return None
        rooms.unloaded.pop(record.id, None)
    return rooms.find(token)


async def claimed(rooms: Rooms, session: str) -> Moved | None:
    """Claim the session for this node, waiting a moment for an owner letting it go
    (None: it is this node's now; Moved: another node's)."""
    nodes = rooms.nodes
    assert nodes is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CLAIM_WAIT
    while not await nodes.claim(session):
        url = None if nodes.draining else await nodes.owner(session)
        if url is not None or nodes.draining or loop.time() > deadline:
            return Moved(session, url)
        await asyncio.sleep(CLAIM_STEP)  # (its owner is letting it go, or just died)
    return None


def moved_frame(moved: Moved) -> bytes:
    frame: dict[str, object] = {"type": "error", "code": Code.ELSEWHERE.value}
    frame["session"] = moved.session
    if moved.url is not None:
        frame["url"] = moved.url
    frame["message"] = "this session is served by another node: connect there"
    return encode(frame)


def send_away(room: Room, moved: Moved) -> None:
    """Tell each client of the room where its session is now, and close it."""
    frame = moved_frame(moved)
    for connections in room.connections.values():
        for connection in list(connections):
            connection.send(frame)
            connection.close(CLOSE_ELSEWHERE)


async def depose(rooms: Rooms, room: Room) -> None:
    """The room's session is no longer this node's: its clients go to its owner."""
    nodes = rooms.nodes
    assert nodes is not None
    log.warning("session %s: another node holds it now; dropped here", room.id)
    nodes.held.discard(room.id)
    await rooms.drop(room)
    try:
        url = await nodes.owner(room.id)
    except StoreError:
        url = None
    send_away(room, Moved(room.id, url))


async def hand_over(rooms: Rooms) -> int:
    """Drain: snapshot every room, release it and send its clients to another node;
    how many rooms were handed over."""
    nodes = rooms.nodes
    assert nodes is not None
    await nodes.drain()
    try:
        peers = await nodes.peers()
    except StoreError:
        peers = []
    handed = 0
    for room in list(rooms.by_id.values()):
        async with room.lock:
            room = rooms.by_id.get(room.id, room)
            try:
                await rooms.snapshot(room)
            except StoreError as error:  # (the log has every entry: replayed there)
                log.warning("session %s: no snapshot before it was handed over: %s", room.id, error)
            await rooms.drop(room)
            await nodes.release(room.id)
            # (each session to the node its id picks among the others: spread evenly)
            url = peers[hash_of(room.id) % len(peers)] if peers else None
            send_away(room, Moved(room.id, url))
            handed += 1
    for session in list(rooms.unloaded):
        await nodes.release(session)
        rooms.unloaded.pop(session, None)
    return handed


def hash_of(session: str) -> int:
    return zlib.crc32(session.encode())


async def check_lost(rooms: Rooms) -> None:
    """Depose the rooms whose locks went with a broken lock connection."""
    nodes = rooms.nodes
    assert nodes is not None
    while nodes.lost:
        room = rooms.by_id.get(nodes.lost.pop())
        if room is not None:
            await depose(rooms, room)


class Draining(uvicorn.Server):
    """A node's web server: its first ``SIGTERM`` (or Ctrl-C) hands its sessions over to
    the other nodes (``hand_over``) before it stops as any server does."""

    def __init__(self, config: uvicorn.Config, rooms: Rooms) -> None:
        super().__init__(config)
        self.rooms = rooms
        self.draining: asyncio.Task[None] | None = None
        self.loop = asyncio.get_running_loop()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.draining is not None or self.should_exit:
            super().handle_exit(sig, frame)
            return

        def start() -> None:
            self.draining = self.loop.create_task(self.drain_then_exit(sig, frame))

        self.loop.call_soon_threadsafe(start)

    async def drain_then_exit(self, sig: int, frame: FrameType | None) -> None:
        try:
            handed = await hand_over(self.rooms)
            log.info("handed %d sessions over to the other nodes", handed)
        finally:
            super().handle_exit(sig, frame)


WARM = 32  # bundles (the latest open sessions') a node keeps compiled for a claim


async def warm(rooms: Rooms) -> int:
    """Check and compile the bundles of the latest open sessions that this node has not
    (a claimed session is then restored without checking its bundle first: what bounds
    how long a drained or dead node's sessions are away); how many were."""
    made = 0
    wanted: list[tuple[str, str]] = []
    for record in sorted(await rooms.store.sessions(), key=lambda r: -r.created):
        key = (record.digest, record.entry)
        if key not in wanted:
            wanted.append(key)
    for digest, entry in wanted[:WARM]:
        if (digest, entry) in rooms.programs:
            continue
        try:
            await rooms.program(digest, entry, await rooms.store.files(digest))
            made += 1
        except Exception as error:  # (its session is shown broken when it is claimed)
            log.info("bundle %s was not compiled ahead: %s", digest, error)
    return made


async def watch_lost(rooms: Rooms) -> None:
    """Now and then: depose the rooms whose locks a broken connection took (the node's
    beat connects again, and claims each again if no node took it meanwhile), and keep
    the bundles of open sessions compiled (``warm``)."""
    from lore.server.nodes import BEAT

    while True:
        try:
            await warm(rooms)
        except StoreError as error:
            log.warning("the open sessions could not be read: %s", error)
        await asyncio.sleep(BEAT)
        await check_lost(rooms)
