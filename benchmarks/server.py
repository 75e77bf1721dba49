"""Server benchmark: sessions of scripted players answering over loopback WebSockets.

Run from the project root::

    .venv/bin/python benchmarks/server.py [--sessions N ...] [--seconds S] [--slice T]
        [--workers W] [--json]

The workload: ``lore serve --workers W`` (a subprocess, its SQLite store in a temporary
folder; W is the machine's cores unless given: how a server of many sessions is run) holds N
sessions (default 200) of the round-table example, made endless; each has 3 scripted
players, connected from this process, who answer their question the moment it comes
(a lean client, ``Socket``: the ``websockets`` library's sans-I/O protocol on an asyncio
protocol, each frame parsed and handled as it is read; the echo's clients are the same).
A player parses every frame it gets (msgspec, into the few fields it uses: the rest is
checked as JSON and skipped; the echo's replies are parsed the same way), checks that
its seat's updates come in sequence (each ``seq`` the last plus 1) and that each answer's
next question comes (within ``STUCK`` seconds): both are counted beside the refusals.
Turns go round the table, so each session has one question open at a time: an answer is
followed by the next question, to the next player. For S seconds (default 60) it counts:

- answers per second (acknowledged: stored and synced before the acknowledgement, which
  comes with the answering seat's update);
- the latency from an answer to the next question of its session (p50, p99);

Beside it, in the same run, the baseline: a plain ``websockets`` echo server (a
subprocess) with the same connections, passing one message round each group of three the
same way (one message in flight per group), so its round trips per second are what the
loopback, the WebSocket library and this client cost (the echo's replies are parsed like
the players' frames; its round trips' p99 is printed too: with every session waiting for
one reply, latency is sessions / throughput, so no server beats the echo's). The two take
turns, T seconds each (default 5, after half a second for the other's last replies to
drain), until each was measured for S seconds: the machine's other work, which comes and
goes, weighs on both alike. Before the
clients connect, the server's memory per idle session: its resident memory before and
after the N sessions are made. And the CPU time each server used per answer (per round
trip), and the clients' (this process's) beside it: what the machine's other work changes
least; and the frames the players read per answer. On a busy machine the two loads share
what CPU there is, so the ratio follows the CPU both sides spend per answer; on an idle
one, each server has a core of its own.

``--trace FILE``: the server records its collector passes, event-loop stalls, store
commits, snapshots taken and slow steps (``lore.server.trace``) in FILE, the answers'
starts and latencies are added to it, and the report says which kinds of event the
slowest 1% of the answers waited for (and in which seconds of the run they came).

Targets (issue 10): p99 under 100 ms, answers/s at least 0.4 x the echo round trips/s,
under 1 MB per idle session. It prints the figures with PASS/FAIL and exits 0 (it is a
report); 1 when the server cannot be started.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import cast

import msgspec
import uvloop
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

try:
    from websockets.speedups import apply_mask
except ImportError:  # (a build of websockets without its C extension)
    from websockets.utils import apply_mask

ROOT = Path(__file__).resolve().parents[1]
ROUND = ROOT / "examples" / "round" / "scenario.lore"
TARGET_P99 = 0.100
TARGET_RATIO = 0.4
TARGET_IDLE = 1024 * 1024
RETRY = 0.1  # seconds before a refused answer is sent again
STUCK = 5.0  # seconds after an answer by which its next question must have come

ECHO_SERVER = """
import asyncio, sys
from websockets.asyncio.server import serve

async def echo(socket):
    async for message in socket:
        await socket.send(message)

async def main():
    async with serve(echo, "127.0.0.1", 0, compression=None, max_queue=None) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()

