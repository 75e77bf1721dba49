"""Hub benchmark: the event loop's work per answer in one process, without the network.

Run from the project root::

    .venv/bin/python benchmarks/hub.py [--tables N] [--answers A] [--repeat K] [--callgrind]

The workload is ``benchmarks/server.py``'s: N sessions (default 20) of the round-table
example, made endless, with a client on each of their 3 player seats (the GM's has
none), in a server of its own (``Rooms``, ``Hub``, Lore's WebSocket protocol, the SQLite
store in a temporary folder, the event loop ``lore serve`` runs). Each client is a
``Socket`` on a transport that keeps what is written to it: the handshake and every
message reach the socket as bytes (masked frames, as a browser sends them), and the
frames written are read as a client would (the sequence numbers and questions it needs).
The answers go in rounds: one to each session, given to the sockets in one callback, and
the next round once every answer of this one was acknowledged (so the store commits
each round's entries as one batch, every run alike). What runs per answer is the
server's whole work on its event loop but for the system calls: reading the frame,
decoding, the hub's checks, the table (engine and updates), the log entry stored (the
store's thread does the SQLite work), the acknowledgement and the updates written, the
transcript records and snapshots given to the store. The session ids are the same every
run (they decide when each session's first snapshot comes); the clock frames (sent a
second late) and keepalive pings, which come by wall-clock time, are not sent.

Beside it, in the same run, the baseline: a bare WebSocket echo over the same
transports, with the same clients' frames (the same answer messages, masked the same way,
given in the same rounds, one round trip for each session's answer, its echo read back
as the players read their frames), the server side the least a WebSocket server does per
round trip: the ``websockets`` library's sans-I/O ``ServerProtocol`` reading each frame
and writing its message back at once (no task, queue or future). It is the echo server
``benchmarks/server.py`` compares with, without the network: the ratio of the two moves
only when Lore's own work per answer does.

Figures: the event loop thread's CPU time per answer (``time.thread_time``: the store's
thread is not counted; the fastest of K runs, default 3), and the echo's per round trip
(the fastest of K runs, taking turns with the answers' runs), or with ``--callgrind``
their machine instructions (valgrind, ``--separate-threads``: the main thread's alone)
per answer and per round trip, of a process doing ``CALLGRIND_ANSWERS`` answers (round
trips), the difference counted; and the ratio of the two. It exits 0 (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import msgspec
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

if __package__:  # imported as benchmarks.* (the tests)
    from benchmarks.server import endless_example, read_frame
else:  # run as a script: its folder is on the path
    from server import endless_example, read_frame

from lore.cli.serve_command import collect_for_serving
from lore.engine.views import GM
from lore.server import rooms as rooms_module
from lore.server.app import Server
from lore.server.rooms import Rooms
from lore.server.sources import load
from lore.server.sqlite_store import SQLiteStore
from lore.server.websocket import apply_mask, socket_protocol

CALLGRIND_ANSWERS = (400, 2400)  # (100 answers more per session of the default 20)
REQUEST = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
STUCK = 60.0  # seconds a round's answers may take (callgrind's slowness and all)
MASK = b"\x12\x34\x56\x78"  # (a client's frames are masked; the same key every run)


write_message = msgspec.json.Encoder().encode


def client_frame(message: object) -> bytes:
    """A client's masked text frame of a message."""
    data = write_message(message)
    size = len(data)
    head = bytes((0x81, 0x80 | size)) if size < 126 else bytes((0x81, 0xFE)) + size.to_bytes(2)
    return head + MASK + apply_mask(data, MASK)


class Round:
    """The answers of a round still to be acknowledged."""

    def __init__(self) -> None:
        self.left = 0
        self.done: asyncio.Future[None] | None = None

    def arrived(self) -> None:
        self.left -= 1
        if self.left == 0 and self.done is not None:
            self.done.set_result(None)


class Transport:
    """A socket's transport: what is written is kept for the client to read."""

    def __init__(self, round_: Round) -> None:
        self.written: list[bytes] = []
        self.round = round_
        self.waiting = False  # for the acknowledgement of the client's answer

    def write(self, data: bytes) -> None:
        self.written.append(data)
        if self.waiting:  # (the first frame after an answer carries its ack)
            self.waiting = False
            self.round.arrived()

    def close(self) -> None:
        pass

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


