"""The HTTP side: sessions started from examples and uploads (checked first: nothing is
made of a bundle with errors), the GM's save, which starts a new session where the old one
stopped, and a restarted server that goes on with its sessions."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import socket
import sqlite3
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from lore.clients.seat import SeatClient, acknowledged
from lore.server import app
from lore.server.sqlite_store import SQLiteStore
from lore.server.store import ENDED, StoreError
from tests.server.serving import EXAMPLES, PAPER, PLAYER, ServerThread, http, links


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def paper_files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in PAPER.iterdir() if p.suffix in (".lore", ".xml")}


def test_an_upload_with_errors_is_refused_with_places_and_nothing_is_made(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        files = paper_files()
        files["scenario.lore"] = files["scenario.lore"].replace(b"list<Feature>", b"list<Featur>")
        status, body = http(server.base, "/api/sessions", zipped(files), "application/zip")
        assert status == 422
        problems = json.loads(body)["problems"]
        assert problems[0]["file"] == "scenario.lore" and problems[0]["line"] > 1
        assert "unknown type 'Featur'" in problems[0]["text"] and "^" in problems[0]["text"]
        status, body = http(
            server.base, "/api/sessions", zipped({"../x.lore": b"x"}), "application/zip"
        )
        assert status == 422 and "outside the bundle" in body.decode()
        assert server.server is not None and server.server.rooms.by_id == {}
        status, body = http(server.base, "/api/sessions", json.dumps({"source": "nope"}).encode())
        assert status == 422


def test_a_save_starts_a_new_session_where_the_old_one_stopped(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        seats = links(server.create(), server.base)
        player = SeatClient(seats[PLAYER])
        player.connect()
        player.pump()
        (question,) = player.state.questions.values()
        assert acknowledged(player.answer(question["id"], {"action": "move"})) is not None
        player.pump()
        token = seats["GM"].split("#")[1]
        assert http(server.base, "/api/save")[0] == 403
        status, data = http(server.base, "/api/save", headers={"authorization": f"Bearer {token}"})
        assert status == 200
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
        assert "save.lore" in names and "scenario.lore" in names
        status, body = http(server.base, "/api/sessions", data, "application/zip")
        assert status == 201, body
        again = SeatClient(
            server.base + next(s["link"] for s in json.loads(body)["seats"] if s["seat"] == PLAYER)
        )
        again.connect()
        again.pump()
        assert [q["title"] for q in again.state.questions.values()] == ["route in region"]


def test_a_restarted_server_goes_on_with_its_sessions(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        seats = links(server.create(), server.base)
        player = SeatClient(seats[PLAYER])
        player.connect()
        player.pump()
        (question,) = player.state.questions.values()
        player.answer(question["id"], {"action": "move"})
        player.pump()
        seen = player.state.seq
    with ServerThread(tmp_path) as server:
        base = server.base
        player.base = base.replace("http://", "ws://") + "/ws"
        player.raw.clear()
        player.connect()
        player.pump()
        assert [json.loads(f)["type"] for f in player.raw] == ["welcome", "presence"]
        assert player.state.seq == seen
        (route,) = player.state.questions.values()
        assert acknowledged(player.answer(route["id"], {"goal": "/region[dungeon]"})) is not None


def test_a_session_that_cannot_be_restored_is_told_to_its_gm_with_why(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        seats = links(server.create(), server.base)
    with sqlite3.connect(tmp_path / "sessions.db") as database:  # its rules damaged
        database.execute(
            "UPDATE bundles SET data = CAST('section' AS BLOB) WHERE path = 'scenario.lore'"
        )
    database.close()
    shutil.rmtree(tmp_path / "bundles")  # (the files written out the last time)
    with ServerThread(tmp_path) as server:
        url = f"ws://127.0.0.1:{server.port}/ws"
        told = {}
        for seat in ("GM", PLAYER):
            socket = connect(url, legacy=True)
            socket.send(json.dumps({"type": "hello", "token": seats[seat].split("#", 1)[1]}))
            told[seat] = json.loads(socket.recv(timeout=10))
            socket.close()
        assert told["GM"]["code"] == told[PLAYER]["code"] == "unrestorable"
        assert "scenario.lore:1" in told["GM"]["message"]  # why: the place in its rules
        assert "scenario.lore" not in told[PLAYER]["message"]
        assert "GM is told" in told[PLAYER]["message"]


def test_a_bundles_images_are_served_and_nothing_else(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        created = server.create()
        assert server.server is not None
        digest = server.server.rooms.by_id[created["session"]].record.digest
        status, body = http(server.base, f"/bundle/{digest}/TresureChest.jpg")
        assert status == 200 and body == (PAPER / "TresureChest.jpg").read_bytes()
        assert body[:3] == b"\xff\xd8\xff"  # a JPEG, as its name says
        for path in (
            "scenario.lore",  # not an image: the rules stay on the server
            "missing.jpg",
            "..%2Fsessions.db",
            "%2Fetc%2Fhostname.png",
        ):
            assert http(server.base, f"/bundle/{digest}/{path}")[0] == 404, path
        assert http(server.base, f"/bundle/{'0' * 64}/TresureChest.jpg")[0] == 404


def posted(port: int, head: str, body: bytes) -> tuple[int, bytes]:
    """The status and body of the response to a POST sent as given (only part of a body
    it announces may be sent: the server answers before it reads the rest)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(f"POST /api/sessions HTTP/1.1\r\nHost: x\r\n{head}\r\n".encode() + body)
        response = connection.makefile("rb")
        status = int(response.readline().split()[1])
        length = 0
        while (line := response.readline().strip()) != b"":
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return status, response.read(length)