asyncio.run(main())
"""


@dataclass
class Figures:
    sessions: int
    seconds: float
    answers_per_s: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    echo_round_trips_per_s: float = 0.0
    echo_p50_ms: float = 0.0
    echo_p99_ms: float = 0.0
    ratio: float = 0.0
    idle_bytes_per_session: float = 0.0
    cpu_us_per_answer: float = 0.0  # the server's CPU time per answer
    echo_cpu_us_per_round_trip: float = 0.0
    client_cpu_us_per_answer: float = 0.0  # the players' (this process's) CPU time per answer
    client_cpu_us_per_round_trip: float = 0.0  # the echo clients' (this process's)
    frames_per_answer: float = 0.0  # frames the players read per answer (the echo's: 1)
    workers: int = 1  # the server's worker processes (``lore serve --workers``)
    errors: int = 0  # answers refused
    gaps: int = 0  # updates out of sequence
    stuck: int = 0  # answers whose next question did not come
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------ the Lore server


def endless_example(folder: Path) -> Path:
    text = ROUND.read_text(encoding="utf-8").replace("last = 60[sec];", "last = 1000000000[sec];")
    target = folder / "round"
    target.mkdir()
    (target / "scenario.lore").write_text(text, encoding="utf-8")
    return target


def start_server(
    folder: Path, example: Path, trace: Path | None = None, workers: int = 1
) -> tuple[subprocess.Popen[bytes], int]:
    log = (folder / "serve.log").open("wb")
    argv = [sys.executable, "-m", "lore", "serve", "--db", str(folder / "bench.db")]
    argv += ["--port", "0", "--workers", str(workers), str(example)]
    env = dict(os.environ, LORE_TRACE=str(trace)) if trace is not None else None
    process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = (folder / "serve.log").read_text(errors="replace")
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", text)
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise RuntimeError(f"lore serve did not start: {(folder / 'serve.log').read_text()}")


def create(port: int) -> tuple[str, list[str]]:
    """A new session's id and player tokens."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/sessions",
        data=json.dumps({"source": "round"}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        found = json.loads(response.read())
    tokens = [s["link"].split("#", 1)[1] for s in found["seats"] if s["seat"] != "GM"]
    return found["session"], tokens


def family(pid: int) -> list[int]:
    """A process and its descendants (a server's front and its workers)."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                found += family(int(child))
    return found


def cpu_seconds(pid: int) -> float:
    """The CPU time a process and its descendants used so far (user and system)."""
    total = 0
    for member in family(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def rss(pid: int) -> int:
    """The resident memory of a process and its descendants."""
    total = 0
    for member in family(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


@dataclass
class Gate:
    """Which of the two loads runs now (the other holds its next message), and whether
    what comes is counted (not while the previous load's last replies drain)."""

    lore: asyncio.Event = field(default_factory=asyncio.Event)
    echo: asyncio.Event = field(default_factory=asyncio.Event)
    counting: bool = False
    stop: bool = False
    pids: tuple[int, int] = (0, 0)  # the Lore server's and the echo server's
    cpu: list[float] = field(default_factory=lambda: [0.0, 0.0])  # theirs, while counted
    client: list[float] = field(default_factory=lambda: [0.0, 0.0])  # this process's
    held_players: list[Player] = field(default_factory=list)  # waiting for the Lore load
    held_echoes: list[EchoGroup] = field(default_factory=list)  # waiting for the echo load

    def release(self, event: asyncio.Event) -> None:
        """Let one load run: its clients held meanwhile send their next message."""
        event.set()
        if event is self.lore:
            held_players, self.held_players = self.held_players, []
            for held_player in held_players:
                held_player.go()
        else:
            held_echoes, self.held_echoes = self.held_echoes, []
            for held_echo in held_echoes:
                held_echo.go()


@dataclass
class Table:
    sent: float | None = None
    latencies: list[float] = field(default_factory=list)
    asked: list[float] = field(default_factory=list)  # when each of ``latencies`` began
    answers: int = 0
    frames: int = 0  # frames the players read while counted
    errors: int = 0  # answers refused
    gaps: int = 0  # updates whose seq was not the seat's last plus 1
    stuck: int = 0  # times an answer's next question had not come after STUCK seconds


class Socket(asyncio.Protocol):
    """A lean WebSocket client, for both loads alike: the ``websockets`` library's own
    protocol (sans I/O: the same handshake, framing and masking as its asyncio client)
    on an asyncio protocol, each message handed to ``on_text`` as it is read (no task,
    queue or future per message; pings are answered by the library). Once open, a whole
    unfragmented text frame is read here (its header, then its payload handed on) and a
    text message is written here (one frame, masked), without the library's per-frame
    objects and generators: a load generator should weigh as little as it can on the
    machine whose server it measures. Any other frame (a ping, a close, a fragment) is
    given to the library whole, so that it stays between frames."""

    def __init__(self, url: str, on_text: Callable[[bytes], None]) -> None:
        self.protocol = ClientProtocol(parse_uri(url), max_size=None)
        self.on_text = on_text
        self.open: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.parts: list[bytes] = []  # a fragmented message's frames so far
        self.fast = False  # frames are read here (past the handshake)
        self.unread = b""  # the start of a frame not all come yet
        # The mask of the frames written here: one per connection, not one per frame
        # (masking keeps proxies' caches from being poisoned: none is on the loopback).
        self.mask = os.urandom(4)

    @classmethod
    async def connect(cls, port: int, path: str, on_text: Callable[[bytes], None]) -> Socket:
        loop = asyncio.get_running_loop()
        url = f"ws://127.0.0.1:{port}{path}"
        _, socket = await loop.create_connection(lambda: cls(url, on_text), "127.0.0.1", port)
        await socket.open
        return socket

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is not a subclass)
        self.protocol.send_request(self.protocol.connect())
        self.flush()

    def data_received(self, data: bytes) -> None:
        if self.fast:
            self.read_frames(data)
        else:
            self.parse(data)

    def read_frames(self, data: bytes) -> None:
        """Read the server's frames (unmasked): whole text frames here, the others by
        the library."""
        if self.unread:
            data = self.unread + data
            self.unread = b""
        start, size = 0, len(data)
        while size - start >= 2:
            first, length = data[start], data[start + 1]
            if length & 0x80:  # masked: the library refuses it
                self.fast = False
                self.parse(data[start:])
                return
            at = start + 2
            if length >= 126:
                at += 2 if length == 126 else 8
                if size < at:
                    break
                length = int.from_bytes(data[start + 2 : at])
            end = at + length
            if size < end:
                break
            if first == 0x81 and not self.parts:  # a whole text frame
                self.on_text(data[at:end])
            else:
                self.parse(data[start:end])
            start = end
        if start < size:
            self.unread = data[start:]

    def parse(self, data: bytes) -> None:
        """Bytes read by the library (the handshake, control frames, fragments)."""
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Frame):
                if event.opcode is Opcode.TEXT or event.opcode is Opcode.CONT:
                    if event.fin and not self.parts:
                        self.on_text(event.data)
                    elif event.fin:
                        self.on_text(b"".join([*self.parts, event.data]))
                        self.parts = []
                    else:
                        self.parts.append(event.data)
            elif not self.open.done():  # the handshake's response
                if protocol.handshake_exc is not None:
                    self.open.set_exception(protocol.handshake_exc)
                else:
                    self.open.set_result(None)
                    # Frames are read here from now on, unless bytes came after the
                    # response (the server sends nothing before the client does).
                    self.fast = not protocol.reader.buffer
        self.flush()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.open.done():
            self.open.set_exception(exc or ConnectionError("closed"))

    def send(self, text: str | bytes) -> None:
        """Write a text message: one masked frame (RFC 6455, 5.2)."""
        data = text.encode() if isinstance(text, str) else text
        transport = self.transport
        if transport is None or transport.is_closing() or self.protocol.state is not State.OPEN:
            return
        size = len(data)
        if size < 126:
            head = bytes((0x81, 0x80 | size))
        elif size < 65536:
            head = bytes((0x81, 0xFE)) + size.to_bytes(2)
        else:
            head = bytes((0x81, 0xFF)) + size.to_bytes(8)
        transport.write(head + self.mask + apply_mask(data, self.mask))

    def flush(self) -> None:
        transport = self.transport
        if transport is not None and not transport.is_closing():
            for data in self.protocol.data_to_send():
                if data:
                    transport.write(data)

    def close(self) -> None:
        """Say goodbye (a close frame), then hang up."""
        if self.transport is not None and not self.transport.is_closing():
            self.protocol.send_close(1000)
            self.flush()
            self.transport.close()


