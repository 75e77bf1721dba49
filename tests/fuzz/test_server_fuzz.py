"""The server campaign with a small budget (well under a minute), and its own parts: that
it tells a traceback, a 500, a stalled canary, memory past its bound and a dead server
(from a server with deliberate faults, ``server_child --faulty``), and keeps each failure
once with what sends it again. ``scripts/fuzz --server --minutes 60`` runs it longer."""

from __future__ import annotations

import contextlib
import json
import random
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fuzz.server_campaign import ServerTally, campaign, save
from tests.fuzz.server_cases import Frame, Probe, ProbeMaker
from tests.fuzz.server_harness import Bounds, Failure, Reader, Reply, Target, encode


def get(path: str) -> Probe:
    raw = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    return Probe(f"http: GET {path}", "http", raw=raw.encode())


@pytest.fixture(scope="module")
def faulty() -> Iterator[Target]:
    with Target(Bounds(canary=1.0), faulty=True) as target:
        yield target


# ---------------------------------------------------------------- telling failures


def test_a_clean_probe_is_judged_clean(faulty: Target) -> None:
    reply = faulty.send(get("/api/sources"))
    assert reply.status == 200
    assert faulty.judge(reply) == []
    chat = Frame(json.dumps({"type": "chat", "text": "やあ", "ref": 3}).encode())
    reply = faulty.send(Probe("a chat line", "message", "player", True, (chat,)))
    assert reply.how == "answered" and reply.codes == ()
    assert faulty.judge(reply) == []


def test_a_traceback_and_a_500_are_failures(faulty: Target) -> None:
    reply = faulty.send(get("/fuzz/raise"))
    found = {f.kind: f for f in faulty.judge(reply)}
    assert sorted(found) == ["500", "traceback"]
    assert found["traceback"].signature == "KeyError"
    assert "a deliberate fault" in found["traceback"].detail
    assert faulty.judge(Reply("answered")) == []  # (the log is read once)


def test_a_stalled_canary_is_a_failure(faulty: Target) -> None:
    faulty.judge(Reply("answered"))
    reply = faulty.send(get("/fuzz/stall"))  # the event loop held for 2 s
    kinds = [f.kind for f in faulty.judge(reply)]
    assert kinds == ["canary"], kinds


def test_memory_past_its_bound_and_a_dead_server_are_failures(faulty: Target) -> None:
    faulty.judge(Reply("answered"))
    faulty.bounds = Bounds(canary=10.0, memory=faulty.rss() + 100 * 1024 * 1024)
    assert faulty.judge(faulty.send(get("/api/sources"))) == []
    found = faulty.judge(faulty.send(get("/fuzz/eat")))  # 200 MB kept
    assert [f.kind for f in found] == ["memory"], found
    assert faulty.process is not None
    faulty.process.kill()
    faulty.process.wait(10)
    assert "died" in [f.kind for f in faulty.judge(Reply("eof"))]
    faulty.bounds = Bounds(canary=1.0)
    faulty.restart()  # (what the campaign does after these)
    assert faulty.judge(faulty.send(get("/api/sources"))) == []


# ---------------------------------------------------------------- its parts


