"""``lore serve --workers N``: the front hands each connection to the worker that owns
the session it names; workers make and restore only their own sessions, each in a file
of its own; a client that names no session is sent where it is; the workers die with
the front, and a new front waits for them to be gone."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from lore.clients.seat import SeatClient, acknowledged
from lore.server.shards import shard_path
from lore.server.sources import load
from lore.server.store import bundle_digest
from lore.server.workers import Front, StoreLocked, Worker, lock_store, owner, session_named
from tests.server.serving import (
    PAPER,
    PLAYER,
    ServeProcess,
    create_session,
    http,
    links,
    reconnect,
)


def test_the_session_a_request_names() -> None:
    assert session_named(b"GET /ws?session=abc HTTP/1.1\r\nHost: x\r\n\r\n") == "abc"
    assert session_named(b"GET /play?lang=ja&session=abc HTTP/1.1\r\n") == "abc"
    assert session_named(b"GET /api/save?session=a%62c HTTP/1.1\r\n") == "abc"
    assert session_named(b"GET /ws HTTP/1.1\r\n\r\n") is None
    assert session_named(b"GET /ws?session=abc HTTP/1.1") is None  # (the line is not all here)
    assert session_named(b"GET /ws?session=abc\r\n") is None  # not a request line
    assert session_named(b"\xff\xfe /?session=\xff HTTP/1.1\r\n") is None
    assert session_named(b"") is None


def test_a_sessions_owner_is_the_same_everywhere_and_spread() -> None:
    ids = [f"{n:032x}" for n in range(400)]
    owners = [owner(i, 2) for i in ids]
    assert owners == [owner(i, 2) for i in ids]
    assert 150 < owners.count(0) < 250
    assert {owner(i, 3) for i in ids} == {0, 1, 2}


def test_the_stores_lock_is_held_by_one_server(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    held = lock_store(db)
    try:
        with pytest.raises(StoreLocked, match="used by another lore serve"):
            lock_store(db, wait=0.2)
        child = os.fork()
        if child == 0:  # a worker inherits the lock: it holds while the worker lives
            time.sleep(0.5)
            os._exit(0)
    finally:
        os.close(held)
    with pytest.raises(StoreLocked):
        lock_store(db, wait=0.1)  # (the child still has it)
    os.waitpid(child, 0)
    os.close(lock_store(db, wait=1.0))


def test_the_lock_is_on_the_database_file_whatever_names_it(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    held = lock_store(db)
    try:
        (tmp_path / "elsewhere").mkdir()
        linked = tmp_path / "elsewhere" / "sessions.db"
        os.link(db, linked)  # a hard link in another folder: the same file
        with pytest.raises(StoreLocked, match="used by another lore serve"):
            lock_store(linked, wait=0.1)
        symbolic = tmp_path / "symbolic.db"
        symbolic.symlink_to(db)
        with pytest.raises(StoreLocked, match="used by another lore serve"):
            lock_store(symbolic, wait=0.1)
    finally:
        os.close(held)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "sessions.db").touch(mode=0o444)
    if os.geteuid() != 0:  # (root writes whatever the mode)
        with pytest.raises(StoreLocked, match=r"cannot open .* for writing"):
            lock_store(tmp_path / "locked" / "sessions.db", wait=0.1)
    with pytest.raises(StoreLocked, match=r"cannot open .* for writing"):
        lock_store(tmp_path / "no-such-folder" / "sessions.db", wait=0.1)


def workers_of(front: int) -> list[int]:
    found = Path(f"/proc/{front}/task/{front}/children").read_text().split()
    return [int(pid) for pid in found]


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def answer_to(question: dict[str, Any]) -> dict[str, Any]:
    """The paper's scenario's questions answered: move, to the dungeon."""
    names = [i["name"] for i in question["inputs"]]
    return {"action": "move"} if names == ["action"] else {"goal": "/region[dungeon]"}


def take_a_turn(player: SeatClient) -> None:
    """Connect (again), and answer the seat's one open question."""
    player.connect()
    player.pump()
    (asked,) = player.state.questions.values()
    reply = player.answer(asked["id"], answer_to(asked))
    assert acknowledged(reply) is not None, reply
    player.pump()