class Question(msgspec.Struct):
    id: str


class Received(msgspec.Struct):
    """What a player reads of a frame (the JSON is parsed whole, the other fields
    checked and skipped): its kind, the seat's sequence number, the acknowledgement, the
    questions opened and closed (a snapshot's open ones: ``questions``)."""

    type: str
    seq: int = 0
    ack: int | None = None
    opened: list[Question] = []
    closed: list[str] = []
    questions: list[Question] = []


read_frame = msgspec.json.Decoder(Received).decode
write_answer = msgspec.json.Encoder().encode


class Player:
    """A scripted player: it parses every frame, checks that its seat's updates come
    in sequence (each the last plus 1), keeps its open questions and answers the first
    one the moment it may (while the Lore load runs)."""

    def __init__(self, table: Table, gate: Gate) -> None:
        self.table = table
        self.gate = gate
        self.seq = 0
        self.pending: list[str] = []
        self.socket: Socket | None = None
        self.held = False  # waiting for the Lore load's turn
        self.asked: str | None = None  # the question answered last

    def on_text(self, data: bytes) -> None:
        frame = read_frame(data)
        kind = frame.type
        table, gate = self.table, self.gate
        if gate.counting:
            table.frames += 1
        if kind == "update":
            if frame.seq != self.seq + 1:  # (something missed, or twice)
                table.gaps += 1
            self.seq = frame.seq
            if frame.ack is not None and gate.counting:  # (it rides on the update)
                table.answers += 1
            opened = frame.opened
            if opened:
                if table.sent is not None:  # the next question of the answer sent last
                    if gate.counting:
                        table.latencies.append(time.perf_counter() - table.sent)
                        table.asked.append(table.sent)
                    table.sent = None
                self.pending += [q.id for q in opened]
            for gone in frame.closed:
                if gone in self.pending:
                    self.pending.remove(gone)
                if gone == self.asked:
                    self.asked = None  # answered: not to be asked again
        elif kind == "snapshot":
            self.seq = frame.seq
            self.pending += [q.id for q in frame.questions]
        elif kind == "ack" and gate.counting:
            table.answers += 1
        elif kind == "error":  # refused (too fast, say): asked again a little later
            table.errors += 1
            if self.asked is not None and self.asked not in self.pending:
                self.pending.insert(0, self.asked)
                asyncio.get_running_loop().call_later(RETRY, self.go)
            return
        if self.pending:
            self.go()

    def go(self) -> None:
        """Answer the first open question, or wait for the Lore load's turn."""
        gate = self.gate
        if not gate.lore.is_set():
            if not self.held:
                self.held = True
                gate.held_players.append(self)
            return
        self.held = False
        if gate.stop or not self.pending or self.socket is None:
            return
        query = self.asked = self.pending.pop(0)
        self.table.sent = time.perf_counter()
        message = {"type": "answer", "id": query, "values": {"move": "roll"}, "seq": self.seq}
        self.socket.send(write_answer(message))


