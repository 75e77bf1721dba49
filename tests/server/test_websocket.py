"""Lore's WebSocket protocol, on a transport that records what is written: frames as a
client reads them, the backlog while the socket is full, keepalive pings."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import patch

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from lore.engine.views import GM
from lore.server.app import Server
from lore.server.connection import CLOSE_OVERFLOW, OUTBOX, Limits
from lore.server.rooms import Rooms
from lore.server.sources import load
from lore.server.store import MemoryStore
from lore.server.websocket import Socket, socket_protocol
from tests.server.serving import EXAMPLES


class Transport:
    """What a socket writes, for a client's parser to read."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closed = False
        self.aborted = False
        self.buffered = 0  # what the socket's buffer holds (said when it fills)
        self.reading = True

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = self.aborted = True

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True


class Peer:
    """A client's side: it makes the handshake and reads the socket's frames."""

    def __init__(self, path: str = "/ws") -> None:
        self.protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1{path}"))
        self.protocol.send_request(self.protocol.connect())
        self.read = 0

    def request(self) -> bytes:
        return b"".join(self.protocol.data_to_send())

    def frames(self, transport: Transport) -> list[Frame]:
        for data in transport.written[self.read :]:
            self.protocol.receive_data(data)
        self.read = len(transport.written)
        return [e for e in self.protocol.events_received() if isinstance(e, Frame)]

    def message(self, text: str) -> bytes:
        self.protocol.send_text(text.encode())
        return b"".join(self.protocol.data_to_send())


def connected(
    tmp_path: Path, limits: Limits | None = None, protocol: type[Socket] | None = None
) -> tuple[Socket, Transport]:
    """A socket before its handshake (in a running loop); ``protocol``: another socket of
    the same server's."""
    if protocol is None:
        protocol = socket_protocol(
            Server(Rooms(MemoryStore(), tmp_path), limits=limits or Limits())
        )
    state = SimpleNamespace(connections=set(), tasks=set())
    socket = protocol(config=None, server_state=state, app_state={})
    transport = Transport()
    socket.connection_made(transport)  # type: ignore[arg-type]
    return socket, transport


def opened(
    tmp_path: Path,
    path: str = "/ws",
    limits: Limits | None = None,
    protocol: type[Socket] | None = None,
) -> tuple[Socket, Transport, Peer]:
    """A socket past its handshake (in a running loop)."""
    socket, transport = connected(tmp_path, limits, protocol)
    peer = Peer(path)
    socket.data_received(peer.request())
    peer.frames(transport)  # the handshake's response
    return socket, transport, peer


def test_frames_of_every_size_are_read_by_a_client(tmp_path: Path) -> None:
    async def scenario() -> list[Any]:
        socket, transport, peer = opened(tmp_path)
        assert peer.protocol.handshake_exc is None
        sizes = [0, 125, 126, 65535, 65536, 300_000]
        for size in sizes:
            socket.connection.send(json.dumps("x" * size).encode())
        frames = peer.frames(transport)
        assert all(f.opcode is Opcode.TEXT and f.fin for f in frames)
        socket.connection_lost(None)
        return [len(json.loads(f.data)) for f in frames]

    assert asyncio.run(scenario()) == [0, 125, 126, 65535, 65536, 300_000]


def test_another_path_is_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        socket, transport, peer = opened(tmp_path, "/elsewhere")
        assert peer.protocol.handshake_exc is not None
        assert transport.closed and socket.task is None

    asyncio.run(scenario())


def test_frames_wait_while_the_socket_is_full_and_go_out_in_order(tmp_path: Path) -> None:
    async def scenario() -> None:
        socket, transport, peer = opened(tmp_path)
        connection = socket.connection
        connection.send(b'"one"')
        socket.pause_writing()
        connection.send(b'"two"')
        connection.send(b'"three"')
        connection.close(4000)
        assert [f.data for f in peer.frames(transport)] == [b'"one"']
        socket.resume_writing()
        frames = peer.frames(transport)
        assert [f.data for f in frames[:2]] == [b'"two"', b'"three"']
        assert frames[2].opcode is Opcode.CLOSE and frames[2].data[:2] == (4000).to_bytes(2)
        socket.connection_lost(None)

    asyncio.run(scenario())


