"""Several nodes on one PostgreSQL database (``lore serve --node-url``): each session is
served by the node that holds its lock; a client that reaches another node is sent to
the owner; a drained node (SIGTERM) hands its sessions over; a killed node's sessions
are claimed by the node its clients reach next; a node that lost a session without
knowing it is fenced by the log's key and sends its clients to the new owner."""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lore.clients.seat import SeatClient, acknowledged
from lore.server.nodes import BEAT
from lore.server.store import LogEntry
from tests.server.postgres import Server, free_port, postgres_server, postgres_url
from tests.server.serving import EXAMPLES, GONE, ServeProcess, create_session, http, links
from tests.server.test_crash import decide
from tests.server.test_crash_postgres import stored

__all__ = ["postgres_server", "postgres_url"]  # (fixtures this file uses)

ROUND = EXAMPLES / "round"


def node(url: str, logs: Path, name: str) -> ServeProcess:
    """A node of the cluster on a port of its own (its URL is known before it starts)."""
    folder = logs / name
    folder.mkdir()
    process = ServeProcess(url, [ROUND], logs=folder)
    process.port = free_port()
    process.options = ("--node-url", f"http://127.0.0.1:{process.port}")
    return process


def started(*nodes: ServeProcess) -> None:
    """Start the nodes, and wait for each to have heard of the others (a beat)."""
    for process in nodes:
        process.start()
    time.sleep(BEAT + 0.5)


def answer_one(client: SeatClient, number: int = 0) -> int | None:
    """Answer the client's open question, if it has one; the acknowledged index."""
    client.pump(0.05)
    for query_id in list(client.state.questions):
        values = decide(number, query_id)
        answer = {"type": "answer", "id": query_id, "values": values, "seq": client.state.seq or 0}
        ref = client.send(answer)
        reply = client.wait_for(lambda f, ref=ref: f.get("ref") == ref)
        return acknowledged(reply)
    return None


def players(created: dict[str, Any], base: str) -> list[SeatClient]:
    return [SeatClient(link) for seat, link in links(created, base).items() if seat != "GM"]


def play(clients: list[SeatClient], answers: int) -> int:
    """Answer round the table until ``answers`` were acknowledged; how many were."""
    done = 0
    deadline = time.monotonic() + 60
    while done < answers and time.monotonic() < deadline:
        for client in clients:
            if done < answers and answer_one(client) is not None:
                done += 1
    return done


def test_a_client_at_another_node_is_sent_to_the_owner(tmp_path: Path, postgres_url: str) -> None:
    with node(postgres_url, tmp_path, "a") as a, node(postgres_url, tmp_path, "b") as b:
        started(a, b)
        created = create_session(a.base, "round")
        seated = players(created, b.base)  # (links at b)
        for client in seated:
            client.connect()  # (at b: told to go to a)
            assert str(a.port) in client.base
            assert client.nodes == [a.base, b.base]
        assert play(seated, 4) == 4
        # the GM's status asked at b names the owner
        gm = links(created, b.base)["GM"].split("#", 1)[1]
        status, body = http(b.base, "/api/status", headers={"authorization": f"Bearer {gm}"})
        assert status == 421 and json.loads(body)["url"] == a.base
        # A single server cannot serve the database the nodes serve.
        argv = [sys.executable, "-m", "lore", "serve", "--db", postgres_url, "--port", "0"]
        single = subprocess.run(
            [*argv, "--ready", str(ROUND)], capture_output=True, text=True, timeout=60
        )
        assert single.returncode == 2 and "used by another lore serve" in single.stderr


@contextlib.contextmanager
def two_nodes(
    url: str, logs: Path, answers: int
) -> Iterator[tuple[ServeProcess, ServeProcess, str, list[SeatClient]]]:
    """Nodes a and b, a session started at a with its players connected there, and
    ``answers`` of it answered."""
    with node(url, logs, "a") as a, node(url, logs, "b") as b:
        started(a, b)
        created = create_session(a.base, "round")
        seated = players(created, a.base)
        for client in seated:
            client.connect()
        assert play(seated, answers) == answers
        yield a, b, created["session"], seated


def logged(url: str, session: str) -> list[LogEntry]:
    """The session's log, checked whole: every index once, in order, no answer twice."""
    entries = stored(url, lambda s: s.log(session))
    assert [e.index for e in entries] == list(range(1, len(entries) + 1))
    answered = [e.data["id"] for e in entries if e.kind == "answer"]
    assert len(answered) == len(set(answered)), "an answer was applied twice"
    return entries


