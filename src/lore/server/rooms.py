"""Rooms: the sessions a server holds, made from bundles or restored from the store.

A room is one session: its record, its seats (with their link tokens), its table (the
session master and the seats' streams), the clients connected to each seat, and a lock
that keeps its entries in order. Programs are checked and compiled once per bundle and
shared by the sessions made of it.

Every ``records_every`` entries a room gives the store the transcript records made since
it last did, and forgets them, so that a long session keeps few in memory. Every
``snapshot_every`` entries (and at a clean shutdown) its table is snapshotted into the
store, with those records. A room is restored from its latest snapshot and the log
entries after it, so restoring costs the session's state and the last few hundred
entries, not its whole history; without a usable snapshot (none yet, or one an older Lore
made), the whole log is replayed. Snapshots are rarer than records: a snapshot costs the
event loop a millisecond of the whole state's encoding, records only their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import uuid
import zlib
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lore.engine.saves import SaveError, Stored, read_stored
from lore.engine.seat_labels import seat_label
from lore.engine.session import Limits as EngineLimits
from lore.engine.views import GM
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import CheckResult
from lore.server import trace
from lore.server.bundles import (
    Bundle,
    BundleError,
    Problem,
    checked,
    confined,
    materialize,
)
from lore.server.connection import Connection
from lore.server.master import Master, participants_of
from lore.server.saved_chat import saved_chat
from lore.server.store import (
    ENDED,
    OPEN,
    Records,
    SeatRecord,
    SessionRecord,
    Snapshot,
    Store,
    StoreError,
    bundle_digest,
)
from lore.server.table import Refusal, Table

if TYPE_CHECKING:
    from lore.server.nodes import Nodes

T = TypeVar("T")
A = TypeVar("A")
SNAPSHOT_EVERY = 500  # log entries between a session's snapshots
RECORDS_EVERY = 100  # log entries between a session's records given to the store
CLOCK_DELAY = 1.0  # seconds: how late a seat with no update may learn the time (shown to the
# minute: a second late is not seen, and every clock frame costs each side a frame)
SLOW_STEP = 0.02  # seconds: a room with steps this long runs its steps off the loop
SLOW_STRIKES = 3  # steps that long, before it does
SLOW_FORGIVEN = 100  # quick steps in a row after which the slow ones are forgotten
UNLOAD_AFTER = 300.0  # seconds with no entry and no client before a room is unloaded
log = logging.getLogger("lore.server")


@dataclass(repr=False)  # its checked program's repr is far too long to log
class Program:
    result: CheckResult
    compiled: CompiledProgram
    stored: Stored | None  # the save's seed and answers, when the entry is a save
    folder: Path


class Now:
    """An awaitable that is done at once (``EntryLock`` taken while it was free)."""

    __slots__ = ()

    def __await__(self) -> Generator[None, None, None]:
        return
        yield  # (a generator that ends at once: the await goes on without a suspension)


NOW = Now()


class EntryLock:
    """A room's lock (``asyncio.Lock``'s behaviour: first come, first served), taken
    without a coroutine while it is free: every entry of a room takes it, and it is
    almost always free (a room's next entry comes after its last one's update). Handed
    on, held, to the first waiter when released."""

    __slots__ = ("held", "waiters")

    def __init__(self) -> None:
        self.held = False
        self.waiters: deque[asyncio.Future[None]] = deque()

    def locked(self) -> bool:
        return self.held

    def take(self) -> bool:
        """Take the lock if it is free (then no waiter: a release hands it to the first);
        whether it was (else ``wait`` for it). (``async with`` written out, where every
        entry goes: no awaitable more to go through.)"""
        if self.held:
            return False
        self.held = True
        return True

    def __aenter__(self) -> Awaitable[None]:
        if not self.held:  # (no waiter then: a release hands it to the first)
            self.held = True
            return NOW
        return self.wait()

    async def wait(self) -> None:
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        try:
            await waiter
        except BaseException:
            if waiter.cancelled():
                with contextlib.suppress(ValueError):  # (passed over by a release)
                    self.waiters.remove(waiter)
            else:  # handed on, but cancelled before it went on: hand it on again
                self.release()
            raise

    def __aexit__(self, *_: object) -> Awaitable[None]:
        self.release()
        return NOW

    def release(self) -> None:
        waiters = self.waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():  # (else cancelled)
                waiter.set_result(None)  # it holds the lock now
                return
        self.held = False


@dataclass
class Room:
    record: SessionRecord
    table: Table
    program: Program
    seats: dict[str, SeatRecord]
    lock: EntryLock = field(default_factory=EntryLock)
    connections: dict[str, set[Connection]] = field(default_factory=dict)
    snapshot_at: int = 0  # the log entry of the latest snapshot stored
    records_at: int = 0  # the log entry up to which the store has the transcript records
    # A snapshot (or records) being stored in the background, and whether it was
    # (``Rooms.stored``).
    storing: tuple[Snapshot | Records, asyncio.Future[bool]] | None = None
    replayed: int = 0  # log entries applied when the room was restored
    slow: bool = False  # steps took long: its steps run in the engine's threads
    slow_steps: int = 0  # steps that took long (forgotten after SLOW_FORGIVEN quick ones)
    quick_steps: int = 0  # quick steps since the last slow one
    clock_due: set[str] = field(default_factory=set)  # seats to send the time
    clock_timer: asyncio.TimerHandle | None = None
    # The entry from which it is due a snapshot or its records (``Rooms.due``: one
    # comparison per entry, worked out again only when one is stored).
    due_at: int = 0

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def over(self) -> bool:
        """Whether the session is over: ended by the GM or by its rules."""
        return self.table.closed or self.table.master.session.ended is not None

    def online(self) -> list[str]:
        return [seat for seat, found in self.connections.items() if found]

    def deliver(
        self, frames: dict[str, bytes], sender: Connection | None = None, ack: bytes = b""
    ) -> None:
        """Send each seat its update; ``sender``'s own carries ``ack`` (the fields
        acknowledging its entry), or comes after an ``ack`` frame when its seat has none."""
        if sender is not None and sender.seat not in frames:
            sender.send(b'{"type":"ack"' + ack + b"}")
        for seat, frame in frames.items():
            for connection in self.connections.get(seat, ()):
                if connection is sender:
                    connection.send(frame[:-1] + ack + b"}")
                else:
                    connection.send(frame)

    def tell_time(self, seats: set[str]) -> None:
        """Send ``seats`` the session's time soon (the minute they show moved, and no
        update carried it): one clock frame per seat per ``CLOCK_DELAY`` at most, however
        fast the time moves."""
        self.clock_due |= seats
        if self.clock_due and self.clock_timer is None:
            loop = asyncio.get_running_loop()
            self.clock_timer = loop.call_later(CLOCK_DELAY, self._send_time)

    def _send_time(self) -> None:
        self.clock_timer = None
        due, self.clock_due = self.clock_due, set()
        table = self.table
        frame = table.clock_frame()
        for seat in due:
            if seat in table.streams and table.behind(seat, shown=True):
                for connection in self.connections.get(seat, ()):
                    connection.send(frame)

    def broadcast(self, frame: bytes) -> None:
        for found in self.connections.values():
            for connection in found:
                connection.send(frame)


def _call(fn: Callable[[], T]) -> T:
    return fn()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def seat_link(session: str, token: str) -> str:
    """A seat's link (the path): the session named for routing (``workers.py``), the
    token in the fragment, so that it never reaches a log or a referrer."""
    return f"/play?session={session}#{token}"


def new_session_id() -> str:
    return uuid.uuid4().hex


class Rooms:
    """The rooms of a server, and how they are made and restored."""

    def __init__(
        self,
        store: Store,
        workdir: Path,
        limits: EngineLimits | None = None,
        engine_threads: int = 4,
        snapshot_every: int = SNAPSHOT_EVERY,
        records_every: int = RECORDS_EVERY,
        owns: Callable[[str], bool] | None = None,
        unload_after: float | None = UNLOAD_AFTER,
    ) -> None:
        self.store = store
        # Rooms idle that long are snapshotted and unloaded (``unloading.py``; None:
        # never), and restored when one of their seats comes back: their records here.
        self.unload_after = unload_after
        self.unloaded: dict[str, SessionRecord] = {}
        # Whether this server owns a session (one of several workers: ``workers.py``);
        # None: it owns them all.
        self.owns = owns
        # This server as one node of a cluster (``nodes.py``; None: it is not): it keeps
        # the rooms whose sessions it holds, claimed as their clients come (``claiming.py``).
        self.nodes: Nodes | None = None
        self.snapshot_every = snapshot_every
        self.records_every = min(records_every, snapshot_every)
        self.workdir = workdir
        self.limits = limits
        self.by_id: dict[str, Room] = {}
        self.tokens: dict[str, tuple[str, str]] = {}  # token -> (session, seat)
        self.broken: dict[str, str] = {}  # sessions that could not be restored: why
        self.programs: dict[tuple[str, str], Program] = {}
        self.pool = ThreadPoolExecutor(engine_threads, thread_name_prefix="lore-engine")
        # The threads of slow rooms: a room always runs on the same one (a step kept
        # waiting in a handler goes on only in the thread that began it).
        self.lanes = [
            ThreadPoolExecutor(1, thread_name_prefix=f"lore-engine-lane{n}")
            for n in range(max(1, engine_threads))
        ]
        self.checking = asyncio.Lock()  # one bundle is checked at a time
        self.reviving = asyncio.Lock()  # one ended session is restored at a time
        # A new session's id (replaced by benchmarks that need the same ids every run).
        self.new_id: Callable[[], str] = new_session_id

    async def in_engine(self, fn: Callable[[], T]) -> T:
        """Run engine work off the event loop (a long step must not stop the server)."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn)

    async def in_engine_settled(self, table: Table, fn: Callable[[], object]) -> None:
        """``in_engine``, then the step ``fn`` kept waiting dropped in the same thread (it
        runs again on its answer, as it would anyway on the loop): a greenlet that waits
        in an engine thread holds its session, so that an unloaded room's stays in memory
        until that thread happens to run one again."""

        def settled() -> None:
            try:
                fn()
            finally:
                table.master.session.settle()

        await self.in_engine(settled)

    async def step(self, room: Room, fn: Callable[[], T]) -> T:
        """Run one entry of a room: on the event loop itself while the room's steps are
        quick (handing each to a thread costs more than most steps do), in one of the
        engine's threads (always the same for a room) once ``SLOW_STRIKES`` of them were
        slow, so a heavy session never stalls the others for long; back on the loop after
        ``SLOW_FORGIVEN`` quick steps in a row."""
        if room.slow:
            lane = self.lanes[zlib.crc32(room.id.encode()) % len(self.lanes)]
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(lane, self.quick, room, _call, fn)
        return self.quick(room, _call, fn)

    def quick(self, room: Room, fn: Callable[[A], T], arg: A) -> T:
        """Run a step of a room, ``fn(arg)`` (on the loop when it is not slow: ``step``:
        the caller checks ``room.slow``; a function and its argument, not a closure made
        for every entry), and note whether it was slow. (A room's steps run one at a
        time, under its lock: the counts are never written by two threads at once.)"""
        start = time.perf_counter()
        try:
            return fn(arg)
        finally:
            # A step may be slow once because the machine was busy (or the collector
            # ran): only a room slow again and again is moved off the loop, and a long
            # run of quick steps forgets the slow ones (a long session is not moved for
            # three collections hours apart).
            took = time.perf_counter() - start
            if trace.recorder is not None and took > trace.STALL:
                trace.recorder.note("step", start, took, room.id[:8])
            if took > SLOW_STEP:
                room.quick_steps = 0
                room.slow_steps += 1
                room.slow = room.slow_steps >= SLOW_STRIKES
            else:
                room.quick_steps += 1
                if room.quick_steps >= SLOW_FORGIVEN:
                    room.slow_steps = room.quick_steps = 0
                    room.slow = False

    # ------------------------------------------------------------ programs

    async def program(self, digest: str, entry: str, files: dict[str, bytes]) -> Program:
        """The checked, compiled program of a bundle (BundleError when it has errors)."""
        key = (digest, entry)
        found = self.programs.get(key)
        if found is not None:
            return found
        async with self.checking:
            found = self.programs.get(key)
            if found is None:
                found = await self.in_engine(lambda: self._compile(digest, entry, files))
                self.programs[key] = found
        return found

    def _compile(self, digest: str, entry: str, files: dict[str, bytes]) -> Program:
        problems = confined(files)
        if problems:
            raise BundleError(problems)
        folder = materialize(self.workdir, digest, files)
        result = checked(folder, entry)
        try:
            found = read_stored(result.program.modules)
            stored = found if found.format else None  # None: the entry is not a save
        except SaveError as error:
            raise BundleError([Problem(f"not a valid save: {error}", entry)]) from None
        return Program(result, compile_program(result), stored, folder)

    async def folder_of(self, digest: str) -> Path | None:
        """The folder of a bundle of the store that no room here is made of (another
        worker's session's, for its images): written out once (None: no such bundle)."""
        folder = self.workdir / digest
        if folder.is_dir():
            return folder
        files = await self.store.files(digest)
        if not files:
            return None
        async with self.checking:
            return await self.in_engine(lambda: materialize(self.workdir, digest, files))

    # ------------------------------------------------------------ making rooms

    def _table(self, record: SessionRecord, program: Program, seats: list[SeatRecord]) -> Table:
        master = Master(program.compiled, record.seed, program.stored, self.limits)
        players = [(s.seat, s.label) for s in seats if s.seat != GM and not s.added]
        return Table(master, players, record.digest)

    async def create(self, bundle: Bundle, seed: int | None = None, dice: str = "") -> Room:
        """A new session of a bundle, kept in the store (BundleError when the bundle is
        refused: then nothing is created); its chat rolls the commands of the BCDice game
        system ``dice`` (an id of ``lore.dice.systems``; "": only the common ones)."""
        digest = bundle_digest(bundle.files)
        program = await self.program(digest, bundle.entry, bundle.files)
        if program.stored is not None:
            seed = program.stored.seed
        elif seed is None:
            seed = secrets.randbits(48)
        record = SessionRecord(
            self.owned_id(), bundle.title, digest, bundle.entry, seed, time.time(), dice=dice
        )
        # (The probe is dropped: it keeps no step waiting in a greenlet of its own.)
        probe = Master(program.compiled, seed, program.stored, self.limits, resumable=False)
        await self.in_engine(probe.start)
        actors = probe.actors()
        seats = [SeatRecord(record.id, GM, "GM", new_token())]
        for participant in participants_of(actors):
            names = [a.name for a in actors if a.participant == participant]
            seats.append(SeatRecord(record.id, participant, seat_label(names), new_token()))
        table = self._table(record, program, seats)
        chat = saved_chat(program.folder) if program.stored is not None else []
        await self.in_engine_settled(table, lambda: table.start(chat))
        if table.master.session.ended is not None:  # (its rules ended it at once)
            record = replace(record, status=ENDED)
        if self.nodes is not None and not await self.nodes.claim(record.id):
            raise StoreError("this node is stopping: start the session on another")
        await self.store.create(record, bundle.files, seats)
        return self._add(record, table, program, seats)

    def owned_id(self) -> str:
        """A new session's id, one this server owns."""
        while True:
            found = self.new_id()
            if self.owns is None or self.owns(found):
                return found

    def _add(
        self, record: SessionRecord, table: Table, program: Program, seats: list[SeatRecord]
    ) -> Room:
        room = Room(record, table, program, {s.seat: s for s in seats})
        self.plan(room)
        table.listening = set()  # updates are made for the seats whose clients came
        self.by_id[record.id] = room
        for seat in seats:
            if seat.token is not None:
                self.tokens[seat.token] = (record.id, seat.seat)
        return room

    async def restore_all(self) -> list[tuple[str, str]]:
        """Restore every open session of the store; the ones that could not be restored,
        with why (they stay in the store, untouched)."""
        failed: list[tuple[str, str]] = []
        if self.nodes is not None:
            return failed  # (a node's sessions are claimed as their clients come)
        for record in await self.store.sessions():
            if self.owns is not None and not self.owns(record.id):
                continue  # another worker's
            try:
                await self.restore(record)
            except BundleError as error:
                failed.append((record.id, str(error)))
            except Exception as error:  # a fault restoring one session stops no other
                failed.append((record.id, f"{type(error).__name__}: {error}"))
        self.broken.update(failed)
        return failed

    async def broken_seat(self, token: str) -> tuple[str, str] | None:
        """The seat a token is of, and why its session could not be restored (None: the
        token's session, if any, is not one of those)."""
        if not self.broken or not token:
            return None
        session = await self.store.session_of(token)
        if session is None or session not in self.broken:
            return None
        seats = await self.store.seats(session)
        seat = next((s.seat for s in seats if s.token == token), "")
        return seat, self.broken[session]

    async def restore(self, record: SessionRecord) -> Room:
        """A session built again from the store: its latest snapshot, then the log
        entries after it (the whole log when there is no snapshot it can use)."""
        files = await self.store.files(record.digest)
        program = await self.program(record.digest, record.entry, files)
        seats = await self.store.seats(record.id)
        stored = await self.store.snapshot(record.id)
        table: Table | None = None
        after = 0
        if stored is not None:
            data = stored.data
            try:
                table = await self.in_engine(
                    lambda: Table.restore(data, program.compiled, record.digest, self.limits)
                )
                after = stored.index
            except Exception as error:  # a snapshot of an older Lore, say: replay instead
                log.warning(
                    "session %s: its snapshot cannot be used (%s: %s); replaying its log",
                    record.id,
                    type(error).__name__,
                    error,
                )
        entries = await self.store.log(record.id, after)
        if table is None:
            table = self._table(record, program, seats)
            chat = saved_chat(program.folder) if program.stored is not None else []
            await self.in_engine_settled(table, lambda: table.start(chat))
        restored = table

        def replay() -> None:
            for entry in entries:
                outcome = restored.apply(entry)
                if isinstance(outcome, Refusal):  # cannot be: it was applied before
                    raise BundleError(
                        [Problem(f"entry {entry.index} of the log no longer applies")]
                    )

        await self.in_engine_settled(restored, replay)
        # The records the store has (given after the snapshot, or with snapshots that
        # could not be used) are not kept twice: the next records add those after them.
        master = restored.master
        master.trim(max(0, await self.store.transcript_length(record.id) - master.before))
        if stored is not None:
            after = stored.index
        old = self.by_id.get(record.id)
        room = self._add(record, table, program, seats)
        room.snapshot_at = room.records_at = after
        self.plan(room)
        room.replayed = len(entries)
        if old is not None:  # a reload: its clients stay, and catch up
            old.table.master.session.settle()  # (a step it kept waiting holds it)
            room.connections = old.connections
            room.lock = old.lock
            for seat, connections in old.connections.items():
                if connections:
                    table.listen(seat)
        if room.over:  # (ended by its rules when servers kept such sessions open)
            await self.mark_ended(room)
        return room

    async def revive(self, token: str) -> tuple[Room, str] | None:
        """The room and seat of a link of an ended session that no room here holds (the
        server stopped since it ended), or of a session unloaded while idle, restored
        from the store: its GM and players can still see how it ended, read its log,
        download it (None: no such session, or another worker's, or it cannot be
        restored)."""
        found = await self.store.holder(token)
        if found is None or found[1].token != token:
            return None
        record = found[0]
        if self.owns is not None and not self.owns(record.id):
            return None
        if record.status != ENDED and record.id not in self.unloaded:
            return None
        async with self.reviving:  # (two clients of it at once: restored once)
            if record.id not in self.by_id:
                try:
                    await self.restore(record)
                except Exception as error:  # (as ``restore_all``: the link is refused)
                    log.error("session %s was not restored: %s", record.id, error)
                    if self.unloaded.pop(record.id, None) is not None:
                        self.broken[record.id] = f"{type(error).__name__}: {error}"
                    return None
                self.unloaded.pop(record.id, None)
        return self.find(token)

    async def find_loaded(self, token: str) -> tuple[Room, str] | None:
        """``find``, restoring the token's session first when it was unloaded."""
        found = self.find(token)
        if found is None and self.unloaded and token:
            found = await self.revive(token)
        return found

    async def drop(self, room: Room) -> None:
        """Forget a room (its clients gone or sent away): the store keeps the session."""
        if self.by_id.get(room.id) is room:
            del self.by_id[room.id]
        for seat in room.seats.values():
            if seat.token is not None:
                self.tokens.pop(seat.token, None)
        if room.clock_timer is not None:
            room.clock_timer.cancel()
            room.clock_timer = None
        await self.step(room, room.table.master.session.settle)  # (where it waits: its
        # greenlet holds the session)

    async def mark_ended(self, room: Room) -> None:
        """Keep in the store that the session is over (``Room.over``): it is no longer
        open, so no longer restored nor counted (its room stays until the server stops)."""
        if room.record.status != OPEN:
            return
        try:
            await self.store.set_status(room.id, ENDED)
        except StoreError:  # (it stays open: its next restore marks it ended)
            log.exception("session %s: its end was not stored", room.id)
            return
        room.record = replace(room.record, status=ENDED)

    def open_count(self) -> int:
        """How many of the rooms are of open sessions (not over), unloaded ones too."""
        held = sum(1 for room in self.by_id.values() if room.record.status == OPEN)
        return held + sum(1 for record in self.unloaded.values() if record.status == OPEN)

    # ------------------------------------------------------------ snapshots

    async def snapshot(self, room: Room) -> bool:
        """Store a snapshot of the room (its lock held), with the transcript records
        made since the records stored before, and forget those records; whether it was
        stored (a store that fails loses nothing: the log has every entry)."""
        await self.stored(room)
        snapshot = await self.take(room)
        stored = await self.put(room, snapshot)
        if stored:
            self.forget(room, snapshot)
        return stored

    async def take(self, room: Room) -> Snapshot:
        """A snapshot of the room as it is (its lock held)."""
        table = room.table
        master = table.master

        def take() -> tuple[bytes, tuple[dict[str, object], ...]]:
            return table.snapshot_state(), tuple(master.transcript.records)

        start = time.perf_counter()
        data, records = await self.step(room, take)  # (on the loop: it takes a millisecond)
        if trace.recorder is not None:
            trace.recorder.note("take", start, time.perf_counter() - start, len(data))
        return Snapshot(table.applied, data, master.before, records)

    def records(self, room: Room) -> Records:
        """The transcript records the room made since it last gave the store some (its
        lock held: they are of entries stored)."""
        master = room.table.master
        return Records(room.table.applied, master.before, tuple(master.transcript.records))

    async def put(self, room: Room, put: Snapshot | Records) -> bool:
        """Store a snapshot or records; whether they were stored."""
        try:
            if isinstance(put, Snapshot):
                await self.store.put_snapshot(room.id, put)
            else:
                await self.store.put_records(room.id, put)
        except StoreError:
            what = "snapshot" if isinstance(put, Snapshot) else "transcript records"
            log.exception("session %s: the %s of entry %s was not stored", room.id, what, put.index)
            return False
        return True

    def forget(self, room: Room, put: Snapshot | Records) -> None:
        """Once a snapshot or records are stored (the room's lock held): forget the
        transcript records they hold (the room's first ones: records are only added
        meanwhile)."""
        room.table.master.trim(len(put.records))
        room.records_at = put.index
        if isinstance(put, Snapshot):
            room.snapshot_at = put.index
        self.plan(room)

    async def stored(self, room: Room) -> None:
        """Wait for the snapshot or records being stored in the background, if any (the
        room's lock held), and forget what they hold once they are stored."""
        storing = room.storing
        if storing is None:
            return
        room.storing = None
        put, putting = storing
        if await putting:
            self.forget(room, put)

    async def snapshot_due(self, room: Room) -> None:
        """Snapshot the room (its lock held) when ``snapshot_every`` entries came since
        the last one, or give the store its transcript records when ``records_every``
        came since they last were. A room's first ones come up to half that sooner, by
        its id, so that rooms going at the same pace do not all take theirs at once. The
        snapshot is taken now and stored while the room goes on: its next entry does not
        wait for the store (which keeps operations in order: the snapshot is stored
        before any later entry). The records it holds are forgotten, under the lock, once
        it is stored."""
        later = self.due_now(room)
        if later is not None:
            await later

    def due_now(self, room: Room) -> Coroutine[Any, Any, None] | None:
        """``snapshot_due`` without a coroutine where it needs none (the hub's, after
        each entry: the records stored, or being stored, or none due): a coroutine to
        await when a snapshot is due (it is taken, then stored while the room goes on),
        else None."""
        storing = room.storing
        if storing is not None:
            put, putting = storing
            if not putting.done():
                return None  # the one before is still being stored: a later entry takes it
            room.storing = None
            if putting.result():  # (``stored``, its future done)
                self.forget(room, put)
        if self.due(room):
            if self.state_due(room):
                return self.snapshot_later(room)
            records = self.records(room)
            room.storing = (records, asyncio.ensure_future(self.put(room, records)))
        return None

    async def snapshot_later(self, room: Room) -> None:
        """Take a snapshot (the room's lock held) and store it while the room goes on
        (``snapshot_due``)."""
        snapshot = await self.take(room)
        room.storing = (snapshot, asyncio.ensure_future(self.put(room, snapshot)))

    def due(self, room: Room) -> bool:
        """Whether the room is due a snapshot or its records (``snapshot_due``)."""
        return room.table.applied >= room.due_at

    def state_due(self, room: Room) -> bool:
        """Whether the room is due a snapshot (``snapshot_due``)."""
        return room.table.applied >= room.snapshot_at + self.every(
            room, self.snapshot_every, room.snapshot_at
        )

    def plan(self, room: Room) -> None:
        """Work out the entry from which the room is due (``due``), when the entries its
        last snapshot and records were stored at change."""
        records = room.records_at + self.every(room, self.records_every, room.records_at)
        state = room.snapshot_at + self.every(room, self.snapshot_every, room.snapshot_at)
        room.due_at = min(records, state)

    def every(self, room: Room, every: int, at: int) -> int:
        """Entries from ``at`` to the next snapshot or records: ``every``, or up to half
        that fewer, by the room's id, the first time (``at`` 0)."""
        if at == 0:
            every -= zlib.crc32(room.record.id.encode()) % (every // 2 + 1)
        return every

    async def snapshot_all(self) -> None:
        """Snapshot every room that changed since its last snapshot (at shutdown)."""
        for room in list(self.by_id.values()):
            async with room.lock:
                await self.stored(room)
                if room.table.applied > room.snapshot_at:
                    await self.snapshot(room)

    async def transcript(self, room: Room) -> list[dict[str, object]]:
        """The room's whole transcript (its lock held): the records the store has, then
        those made since the latest snapshot."""
        await self.stored(room)  # (else its records would be in the store and kept here)
        kept = await self.store.transcript(room.id)
        master = room.table.master
        return [*kept, *master.records(master.before)]

    # ------------------------------------------------------------ seats

    def find(self, token: str) -> tuple[Room, str] | None:
        found = self.tokens.get(token)
        if found is None:
            return None
        room = self.by_id.get(found[0])
        if room is None or room.seats.get(found[1], None) is None:
            return None
        if room.seats[found[1]].token != token:
            return None
        return room, found[1]

    async def elsewhere(self, token: str) -> str | None:
        """The session of a token that another worker owns (None when this server owns
        them all, or no open session has the token)."""
        if self.owns is None or not token:
            return None
        session = await self.store.session_of(token)
        return session if session is not None and not self.owns(session) else None

    async def set_token(self, room: Room, seat: str, token: str | None) -> None:
        old = room.seats[seat]
        changed = replace(old, token=token)
        await self.store.put_seat(changed)
        room.seats[seat] = changed
        if old.token is not None:
            self.tokens.pop(old.token, None)
        if token is not None:
            self.tokens[token] = (room.id, seat)

    def seat_id(self, room: Room) -> str:
        """An id for a seat the GM adds."""
        number = len(room.seats)
        while f"seat-{number}" in room.seats:
            number += 1
        return f"seat-{number}"

    async def add_seat(self, room: Room, seat_id: str, label: str, index: int) -> SeatRecord:
        """Keep a seat the GM added (by log entry ``index``), with a new link."""
        seat = SeatRecord(room.id, seat_id, label, new_token(), index)
        await self.store.put_seat(seat)
        room.seats[seat.seat] = seat
        assert seat.token is not None
        self.tokens[seat.token] = (room.id, seat.seat)
        return seat

    async def remove_seat(self, room: Room, seat: str) -> None:
        """Forget a seat the GM removed, and its link."""
        old = room.seats.pop(seat, None)
        if old is not None and old.token is not None:
            self.tokens.pop(old.token, None)
        await self.store.delete_seat(room.id, seat)

    async def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        for lane in self.lanes:
            lane.shutdown(wait=True, cancel_futures=True)