def test_a_body_over_its_limit_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        # a length over the limit: refused with none of the body sent
        json_head = "content-type: application/json\r\n"
        status, body = posted(server.port, json_head + "content-length: 1000000\r\n", b"")
        assert status == 413 and len(body) < 500, body[:200]
        assert "larger than 4096 bytes" in json.loads(body)["problems"][0]["text"]
        # no length said: read in chunks, refused once past the limit (the rest never sent)
        chunk = b"[" + b"1," * 1000
        chunked = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        head = json_head + "transfer-encoding: chunked\r\n"
        status, body = posted(server.port, head, chunked * 3)
        assert status == 413 and len(body) < 500
        zip_head = "content-type: application/zip\r\ncontent-length: 9000000\r\n"
        assert posted(server.port, zip_head, b"PK")[0] == 413
        # a name within the limit but long is not echoed whole
        status, body = http(
            server.base, "/api/sessions", json.dumps({"source": "y" * 3000}).encode()
        )
        assert status == 422 and len(body) < 500
        status, body = http(server.base, "/api/sessions", b'{"source": 5}')
        assert status == 422 and "/api/sources" in body.decode()
        assert server.server is not None and server.server.rooms.by_id == {}


def test_a_body_that_stops_coming_is_refused_and_its_connection_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A request whose body never came held its connection, and the bytes it had sent
    # (up to 8 MiB each), for as long as its client kept it open.
    monkeypatch.setattr(app, "BODY_WAIT", 0.5, raising=False)
    with ServerThread(tmp_path) as server:
        for kind, length in (("application/zip", 100_000), ("application/json", 1000)):
            head = f"content-type: {kind}\r\ncontent-length: {length}\r\n"
            start = time.monotonic()
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
                sock.sendall(f"POST /api/sessions HTTP/1.1\r\nHost: x\r\n{head}\r\nPK".encode())
                answer = b""
                while chunk := sock.recv(65536):  # (until the server closes it)
                    answer += chunk
            assert time.monotonic() - start < 5
            assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
            assert b"stopped coming for 0.5 s" in answer
        assert server.server is not None and server.server.rooms.by_id == {}