def test_a_client_that_does_not_keep_up_is_disconnected(tmp_path: Path) -> None:
    async def scenario() -> None:
        socket, transport, peer = opened(tmp_path)
        socket.pause_writing()
        for number in range(OUTBOX + 1):
            socket.connection.send(json.dumps(number).encode())
        assert socket.connection.closed
        (close,) = peer.frames(transport)
        assert close.opcode is Opcode.CLOSE and close.data[:2] == CLOSE_OVERFLOW.to_bytes(2)
        socket.connection_lost(None)

    asyncio.run(scenario())


def closed_for_overflow(socket: Socket, transport: Transport, peer: Peer) -> bool:
    frames = peer.frames(transport)
    return bool(frames) and frames[-1].data[:2] == CLOSE_OVERFLOW.to_bytes(2)


def test_a_client_whose_backlog_passes_its_bytes_is_disconnected(tmp_path: Path) -> None:
    async def scenario() -> None:
        socket, transport, peer = opened(tmp_path, limits=Limits(backlog_bytes=10_000))
        socket.pause_writing()
        for _ in range(4):  # 4 frames of 3,000 bytes: far fewer than OUTBOX frames
            socket.connection.send(b'"' + b"x" * 2998 + b'"')
        assert socket.connection.closed and closed_for_overflow(socket, transport, peer)
        assert socket.backlog_bytes == 0 and socket.sockets.waiting == {}
        socket.connection_lost(None)

    asyncio.run(scenario())


def test_a_sessions_clients_together_keep_only_so_many_bytes_waiting(tmp_path: Path) -> None:
    async def scenario() -> None:
        limits = Limits(backlog_bytes=10_000, session_bytes=12_000)
        first, transport, peer = opened(tmp_path, limits=limits)
        protocol = type(first)
        second, transport2, peer2 = opened(tmp_path, protocol=protocol)
        other, _transport3, _peer3 = opened(tmp_path, protocol=protocol)
        first.connection.session = second.connection.session = "s"
        other.connection.session = "t"
        frame = b'"' + b"x" * 998 + b'"'
        transport.buffered = 5_000  # the first one's socket filled with 5,000 bytes
        first.pause_writing()
        second.pause_writing()
        other.pause_writing()
        for _ in range(5):
            first.connection.send(frame)
            other.connection.send(frame)
        assert first.sockets.waiting == {"s": 10_000, "t": 5_000}
        for _ in range(3):
            second.connection.send(frame)
        assert second.connection.closed and closed_for_overflow(second, transport2, peer2)
        assert not first.connection.closed and not other.connection.closed
        assert first.sockets.waiting == {"s": 10_000, "t": 5_000}
        transport.buffered = 0
        first.resume_writing()  # it reads again: all it waited for goes out
        assert first.sockets.waiting == {"t": 5_000}
        assert len(peer.frames(transport)) == 5
        other.connection_lost(None)
        assert first.sockets.waiting == {}
        for socket in (first, second):
            socket.connection_lost(None)

    asyncio.run(scenario())


def test_a_client_that_does_not_answer_a_close_is_cut_off(tmp_path: Path) -> None:
    async def scenario() -> None:
        socket, transport, _peer = opened(tmp_path)
        with patch("lore.server.websocket.CLOSE_WAIT", 0.01):
            socket.connection.close(4000)
            await asyncio.sleep(0.05)
        assert transport.aborted
        socket.connection_lost(None)

    asyncio.run(scenario())


