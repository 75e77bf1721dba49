"""One client's connection as the hub sees it: its seat, how frames reach it, and the
limits on what it may send.

Sending a frame never waits: the socket (``websocket.py``) writes it at once, or keeps it
in the client's backlog while the client does not keep up, so a slow client never holds
up the session or the other clients; a client whose backlog overflows (``OUTBOX``
frames, or ``Limits.backlog_bytes``), or whose session's clients together keep more than
``Limits.session_bytes`` waiting, is disconnected (it reconnects and catches up). A
client may send so many messages per second (a token bucket); past it, messages are
refused with ``rate_limited``, and a client that goes on regardless is disconnected.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

OUTBOX = 2000  # frames waiting for one client
CLOSE_POLICY = 1008  # WebSocket close code: a policy was violated
CLOSE_ERROR = 1011  # a fault of the server
CLOSE_REVOKED = 4003  # the seat's link was revoked
CLOSE_ELSEWHERE = 4004  # the session is another worker's: connect naming it
CLOSE_OVERFLOW = 4008  # the client did not keep up


@dataclass(frozen=True)
class Limits:
    rate: float = 30.0  # messages per second, on average
    burst: float = 60.0  # messages at once
    refusals: int = 200  # refused messages in a row before the client is disconnected
    request_wait: float = 10.0  # seconds from opening to a request's headers (``deadlines``)
    backlog_bytes: int = 8 * 1024 * 1024  # bytes waiting for one client that does not read
    session_bytes: int = 32 * 1024 * 1024  # bytes waiting for all of a session's clients


class Bucket:
    """A token bucket: ``take`` is False when the client is over its rate."""

    __slots__ = ("burst", "last", "rate", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        tokens = self.tokens + (now - self.last) * self.rate
        self.last = now
        if tokens >= 1:
            self.tokens = min(self.burst, tokens) - 1
            return True
        self.tokens = tokens
        return False


class Settling(Protocol):
    """A message of the client's still being handled after its turn (an answer whose
    entry the store has yet to make durable): its next message waits for it."""

    def settled(self) -> Awaitable[None]: ...


Write = Callable[[bytes], None]
End = Callable[[int], None]


class Connection:
    """A client: ``send`` gives it a frame, ``close`` ends it after the frames sent
    before (``write`` and ``end`` are its socket's, called while it is open)."""

    __slots__ = (
        "_end",
        "_write",
        "bucket",
        "closed",
        "committing",
        "limits",
        "refused",
        "seat",
        "session",
    )

    def __init__(self, write: Write, end: End, limits: Limits) -> None:
        self._write = write
        self._end = end
        self.limits = limits
        self.bucket = Bucket(limits.rate, limits.burst)
        self.refused = 0
        self.session = ""
        self.seat = ""
        self.closed = False
        self.committing: Settling | None = None

    def send(self, frame: bytes) -> None:
        if not self.closed:
            self._write(frame)

    def close(self, code: int = 1000) -> None:
        """Close after the frames already sent."""
        if not self.closed:
            self.closed = True
            self._end(code)

    def allow(self) -> bool:
        """Whether the client may send this message now (its rate)."""
        if self.bucket.take():
            self.refused = 0
            return True
        self.refused += 1
        if self.refused > self.limits.refusals:
            self.close(CLOSE_POLICY)
        return False
