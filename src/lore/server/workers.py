"""Serving with worker processes: ``lore serve --workers N``.

One server process runs its sessions on one core. With ``--workers N`` the sessions are
spread over N worker processes, each a whole server (the app, the hub, the rooms, a
connection to the one SQLite store) holding the sessions it owns: a session's owner is
``owner(session, N)``, a hash of its id, so every process knows it without asking.

The front process listens and reads nothing: it peeks at a new connection's request
line (``MSG_PEEK``: the bytes stay in the socket for the worker to read) and hands the
socket to the worker that owns the session the request names in its ``session`` query
parameter (``/ws?session=ID``, ``/play?session=ID``, ``/api/save?session=ID``), or to the
workers in turn when it names none, with ``socket.send_fds`` over a Unix socket of its
own per worker. The worker serves the connection as if it had accepted it; nothing goes
through the front after that. So that each request of a connection is routed by itself,
a worker closes a connection after each HTTP response (``Connection: close``; a
WebSocket is one request). A client that said hello on a worker that does not own its
session is told where it is (error ``elsewhere``, with the session's id) and connects
again naming it (``docs/protocol.md``).

A worker makes sessions only with ids it owns, and restores only those at start-up. The
front holds an exclusive lock on the store's file itself (``flock``: whatever path, hard
link or symbolic link names it) that its workers inherit, and workers die with the front
(``PR_SET_PDEATHSIG``): after a ``kill -9`` of the front, a new one waits until the lock is
free, so that no two processes ever own one session. A worker that dies on its own is
started again (it restores its sessions).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

log = logging.getLogger("lore.server")

PEEK = 8192  # bytes of a request looked at for its request line
PEEK_WAIT = 10.0  # seconds a connection has to send its request line
PEEK_AGAIN = 0.005  # seconds before the first look again at a request line not all come
PEEK_SLOWEST = 0.25  # seconds between such looks at the most
MAX_PEEKING = 10_000  # connections waiting for their request lines (more are refused)
MAX_PENDING = 4096  # connections waiting for a worker's channel (more are dropped)
LOCK_WAIT = 30.0  # seconds to wait for an earlier server's processes to be gone
RESTART_WAIT = 1.0  # seconds before a worker that died is started again
STOP_WAIT = 30.0  # seconds workers have to stop cleanly before they are killed
INTERRUPT_WAIT = 1.0  # seconds workers interrupted with the front have to stop by themselves
CONNECTION = b"c"  # the message that carries a connection's socket
PR_SET_PDEATHSIG = 1


def owner(session: str, workers: int) -> int:
    """The worker that owns a session."""
    return zlib.crc32(session.encode()) % workers


def session_named(head: bytes) -> str | None:
    """The session a request names (its ``session`` query parameter), from the request's
    first bytes; None when it names none, or its request line is not all there."""
    line, found, _ = head.partition(b"\r\n")
    if not found:
        return None
    parts = line.split(b" ")
    if len(parts) != 3:
        return None
    try:
        query = urlsplit(parts[1].decode("ascii")).query
    except (UnicodeDecodeError, ValueError):
        return None
    names = parse_qs(query).get("session")
    return names[0] if names else None


class StoreLocked(Exception):
    """Another server's processes still hold the store."""


def lock_store(db: Path, wait: float = LOCK_WAIT) -> int:
    """Lock the store's database file for this server; its file descriptor, which the
    workers inherit (the lock holds while any of them has it open). The lock is on the
    file, not on a name beside it: a second server given a hard link to the same file, or
    a symbolic link, is refused too. (``flock`` locks apart from SQLite's own ``fcntl``
    locks. SQLite's are dropped when its process closes any descriptor of the file, so
    the descriptor is kept open while the store is: closed only once it has stopped.)
    StoreLocked also when the file cannot be opened for writing, saying why."""
    path = db
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:
        raise StoreLocked(f"cannot open {db} for writing: {error.strerror}") from None
    start = time.monotonic()
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            waited = time.monotonic() - start
            if waited > 1.0 and not told:
                print(f"lore serve: waiting for the server that uses {db} to stop", file=sys.stderr)
                told = True
            if waited > wait:
                os.close(fd)
                raise StoreLocked(
                    f"{db} is used by another lore serve (it holds its lock)"
                ) from None
            time.sleep(0.05)


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process when its parent dies (Linux), and exit now if
    it already has."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


# ------------------------------------------------------------ the front


@dataclass
class Worker:
    index: int
    channel: socket.socket  # the front's end of the worker's Unix socket
    process: subprocess.Popen[bytes]
    sessions: int | None = None  # how many it restored, once it said it is ready
    pending: deque[socket.socket] = field(default_factory=deque)  # waiting for its channel


