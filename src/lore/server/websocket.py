"""The WebSocket at ``/ws``: Lore's own protocol on uvicorn's connection.

uvicorn hands a connection that asks to be upgraded to a WebSocket to the protocol class
it is configured with (``ws=``); this one is Lore's. The ``websockets`` library's sans-I/O
protocol does the handshake, reads control frames and fragments and answers pings and
closes; a whole text or binary frame is read here (``read_frames``). What a client
sends goes to the hub one message after another: at once as it is read while nothing of
the client's is under way (an answer then wakes no task: the hub finishes it when the
store has it), else from a task of the connection's own, which also awaits what the hub
cannot do at once. What the server sends is written to the socket as it is made: one
``write`` of the frame's few header bytes and the frame, without a coroutine, a queue or
an ASGI message per frame. (Served through ASGI instead, each message in and out went
through an ASGI message, a queue, two coroutines and a pause and resume of the socket's
reading: about a fifth of the server's work per answer in ``benchmarks/server.py``.)

Frames written while the socket does not keep up (its buffer is full) wait in the
connection's backlog; a client whose backlog overflows is disconnected (it reconnects and
catches up). The backlog is counted in frames and in bytes, and so is what all of a
session's clients keep waiting together (their backlogs and the socket buffers they
filled): a session whose rules send much cannot make the server hold it many times over
for clients that do not read. A client that does not answer a close in time is cut off,
what it did not read dropped.

Keepalive: every ``PING_EVERY`` seconds, a client not heard from since the time before
is pinged, and one that still said nothing by the next time is disconnected (so a client
that vanished is shown offline within ``3 * PING_EVERY`` seconds); a client that sends is
not pinged at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections import deque
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, cast

from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

try:
    from websockets.speedups import apply_mask
except ImportError:  # (a build of websockets without its C extension)
    from websockets.utils import apply_mask

from lore.server.connection import CLOSE_ERROR, CLOSE_OVERFLOW, OUTBOX, Connection
from lore.server.origins import same_origin

if TYPE_CHECKING:
    from lore.server.app import Server

PATH = "/ws"
MAX_FRAME = 1024 * 1024  # bytes of one message (larger: the connection is closed, 1009)
HELLO_WAIT = 10.0  # seconds a client has to say hello
PING_EVERY = 3.0  # seconds between keepalive rounds
CLOSE_WAIT = 5.0  # seconds a client has to answer a close before the socket is closed
INBOX = 32  # messages read and not handled yet, before the socket stops reading
CLOSE_GOING_AWAY = 1001
CLOSE_RESTART = 1012
log = logging.getLogger("lore.server")


def header(size: int) -> bytes:
    """The header of a server's (unmasked) text frame of ``size`` bytes (RFC 6455, 5.2)."""
    if size < 126:
        return SHORT_HEADERS[size]
    if size < 65536:
        return MEDIUM + size.to_bytes(2)
    return struct.pack("!BBQ", 0x81, 127, size)


SHORT_HEADERS = [bytes((0x81, size)) for size in range(126)]
MEDIUM = bytes((0x81, 126))  # (then the size in two bytes: most updates)


class Sockets:
    """The open WebSockets of a server, and their keepalive rounds."""

    def __init__(self, server: Server, ping_every: float = PING_EVERY) -> None:
        self.server = server
        self.ping_every = ping_every
        self.open: set[Socket] = set()
        self.timer: asyncio.TimerHandle | None = None
        # Bytes waiting for each session's clients that do not keep up (``Socket.waiting``).
        self.waiting: dict[str, int] = {}

    def wait(self, session: str, size: int) -> int:
        """Count ``size`` more bytes waiting for a client of ``session`` (less when
        negative); the session's total."""
        total = self.waiting.get(session, 0) + size
        if total > 0:
            self.waiting[session] = total
        else:
            self.waiting.pop(session, None)
        return total

    def add(self, socket: Socket) -> None:
        self.open.add(socket)
        if self.timer is None:
            self.timer = asyncio.get_running_loop().call_later(self.ping_every, self.keepalive)

    def remove(self, socket: Socket) -> None:
        self.open.discard(socket)
        if not self.open and self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def keepalive(self) -> None:
        for socket in list(self.open):
            socket.keepalive()
        self.timer = asyncio.get_running_loop().call_later(self.ping_every, self.keepalive)