async def player(port: int, session: str, token: str, table: Table, gate: Gate) -> Socket:
    found = Player(table, gate)
    socket = found.socket = await Socket.connect(port, f"/ws?session={session}", found.on_text)
    socket.send(json.dumps({"type": "hello", "token": token}))
    return socket


@dataclass
class Echoes:
    round_trips: int = 0
    latencies: list[float] = field(default_factory=list)


class EchoGroup:
    """Three connections to the echo server passing one message round, one in flight:
    each reply is parsed like a player's frame, then the next socket sends."""

    MESSAGE = write_answer({"type": "answer", "id": "12//0", "values": {"move": "roll"}, "seq": 7})

    def __init__(self, echoes: Echoes, gate: Gate) -> None:
        self.echoes = echoes
        self.gate = gate
        self.sockets: list[Socket] = []
        self.turn = 0
        self.sent = 0.0

    def on_text(self, data: bytes) -> None:
        read_frame(data)  # parsed as the players parse their frames
        if self.gate.counting:
            self.echoes.latencies.append(time.perf_counter() - self.sent)
            self.echoes.round_trips += 1
        self.turn += 1
        self.go()

    def go(self) -> None:
        gate = self.gate
        if not gate.echo.is_set():
            gate.held_echoes.append(self)
            return
        if gate.stop:
            return
        self.sent = time.perf_counter()
        self.sockets[self.turn % 3].send(self.MESSAGE)


