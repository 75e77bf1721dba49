"""The issue's attacks on one server, one after another, as a stranger would try them: after
each, the server's resident memory stays under its bound (300 MB), the canary session's
pings are answered within theirs, and the log holds no traceback. Each attack's refusal is
checked too; their details are the subject of the tests beside the parts they attack."""

from __future__ import annotations

import contextlib
import json
import socket
import time
import urllib.parse
from collections.abc import Callable, Iterator

import pytest
from websockets.sync.client import connect

from tests.fuzz.server_cases import Frame
from tests.fuzz.server_harness import RATE, TRACEBACK, Bounds, Seats, Target, encode, handshake
from tests.server.test_checking import zipped

MB = 2**20
BOUNDS = Bounds(canary=1.0)  # (the 200 ms is the quiet machine's; the figure prints)
BIG = "あ" * 3_000  # 9,000 bytes of UTF-8 a message

# A bundle whose first step tells the GM a thousand messages of 9 KB (9 MB in all).
FLOOD = f"""docinfo {{encoding = "UTF-8", version = "http://xgmtk.org/lore/1.0":url}}
import "basic.lore":url;

section flood {{
    start = {{
        ticks = 0;
        priority = 0;
        handler = @{{
            for (i in 1,...,1000) {{
                GM.message("{BIG}");
            }}
        }};
    }}:Event;
}}
"""


def post(target: Target, kind: str, body: bytes, length: int | None = None) -> tuple[int, bytes]:
    head = (
        f"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        f"Content-Type: {kind}\r\nContent-Length: {len(body) if length is None else length}"
        "\r\n\r\n"
    ).encode()
    return target.http(head + body, 60)


def seats_of(body: bytes) -> Seats:
    made = json.loads(body)
    tokens: dict[str, str] = {}
    for seat in made["seats"]:
        tokens.setdefault(
            "GM" if seat["seat"] == "GM" else "player", urllib.parse.urlsplit(seat["link"]).fragment
        )
    tokens.setdefault("player", tokens["GM"])
    return Seats(made["session"], tokens)


def said(target: Target, session: str, token: str, *messages: dict[str, object]) -> socket.socket:
    """A raw WebSocket of ``token`` that sends hello and ``messages``, and never reads."""
    sock = socket.create_connection(("127.0.0.1", target.port), timeout=10)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    frames = [{"type": "hello", "token": token, "seq": None}, *messages]
    data = handshake(session, target.port)
    data += b"".join(encode(Frame(json.dumps(m).encode())) for m in frames)
    sock.sendall(data)
    return sock


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    with Target(BOUNDS) as found:
        yield found


def a_json_body_of_200_mb(target: Target) -> None:
    """Issue 1: 200 MB of JSON declared, and sent until the server stops reading: refused
    at its limit, with a short answer."""
    head = (
        "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {200 * MB}\r\n\r\n"
    ).encode()
    answer = b""
    with socket.create_connection(("127.0.0.1", target.port), timeout=10) as sock:
        sock.sendall(head + b"[" * 65536)
        while b"\r\n\r\n" not in answer and (chunk := sock.recv(65536)):
            answer += chunk
        with contextlib.suppress(OSError):  # (the server closes on the rest)
            for _ in range(200 * 16):
                sock.sendall(b"[" * 65536)
    status_line = answer.split(b"\r\n", 1)[0]
    assert status_line.startswith(b"HTTP/1.1 413") and len(answer) < 4096, answer[:300]


def a_costly_upload(target: Target) -> None:
    """Issue 3 and 13: a 4 MB ``.lore`` in a small zip, checked in a child process."""
    lines = "".join(f"    v{i} = {i} + {i} * 2;\n" for i in range(160_000))
    source = f"section scenario {{\n{lines}}}\n"
    status, body = post(target, "application/zip", zipped({"scenario.lore": source.encode()}))
    assert status in (413, 422), (status, body[:300])


def a_flood_read_by_no_one(target: Target) -> None:
    """Issue 2: a session telling its GM 9 MB, then 100 GM connections asking for the log
    and never reading, then 100 more that never read."""
    status, body = post(target, "application/zip", zipped({"scenario.lore": FLOOD.encode()}))
    assert status == 201, body[:500]
    seats = seats_of(body)
    sockets = [
        said(target, seats.session, seats.tokens["GM"], {"type": "log", "ref": n})
        for n in range(100)
    ]
    sockets += [said(target, seats.session, seats.tokens["GM"]) for _ in range(100)]
    time.sleep(3)
    for sock in sockets:
        sock.close()


def three_hundred_seats(target: Target) -> None:
    """Issue 10: the GM adds 60 seats, as fast as the rate limit lets it: those past the
    cap (32 seats, the GM's among them) are refused."""
    assert target.victim is not None
    victim = target.victim
    refused = 0
    with connect(target.ws_url(victim.session), open_timeout=10, max_size=None) as ws:
        ws.send(json.dumps({"type": "hello", "token": victim.tokens["GM"]}))
        for n in range(1, 61):
            ws.send(json.dumps({"type": "add_seat", "label": f"席{n}", "ref": n}))
            time.sleep(1.5 / RATE)
        deadline = time.monotonic() + 30
        while refused < 60 - 30 and time.monotonic() < deadline:
            frame = json.loads(ws.recv(timeout=30))
            refused += frame.get("type") == "error" and frame.get("code") == "bad_command"
    assert refused >= 60 - 30
    target.renew_victim()


def two_thousand_silent_connections(target: Target) -> None:
    """Issue 5: connections that send nothing, and requests whose headers never end."""
    sockets = []
    for n in range(2_000):
        sock = socket.create_connection(("127.0.0.1", target.port), timeout=10)
        if n % 2:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        sockets.append(sock)
    time.sleep(12)  # past the handshake's and the request line's deadlines
    closed = 0
    for sock in sockets:
        sock.settimeout(0.5)
        try:
            closed += sock.recv(1) == b""
        except OSError:
            closed += 1
        sock.close()
    assert closed == len(sockets)


ATTACKS: list[Callable[[Target], None]] = [
    a_json_body_of_200_mb,
    a_costly_upload,
    a_flood_read_by_no_one,
    three_hundred_seats,
    two_thousand_silent_connections,
]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.__name__ for a in ATTACKS])
def test_the_server_holds_through_every_attack(
    target: Target, attack: Callable[[Target], None]
) -> None:
    since = time.monotonic()
    attack(target)
    assert target.canary is not None
    time.sleep(0.5)  # (a ping answered after the attack)
    worst = target.canary.worst_since(since)
    rss = target.rss()
    print(
        f"{attack.__name__}: resident {rss / MB:.0f} MB, canary's worst ping {worst * 1000:.0f} ms"
    )
    assert target.process is not None and target.process.poll() is None, "the server died"
    assert 0 < rss < BOUNDS.memory, f"resident memory {rss / MB:.0f} MB"
    assert worst < BOUNDS.canary, f"the canary waited {worst:.2f} s"
    assert TRACEBACK not in target.log_text()
