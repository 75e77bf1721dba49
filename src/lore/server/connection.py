"""One client's connection: its outbox, and the limits on what it may send.

Frames for a client wait in its outbox and are written by a task of their own, so a slow
client never holds up the session or the other clients; a client whose outbox overflows
is disconnected (it reconnects and catches up). A frame for a client with nothing waiting
is written at once, when the socket takes it without waiting (most often): the task is
woken only for what has to wait. A client may send so many messages per
second (a token bucket); past it, messages are refused with ``rate_limited``, and a
client that goes on regardless is disconnected.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

OUTBOX = 2000  # frames waiting for one client
CLOSE_POLICY = 1008  # WebSocket close code: a policy was violated
CLOSE_REVOKED = 4003  # the seat's link was revoked
CLOSE_OVERFLOW = 4008  # the client did not keep up


@dataclass(frozen=True)
class Limits:
    rate: float = 30.0  # messages per second, on average
    burst: float = 60.0  # messages at once
    refusals: int = 200  # refused messages in a row before the client is disconnected


class Bucket:
    """A token bucket: ``take`` is False when the client is over its rate."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


Send = Callable[[str], Coroutine[Any, Any, None]]
Close = Callable[[int], Awaitable[None]]


class Unfinished:
    """A send begun by ``Connection.write_now`` that waits (for the socket to drain)."""

    def __init__(self, sending: Coroutine[Any, Any, None], waits_for: Any) -> None:
        self.sending = sending
        self.waits_for = waits_for

    async def finish(self) -> None:
        sending, waits_for = self.sending, self.waits_for
        while True:
            try:
                if waits_for is None:
                    await asyncio.sleep(0)  # a bare yield: it waits a turn of the loop
                else:  # a future, yielded as a task would have been given it
                    waits_for._asyncio_future_blocking = False
                    await waits_for
            except Exception:  # the send sees what it waited for go wrong, and says so
                pass
            try:
                waits_for = sending.send(None)
            except StopIteration:
                return


class Connection:
    def __init__(self, send: Send, close: Close, limits: Limits) -> None:
        self._send = send
        self._close = close
        self.limits = limits
        self.bucket = Bucket(limits.rate, limits.burst)
        self.refused = 0
        self.outbox: deque[bytes | int | Unfinished] = deque()
        self.waiting: asyncio.Future[None] | None = None  # the pump's, while the outbox is empty
        self.session = ""
        self.seat = ""
        self.closed = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self.pump())

    def send(self, frame: bytes) -> None:
        if self.closed:
            return
        if not self.outbox and self.waiting is not None:  # the pump waits for frames
            self.write_now(frame)
            return
        if len(self.outbox) >= OUTBOX:
            self.close(CLOSE_OVERFLOW)
            return
        self.put(frame)

    def write_now(self, frame: bytes) -> None:
        """Write a frame without waking the pump: the send runs here, to its end when the
        socket takes the frame (no await in it has to wait); else the pump finishes it
        before anything else is written."""
        sending = self._send(frame.decode("utf-8"))
        try:
            waits_for = sending.send(None)
        except StopIteration:
            return
        except Exception:  # the socket is gone: the reader notices and cleans up
            self.closed = True
            return
        self.put(Unfinished(sending, waits_for))

    def close(self, code: int = 1000) -> None:
        """Close after the frames already queued are sent."""
        if not self.closed:
            self.closed = True
            self.put(code)

    def put(self, item: bytes | int | Unfinished) -> None:
        self.outbox.append(item)
        waiting = self.waiting
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    async def pump(self) -> None:
        outbox = self.outbox
        try:
            while True:
                while outbox:  # everything queued goes out in one wake-up
                    item = outbox.popleft()
                    if isinstance(item, int):
                        await self._close(item)
                        return
                    if isinstance(item, Unfinished):
                        await item.finish()
                        continue
                    await self._send(item.decode("utf-8"))
                self.waiting = asyncio.get_running_loop().create_future()
                await self.waiting
                self.waiting = None
        except Exception:  # the socket is gone: the reader notices and cleans up
            self.closed = True

    async def stop(self) -> None:
        self.closed = True
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    def allow(self) -> bool:
        """Whether the client may send this message now (its rate)."""
        if self.bucket.take():
            self.refused = 0
            return True
        self.refused += 1
        if self.refused > self.limits.refusals:
            self.close(CLOSE_POLICY)
        return False
