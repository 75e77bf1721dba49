"""Where sessions are kept: the store interface, its records, and an in-memory store.

A session is stored as its bundle (the files it was created from, by digest, shared by
the sessions of one bundle), its seats (with their link tokens), an append-only log of
what happened to it (answers, chat, dice, the GM's commands), and its latest snapshot, so
that a restore starts from a point of the log instead of its beginning. The transcript
records come to the store more often than snapshots (``Records``, as a snapshot brings the
records made since the records before it): the store keeps the whole transcript (the GM
reads it), the server only the records made since it last gave the store some.

Every method of a store is a coroutine. ``append`` returns only once the entry is durable:
the server acknowledges an answer after that, never before. The SQLite store
(``lore.server.sqlite_store``) is the default; a PostgreSQL store implements the same
protocol.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

OPEN = "open"
ENDED = "ended"


@dataclass(frozen=True, slots=True)
class SessionRecord:
    id: str
    title: str
    digest: str  # of the bundle's files
    entry: str  # the entry file, a path inside the bundle
    seed: int
    created: float
    status: str = OPEN
    dice: str = ""  # the BCDice game system its chat rolls ("": only the common commands)


@dataclass(frozen=True, slots=True)
class SeatRecord:
    session: str
    seat: str  # the participant id it plays: "GM", or a player's id
    label: str
    token: str | None  # None: the link is revoked (until a new one is made)
    added: int = 0  # the log entry that added it (0: made with the session)


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One thing that happened to a session, in order: ``index`` counts from 1."""

    index: int
    kind: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Snapshot:
    index: int  # the last log entry it includes
    data: bytes
    first: int = 0  # the number of the first of ``records`` in the session's transcript
    records: tuple[dict[str, Any], ...] = ()  # made since the records stored before


@dataclass(frozen=True, slots=True)
class Records:
    """Transcript records for the store without a snapshot: those the log's entries up
    to ``index`` made since the records stored before (the entries are stored)."""

    index: int
    first: int  # the number of the first of ``records`` in the session's transcript
    records: tuple[dict[str, Any], ...]


class StoreError(Exception):
    """The store refused or failed an operation (nothing of it was kept)."""


def bundle_digest(files: dict[str, bytes]) -> str:
    """The digest of a bundle: of every file's path and content."""
    outer = hashlib.sha256()
    for path in sorted(files):
        outer.update(path.encode("utf-8") + b"\0")
        outer.update(hashlib.sha256(files[path]).digest())
    return outer.hexdigest()


class Waiter(Protocol):
    """What waits for a log entry to be durable (``Store.append_then``): an asyncio
    future is one; so is the hub's commit of an answer, finished when its entry is."""

    def get_loop(self) -> asyncio.AbstractEventLoop: ...

    def done(self) -> bool: ...

    def set_result(self, result: None, /) -> None: ...

    def set_exception(self, exception: BaseException, /) -> None: ...


class Store(Protocol):
    async def create(
        self, record: SessionRecord, files: dict[str, bytes], seats: list[SeatRecord]
    ) -> None:
        """Keep a new session with its bundle and seats."""

    def append(self, session: str, entry: LogEntry) -> Awaitable[None]:
        """Add an entry to a session's log; durable when its awaitable is done (a
        coroutine, or a future: the entry is taken when this is called). An index already
        taken (or before the session's last) is a StoreError."""

    def append_then(self, session: str, entry: LogEntry, waiter: Waiter) -> None:
        """``append`` without an awaitable: ``waiter`` is given None (``set_result``) once
        the entry is durable, or the StoreError (``set_exception``), on its event loop,
        never before this returns."""

    async def put_seat(self, seat: SeatRecord) -> None:
        """Add a seat or change it (label, token)."""

    async def delete_seat(self, session: str, seat: str) -> None:
        """Forget a seat (the GM removed it)."""

    async def set_status(self, session: str, status: str) -> None: ...

    async def put_snapshot(self, session: str, snapshot: Snapshot) -> None:
        """Keep a session's latest snapshot (replacing the one before) and add its
        transcript records, together."""

    async def put_records(self, session: str, records: Records) -> None:
        """Add transcript records (``Records``) to the session's; their ``first`` must be
        the number of records kept (else a StoreError, and nothing is kept)."""

    async def sessions(self, status: str = OPEN) -> list[SessionRecord]: ...

    async def files(self, digest: str) -> dict[str, bytes]: ...

    async def seats(self, session: str) -> list[SeatRecord]: ...

    async def session_of(self, token: str) -> str | None:
        """The open session that has a seat with this link token (None: none has)."""

    async def holder(self, token: str) -> tuple[SessionRecord, SeatRecord] | None:
        """The session, open or ended, and the seat that have this link token (None:
        none has)."""

    async def snapshot(self, session: str) -> Snapshot | None:
        """The latest snapshot (without its records)."""

    async def transcript(self, session: str) -> list[dict[str, Any]]:
        """The transcript records that came with the session's snapshots and records, in
        order."""

    async def transcript_length(self, session: str) -> int:
        """How many transcript records the store has of the session (without reading
        them all)."""

    async def log(self, session: str, after: int = 0) -> list[LogEntry]:
        """The entries after index ``after``, in order."""

    async def close(self) -> None: ...