def test_probes_are_saved_and_read_back_whole(tmp_path: Path) -> None:
    maker = ProbeMaker(random.Random(5))
    probes = [maker.probe() for _ in range(200)]
    assert {p.kind for p in probes} == {"message", "frame", "http", "upload"}
    for probe in probes:
        assert Probe.from_json(probe.to_json()) == probe
    failure = Failure("traceback", "KeyError", "Traceback ...")
    folder = save(probes[0], failure, "key", tmp_path)
    assert Probe.from_json((folder / "probe.json").read_text(encoding="utf-8")) == probes[0]
    assert "scripts/fuzz --server --replay" in (folder / "README.txt").read_text("utf-8")


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536])
def test_frames_are_encoded_as_a_client_sends_them(size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    data = encode(Frame(payload, opcode=2, masked=False))

    class Socket:
        def recv(self, size: int) -> bytes:
            raise AssertionError("all is there")

    reader = Reader(Socket())  # type: ignore[arg-type]
    reader.data = data
    assert reader.frame() == (2, payload)
    masked = encode(Frame(payload))
    assert len(masked) == len(data) + 4 and masked[1] & 0x80
    declared = encode(Frame(b"x", length=2**63 - 1))
    assert declared[1] == 0x80 | 127 and declared[2:10] == (2**63 - 1).to_bytes(8, "big")


def test_a_traceback_is_kept_once_and_each_stalled_probe_apart(tmp_path: Path) -> None:
    reports: list[str] = []
    tally = ServerTally(report=reports.append, out=tmp_path)
    probes = [get(f"/p{n}") for n in range(3)]
    trace = Failure("traceback", "KeyError at lore/server/hub.py:receive", "Traceback")
    stalled = Failure("canary", "canary stalled", "a canary ping waited 3 s")
    for probe in probes:
        tally.record(probe, Reply("HTTP 200", 200), [trace, stalled])
    assert dict(tally.signatures) == {
        "http: traceback: KeyError at lore/server/hub.py:receive": 3,
        "http: canary: canary stalled": 3,
    }
    assert len(tally.failures) == 4 and len(reports) == 4
    assert len(list(tmp_path.iterdir())) == 4


# ---------------------------------------------------------------- the campaign, small


def test_the_server_campaign_finds_nothing(tmp_path: Path) -> None:
    reports: list[str] = []
    tally = ServerTally(report=reports.append, out=tmp_path)
    campaign(0.5, 2026, tally, Bounds(canary=2.0), count=500)
    assert sum(tally.probes.values()) >= 100, tally.summary()
    assert set(tally.probes) == {"message", "frame", "http", "upload"}, tally.summary()
    assert tally.failures == {}, "\n".join(reports)


# ---------------------------------------------------------------- fixed cases


def sent_in_two(target: Target, head: bytes, rest: bytes) -> bytes:
    """What the server answers within a second to a request sent in two writes, a moment
    apart, before the client leaves (``rest`` empty: right after ``head``)."""
    data = b""
    with socket.create_connection(("127.0.0.1", target.port), timeout=1) as sock:
        sock.sendall(head)
        time.sleep(0.2)
        if not rest:
            return b""
        with contextlib.suppress(OSError):
            sock.sendall(rest)
            while chunk := sock.recv(65536):
                data += chunk
    return data


def test_a_body_that_cannot_be_read_or_is_left_unfinished_logs_no_traceback() -> None:
    # The campaign's: a chunked body that is not chunks, sent with its headers, to a path
    # whose app answered at once (405): the app's answer came after uvicorn's 400, on a
    # connection h11 had closed (LocalProtocolError, most times); and to /api/sessions,
    # whose body was being read: Starlette's ClientDisconnect; as for a client that left
    # in the middle of its upload.
    chunked = "HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
    with Target() as target:
        for _ in range(2):
            # (a chunk's size line longer than h11 reads: refused at once)
            raw = f"DELETE /static/x {chunked}Connection: close\r\n\r\n" + "x" * 70_000
            assert target.http(raw.encode(), 10)[0] in (400, 405)  # (whichever came first)
            # (and to a HEAD request: uvicorn's 400 has a body, which h11 refused to send)
            raw = f"HEAD /x {chunked}Connection: close\r\n\r\n--x\r\nname=a\r\n\r\n"
            target.http(raw.encode(), 10)
            for kind in ("application/zip", "application/json"):
                head = f"POST /api/sessions {chunked}Content-Type: {kind}\r\n\r\n".encode()
                sent_in_two(target, head, b"x" * 300)
                left = f"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {kind}"
                sent_in_two(target, f"{left}\r\nContent-Length: 1000\r\n\r\nPK".encode(), b"")
        time.sleep(0.5)
        assert target.judge(Reply("answered")) == []


def test_a_card_answer_and_a_back_in_blackpoker_are_judged_clean() -> None:
    # The BlackPoker victim: option ids that name cards as the seat sees them; the player's
    # answer from its own question is taken (no error code), and "back" after it is refused
    # or taken, but never a traceback.
    with Target() as target:
        target.victim = target.create("blackpoker")
        qid, _, answer = target.asked()
        assert qid != "0/0/0" and answer, (qid, answer)
        sent = {"type": "answer", "id": "@Q@", "values": "@VALUES@", "seq": "@SEQ@", "ref": 17}
        frames = (Frame(json.dumps(sent).encode()),)
        reply = target.send(Probe("a card answer", "message", "player", True, frames))
        assert reply.how == "answered" and reply.codes == (), reply
        back = Frame(json.dumps({"type": "back", "id": "@Q@", "ref": 16}).encode())
        reply = target.send(Probe("back", "message", "player", True, (back,)))
        assert reply.how == "answered", reply
        assert target.judge(reply) == []