class Client:
    """A player's client: its socket, and the questions open to it."""

    def __init__(self, socket: asyncio.Protocol, transport: Transport) -> None:
        self.socket = socket
        self.transport = transport
        self.read = 1  # (the handshake's response)
        self.seq = 0
        self.pending: list[str] = []

    def take(self) -> None:
        """Read the frames written since the last look."""
        written = self.transport.written
        for data in written[self.read :]:
            size = data[1]
            frame = read_frame(data[2:] if size < 126 else data[4:] if size == 126 else data[10:])
            if frame.type == "update":
                assert frame.seq == self.seq + 1, "an update was missed"
                self.seq = frame.seq
                self.pending += [q.id for q in frame.opened]
                self.pending = [q for q in self.pending if q not in frame.closed]
            elif frame.type == "snapshot":
                self.seq = frame.seq
                self.pending += [q.id for q in frame.questions]
            elif frame.type == "error":
                raise AssertionError(f"refused: {data!r}")
        self.read = len(written)

    def answer(self) -> None:
        query = self.pending.pop(0)
        message = {"type": "answer", "id": query, "values": {"move": "roll"}, "seq": self.seq}
        self.transport.waiting = True
        self.socket.data_received(client_frame(message))


class Echo(asyncio.Protocol):
    """The baseline's server side: a WebSocket echo on the ``websockets`` library's
    sans-I/O protocol, each text message written back the moment its frame is read."""

    def __init__(self) -> None:
        self.protocol = ServerProtocol()
        self.transport: Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Frame):
                if event.opcode is Opcode.TEXT:
                    protocol.send_text(event.data)
            elif isinstance(event, Request):  # the handshake
                protocol.send_response(protocol.accept(event))
        assert self.transport is not None
        for written in protocol.data_to_send():
            if written:  # (an empty one would mean the end of the stream)
                self.transport.write(written)


class EchoClient(Client):
    """A client of the echo: it sends the players' answer message (its ``seq`` the
    echoes it read) and checks each frame read back is its message."""

    QUERY = "12//0"  # (a question's id as the round table's are made)

    def take(self) -> None:
        written = self.transport.written
        for data in written[self.read :]:
            frame = read_frame(data[2:])  # (the echoes are all under 126 bytes)
            assert frame.type == "answer" and frame.seq == self.seq, "not the echo"
            self.seq += 1
        self.read = len(written)

    def answer(self) -> None:
        message = {"type": "answer", "id": self.QUERY, "values": {"move": "roll"}, "seq": self.seq}
        self.transport.waiting = True
        self.socket.data_received(client_frame(message))


def players_turn(clients: list[Client]) -> Client:
    """The session's player with a question open (turns go round the table)."""
    return next(client for client in clients if client.pending)


def echo_turn(clients: list[Client]) -> Client:
    """The next of the group's clients round (as the players' turns go)."""
    clients.append(clients.pop(0))
    return clients[-1]


async def rounds(
    sessions: list[list[Client]],
    turn: Callable[[list[Client]], Client],
    round_: Round,
    answers: int,
) -> float:
    """``answers`` messages in rounds, one to each session (its client ``turn`` picks),
    the next round once each was acknowledged: the loop thread's CPU seconds."""
    loop = asyncio.get_running_loop()
    start = time.thread_time()
    done = 0
    while done < answers:
        batch = sessions[: min(len(sessions), answers - done)]
        round_.left = len(batch)
        round_.done = loop.create_future()
        for clients in batch:
            turn(clients).answer()
        async with asyncio.timeout(STUCK):  # (an answer not acknowledged fails the run)
            await round_.done
        for clients in batch:
            for client in clients:
                client.take()
        done += len(batch)
    return time.thread_time() - start


async def echo(tables: int, answers: int) -> float:
    """``answers`` round trips through the echo, in groups of 3 clients like the
    sessions' players: the loop thread's CPU seconds."""
    round_ = Round()
    sessions: list[list[Client]] = []
    for _ in range(tables):
        clients: list[Client] = []
        for _ in range(3):
            socket = Echo()
            transport = Transport(round_)
            socket.connection_made(transport)  # type: ignore[arg-type]
            socket.data_received(REQUEST)
            clients.append(EchoClient(socket, transport))
        sessions.append(clients)
    await asyncio.sleep(0)
    return await rounds(sessions, echo_turn, round_, answers)