def test_a_body_that_comes_a_byte_at_a_time_is_refused_after_its_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A byte every few seconds never paused long enough to be refused: it held its
    # connection for as long as its client liked.
    monkeypatch.setattr(app, "BODY_WAIT", 0.5, raising=False)
    with ServerThread(tmp_path) as server:
        head = "content-type: application/json\r\ncontent-length: 1000\r\n"
        start = time.monotonic()
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(f"POST /api/sessions HTTP/1.1\r\nHost: x\r\n{head}\r\n".encode())
            answer = b""
            sock.settimeout(0.2)
            while time.monotonic() - start < 8:
                try:
                    sock.sendall(b" ")
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                except OSError:  # (closed by the server while a byte was on its way)
                    break
                if not chunk:
                    break
                answer += chunk
        assert time.monotonic() - start < 3
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
        assert b"came slower than 16 KiB a second" in answer
        assert server.server is not None and server.server.rooms.by_id == {}


def test_bodies_read_at_once_are_counted_per_client_and_in_all(tmp_path: Path) -> None:
    # Many near-8 MiB uploads in progress at once each held their bytes, with no limit
    # per client.
    with ServerThread(tmp_path) as server:
        head = "content-type: application/zip\r\ncontent-length: 5000000\r\n"
        request = f"POST /api/sessions HTTP/1.1\r\nHost: x\r\n{head}\r\nPK".encode()

        def sending(source: str) -> socket.socket:
            sock = socket.create_connection(
                ("127.0.0.1", server.port), timeout=10, source_address=(source, 0)
            )
            sock.sendall(request)
            return sock

        def refused(source: str) -> bytes:
            with sending(source) as sock:
                answer = b""
                while chunk := sock.recv(65536):
                    answer += chunk
                return answer

        held = [sending("127.0.0.1"), sending("127.0.0.1")]
        time.sleep(0.3)  # (both being read)
        answer = refused("127.0.0.1")
        assert answer.startswith(b"HTTP/1.1 429 "), answer[:100]
        assert b"already sending 2 requests" in answer
        held += [sending(f"127.0.0.{n}") for n in (2, 2, 3, 3, 4, 4)]
        time.sleep(0.3)
        answer = refused("127.0.0.5")
        assert answer.startswith(b"HTTP/1.1 503 "), answer[:100]
        for sock in held:
            sock.close()
        time.sleep(0.3)  # (their reads end as they leave)
        assert server.server is not None and server.server.admission.reading == {}
        body = json.dumps({"source": "paper"}).encode()
        assert http(server.base, "/api/sessions", body)[0] == 201