def test_a_quiet_client_is_pinged_and_one_that_does_not_answer_is_disconnected(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        socket, transport, peer = opened(tmp_path)
        socket.keepalive()  # heard from (the handshake): not pinged
        assert peer.frames(transport) == []
        socket.keepalive()
        (ping,) = peer.frames(transport)
        assert ping.opcode is Opcode.PING
        socket.data_received(b"".join(peer.protocol.data_to_send()))  # its pong
        socket.keepalive()
        socket.keepalive()
        (ping,) = peer.frames(transport)
        assert ping.opcode is Opcode.PING and not socket.connection.closed
        socket.keepalive()  # no answer
        (close,) = peer.frames(transport)
        assert close.opcode is Opcode.CLOSE and socket.connection.closed and transport.closed
        socket.connection_lost(None)

    asyncio.run(scenario())


def test_messages_wait_for_the_hub_and_reading_stops_while_many_wait(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        socket, transport, peer = opened(tmp_path)
        room = await socket.sockets.server.rooms.create(load(EXAMPLES / "round"))
        token = next(s.token for s in room.seats.values() if s.seat != GM)
        socket.data_received(peer.message(json.dumps({"type": "hello", "token": token})))
        for number in range(40):
            socket.data_received(peer.message(json.dumps({"type": "ping", "ref": number})))
        assert not transport.reading  # (the connection's task has not run yet)
        await asyncio.sleep(0.05)
        assert transport.reading
        frames = [json.loads(f.data) for f in peer.frames(transport)]
        socket.connection_lost(None)
        await asyncio.sleep(0)
        assert [f["ref"] for f in frames if f["type"] == "pong"] == list(range(40))
        return [f["type"] for f in frames if f["type"] != "pong"]

    assert asyncio.run(scenario())[:2] == ["welcome", "snapshot"]


def client_bytes(peer: Peer, sizes: list[int]) -> tuple[bytes, list[bytes]]:
    """Text and binary messages of ``sizes`` (one sent in fragments), with a ping and a
    pong between them, as a client sends them; and the messages the server must read."""
    protocol = peer.protocol
    expected = []
    for number, size in enumerate(sizes):
        data = bytes([65 + number % 26]) * size
        if number % 3 == 1:
            protocol.send_binary(data)
        else:
            protocol.send_text(data)
        expected.append(data)
        if number == 2:
            protocol.send_ping(b"are you there")
            protocol.send_pong(b"unasked")
    protocol.send_text(b"frag", fin=False)
    protocol.send_continuation(b"men", fin=False)
    protocol.send_continuation(b"ted", fin=True)
    expected.append(b"fragmented")
    protocol.send_text(b"after")
    expected.append(b"after")
    return b"".join(protocol.data_to_send()), expected


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 4096, 1 << 20])
def test_messages_are_read_whole_however_their_bytes_come(tmp_path: Path, chunk: int) -> None:
    """Frames read by the socket itself and by the ``websockets`` parser alike: split
    anywhere, many in one read, control frames and fragments between them."""

    async def scenario(fast: bool) -> tuple[list[bytes], list[Frame]]:
        socket, transport, peer = opened(tmp_path)
        assert socket.fast  # (nothing came after the handshake's request)
        socket.fast = fast
        sizes = [0, 1, 125, 126, 1000, 65535, 65536, 70000]
        data, expected = client_bytes(peer, sizes)
        for start in range(0, len(data), chunk):
            socket.data_received(data[start : start + chunk])
        read = list(socket.inbox)
        assert read == expected
        replies = peer.frames(transport)
        socket.connection_lost(None)
        return read, replies

    fast, parsed = asyncio.run(scenario(True)), asyncio.run(scenario(False))
    assert fast == parsed
    assert [(f.opcode, f.data) for f in fast[1]] == [(Opcode.PONG, b"are you there")]


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\x81\x02hi", 1002),  # not masked
        (b"\xc1\x82abcd\x00\x00", 1002),  # a reserved bit
        (b"\x81\xff" + (2**21).to_bytes(8) + b"abcd", 1009),  # larger than MAX_FRAME
        (b"\x80\x82abcd\x00\x00", 1002),  # a continuation of nothing
    ],
)
def test_a_frame_the_parser_refuses_closes_the_connection(
    tmp_path: Path, frame: bytes, code: int
) -> None:
    async def scenario() -> None:
        socket, transport, peer = opened(tmp_path)
        socket.data_received(peer.message("before") + frame + peer.message("after"))
        assert list(socket.inbox) == [b"before"]
        (close,) = peer.frames(transport)
        assert close.opcode is Opcode.CLOSE and close.data[:2] == code.to_bytes(2)
        assert not socket.fast
        socket.connection_lost(None)

    asyncio.run(scenario())


def test_a_client_that_sends_before_the_handshake_is_over_is_read_by_the_parser(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        socket, _ = connected(tmp_path)
        peer = Peer()
        request = peer.request()
        peer.protocol.state = State.OPEN  # (it sends at once, without the response)
        first = peer.message("too soon")
        socket.data_received(request + first[:3])
        socket.data_received(first[3:] + peer.message("then"))
        assert not socket.fast and list(socket.inbox) == [b"too soon", b"then"]
        socket.connection_lost(None)

    asyncio.run(scenario())