def unnamed(link: str) -> str:
    """A seat's link without its session (as an older server made them)."""
    head, _, token = link.partition("#")
    return f"{head.split('?', 1)[0]}#{token}"


def sessions_of_both(base: str, count: int = 6) -> list[dict[str, object]]:
    """Sessions made until each of the two workers has some."""
    made = [create_session(base, "paper") for _ in range(count)]
    assert {owner(str(m["session"]), 2) for m in made} == {0, 1}
    return made


def test_two_workers_serve_their_sessions_and_send_clients_where_they_are(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    with ServeProcess(db, [PAPER], ("--workers", "2")) as server:
        server.start()
        assert server.process is not None
        assert len(workers_of(server.process.pid)) == 2
        made = sessions_of_both(server.base)
        status, body = http(server.base, "/api/sources")
        assert status == 200 and json.loads(body)[0]["name"] == "paper"
        moved = 0
        for created in made:
            seats = links(created, server.base)
            assert f"/play?session={created['session']}#" in seats[PLAYER]
            player = SeatClient(seats[PLAYER])
            player.connect()  # straight to its worker
            assert [json.loads(f)["type"] for f in player.raw][:1] == ["welcome"]
            player.pump()
            (question,) = player.state.questions.values()
            reply = player.answer(question["id"], {"action": "move"})
            assert acknowledged(reply) is not None
            player.close()
            again = SeatClient(unnamed(seats[PLAYER]))  # named by the server when elsewhere
            again.connect()
            kinds = [json.loads(f).get("code") or json.loads(f)["type"] for f in again.raw]
            assert kinds[-1] == "welcome" and kinds[:-1] in ([], ["elsewhere"])
            moved += kinds[:-1] == ["elsewhere"]
            assert again.session == created["session"]
            again.pump()
            assert list(again.state.questions) != [question["id"]]  # (answered: the next)
            again.close()
            # The GM's save, asked naming the session; without, its worker or a 421.
            gm = {"authorization": f"Bearer {seats['GM'].split('#', 1)[1]}"}
            status, body = http(server.base, f"/api/save?session={created['session']}", headers=gm)
            assert status == 200 and body[:2] == b"PK"
            status, body = http(server.base, "/api/save", headers=gm)
            assert status == 200 or (
                status == 421 and json.loads(body)["session"] == created["session"]
            )
        assert moved  # (connections naming no session go to the workers in turn)
        # Every worker serves the bundles' images, of its sessions or the others'.
        digest = bundle_digest(load(PAPER).files)
        for _ in range(4):
            status, body = http(server.base, f"/bundle/{digest}/TresureChest.jpg")
            assert status == 200 and body == (PAPER / "TresureChest.jpg").read_bytes()
        # Each worker keeps its sessions in a file of its own.
        assert db.exists() and shard_path(db, 1).exists()


def test_a_request_line_that_comes_in_pieces_is_routed_by_its_session(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    with ServeProcess(db, [PAPER], ("--workers", "2")) as server:
        server.start()
        for created in sessions_of_both(server.base):
            token = links(created, server.base)["GM"].split("#", 1)[1]
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as client:
                client.sendall(b"GET /api/save?sess")
                time.sleep(0.05)
                client.sendall(f"ion={created['session']} HTTP/1.1\r\n".encode())
                time.sleep(0.05)
                client.sendall(f"Host: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
                reply = b""
                while chunk := client.recv(65536):
                    reply += chunk
            head = reply.split(b"\r\n\r\n", 1)[0].lower()
            assert head.startswith(b"http/1.1 200") and b"connection: close" in head


def test_many_connections_waiting_at_once_for_their_request_lines_are_all_routed(
    tmp_path: Path,
) -> None:
    """Connections made together, all waiting in the front before any sends its request
    (a page's, a table's players'), each reach the worker of the session they name."""
    db = tmp_path / "sessions.db"
    with ServeProcess(db, [PAPER], ("--workers", "2")) as server:
        server.start()
        made = sessions_of_both(server.base)
        clients = [
            socket.create_connection(("127.0.0.1", server.port), timeout=20) for _ in range(300)
        ]
        try:
            time.sleep(0.2)  # (all of them accepted, none with a request line yet)
            asked = []
            for number, client in enumerate(clients):
                created = made[number % len(made)]
                token = links(created, server.base)["GM"].split("#", 1)[1]
                path = f"/api/save?session={created['session']}"
                client.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n".encode())
                client.sendall(f"Authorization: Bearer {token}\r\n\r\n".encode())
                asked.append(client)
            for client in asked:
                reply = b""
                while chunk := client.recv(65536):
                    reply += chunk
                assert reply.startswith(b"HTTP/1.1 200"), reply[:200]
        finally:
            for client in clients:
                client.close()


def test_the_workers_die_with_the_front_and_a_new_front_restores_every_session(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    with ServeProcess(db, [PAPER], ("--workers", "2")) as server:
        server.start()
        made = sessions_of_both(server.base)
        players = []
        for created in made:
            player = SeatClient(links(created, server.base)[PLAYER])
            take_a_turn(player)
            players.append(player)
        assert server.process is not None
        children = workers_of(server.process.pid)
        server.kill()  # SIGKILL: the workers go with it
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in children)
        # Started again with another number of workers, then one: every session is there.
        for options in (("--workers", "3"), ("--workers", "1")):
            server.options = options
            server.start()
            for player in players:
                player.base = f"ws://127.0.0.1:{server.port}/ws"
                take_a_turn(player)
            server.kill()


def test_a_worker_that_dies_is_started_again_with_its_sessions(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    with ServeProcess(db, [PAPER], ("--workers", "2")) as server:
        server.start()
        made = sessions_of_both(server.base)
        assert server.process is not None
        first = workers_of(server.process.pid)
        os.kill(first[1], signal.SIGKILL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            now = workers_of(server.process.pid)
            if len(now) == 2 and now != first:
                break
            time.sleep(0.05)
        for created in made:
            player = SeatClient(links(created, server.base)[PLAYER])
            reconnect(player, timeout=20)  # (until the new worker has restored its sessions)
            player.pump()
            assert len(player.state.questions) == 1
            player.close()


def test_a_front_stopped_by_sigterm_stops_its_workers_cleanly(tmp_path: Path) -> None:
    """Each worker snapshots its sessions as it stops (a clean shutdown), in its file."""
    db = tmp_path / "sessions.db"
    with ServeProcess(db, [PAPER], ("--workers", "2")) as server:
        server.start()
        made = sessions_of_both(server.base)
        for created in made:  # (a session that changed is snapshotted as it stops)
            player = SeatClient(links(created, server.base)[PLAYER])
            take_a_turn(player)
            player.close()
        assert server.process is not None
        children = workers_of(server.process.pid)
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(30) == 0
        assert not any(alive(pid) for pid in children)
    for index in (0, 1):
        with sqlite3.connect(shard_path(db, index)) as found:
            sessions = {row[0] for row in found.execute("SELECT id FROM sessions")}
            snapshots = {row[0] for row in found.execute("SELECT session FROM snapshots")}
        assert sessions == {str(m["session"]) for m in made if owner(str(m["session"]), 2) == index}
        assert snapshots == sessions


def test_connections_wait_while_a_workers_channel_is_full_then_go_in_order() -> None:
    """A worker slow to take its connections: the front keeps them, and hands them on
    in order once the channel has room."""

    async def scenario() -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        listener = socket.socket()
        front = Front(listener, 1, lambda index, fd: [])
        worker = Worker(0, ours, None)  # type: ignore[arg-type]
        pairs = [socket.socketpair() for _ in range(200)]
        for number, (mine, other) in enumerate(pairs):
            other.send(b"%d" % number)  # (what the handed connection reads)
            front.hand(worker, mine)
            mine.close()  # (the front closes its own once handed: the worker has a copy)
        assert worker.pending  # the channel filled up
        got = []
        theirs.settimeout(5)
        while len(got) < len(pairs):
            await asyncio.sleep(0)  # (the front's writer callback hands on the rest)
            _, fds, _, _ = socket.recv_fds(theirs, 16, 1)
            with socket.socket(fileno=fds[0]) as handed:
                handed.settimeout(5)
                got.append(int(handed.recv(16)))
        assert got == list(range(len(pairs)))
        assert not worker.pending
        for pair in pairs:
            pair[1].close()
        for end in (ours, theirs, listener):
            end.close()

    asyncio.run(scenario())