def test_a_store_that_cannot_write_and_a_fault_are_told_as_json(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        assert server.server is not None
        store = server.server.rooms.store

        async def refuses(*args: object, **kwargs: object) -> None:
            raise StoreError("the disk is full")

        async def fails(*args: object, **kwargs: object) -> None:
            raise RuntimeError("a bug")

        store.create = refuses  # type: ignore[method-assign]
        body = json.dumps({"source": "paper"}).encode()
        status, answer = http(server.base, "/api/sessions", body)
        problem = json.loads(answer)["problems"][0]["text"]
        assert status == 503 and "the disk is full" in problem and "try again" in problem
        server.server.rooms.create = fails  # type: ignore[method-assign]
        status, answer = http(server.base, "/api/sessions", body)
        assert status == 500 and "Traceback" not in answer.decode()
        assert "nothing was changed" in json.loads(answer)["problems"][0]["text"]


def short_round(tmp_path: Path) -> Path:
    """The round table's scenario with an evening of one turn each: it ends by its rules
    (no events left) after three answers."""
    folder = tmp_path / "short"
    shutil.copytree(EXAMPLES / "round", folder)
    scenario = folder / "scenario.lore"
    text = scenario.read_text(encoding="utf-8")
    assert "last = 60[sec];" in text
    scenario.write_text(text.replace("last = 60[sec];", "last = 0[sec];"), encoding="utf-8")
    return folder


def status_of(base: str, session: str, token: str | None) -> tuple[int, dict[str, Any]]:
    headers = {} if token is None else {"authorization": f"Bearer {token}"}
    status, body = http(base, f"/api/status?session={session}", headers=headers)
    found: dict[str, Any] = json.loads(body)
    return status, found


def stored_sessions(folder: Path, status: str) -> list[str]:
    async def read() -> list[str]:
        store = SQLiteStore(folder / "sessions.db")
        try:
            return [record.id for record in await store.sessions(status)]
        finally:
            await store.close()

    return asyncio.run(read())


def test_the_gm_alone_is_told_a_sessions_state_and_links(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        created = server.create()
        session, seats = created["session"], links(created, server.base)
        gm, player = (seats[seat].split("#")[1] for seat in ("GM", PLAYER))
        status, found = status_of(server.base, session, gm)
        assert status == 200
        assert (found["session"], found["state"], found["paused"]) == (session, "open", False)
        assert found["title"] == created["title"]
        assert [(s["seat"], server.base + s["link"]) for s in found["seats"]] == list(seats.items())
        # Nobody else is told anything of it: not a player, not a stranger.
        for token in (player, "not-a-token", None):
            status, found = status_of(server.base, session, token)
            assert status == 403 and "session" not in found and "seats" not in found
        client = SeatClient(seats["GM"])
        client.connect()
        client.request({"type": "pause"})
        assert status_of(server.base, session, gm)[1]["paused"] is True
        client.request({"type": "end"})
        assert status_of(server.base, session, gm)[1]["state"] == "ended"
        assert server.server is not None and server.server.rooms.open_count() == 0
    assert stored_sessions(tmp_path, ENDED) == [session]


def test_a_session_its_rules_end_is_ended_in_the_store_and_its_links_still_open_it(
    tmp_path: Path,
) -> None:
    examples = [short_round(tmp_path)]
    with ServerThread(tmp_path, examples) as server:
        created = server.create("short")
        session, seats = created["session"], links(created, server.base)
        gm = SeatClient(seats["GM"])  # (the GM answers for every player)
        gm.connect()
        deadline = time.monotonic() + 60
        while gm.state.status.get("ended") is None:
            assert time.monotonic() < deadline, "the session did not end"
            gm.pump(0.01)
            for query_id in list(gm.state.questions):
                assert acknowledged(gm.answer(query_id, {"move": "roll"})) is not None
        assert gm.state.status["ended"] == "no-events"
        assert server.server is not None and server.server.rooms.open_count() == 0
        assert stored_sessions(tmp_path, "open") == []
        assert stored_sessions(tmp_path, ENDED) == [session]
        gm.close()
    with ServerThread(tmp_path, examples) as server:
        assert server.server is not None and server.server.rooms.by_id == {}  # not open
        token = seats["GM"].split("#")[1]
        status, found = status_of(server.base, session, token)
        assert status == 200 and found["state"] == "ended" and len(found["seats"]) == 4
        # Its GM link still opens it, ended: the GM can still read how it went.
        again = SeatClient(server.base + seats["GM"].removeprefix(seats["GM"].split("/play")[0]))
        again.connect()
        again.pump()
        assert again.state.status["ended"] == "no-events"
        assert server.server.rooms.open_count() == 0
        records = again.request({"type": "log"})["records"]
        assert records[-1]["kind"] == "end"
        again.close()


def test_a_session_its_rules_end_at_once_is_never_open(tmp_path: Path) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "hello.lore"]) as server:
        created = server.create("hello")
        assert server.server is not None and server.server.rooms.open_count() == 0
        assert stored_sessions(tmp_path, ENDED) == [created["session"]]