def test_a_drained_node_hands_its_sessions_over(tmp_path: Path, postgres_url: str) -> None:
    with two_nodes(postgres_url, tmp_path, 3) as (a, b, session, seated):
        time.sleep(BEAT + 0.5)  # (b has its bundle compiled by then: ``claiming.warm``)
        assert a.process is not None
        a.process.send_signal(signal.SIGTERM)
        moved = seated[0].wait_for(lambda f: f.get("code") == "elsewhere", timeout=10)
        assert moved["url"] == b.base
        seq = seated[0].state.seq  # (b goes on where a left off)
        seated[0].connect()  # (at b, which claims it)
        assert str(b.port) in seated[0].base and seated[0].state.seq == seq
        # (how long it was away is a figure of benchmarks/nodes.py, not a test's)
        assert a.process.wait(20) is not None
        for client in seated[1:]:
            client.connect()
        assert play(seated, 3) == 3
        assert sum(e.kind == "answer" for e in logged(postgres_url, session)) == 6


def test_a_killed_nodes_sessions_are_claimed_where_their_clients_go(
    tmp_path: Path, postgres_url: str
) -> None:
    with two_nodes(postgres_url, tmp_path, 5) as (a, b, session, seated):
        a.kill()  # SIGKILL: its database connections end, and its locks with them
        for client in seated:
            client.connect()  # (a is gone: the next node the welcome named)
            assert str(b.port) in client.base
        assert play(seated, 5) == 5
        assert sum(e.kind == "answer" for e in logged(postgres_url, session)) == 10


def test_a_node_that_lost_its_locks_is_fenced_and_sends_its_clients_on(
    tmp_path: Path, postgres_url: str, postgres_server: Server
) -> None:
    with two_nodes(postgres_url, tmp_path, 2) as (_, b, session, seated):
        # a's lock connection is cut: its locks are free, and b takes the session when
        # a client comes to it, while a still has the room.
        database = postgres_url.rsplit("/", 1)[1]
        postgres_server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_locks l JOIN pg_stat_activity s"
            f" USING (pid) WHERE l.locktype = 'advisory' AND s.datname = '{database}'"
            " AND l.mode = 'ExclusiveLock'"
        )
        newcomer = SeatClient(f"{b.base}/play?session={session}#{seated[0].token}")
        newcomer.connect()
        assert str(b.port) in newcomer.base
        # answers go on at b; a's clients are sent there (fenced, or deposed by a's beat)
        done = 0
        deadline = time.monotonic() + 30
        while done < 4 and time.monotonic() < deadline:
            for client in [newcomer, *seated[1:]]:
                try:
                    if done < 4 and answer_one(client) is not None:
                        done += 1
                except GONE:  # (sent on by a, or refused there: at b next)
                    client.connect()
        assert done == 4
        for client in seated[1:]:
            client.connect()
            assert str(b.port) in client.base
        assert sum(e.kind == "answer" for e in logged(postgres_url, session)) == 6


def test_no_notify_on_the_answers_path(
    tmp_path: Path, postgres_url: str, postgres_server: Server
) -> None:
    # Every statement the nodes send is logged by the database; 1,000 answers later none
    # of them is a NOTIFY (which takes a lock of the whole database at commit).
    database = postgres_url.rsplit("/", 1)[1]
    postgres_server.psql(f"ALTER DATABASE {database} SET log_statement = 'all'")
    log = postgres_server.folder / "log"
    start = log.stat().st_size
    longer = tmp_path / "round"
    shutil.copytree(ROUND, longer)
    scenario = longer / "scenario.lore"
    text = scenario.read_text(encoding="utf-8")
    scenario.write_text(text.replace("last = 60[sec];", "last = 400[sec];"), encoding="utf-8")
    with node(postgres_url, tmp_path, "a") as a, node(postgres_url, tmp_path, "b") as b:
        a.examples = b.examples = [longer]
        started(a, b)
        tables = []
        for base in (a.base, b.base, a.base):
            seated = players(create_session(base, "round"), base)
            for client in seated:
                client.connect()
            tables.append(seated)
        done = sum(play(seated, 340) for seated in tables)
    assert done == 1020
    with log.open("rb") as read:
        read.seek(start)
        statements = [
            line
            for line in read.read().decode(errors="replace").splitlines()
            if "statement: " in line or "execute " in line
        ]
    assert sum("INSERT INTO log" in line for line in statements) > 0  # (it logged them)
    assert [line for line in statements if "NOTIFY" in line.upper()] == []
