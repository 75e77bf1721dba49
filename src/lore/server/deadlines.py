"""Connections that never say what they want are closed: uvicorn's HTTP protocol waits for
a request's headers for as long as a client keeps its connection open, so a silent
connection, or one sending its headers a byte at a time (slowloris), held a socket and its
buffers for ever. ``Deadlined`` gives each connection ``Limits.request_wait`` seconds
(10) from its opening to the end of its first request's headers; past that it is closed
and counted (``Server.late``). Once a request is under way uvicorn's own timers hold (its
keep-alive between requests); a WebSocket's hello has its own deadline (``websocket.py``).
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class Late:
    """How many connections were closed for being late, kept where the server sees it."""

    def __init__(self) -> None:
        self.closed = 0


def deadlined(late: Late, wait: float) -> type[H11Protocol]:
    """uvicorn's HTTP protocol (its ``http`` setting) with the request's deadline."""

    class Deadlined(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.deadline = asyncio.get_running_loop().call_later(wait, self.too_late)

        def connection_lost(self, exc: Exception | None) -> None:
            self.deadline.cancel()
            super().connection_lost(exc)

        def too_late(self) -> None:
            transport = self.transport
            # (a request under way has its cycle; an upgraded WebSocket, its own protocol)
            if self.cycle is not None or transport.is_closing():
                return
            if transport.get_protocol() is not self:
                return
            late.closed += 1
            transport.close()

        def send_400_response(self, msg: str) -> None:
            # A body h11 cannot read (a bad chunk) while the app runs: the app's response
            # would follow this 400 on a connection h11 has closed (a LocalProtocolError:
            # a traceback in the log). For the app the client has left.
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                cycle.disconnected = True
                cycle.message_event.set()
                if cycle.response_started:  # (too late for a 400)
                    self.transport.close()
                    return
            try:
                super().send_400_response(msg)
            except h11.LocalProtocolError:  # (a 400 with a body, to a HEAD request)
                self.transport.close()

    return Deadlined