async def run(folder: Path, tables: int, answers: int) -> float:
    """``answers`` answers over ``tables`` fresh sessions: the loop thread's CPU seconds."""
    store = SQLiteStore(folder / "hub.db")
    rooms = Rooms(store, folder / "work")
    numbers = itertools.count()
    rooms.new_id = lambda: f"{next(numbers):032x}"
    server = Server(rooms)
    state = SimpleNamespace(connections=set(), tasks=set())
    bound = socket_protocol(server, ping_every=1e9)
    bundle = load(endless_example(folder))
    round_ = Round()
    sessions: list[list[Client]] = []
    for seed in range(tables):
        room = await rooms.create(bundle, seed=seed)
        clients = []
        for seat in room.seats.values():
            if seat.seat == GM:
                continue
            socket = bound(None, state, None)
            transport = Transport(round_)
            socket.connection_made(transport)  # type: ignore[arg-type]
            socket.data_received(REQUEST)
            socket.data_received(client_frame({"type": "hello", "token": seat.token}))
            clients.append(Client(socket, transport))
        sessions.append(clients)
    for _ in range(10):  # (the hellos: a few turns of the loop)
        await asyncio.sleep(0)
    await asyncio.sleep(0.1)
    for clients in sessions:
        for client in clients:
            client.take()
    spent = await rounds(sessions, players_turn, round_, answers)
    for clients in sessions:
        for client in clients:
            client.socket.connection_lost(None)
    await asyncio.sleep(0.1)
    for room in rooms.by_id.values():
        room.table.master.session.settle()  # (a step kept waiting holds its session)
    await rooms.close()
    await store.close()
    return spent


WAYS = ("answers", "echo")  # (the figure's, the baseline's)


def run_alone(way: str, tables: int, answers: int) -> float:
    """A run of ``way`` in an event loop of its own (``lore serve``'s), with the timers
    that come by wall-clock time put off (they would make runs differ, callgrind's most)
    and a step slowed by callgrind not moved off the loop."""
    import uvloop

    if way == "echo":
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(echo(tables, answers))
    kept = rooms_module.CLOCK_DELAY, rooms_module.SLOW_STEP
    rooms_module.CLOCK_DELAY = rooms_module.SLOW_STEP = 1e9
    try:
        with (
            tempfile.TemporaryDirectory(prefix="lore-hub-") as folder,
            asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner,
        ):
            return runner.run(run(Path(folder), tables, answers))
    finally:
        rooms_module.CLOCK_DELAY, rooms_module.SLOW_STEP = kept


def instructions(way: str, tables: int, answers: int) -> int:
    """The machine instructions of the main thread (the event loop's) of a process
    running ``run_alone``, by callgrind."""
    with tempfile.TemporaryDirectory(prefix="lore-callgrind-") as folder:
        out = os.path.join(folder, "callgrind.out")
        command = [
            "valgrind", "--tool=callgrind", "--separate-threads=yes",
            f"--callgrind-out-file={out}",
            sys.executable, __file__, "--alone", f"{way},{tables},{answers}",
        ]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, timeout=3600)
        with open(f"{out}-01") as file:  # (thread 1: the main thread)
            for line in file:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1])
    raise SystemExit("callgrind wrote no total")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--answers", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--callgrind", action="store_true", help="count machine instructions instead"
    )
    parser.add_argument("--alone", help=argparse.SUPPRESS)  # way,tables,answers
    args = parser.parse_args(argv)
    if args.alone:
        way, tables, answers = args.alone.split(",")
        collect_for_serving()
        run_alone(way, int(tables), int(answers))
        return 0
    if args.callgrind:
        few, many = CALLGRIND_ANSWERS
        each = {}
        for way in WAYS:
            counts = [instructions(way, args.tables, answers) for answers in (few, many)]
            each[way] = (counts[1] - counts[0]) / (many - few)
        answer, round_trip = (each[way] for way in WAYS)
        print(f"event loop thread: {answer:,.0f} machine instructions per answer (callgrind;")
        print(f"  {args.tables} sessions, answers {few} and {many}, the difference)")
        print(f"echo (baseline): {round_trip:,.0f} machine instructions per round trip")
        print(f"answer / echo round trip: {answer / round_trip:.2f}")
        return 0
    thresholds = gc.get_threshold()
    collector = collect_for_serving()  # the server's collector policy, as `lore serve`'s
    best = dict.fromkeys(WAYS, float("inf"))
    try:
        for _ in range(args.repeat):  # (taking turns: the machine's other work weighs alike)
            for way in WAYS:
                best[way] = min(best[way], run_alone(way, args.tables, args.answers))
    finally:
        collector.uninstall()
        gc.set_threshold(*thresholds)
    answer, round_trip = (best[way] / args.answers * 1e6 for way in WAYS)
    print(f"event loop thread: {answer:.1f} us CPU per answer")
    print(f"  ({args.tables} sessions, {args.answers} answers, fastest of {args.repeat})")
    print(f"echo (baseline): {round_trip:.1f} us CPU per round trip (the same way)")
    print(f"answer / echo round trip: {answer / round_trip:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
