"""Writes and WebSockets from a page of another site are refused (the ``Origin`` a browser
sends must name the host asked); programs that send no ``Origin`` are let through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from lore.server.origins import same_origin
from tests.server.serving import ServerThread, http, links


@pytest.mark.parametrize(
    ("origin", "host", "allowed"),
    [
        (None, "127.0.0.1:8000", True),
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("http://LOCALHOST:8000", "localhost:8000", True),
        ("http://example.org", "example.org:80", True),
        ("https://example.org", "example.org", True),
        ("http://[::1]:8000", "[::1]:8000", True),
        ("http://[::1]", "[::1]:80", True),
        ("http://evil.example:8000", "127.0.0.1:8000", False),
        ("http://127.0.0.1:9000", "127.0.0.1:8000", False),
        ("https://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("https://example.org", "example.org:80", False),
        ("null", "127.0.0.1:8000", False),
        ("file://", "127.0.0.1:8000", False),
        ("http://127.0.0.1:8000", None, False),
        ("http://[::1", "127.0.0.1:8000", False),
    ],
)
def test_an_origin_must_name_the_host_asked(
    origin: str | None, host: str | None, allowed: bool
) -> None:
    assert same_origin(origin, host) is allowed


def test_a_page_of_another_site_cannot_start_a_session_or_connect(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        body = json.dumps({"source": "paper"}).encode()
        evil = {"origin": "http://evil.example"}
        status, answer = http(server.base, "/api/sessions", body, headers=evil)
        assert status == 403 and b"another site" in answer
        # a form's no-cors post: text/plain, from another origin
        status, _ = http(server.base, "/api/sessions", body, "text/plain", headers=evil)
        assert status == 403
        assert server.server is not None and server.server.rooms.by_id == {}
        own = {"origin": server.base}
        seats = links(
            json.loads(http(server.base, "/api/sessions", body, headers=own)[1]), server.base
        )
        url = f"ws://127.0.0.1:{server.port}/ws"
        with pytest.raises(InvalidStatus) as refused:
            connect(url, origin="http://evil.example", legacy=True)
        assert refused.value.response.status_code == 403
        token = seats["GM"].split("#", 1)[1]
        for origin in (server.base, None):  # its own pages, and a program
            socket = connect(url, origin=origin, legacy=True)
            socket.send(json.dumps({"type": "hello", "token": token}))
            assert json.loads(socket.recv(timeout=10))["type"] == "welcome"
            socket.close()
