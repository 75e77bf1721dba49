"""The HTTP side: sessions started from examples and uploads (checked first: nothing is
made of a bundle with errors), the GM's save, which starts a new session where the old one
stopped, and a restarted server that goes on with its sessions."""

from __future__ import annotations

import io
import json
import zipfile
from http.client import HTTPConnection
from pathlib import Path

from lore.clients.seat import SeatClient, acknowledged
from tests.server.serving import PAPER, PLAYER, ServerThread, http, links


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


def test_a_body_over_its_limit_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        huge = json.dumps({"source": "x" * 1_000_000}).encode()
        status, body = http(server.base, "/api/sessions", huge)
        assert status == 413 and len(body) < 500, body[:200]
        assert "larger than 4096 bytes" in json.loads(body)["problems"][0]["text"]
        # no length said: read in chunks, and refused once past the limit
        connection = HTTPConnection("127.0.0.1", server.port, timeout=10)
        chunks = (b"[" + b"1," * 1000 for _ in range(10_000))  # 20 MB, never all sent
        headers = {"content-type": "application/json"}
        connection.request("POST", "/api/sessions", chunks, headers, encode_chunked=True)
        response = connection.getresponse()
        assert response.status == 413 and len(response.read()) < 500
        connection.close()
        # a name within the limit but long is not echoed whole
        status, body = http(
            server.base, "/api/sessions", json.dumps({"source": "y" * 3000}).encode()
        )
        assert status == 422 and len(body) < 500
        status, body = http(server.base, "/api/sessions", b'{"source": 5}')
        assert status == 422 and "/api/sources" in body.decode()
        assert server.server is not None and server.server.rooms.by_id == {}
