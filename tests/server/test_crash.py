"""Durability: ``lore serve`` killed with SIGKILL at random moments of scripted sessions
(also right after an answer was sent, before its acknowledgement came), restarted each
time; the players reconnect with their last sequence numbers and play on. Every session's
final transcript must equal the uninterrupted run's, and every answer must be in the log
once. Sessions are snapshotted every 7 entries, so restarts restore from a snapshot and
the entries after it."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed, WebSocketException

from lore.clients.seat import SeatClient, acknowledged
from lore.runtime.compiler import compile_program
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.sqlite_store import SQLiteStore
from lore.server.store import LogEntry
from tests.server.serving import EXAMPLES, ServeProcess, create_session, links

KILLS = 20
SESSIONS = 3
ROUND = EXAMPLES / "round"
GONE = (OSError, WebSocketException, ConnectionClosed, TimeoutError)


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


def reconnect(client: SeatClient) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            client.connect()
            return
        except GONE:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def play_one(table: Table, server: ServeProcess, rng: random.Random, kills: list[int]) -> bool:
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
                restart(server)
                return True
            reply = client.wait_for(lambda f, ref=ref: f.get("ref") == ref)
            if acknowledged(reply) is not None:
                table.answers += 1
            return True
    status = table.clients[0].state.status
    table.done = status.get("ended") == "no-events"
    return False


def restart(server: ServeProcess) -> None:
    server.kill()
    server.start()


def reference(seed: int, number: int) -> list[dict[str, Any]]:
    """The transcript of the same session run without interruption, in-process."""
    result = checked(ROUND, "scenario.lore")
    master = Master(compile_program(result), seed)
    master.start()
    while questions := master.open_questions():
        assert master.answer(questions[0].id, decide(number, questions[0].id)) is None
    return master.records(0)


def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(20261124)
    db = tmp_path / "sessions.db"
    kills = list(range(KILLS))
    with ServeProcess(db, [ROUND], ("--snapshot-every", "7")) as server:
        server.start()
        tables = []
        for number in range(SESSIONS):
            seats = links(create_session(server.base, "round"), server.base)
            players = [SeatClient(link) for seat, link in seats.items() if seat != "GM"]
            for client in players:
                client.connect()
            tables.append(Table(number, players, seats["GM"]))
        while not all(t.done for t in tables):
            for table in tables:
                if not table.done:
                    try:
                        play_one(table, server, rng, kills)
                    except GONE:
                        for client in table.clients:
                            reconnect(client)
        assert not kills, f"{len(kills)} kills were not made: the sessions were too short"
        seeds = dict(sqlite3.connect(db).execute("SELECT id, seed FROM sessions").fetchall())
        for table in tables:
            gm = SeatClient(table.gm_link)
            gm.connect()
            records = gm.request({"type": "log"})["records"]
            session = _session_of(db, table)
            expected = reference(seeds[session], table.number)
            assert json.dumps(records, ensure_ascii=False) == json.dumps(
                expected, ensure_ascii=False
            )
            answers = [r for r in records if r["kind"] == "answer"]
            logged = sum(entry.kind == "answer" for entry in _log_of(db, session))
            assert logged == len(answers) == 61
            snapshot, kept = (
                sqlite3.connect(db)
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


def _log_of(db: Path, session: str) -> list[LogEntry]:
    """A session's whole log, as the store reads it."""

    async def read() -> list[LogEntry]:
        store = SQLiteStore(db)
        try:
            return await store.log(session)
        finally:
            await store.close()

    return asyncio.run(read())


def _session_of(db: Path, table: Table) -> str:
    token = table.gm_link.split("#", 1)[1]
    row = sqlite3.connect(db).execute("SELECT session FROM seats WHERE token = ?", (token,))
    found: str = row.fetchone()[0]
    return found