@dataclass
class Front:
    """The front process: starts the workers, hands them connections, starts again one
    that died, stops them when it stops."""

    listener: socket.socket
    count: int
    argv: Callable[[int, int], list[str]]  # a worker's command line, by index and fd
    keep_fds: tuple[int, ...] = ()  # (the store's lock: inherited by every worker)
    workers: list[Worker] = field(default_factory=list)
    turn: int = 0
    failed: bool = False  # a worker could not start
    started: asyncio.Event = field(default_factory=asyncio.Event)
    peeking: set[Peek] = field(default_factory=set)
    # Stopped by SIGINT: at a terminal (Ctrl-C) the workers had it too, and stop by
    # themselves; they are told to only if they have not within ``INTERRUPT_WAIT``.
    interrupted: bool = False

    def start_worker(self, index: int) -> Worker:
        front, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        front.setblocking(False)
        process = subprocess.Popen(
            self.argv(index, theirs.fileno()), pass_fds=(theirs.fileno(), *self.keep_fds)
        )
        theirs.close()
        worker = Worker(index, front, process)
        asyncio.get_running_loop().add_reader(front.fileno(), self.heard, worker)
        return worker

    def heard(self, worker: Worker) -> None:
        """A worker's message: ``ready N`` once it restored its N sessions."""
        try:
            data = worker.channel.recv(256)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # it is gone (``watch`` starts it again)
            asyncio.get_running_loop().remove_reader(worker.channel.fileno())
            return
        if data.startswith(b"ready "):
            worker.sessions = int(data[6:])
            if all(w.sessions is not None for w in self.workers):
                self.started.set()

    async def run(self, announce: Callable[[int], None]) -> int:
        """Serve until stopped (SIGTERM, SIGINT); 1 when a worker could not start."""
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(signum, self.signalled, signum, stop)
        self.workers = [self.start_worker(i) for i in range(self.count)]
        watching = asyncio.create_task(self.watch(stop))
        starting = asyncio.create_task(self.started.wait())
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait([starting, stopped], return_when=asyncio.FIRST_COMPLETED)
        if self.started.is_set():
            self.listener.setblocking(False)
            loop.add_reader(self.listener.fileno(), self.accept)
            announce(sum(w.sessions or 0 for w in self.workers))
            await stopped
        watching.cancel()
        starting.cancel()
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(self.listener.fileno())
        self.listener.close()
        await self.stop_workers()
        return 1 if self.failed else 0

    def signalled(self, signum: int, stop: asyncio.Event) -> None:
        self.interrupted = self.interrupted or signum == signal.SIGINT
        stop.set()

    def tell(self, index: int, message: bytes) -> None:
        with contextlib.suppress(OSError):
            self.workers[index].channel.send(message)

    async def watch(self, stop: asyncio.Event) -> None:
        """Start a worker again when it died (not while starting: a worker that cannot
        start stops the front)."""
        while True:
            await asyncio.sleep(0.2)
            for index, worker in enumerate(self.workers):
                code = worker.process.poll()
                if code is None:
                    continue
                if not self.started.is_set():
                    print(f"lore serve: worker {index} could not start", file=sys.stderr)
                    self.failed = True
                    stop.set()
                    return
                print(
                    f"lore serve: worker {index} stopped ({code}); starting it again",
                    file=sys.stderr,
                    flush=True,
                )
                self.forget(worker)
                await asyncio.sleep(RESTART_WAIT)
                self.workers[index] = self.start_worker(index)
                self.workers[index].sessions = worker.sessions

    async def stop_workers(self) -> None:
        if self.interrupted:
            deadline = time.monotonic() + INTERRUPT_WAIT
            while time.monotonic() < deadline and any(
                w.process.poll() is None for w in self.workers
            ):
                await asyncio.sleep(0.05)
        for worker in self.workers:
            if worker.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    worker.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT
        for worker in self.workers:
            left = max(0.0, deadline - time.monotonic())
            try:
                await asyncio.to_thread(worker.process.wait, left)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                await asyncio.to_thread(worker.process.wait)
            self.forget(worker)

    def forget(self, worker: Worker) -> None:
        """Close a worker's channel (it is gone), and the connections waiting for it."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(worker.channel.fileno())
        with contextlib.suppress(ValueError, OSError):
            loop.remove_writer(worker.channel.fileno())
        worker.channel.close()
        while worker.pending:
            worker.pending.popleft().close()

    # ------------------------------------------------------------ connections

    def accept(self) -> None:
        for _ in range(64):  # (then the loop's other work has a turn)
            try:
                connection, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # out of file descriptors, say: the next one may do
                log.warning("cannot accept a connection: %s", error)
                return
            connection.setblocking(False)
            with contextlib.suppress(OSError):
                connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            peek = Peek(connection, asyncio.get_running_loop().time() + PEEK_WAIT)
            if len(self.peeking) >= MAX_PEEKING:  # (too many waiting: refused, not misrouted)
                connection.close()
                continue
            self.peeking.add(peek)
            self.look(peek)

    def look(self, peek: Peek) -> None:
        """Route a connection once its request line has come (or its time is up)."""
        loop = asyncio.get_running_loop()
        peek.timer = None
        try:
            head = peek.connection.recv(PEEK, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            head = None
        except OSError:
            self.drop(peek)
            return
        if head == b"":  # closed before it asked anything
            self.drop(peek)
        elif head is not None and (b"\r\n" in head or len(head) >= PEEK):
            self.route(peek, head)
        elif loop.time() > peek.deadline:
            self.route(peek, b"")  # (the worker's own time-outs deal with it)
        elif head is None:  # nothing yet: wait until something comes (or the time is up)
            loop.add_reader(peek.connection.fileno(), self.readable, peek)
            peek.reading = True
            peek.timer = loop.call_at(peek.deadline, self.expire, peek)
        else:  # part of the line: look again soon (it stays readable meanwhile), then
            # less and less often (a client sending a byte at a time costs the front little)
            peek.timer = loop.call_later(peek.wait, self.look, peek)
            peek.wait = min(peek.wait * 2, PEEK_SLOWEST)

    def readable(self, peek: Peek) -> None:
        self.stop_waiting(peek)
        self.look(peek)

    def expire(self, peek: Peek) -> None:
        peek.timer = None
        self.stop_waiting(peek)
        self.route(peek, b"")

    def stop_waiting(self, peek: Peek) -> None:
        if peek.reading:
            asyncio.get_running_loop().remove_reader(peek.connection.fileno())
            peek.reading = False
        if peek.timer is not None:
            peek.timer.cancel()
            peek.timer = None

    def route(self, peek: Peek, head: bytes) -> None:
        session = session_named(head)
        if session is not None:
            index = owner(session, self.count)
        else:
            index = self.turn
            self.turn = (self.turn + 1) % self.count
        self.hand(self.workers[index], peek.connection)
        self.drop(peek)

    def hand(self, worker: Worker, connection: socket.socket) -> None:
        """Give a worker a connection (a duplicate of its descriptor: the front closes
        its own), after those still waiting for it."""
        if worker.pending:
            if len(worker.pending) < MAX_PENDING:
                worker.pending.append(socket.socket(fileno=os.dup(connection.fileno())))
            return
        try:
            socket.send_fds(worker.channel, [CONNECTION], [connection.fileno()])
        except BlockingIOError:  # its channel is full: the rest wait until it is not
            worker.pending.append(socket.socket(fileno=os.dup(connection.fileno())))
            asyncio.get_running_loop().add_writer(worker.channel.fileno(), self.flush, worker)
        except OSError as error:  # the worker is gone: the client tries again
            log.warning("cannot hand a connection to worker %d: %s", worker.index, error)

    def flush(self, worker: Worker) -> None:
        """Hand a worker the connections that waited for its channel."""
        while worker.pending:
            connection = worker.pending[0]
            try:
                socket.send_fds(worker.channel, [CONNECTION], [connection.fileno()])
            except BlockingIOError:
                return
            except OSError:
                pass  # (gone: the client tries again)
            worker.pending.popleft().close()
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_writer(worker.channel.fileno())

    def drop(self, peek: Peek) -> None:
        self.stop_waiting(peek)
        self.peeking.discard(peek)
        peek.connection.close()


@dataclass(eq=False)
class Peek:
    """A connection whose request line the front waits for."""

    connection: socket.socket
    deadline: float
    wait: float = PEEK_AGAIN  # before the next look at a line not all come
    timer: asyncio.TimerHandle | None = None
    reading: bool = False  # waiting for its first bytes


def listen(host: str, port: int) -> socket.socket:
    """The front's listening socket."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
        listener.listen(4096)
    except OSError:
        listener.close()
        raise
    return listener


# ------------------------------------------------------------ a worker


class Channel:
    """A worker's end of its Unix socket to the front: connections come in, ``ready``
    goes out."""

    def __init__(
        self,
        fd: int,
        adopt: Callable[[socket.socket], None],
        told: Callable[[bytes], None],
        gone: Callable[[], None],
    ) -> None:
        self.socket = socket.socket(fileno=fd)
        self.socket.setblocking(False)
        self.adopt = adopt
        self.told = told
        self.gone = gone

    def open(self) -> None:
        asyncio.get_running_loop().add_reader(self.socket.fileno(), self.receive)

    def ready(self, sessions: int) -> None:
        self.socket.send(b"ready %d" % sessions)

    def receive(self) -> None:
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self.socket, 256, 4)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data, fds = b"", []
            if not data and not fds:  # the front is gone
                with contextlib.suppress(ValueError, OSError):
                    asyncio.get_running_loop().remove_reader(self.socket.fileno())
                self.gone()
                return
            for fd in fds:
                self.adopt(socket.socket(fileno=fd))
            if data != CONNECTION:
                self.told(data)
