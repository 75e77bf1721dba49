"""Durability: ``lore serve`` killed with SIGKILL at random moments of scripted sessions
(also right after an answer was sent, before its acknowledgement came), restarted each
time; the players reconnect with their last sequence numbers and play on. Every session's
final transcript must equal the uninterrupted run's, and every answer must be in the log
once. Sessions are snapshotted every 7 entries, so restarts restore from a snapshot and
the entries after it. With two workers (``--workers 2``), a kill is of the front (the
workers die with it) or of one worker (the front starts it again)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import signal
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from lore.clients.seat import SeatClient, acknowledged
from lore.runtime.compiler import compile_program
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.shards import open_store, shard_path, shards
from lore.server.store import ENDED, Store
from tests.server.serving import EXAMPLES, GONE, ServeProcess, create_session, links, reconnect

T = TypeVar("T")
KILLS = 20
SESSIONS = 3
ROUND = EXAMPLES / "round"


def decide(session: int, query_id: str) -> dict[str, Any]:
    """Each player's answer to a question: fixed by the question, so an answer sent again
    after a crash is the same answer."""
    digest = hashlib.sha256(f"{session}:{query_id}".encode()).digest()
    return {"move": "roll" if digest[0] % 3 else "rest"}


@dataclass
class Table:
    number: int
    clients: list[SeatClient]
    gm_link: str
    answers: int = 0
    done: bool = False
    worker_kills: int = 0  # (of the kills made while it played)


def play_one(
    table: Table, server: ServeProcess, rng: random.Random, kills: list[int], workers: int
) -> bool:
    """Answer one open question of the table (killing the server right after sending it
    when a kill is due); whether anything was answered."""
    for client in table.clients:
        try:
            client.pump(0.002)
        except GONE:
            reconnect(client)
        for query_id in list(client.state.questions):
            ref = client.send(
                {
                    "type": "answer",
                    "id": query_id,
                    "values": decide(table.number, query_id),
                    "seq": client.state.seq or 0,
                }
            )
            if kills and rng.random() < 0.3:
                kills.pop()
                time.sleep(rng.random() * 0.02)  # before, during or after the commit
                if workers > 1 and rng.random() < 0.4:
                    kill_worker(server, rng)
                    table.worker_kills += 1
                else:
                    restart(server)
                return True
            reply = client.wait_for(lambda f, ref=ref: f.get("ref") == ref)
            if acknowledged(reply) is not None:
                table.answers += 1
            return True
    status = table.clients[0].state.status
    table.done = status.get("ended") == "no-events"
    return False


def play_through(
    server: ServeProcess, sessions: int, rng: random.Random, kills: list[int], workers: int
) -> list[Table]:
    """Start the server, make the sessions and play each to its end, making every kill."""
    server.start()
    tables = []
    for number in range(sessions):
        seats = links(create_session(server.base, "round"), server.base)
        players = [SeatClient(link) for seat, link in seats.items() if seat != "GM"]
        for client in players:
            client.connect()
        tables.append(Table(number, players, seats["GM"]))
    while not all(t.done for t in tables):
        for table in tables:
            if not table.done:
                try:
                    play_one(table, server, rng, kills, workers)
                except GONE:
                    for client in table.clients:
                        reconnect(client)
    assert not kills, f"{len(kills)} kills were not made: the sessions were too short"
    return tables


def restart(server: ServeProcess) -> None:
    server.kill()
    server.start()


def kill_worker(server: ServeProcess, rng: random.Random) -> None:
    """SIGKILL one of the server's workers (its front starts it again)."""
    assert server.process is not None
    front = server.process.pid
    children = Path(f"/proc/{front}/task/{front}/children").read_text().split()
    if children:
        os.kill(int(rng.choice(children)), signal.SIGKILL)


def as_run(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A session log as ``lore run`` writes it: without what the server's log adds to an
    answer for its readers (its question's ``title``, and what was chosen as ``shown``)."""
    return [
        {k: v for k, v in r.items() if k not in ("title", "shown")} if r["kind"] == "answer" else r
        for r in records
    ]


def reference(seed: int, number: int) -> list[dict[str, Any]]:
    """The transcript of the same session run without interruption, in-process."""
    result = checked(ROUND, "scenario.lore")
    master = Master(compile_program(result), seed)
    master.start()
    while questions := master.open_questions():
        assert master.answer(questions[0].id, decide(number, questions[0].id)) is None
    return master.records(0)


@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path: Path, workers: int) -> None:
    rng = random.Random(20261124 + workers)
    db = tmp_path / "sessions.db"
    kills = list(range(KILLS))
    options = ("--snapshot-every", "7", "--workers", str(workers))
    with ServeProcess(db, [ROUND], options) as server:
        tables = play_through(server, SESSIONS, rng, kills, workers)
        assert (sum(t.worker_kills for t in tables) > 0) == (workers > 1)
        # (Every session ended by its rules: ended in the store, its links still open it.)
        assert _stored(db, lambda store: store.sessions()) == []
        seeds = {r.id: r.seed for r in _stored(db, lambda store: store.sessions(ENDED))}
        for table in tables:
            gm = SeatClient(table.gm_link)
            gm.connect()
            records = gm.request({"type": "log"})["records"]
            session = _session_of(db, table)
            expected = reference(seeds[session], table.number)
            assert json.dumps(as_run(records), ensure_ascii=False) == json.dumps(
                expected, ensure_ascii=False
            )
            answers = [r for r in records if r["kind"] == "answer"]
            logged = sum(
                e.kind == "answer" for e in _stored(db, lambda store, at=session: store.log(at))
            )
            assert logged == len(answers) == 61
            snapshot, kept = (
                sqlite3.connect(_file_of(db, session))
                .execute(
                    "SELECT (SELECT idx FROM snapshots WHERE session = ?),"
                    " (SELECT count(*) FROM transcript WHERE session = ?)",
                    (session, session),
                )
                .fetchone()
            )
            # Restores began at snapshots (a room's first comes sooner, by its id; the last
            # may fall on the last entry).
            assert snapshot >= 7 and 0 < kept <= len(records)
            gm.close()


def _stored(db: Path, read: Callable[[Store], Awaitable[T]]) -> T:
    """What the store (all its files) gives."""

    async def reading() -> T:
        store = await open_store(db)
        try:
            return await read(store)
        finally:
            await store.close()

    return asyncio.run(reading())


def _session_of(db: Path, table: Table) -> str:
    found = _stored(db, lambda store: store.holder(table.gm_link.split("#", 1)[1]))
    assert found is not None and found[0].status == ENDED
    return found[0].id


def _file_of(db: Path, session: str) -> Path:
    """The store's file that has the session."""
    for index in shards(db):
        path = shard_path(db, index)
        if (
            sqlite3.connect(path)
            .execute("SELECT 1 FROM sessions WHERE id = ?", (session,))
            .fetchone()
        ):
            return path
    raise AssertionError(f"no file has session {session}")
