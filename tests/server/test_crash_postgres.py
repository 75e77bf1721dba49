"""Durability on PostgreSQL: ``lore serve --db postgresql://…`` killed with SIGKILL at
random moments of scripted sessions (also between an answer and its acknowledgement),
restarted each time (its database's serving lock is free once its connection is gone);
the players reconnect and play on. As on SQLite (test_crash.py): every session's
transcript equals the uninterrupted run's, and every answer is in the log once."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from lore.clients.seat import SeatClient
from lore.server.postgres_store import PostgresStore
from lore.server.store import ENDED, Store
from tests.server.postgres import postgres_server, postgres_url
from tests.server.serving import ServeProcess
from tests.server.test_crash import ROUND, as_run, play_through, reference

__all__ = ["postgres_server", "postgres_url"]  # (fixtures this file uses)

T = TypeVar("T")
KILLS = 10
SESSIONS = 2


@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_at_random_moments_loses_nothing_acknowledged(
    tmp_path: Path, postgres_url: str, workers: int
) -> None:
    rng = random.Random(20261202 + workers)
    kills = list(range(KILLS))
    options = ("--snapshot-every", "7", "--workers", str(workers))
    with ServeProcess(postgres_url, [ROUND], options, logs=tmp_path) as server:
        tables = play_through(server, SESSIONS, rng, kills, workers)
        assert stored(postgres_url, lambda store: store.sessions()) == []
        seeds = {r.id: r.seed for r in stored(postgres_url, lambda s: s.sessions(ENDED))}
        for table in tables:
            gm = SeatClient(table.gm_link)
            gm.connect()
            records = gm.request({"type": "log"})["records"]
            token = table.gm_link.split("#", 1)[1]
            found = stored(postgres_url, lambda s, token=token: s.holder(token))
            assert found is not None and found[0].status == ENDED
            session = found[0].id
            expected = reference(seeds[session], table.number)
            assert json.dumps(as_run(records), ensure_ascii=False) == json.dumps(
                expected, ensure_ascii=False
            )
            answers = [r for r in records if r["kind"] == "answer"]
            log = stored(postgres_url, lambda s, at=session: s.log(at))
            assert sum(e.kind == "answer" for e in log) == len(answers) == 61
            snapshot = stored(postgres_url, lambda s, at=session: s.snapshot(at))
            assert snapshot is not None and snapshot.index >= 7  # restores began there
            gm.close()


def stored(url: str, read: Callable[[Store], Awaitable[T]]) -> T:
    async def reading() -> T:
        store = await PostgresStore.open(url)
        try:
            return await read(store)
        finally:
            await store.close()

    return asyncio.run(reading())