async def echo_group(port: int, echoes: Echoes, gate: Gate) -> list[Socket]:
    group = EchoGroup(echoes, gate)
    group.sockets = [await Socket.connect(port, "/", group.on_text) for _ in range(3)]
    gate.held_echoes.append(group)
    return group.sockets


async def run_both(
    port: int,
    echo_port: int,
    tokens: list[tuple[str, list[str]]],
    seconds: float,
    slice_: float,
    pids: tuple[int, int],
) -> tuple[list[Table], Echoes, list[float], list[float]]:
    """Both loads on the same connections count, taking turns in slices of ``slice_``
    seconds (each measured for ``seconds`` in all), so that both see the same machine:
    others' work on it comes and goes."""
    gate = Gate(pids=pids)
    tables = [Table() for _ in tokens]
    echoes = Echoes()
    connecting = [
        player(port, session, token, table, gate)
        for table, (session, group) in zip(tables, tokens, strict=True)
        for token in group
    ]
    sockets = list(await asyncio.gather(*connecting))
    for _ in tokens:
        sockets += await echo_group(echo_port, echoes, gate)
    await asyncio.sleep(1.0)  # the players' snapshots came
    for event in (gate.lore, gate.echo):  # warm both up
        gate.release(event)
        await asyncio.sleep(2.0)
        event.clear()
    settle = 0.5  # the other load's last replies drain, the held messages go out
    left = seconds
    while left > 0:
        turn = min(slice_, left)
        for event in (gate.lore, gate.echo):
            which = 0 if event is gate.lore else 1
            gate.release(event)
            await asyncio.sleep(settle)
            gate.counting = True
            before = cpu_seconds(gate.pids[which])
            mine = time.process_time()
            await asyncio.sleep(turn)
            gate.counting = False
            gate.cpu[which] += cpu_seconds(gate.pids[which]) - before
            gate.client[which] += time.process_time() - mine
            if event is gate.lore:  # every answer's next question came (but the last few)
                now = time.perf_counter()
                for table in tables:
                    if table.sent is not None and now - table.sent > STUCK:
                        table.stuck += 1
            event.clear()
        left -= turn
    gate.stop = True
    for socket in sockets:
        socket.close()
    return tables, echoes, gate.cpu, gate.client


