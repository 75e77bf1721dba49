"""Connections that say nothing, or send their request's headers too slowly, are closed
at the request's deadline and counted; a request in time is served as before."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from lore.server.connection import Limits
from tests.server.serving import ServerThread, http

WAIT = 0.5


def closed_after(connection: socket.socket, trickle: bytes = b"") -> float:
    """Seconds until the server closes ``connection``, sending ``trickle`` a byte at a
    time meanwhile (at most 10 s)."""
    start = time.monotonic()
    connection.settimeout(0.05)
    sent = 0
    while time.monotonic() - start < 10:
        if sent < len(trickle):
            try:
                connection.send(trickle[sent : sent + 1])
            except OSError:
                break
            sent += 1
        try:
            if connection.recv(1024) == b"":
                break
        except TimeoutError:
            continue
        except OSError:
            break
    return time.monotonic() - start


def test_silent_and_slow_connections_are_closed_at_the_deadline(tmp_path: Path) -> None:
    with ServerThread(tmp_path, limits=Limits(request_wait=WAIT)) as server:
        assert server.server is not None
        silent = socket.create_connection(("127.0.0.1", server.port))
        assert closed_after(silent) < WAIT + 2
        slow = socket.create_connection(("127.0.0.1", server.port))
        headers = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"y" * 400 + b"\r\n\r\n"
        assert closed_after(slow, headers) < WAIT + 2
        silent.close()
        slow.close()
        assert server.server.late.closed == 2
        time.sleep(WAIT)  # a request in time is served; the counter does not move
        status, _ = http(server.base, "/api/sources")
        assert status == 200 and server.server.late.closed == 2
