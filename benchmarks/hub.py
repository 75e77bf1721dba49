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

Figures: the event loop thread's CPU time per answer (``time.thread_time``: the store's
thread is not counted; the fastest of K runs, default 3), or with ``--callgrind`` its
machine instructions per answer (valgrind, ``--separate-threads``: the main thread's
alone), of a process doing ``CALLGRIND_ANSWERS`` answers, the difference counted.
It exits 0 (it is a report).
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
from pathlib import Path
from types import SimpleNamespace

import msgspec

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
from lore.server.websocket import Socket, apply_mask, socket_protocol

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

    def __init__(self, socket: Socket, transport: Transport) -> None:
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
    loop = asyncio.get_running_loop()
    start = time.thread_time()
    done = 0
    while done < answers:
        batch = sessions[: min(tables, answers - done)]
        round_.left = len(batch)
        round_.done = loop.create_future()
        for clients in batch:
            next(c for c in clients if c.pending).answer()
        async with asyncio.timeout(STUCK):  # (an answer not acknowledged fails the run)
            await round_.done
        for clients in batch:
            for client in clients:
                client.take()
        done += len(batch)
    spent = time.thread_time() - start
    for clients in sessions:
        for client in clients:
            client.socket.connection_lost(None)
    await asyncio.sleep(0.1)
    for room in rooms.by_id.values():
        room.table.master.session.settle()  # (a step kept waiting holds its session)
    await rooms.close()
    await store.close()
    return spent


def run_alone(tables: int, answers: int) -> float:
    """A run in an event loop of its own (``lore serve``'s), with the timers that come by
    wall-clock time put off (they would make runs differ, callgrind's most) and a step
    slowed by callgrind not moved off the loop."""
    import uvloop

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


def instructions(tables: int, answers: int) -> int:
    """The machine instructions of the main thread (the event loop's) of a process
    running ``run_alone``, by callgrind."""
    with tempfile.TemporaryDirectory(prefix="lore-callgrind-") as folder:
        out = os.path.join(folder, "callgrind.out")
        command = [
            "valgrind", "--tool=callgrind", "--separate-threads=yes",
            f"--callgrind-out-file={out}",
            sys.executable, __file__, "--alone", f"{tables},{answers}",
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
    parser.add_argument("--alone", help=argparse.SUPPRESS)  # tables,answers
    args = parser.parse_args(argv)
    if args.alone:
        tables, answers = (int(part) for part in args.alone.split(","))
        collect_for_serving()
        run_alone(tables, answers)
        return 0
    if args.callgrind:
        few, many = CALLGRIND_ANSWERS
        counts = [instructions(args.tables, answers) for answers in (few, many)]
        each = (counts[1] - counts[0]) / (many - few)
        print(f"event loop thread: {each:,.0f} machine instructions per answer (callgrind;")
        print(f"  {args.tables} sessions, answers {few} and {many}, the difference)")
        return 0
    thresholds = gc.get_threshold()
    collector = collect_for_serving()  # the server's collector policy, as `lore serve`'s
    try:
        best = min(run_alone(args.tables, args.answers) for _ in range(args.repeat))
    finally:
        collector.uninstall()
        gc.set_threshold(*thresholds)
    print(f"event loop thread: {best / args.answers * 1e6:.1f} us CPU per answer")
    print(f"  ({args.tables} sessions, {args.answers} answers, fastest of {args.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