# ------------------------------------------------------------ the report


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(
    sessions: int, seconds: float, slice_: float, trace: Path | None = None, workers: int = 1
) -> Figures:
    figures = Figures(sessions, seconds, workers=workers)
    folder = Path(tempfile.mkdtemp(prefix="lore-bench-"))
    events = trace
    echo = subprocess.Popen([sys.executable, "-c", ECHO_SERVER], stdout=subprocess.PIPE)
    server = None
    try:
        assert echo.stdout is not None
        echo_port = int(echo.stdout.readline())
        if events is not None:  # (a run before may have left more workers' files)
            for stale in [events, *events.parent.glob(f"{glob.escape(events.name)}.w*")]:
                stale.unlink(missing_ok=True)
        server, port = start_server(folder, endless_example(folder), events, workers)
        for _ in range(workers):  # each worker checks and compiles the program once
            create(port)
        time.sleep(1.0)
        before = rss(server.pid)
        tokens = [create(port) for _ in range(sessions)]
        time.sleep(1.0)
        figures.idle_bytes_per_session = (rss(server.pid) - before) / sessions
        pids = (server.pid, echo.pid)
        loads = run_both(port, echo_port, tokens, seconds, slice_, pids)
        # The clients' own loop is uvloop's too (as ``lore serve``'s): the least CPU per
        # frame read or written, for both loads alike.
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            tables, echoes, cpu, client = runner.run(loads)
        latencies = [x for t in tables for x in t.latencies]
        figures.answers_per_s = sum(t.answers for t in tables) / seconds
        figures.p50_ms = percentile(latencies, 0.50) * 1000
        figures.p99_ms = percentile(latencies, 0.99) * 1000
        figures.errors = sum(t.errors for t in tables)
        figures.gaps = sum(t.gaps for t in tables)
        figures.stuck = sum(t.stuck for t in tables)
        figures.echo_round_trips_per_s = echoes.round_trips / seconds
        figures.echo_p50_ms = percentile(echoes.latencies, 0.50) * 1000
        figures.echo_p99_ms = percentile(echoes.latencies, 0.99) * 1000
        answers = sum(t.answers for t in tables)
        figures.cpu_us_per_answer = cpu[0] / max(1, answers) * 1e6
        figures.echo_cpu_us_per_round_trip = cpu[1] / max(1, echoes.round_trips) * 1e6
        figures.client_cpu_us_per_answer = client[0] / max(1, answers) * 1e6
        figures.client_cpu_us_per_round_trip = client[1] / max(1, echoes.round_trips) * 1e6
        figures.frames_per_answer = sum(t.frames for t in tables) / max(1, answers)
        figures.ratio = figures.answers_per_s / max(1.0, figures.echo_round_trips_per_s)
        if events is not None:
            time.sleep(1.5)  # (the server writes its trace about once a second)
            answers_at = [(a, x) for t in tables for a, x in zip(t.asked, t.latencies, strict=True)]
            found = read_trace(events)
            with events.open("a", encoding="utf-8") as out:  # (kept beside the server's)
                out.writelines(f"answer {a:.6f} {x:.6f}\n" for a, x in answers_at)
            figures.notes += explain(answers_at, found)
    finally:
        echo.kill()
        if server is not None:
            server.kill()
            server.wait()
        shutil.rmtree(folder, ignore_errors=True)
    return figures


# ------------------------------------------------------------ the trace (--trace)

Event = tuple[str, float, float, str]  # kind, start, seconds, detail
LONG = 0.010  # seconds: an event this long may hold an answer back visibly


def read_trace(path: Path) -> list[Event]:
    """The events of the server's trace: its file's, or each worker's (``FILE.w1`` ...)."""
    found: list[Event] = []
    files = [path, *sorted(path.parent.glob(f"{glob.escape(path.name)}.w*"))]
    for part in files:
        if not part.exists():  # (a server that does not trace)
            continue
        for line in part.read_text(encoding="utf-8").splitlines():
            kind, start, seconds, *detail = line.split(" ")
            found.append((kind, float(start), float(seconds), " ".join(detail)))
    return sorted(found, key=lambda event: event[1])


def explain(answers: list[tuple[float, float]], events: list[Event]) -> list[str]:
    """What the slowest answers (the 1% from p99 up) share: for each kind of server event
    (collector passes by generation, loop stalls, the store's commits, snapshots taken,
    steps of a room), how many there were and how long, and the share of the slow answers
    and of all answers that waited while one at least ``LONG`` long ran."""
    if not answers:
        return ["trace: no answers"]
    ordered = sorted(x for _, x in answers)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    slow = [(a, x) for a, x in answers if x >= p99]
    lines = [f"trace: {len(answers)} answers, {len(slow)} from p99 ({p99 * 1000:.1f} ms) up"]
    lines.append(
        "  event      count  total s   p50 ms   p99 ms   max ms  long  slow-answers  all-answers"
    )
    kinds = sorted({e[0] for e in events})
    for kind in kinds:
        found = [e for e in events if e[0] == kind]
        took = sorted(e[2] for e in found)
        long = sorted((e[1], e[1] + e[2]) for e in found if e[2] >= LONG)
        lines.append(
            f"  {kind:8s} {len(found):7d} {sum(took):8.2f} {percentile(took, 0.5) * 1000:8.1f}"
            f" {percentile(took, 0.99) * 1000:8.1f} {took[-1] * 1000:8.1f} {len(long):5d}"
            f"  {overlapping(slow, long):11.1%}  {overlapping(answers, long):11.1%}"
        )
    passes = sorted(float(e[3].split()[0]) for e in events if e[0].startswith("gc") and e[3])
    if passes:
        lines.append(
            f"  collector passes' CPU time: p50 {percentile(passes, 0.5) * 1000:.1f} ms,"
            f" max {passes[-1] * 1000:.1f} ms, {sum(passes):.2f} s in all"
        )
    # When the slow answers came: a few bursts (stalls) or spread out (queueing)
    start = min(a for a, _ in answers)
    by_second: dict[int, int] = {}
    for a, _ in slow:
        by_second[int(a - start)] = by_second.get(int(a - start), 0) + 1
    busiest = sorted(by_second.items(), key=lambda item: -item[1])[:8]
    lines.append(
        "  slow answers by second of the run (busiest): "
        + ", ".join(f"{second}s:{count}" for second, count in busiest)
    )
    return lines