def socket_protocol(server: Server, ping_every: float = PING_EVERY) -> type[Socket]:
    """The protocol class uvicorn makes for each WebSocket (its ``ws`` setting), bound
    to ``server``."""
    sockets = Sockets(server, ping_every)

    class Bound(Socket):
        def __init__(self, config: Any, server_state: Any, app_state: Any, **_: Any) -> None:
            super().__init__(sockets, server_state)

    return Bound


class Socket(asyncio.Protocol):
    """One client's WebSocket."""

    def __init__(self, sockets: Sockets, server_state: Any) -> None:
        self.sockets = sockets
        self.hub = sockets.server.hub  # (for every message: ``received``)
        self.server_state = server_state  # uvicorn's: its connections, closed at shutdown
        self.parser = ServerProtocol(max_size=MAX_FRAME, logger=log)
        self.transport: asyncio.Transport | None = None
        self.connection = Connection(self.write, self.end, sockets.server.limits)
        self.inbox: deque[bytes] = deque()
        self.parts: list[bytes] = []  # a fragmented message's frames so far
        # Past the handshake, frames are read here (``read_frames``): ``unread`` holds the
        # start of a frame not all come yet.
        self.fast = False
        self.unread = bytearray()
        self.waiting: asyncio.Future[None] | None = None  # the task's, while the inbox is empty
        self.joined = False  # the client said hello and was let in
        self.handling: Awaitable[object] | None = None  # for the task to await (``received``)
        self.task: asyncio.Task[None] | None = None
        self.paused = False  # the socket's buffer is full: frames wait in the backlog
        self.backlog: deque[bytes | int] = deque()  # frames, then maybe a close code
        self.backlog_bytes = 0  # bytes of the backlog's frames
        self.buffered = 0  # bytes in the socket's buffer when it filled (``pause_writing``)
        self.reading = True
        self.heard = True  # something came since the last keepalive round
        self.pinged = False
        self.lost = False
        self.timer: asyncio.TimerHandle | None = None  # the hello's or the close's

    # ------------------------------------------------------------ the transport's side

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is not a subclass)
        self.server_state.connections.add(self)

    def data_received(self, data: bytes) -> None:
        self.heard = True
        if self.fast:
            # The most of them: one whole masked text frame of fewer than 126 bytes (a
            # client's answer), alone and not within a fragmented message: taken here, as
            # ``read_frames`` would take it, without its loop.
            size = len(data)
            if (
                size > 5
                and size == data[1] - 0x7A  # (masked: 0x80 + the length; a 4-byte mask)
                and data[0] == 0x81
                and data[1] < 0xFE
                and not self.unread
                and self.parser.current_size is None
            ):
                self.received(apply_mask(data[6:], data[2:6]))
                return
            self.read_frames(data)
        else:
            opening = self.task is None
            self.parse(data)
            if opening and self.task is not None and not self.parser.reader.buffer:
                # The handshake is over, and nothing came after the request (a client
                # waits for the response before it sends: RFC 6455, 4.1), so the next
                # bytes start a frame. (A client that sends anyway reads on the parser.)
                self.fast = self.parser.state is State.OPEN and data.endswith(b"\r\n\r\n")

    def parse(self, data: bytes | bytearray) -> None:
        """Give bytes to the ``websockets`` parser, and act on what it read."""
        parser = self.parser
        parser.receive_data(data)
        for event in parser.events_received():
            if isinstance(event, Frame):
                opcode = event.opcode
                if opcode is Opcode.TEXT or opcode is Opcode.BINARY or opcode is Opcode.CONT:
                    self.message(event)
            elif isinstance(event, Request):
                self.handshake(event)
        self.flush()  # pongs, the reply to a close, a failure's close

    def read_frames(self, data: bytes | bytearray) -> None:
        """Read the frames of ``data``: a whole, unfragmented, masked text or binary
        frame is taken here, as the ``websockets`` parser would take it (the same checks,
        without its per-frame objects and generators); any other frame is given to the
        parser whole (control frames, fragments), so that it stays between frames. From
        a frame the parser must refuse on, or once the connection closes, the parser
        reads everything."""
        if self.unread:
            self.unread += data
            data, self.unread = self.unread, bytearray()
        parser = self.parser
        start, size = 0, len(data)
        while size - start >= 2:
            first, second = data[start], data[start + 1]
            length, at = second & 0x7F, start + 2
            if length == 126:
                at += 2
                length = int.from_bytes(data[start + 2 : at]) if size >= at else 0
            elif length == 127:
                at += 8
                length = int.from_bytes(data[start + 2 : at]) if size >= at else 0
            if not second & 0x80 or first & 0x70 or length > MAX_FRAME:
                break  # unmasked, reserved bits, too large: the parser refuses it
            end = at + 4 + length
            if size < end:
                self.keep(data, start)
                return
            opcode = first & 0x0F
            if first & 0x80 and (opcode == 1 or opcode == 2) and parser.current_size is None:
                self.received(apply_mask(data[at + 4 : end], data[at : at + 4]))
            else:
                self.parse(data[start:end])
                if parser.state is not State.OPEN:
                    break
            start = end
        else:
            self.keep(data, start)
            return
        self.fast = False
        self.parse(data[start:])

    def keep(self, data: bytes | bytearray, start: int) -> None:
        """Keep what is left of ``data`` from ``start`` (a frame not all come yet) for
        the next bytes (without copying a large frame's bytes again and again)."""
        if start == 0 and isinstance(data, bytearray):
            self.unread = data
        elif start < len(data):
            self.unread = bytearray(data[start:])

    def message(self, frame: Frame) -> None:
        if not frame.fin:
            self.parts.append(bytes(frame.data))
            return
        data = bytes(frame.data)
        if self.parts:
            data = b"".join([*self.parts, data])
            self.parts = []
        self.received(data)

    def received(self, data: bytes) -> None:
        """A client's message: handed to the hub here when the connection's task waits
        for one (the most of them: a client sends its next message once it had the
        reply to its last) and no answer of its is being committed, so that an answer
        wakes no task (what the hub must await, the task awaits); else for the task."""
        connection = self.connection
        if connection.closed:
            return
        if self.waiting is not None and self.joined and connection.committing is None:
            try:
                handling = self.hub.receive(connection, data)
            except Exception:
                log.exception("a client's connection failed")
                connection.close(CLOSE_ERROR)
                return
            if handling is not None:
                self.handling = handling
                self.wake()
            return
        self.inbox.append(data)
        self.wake()
        if len(self.inbox) >= INBOX and self.reading and self.transport is not None:
            self.reading = False
            self.transport.pause_reading()

    def handshake(self, request: Request) -> None:
        parser = self.parser
        headers = request.headers
        if request.path.partition("?")[0] != PATH:
            response = parser.reject(404, "no WebSocket here: it is at /ws\n")
        elif not same_origin(headers.get("Origin"), headers.get("Host")):
            response = parser.reject(403, "a page of another site may not connect here\n")
        else:
            response = parser.accept(request)
        parser.send_response(response)
        self.flush()
        if response.status_code != 101:
            if self.transport is not None:
                self.transport.close()
            return
        self.sockets.add(self)
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(HELLO_WAIT, self.connection.close, 4000)
        self.task = loop.create_task(self.run())
        self.server_state.tasks.add(self.task)
        self.task.add_done_callback(self.server_state.tasks.discard)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.connection.closed = True
        self.drop_backlog()
        self.server_state.connections.discard(self)
        self.sockets.remove(self)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.wake()

    def pause_writing(self) -> None:
        self.paused = True
        if self.transport is not None:
            self.buffered = self.transport.get_write_buffer_size()
            self.sockets.wait(self.connection.session, self.buffered)

    def resume_writing(self) -> None:
        self.paused = False
        self.sockets.wait(self.connection.session, -self.buffered)
        self.buffered = 0
        backlog = self.backlog
        while backlog and not self.paused:
            item = backlog.popleft()
            if isinstance(item, int):
                self.send_close(item)
            else:
                self.backlog_bytes -= len(item)
                self.sockets.wait(self.connection.session, -len(item))
                self.put(item)

    def drop_backlog(self) -> None:
        """Forget the frames waiting (and the session's count of them)."""
        self.sockets.wait(self.connection.session, -(self.backlog_bytes + self.buffered))
        self.backlog.clear()
        self.backlog_bytes = self.buffered = 0

    def shutdown(self) -> None:
        """The server stops (uvicorn calls this): the client is told it restarts."""
        if self.task is None:
            if self.transport is not None:
                self.transport.close()
            return
        self.connection.close(CLOSE_RESTART)

    def flush(self) -> None:
        transport = self.transport
        if transport is None:
            return
        for data in self.parser.data_to_send():
            if data:
                transport.write(data)
            else:  # the closing handshake is over (or failed): hang up
                transport.close()

    # ------------------------------------------------------------ the server's side

    def write(self, frame: bytes) -> None:
        """Send a frame (the connection's ``send``; not after it closed)."""
        if self.paused or self.backlog:
            self.wait_to_send(frame)
            return
        # (``put`` written out: a frame or two per answer to each client)
        transport = self.transport
        if transport is not None and not self.lost:
            size = len(frame)
            if size < 126:
                transport.write(SHORT_HEADERS[size] + frame)
            elif size < 65536:  # (most updates: ``header`` written out)
                transport.write(MEDIUM + size.to_bytes(2) + frame)
            else:
                transport.write(header(size) + frame)

    def wait_to_send(self, frame: bytes) -> None:
        """Keep a frame for when the socket takes more, or disconnect a client that
        does not keep up (its backlog, or its session's clients', over a limit)."""
        size = len(frame)
        limits = self.connection.limits
        session = self.connection.session
        if (
            len(self.backlog) >= OUTBOX
            or self.backlog_bytes + size > limits.backlog_bytes
            or self.sockets.waiting.get(session, 0) + size > limits.session_bytes
        ):
            self.drop_backlog()
            self.connection.closed = True
            self.send_close(CLOSE_OVERFLOW)
            return
        self.backlog.append(frame)
        self.backlog_bytes += size
        self.sockets.wait(session, size)

    def put(self, frame: bytes) -> None:
        transport = self.transport
        if transport is not None and not self.lost:
            transport.write(header(len(frame)) + frame)

    def end(self, code: int) -> None:
        """Close, after the frames waiting are sent (the connection's ``close``)."""
        if self.paused or self.backlog:
            self.backlog.append(code)
        else:
            self.send_close(code)

    def send_close(self, code: int) -> None:
        if self.lost:
            return
        with contextlib.suppress(Exception):  # (a close already sent or received)
            self.parser.send_close(code)
        self.flush()
        if self.timer is not None:
            self.timer.cancel()
        transport = self.transport
        if transport is not None and not transport.is_closing():
            # (abort: a client that does not read would keep ``close`` waiting for ever)
            self.timer = asyncio.get_running_loop().call_later(CLOSE_WAIT, transport.abort)
        self.wake()

    def wake(self) -> None:
        """Wake the connection's task if it waits for a message."""
        waiting = self.waiting
        if waiting is not None:
            self.waiting = None
            waiting.set_result(None)

    def keepalive(self) -> None:
        """A keepalive round: ping a client not heard from since the last; disconnect one
        that did not answer the ping of the last."""
        if self.heard:
            self.heard = self.pinged = False
            return
        if self.connection.closed:
            return
        if self.pinged:
            self.connection.closed = True
            self.parser.fail(CLOSE_ERROR, "keepalive ping timeout")
            self.flush()
            self.wake()
            return
        self.pinged = True
        self.parser.send_ping(b"lore")
        self.flush()

    async def run(self) -> None:
        """Hand the client's messages to the hub, one after another."""
        hub = self.sockets.server.hub
        connection = self.connection
        inbox = self.inbox
        loop = asyncio.get_running_loop()
        try:
            while not connection.closed:
                handling = self.handling  # (of a message ``received`` handed on)
                if handling is not None:
                    self.handling = None
                    await handling
                while inbox and not connection.closed:
                    data = inbox.popleft()
                    if not self.joined:
                        if self.timer is not None:
                            self.timer.cancel()
                            self.timer = None
                        if await hub.hello(connection, data) is None:
                            return
                        self.joined = True
                    else:
                        if connection.committing is not None:  # (its answer before)
                            await connection.committing.settled()
                        handling = hub.receive(connection, data)
                        if handling is not None:
                            await handling
                    if not self.reading and len(inbox) < INBOX // 2 and not self.lost:
                        self.reading = True
                        if self.transport is not None:
                            self.transport.resume_reading()
                if connection.closed or self.lost:
                    break
                self.waiting = loop.create_future()
                await self.waiting
        except Exception:
            log.exception("a client's connection failed")
            connection.close(CLOSE_ERROR)
        finally:
            if self.joined:
                await hub.leave(connection)