@dataclass
class MemoryStore:
    """A store that keeps everything in memory (for tests, and as the reference)."""

    records: dict[str, SessionRecord] = field(default_factory=dict)
    bundles: dict[str, dict[str, bytes]] = field(default_factory=dict)
    seat_records: dict[str, dict[str, SeatRecord]] = field(default_factory=dict)
    logs: dict[str, list[LogEntry]] = field(default_factory=dict)
    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    transcripts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    async def create(
        self, record: SessionRecord, files: dict[str, bytes], seats: list[SeatRecord]
    ) -> None:
        if record.id in self.records:
            raise StoreError(f"session {record.id} exists")
        self.records[record.id] = record
        self.bundles.setdefault(record.digest, dict(files))
        self.seat_records[record.id] = {seat.seat: seat for seat in seats}
        self.logs[record.id] = []

    async def append(self, session: str, entry: LogEntry) -> None:
        self._append(session, entry)

    def append_then(self, session: str, entry: LogEntry, waiter: Waiter) -> None:
        loop = waiter.get_loop()
        try:
            self._append(session, entry)
        except StoreError as error:
            loop.call_soon(waiter.set_exception, error)
        else:
            loop.call_soon(waiter.set_result, None)

    def _append(self, session: str, entry: LogEntry) -> None:
        log = self.logs.get(session)
        if log is None:
            raise StoreError(f"no session {session}")
        if entry.index != len(log) + 1:
            raise StoreError(f"log entry {entry.index} of {session} is out of order")
        log.append(entry)

    async def put_seat(self, seat: SeatRecord) -> None:
        self.seat_records.setdefault(seat.session, {})[seat.seat] = seat

    async def delete_seat(self, session: str, seat: str) -> None:
        self.seat_records.get(session, {}).pop(seat, None)

    async def set_status(self, session: str, status: str) -> None:
        self.records[session] = replace(self.records[session], status=status)

    async def put_snapshot(self, session: str, snapshot: Snapshot) -> None:
        self._add_records(session, snapshot.first, snapshot.records)
        self.snapshots[session] = replace(snapshot, first=0, records=())  # (as SQLite reads it)

    async def put_records(self, session: str, records: Records) -> None:
        self._add_records(session, records.first, records.records)

    def _add_records(self, session: str, first: int, records: tuple[dict[str, Any], ...]) -> None:
        kept = self.transcripts.setdefault(session, [])
        if first != len(kept):
            raise StoreError(f"the records of {session} from {first} are out of order")
        kept.extend(records)

    async def sessions(self, status: str = OPEN) -> list[SessionRecord]:
        return [r for r in self.records.values() if r.status == status]

    async def files(self, digest: str) -> dict[str, bytes]:
        return dict(self.bundles.get(digest, {}))

    async def session_of(self, token: str) -> str | None:
        for session, seats in self.seat_records.items():
            if self.records[session].status == OPEN and any(
                seat.token == token for seat in seats.values()
            ):
                return session
        return None

    async def holder(self, token: str) -> tuple[SessionRecord, SeatRecord] | None:
        for session, seats in self.seat_records.items():
            for seat in seats.values():
                if seat.token == token:
                    return self.records[session], seat
        return None

    async def seats(self, session: str) -> list[SeatRecord]:
        return list(self.seat_records.get(session, {}).values())

    async def snapshot(self, session: str) -> Snapshot | None:
        return self.snapshots.get(session)

    async def transcript(self, session: str) -> list[dict[str, Any]]:
        return list(self.transcripts.get(session, []))

    async def transcript_length(self, session: str) -> int:
        return len(self.transcripts.get(session, []))

    async def log(self, session: str, after: int = 0) -> list[LogEntry]:
        return [entry for entry in self.logs.get(session, []) if entry.index > after]

    async def close(self) -> None:
        pass