def overlapping(answers: list[tuple[float, float]], spans: list[tuple[float, float]]) -> float:
    """The share of ``answers`` (start, latency) that overlap one of ``spans`` (sorted)."""

    if not answers:
        return 0.0
    starts = [s for s, _ in spans]
    widest = max((e - s for s, e in spans), default=0.0)
    hit = 0
    for asked, latency in answers:
        done = asked + latency
        i = bisect.bisect_left(starts, done)
        while i > 0 and starts[i - 1] >= asked - widest:
            i -= 1
            if spans[i][1] > asked:
                hit += 1
                break
    return hit / len(answers)


def report(figures: Figures) -> str:
    def verdict(ok: bool) -> str:
        return "PASS" if ok else "FAIL"

    return "\n".join(
        [
            f"sessions: {figures.sessions} x 3 players, {figures.seconds:g} s"
            f" (lore serve --workers {figures.workers})",
            f"  answers/s            {figures.answers_per_s:10.1f}",
            f"  echo round trips/s   {figures.echo_round_trips_per_s:10.1f}  (plain websockets)",
            f"  ratio                {figures.ratio:10.2f}  target >= {TARGET_RATIO}"
            f"  {verdict(figures.ratio >= TARGET_RATIO)}",
            f"  latency p50          {figures.p50_ms:10.1f} ms",
            f"  latency p99          {figures.p99_ms:10.1f} ms  target < {TARGET_P99 * 1000:g} ms"
            f"  {verdict(figures.p99_ms < TARGET_P99 * 1000)}",
            f"  echo round trip p99  {figures.echo_p99_ms:10.1f} ms  (the same load's floor;"
            f" p50 {figures.echo_p50_ms:.1f} ms)",
            f"  server CPU/answer    {figures.cpu_us_per_answer:10.0f} us"
            f"  (echo server: {figures.echo_cpu_us_per_round_trip:.0f} us per round trip)",
            f"  client CPU/answer    {figures.client_cpu_us_per_answer:10.0f} us"
            f"  (echo clients: {figures.client_cpu_us_per_round_trip:.0f} us per round trip)",
            f"  frames/answer        {figures.frames_per_answer:10.2f}"
            "     (read by the players; the echo's clients read 1 per round trip)",
            f"  memory/idle session  {figures.idle_bytes_per_session / 1024:10.1f} KiB"
            f"  target < 1024 KiB  {verdict(figures.idle_bytes_per_session < TARGET_IDLE)}",
            f"  errors               {figures.errors:10d}"
            f"  (refused; updates out of sequence: {figures.gaps},"
            f" answers whose next question did not come: {figures.stuck})",
            *figures.notes,
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[200])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--slice", type=float, default=5.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--workers",
        type=int,
        default=len(os.sched_getaffinity(0)),
        help="the server's worker processes (default: the machine's cores)",
    )
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        help="have the server record collector passes, loop stalls, commits and snapshots"
        " in FILE (LORE_TRACE; then each answer's start and latency), and say which of them"
        " the slowest answers waited for",
    )
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    results = []
    for sessions in args.sessions:
        try:
            trace = args.trace.resolve() if args.trace is not None else None
            figures = measure(sessions, args.seconds, args.slice, trace, args.workers)
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 1
        results.append(figures)
        if not args.json:
            print(report(figures), flush=True)
    if args.json:
        print(json.dumps([asdict(f) for f in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
