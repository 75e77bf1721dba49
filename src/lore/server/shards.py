"""A store in several SQLite files: one per worker of ``lore serve --workers N``.

Workers that shared one file would wait for each other's commits (SQLite lets one
process write at a time): so each worker makes its sessions in a file of its own, the
store's file for worker 0 (``lore-sessions.db``) and one beside it for each other worker
(``lore-sessions.w1.db`` ...). A session stays in the file it was made in. Every server
opens every file there is, and finds each session in the file that has it: so the
sessions are all there whatever the number of workers a server is started with. While
that number stays the same, each file has one writer; when it changed, a worker may own
sessions in another's file, and both append to it (``SQLiteStore``'s ``owns``: each
indexes its own sessions, and waits for the file's lock).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lore.server.sqlite_store import SQLiteStore
from lore.server.store import (
    ENDED,
    OPEN,
    LogEntry,
    Records,
    SeatRecord,
    SessionRecord,
    Snapshot,
    Store,
    StoreError,
    Waiter,
)


def shard_path(db: Path, index: int) -> Path:
    """The file of worker ``index``'s sessions."""
    return db if index == 0 else db.with_name(f"{db.stem}.w{index}{db.suffix}")


def shards(db: Path, at_least: int = 1) -> list[int]:
    """The workers whose files the store has: the main one's (0), each found beside it,
    and the first ``at_least`` (made when opened)."""
    found = set(range(at_least)) | {0}
    pattern = re.compile(re.escape(db.stem) + r"\.w([1-9][0-9]*)" + re.escape(db.suffix))
    if db.parent.is_dir():
        for path in db.parent.iterdir():
            match = pattern.fullmatch(path.name)
            if match is not None:
                found.add(int(match.group(1)))
    return sorted(found)


async def open_store(
    db: Path, own: int = 0, owns: Callable[[str], bool] | None = None, at_least: int = 1
) -> Store:
    """The store of ``db``: its one file's, or all its files' as one (``ShardedStore``),
    new sessions made in worker ``own``'s (StoreError when a file cannot be opened)."""
    indexes = shards(db, max(at_least, own + 1))
    if indexes == [0]:
        return await asyncio.to_thread(SQLiteStore, db, owns)
    return await ShardedStore.open(db, indexes, own, owns)


class ShardedStore:
    """Several SQLite stores as one (the ``Store`` interface): a session's operations go
    to the file that has it; new sessions go to ``own``'s."""

    def __init__(self, stores: dict[int, SQLiteStore], own: int) -> None:
        self.stores = stores
        self.own = stores[own]
        self.where: dict[str, SQLiteStore] = {}  # the sessions' files

    @staticmethod
    async def open(
        db: Path, indexes: list[int], own: int, owns: Callable[[str], bool] | None
    ) -> ShardedStore:
        """Open the files of these workers (StoreError when one cannot be)."""
        stores: dict[int, SQLiteStore] = {}
        try:
            for index in indexes:
                stores[index] = await asyncio.to_thread(SQLiteStore, shard_path(db, index), owns)
        except StoreError:
            for store in stores.values():
                await store.close()
            raise
        found = ShardedStore(stores, own)
        for store in stores.values():
            for status in (OPEN, ENDED):
                for record in await store.sessions(status):
                    found.where[record.id] = store
        return found

    def of(self, session: str) -> SQLiteStore:
        return self.where.get(session, self.own)

    async def create(
        self, record: SessionRecord, files: dict[str, bytes], seats: list[SeatRecord]
    ) -> None:
        await self.own.create(record, files, seats)
        self.where[record.id] = self.own

    def append(self, session: str, entry: LogEntry) -> Awaitable[None]:
        return self.of(session).append(session, entry)

    def append_then(self, session: str, entry: LogEntry, waiter: Waiter) -> None:
        self.of(session).append_then(session, entry, waiter)

    async def put_seat(self, seat: SeatRecord) -> None:
        await self.of(seat.session).put_seat(seat)

    async def delete_seat(self, session: str, seat: str) -> None:
        await self.of(session).delete_seat(session, seat)

    async def set_status(self, session: str, status: str) -> None:
        await self.of(session).set_status(session, status)

    async def put_snapshot(self, session: str, snapshot: Snapshot) -> None:
        await self.of(session).put_snapshot(session, snapshot)

    async def put_records(self, session: str, records: Records) -> None:
        await self.of(session).put_records(session, records)

    async def sessions(self, status: str = OPEN) -> list[SessionRecord]:
        found = [r for store in self.stores.values() for r in await store.sessions(status)]
        return sorted(found, key=lambda record: (record.created, record.id))

    async def files(self, digest: str) -> dict[str, bytes]:
        for store in (self.own, *self.stores.values()):
            found = await store.files(digest)
            if found:
                return found
        return {}

    async def seats(self, session: str) -> list[SeatRecord]:
        return await self.of(session).seats(session)

    async def session_of(self, token: str) -> str | None:
        for store in self.stores.values():
            found = await store.session_of(token)
            if found is not None:
                return found
        return None

    async def holder(self, token: str) -> tuple[SessionRecord, SeatRecord] | None:
        for store in self.stores.values():
            found = await store.holder(token)
            if found is not None:
                return found
        return None

    async def snapshot(self, session: str) -> Snapshot | None:
        return await self.of(session).snapshot(session)

    async def transcript(self, session: str) -> list[dict[str, Any]]:
        return await self.of(session).transcript(session)

    async def transcript_length(self, session: str) -> int:
        return await self.of(session).transcript_length(session)

    async def log(self, session: str, after: int = 0) -> list[LogEntry]:
        return await self.of(session).log(session, after)

    async def close(self) -> None:
        for store in self.stores.values():
            await store.close()
