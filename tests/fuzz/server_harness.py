"""Sending one probe to a real server and judging what came of it.

``Target`` starts the server (``server_child``) in a process of its own on a loopback
port, with its log in a file, and a canary: a GM of a session of its own that pings the
server every 0.2 s from a thread and keeps how long each pong took. ``Target.send`` sends
a probe (over a raw socket: the campaign writes every byte, masks and lengths included)
and ``Target.judge`` tells what went wrong meanwhile: a Python traceback in the server's
log, a 500, a canary that waited longer than its bound, a server whose memory grew past
its bound, or a server that died.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

from lore.server.connection import Limits
from tests.fuzz.harness import _exception_place
from tests.fuzz.server_cases import Frame, Probe

REPO = Path(__file__).resolve().parents[2]
TRACEBACK = "Traceback (most recent call last)"
SYNC_REF = 4_242_424_242  # the ping after a probe's frames: its pong ends the probe
BURST, RATE = Limits().burst, Limits().rate  # the server's rate limit of messages
VICTIMS = ("paper", "blackpoker")  # the sessions attacked, in turn


@dataclass(frozen=True)
class Bounds:
    canary: float = 1.0  # seconds a canary's ping may wait for its pong
    memory: int = 300 * 1024 * 1024  # bytes of the server's resident memory


@dataclass(frozen=True)
class Seats:
    """A session the campaign made: its id and its seats' tokens."""

    session: str
    tokens: dict[str, str]  # GM, player

    def fill(self, data: bytes) -> bytes:
        data = data.replace(b"@SESSION@", self.session.encode())
        data = data.replace(b"@GM@", self.tokens["GM"].encode())
        return data.replace(b"@PLAYER@", self.tokens["player"].encode())


@dataclass(frozen=True)
class Reply:
    """What a probe got: an HTTP status, or how its WebSocket ended, the error codes."""

    how: str  # answered, closed CODE, eof, timeout, refused (no handshake), HTTP STATUS
    status: int = 0  # the HTTP status (0: none)
    codes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Failure:
    kind: str  # traceback, 500, canary, memory, died
    signature: str  # what tells two failures apart
    detail: str


@dataclass
class Canary:
    """The GM of a session of its own, pinging: each ping's (time sent, seconds waited)."""

    url: str
    token: str
    bound: float
    pings: list[tuple[float, float]] = field(default_factory=list)  # (answered, waited)
    pending: float | None = None  # when the ping not answered yet was sent
    lost: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                with connect(self.url, open_timeout=10, max_size=None) as socket_:
                    socket_.send(json.dumps({"type": "hello", "token": self.token}))
                    self.ping_loop(socket_)
            except Exception as error:  # (any way the canary lost its server)
                if not self.stop.is_set():
                    self.lost.append(f"{type(error).__name__}: {error}")
                    self.pings.append((time.monotonic(), float("inf")))
                    self.pending = None
                    self.stop.wait(0.5)

    def ping_loop(self, socket_: ClientConnection) -> None:
        ref = 0
        while not self.stop.is_set():
            ref += 1
            sent = self.pending = time.monotonic()
            socket_.send(json.dumps({"type": "ping", "ref": ref}))
            while True:
                left = sent + max(self.bound * 5, 5) - time.monotonic()
                frame = json.loads(socket_.recv(timeout=max(left, 0.01)))
                if frame.get("type") == "pong" and frame.get("ref") == ref:
                    break
            self.pings.append((time.monotonic(), time.monotonic() - sent))
            self.pending = None
            self.stop.wait(0.2)

    def worst_since(self, moment: float) -> float:
        """The longest wait of a ping answered since ``moment``, or of the one waiting."""
        waited = [seconds for done, seconds in self.pings[-200:] if done >= moment]
        pending = self.pending
        if pending is not None:
            waited.append(time.monotonic() - pending)
        return max(waited, default=0.0)

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(15)


class Target:
    """``with Target(bounds) as target:`` a server and its canary, stopped at the end."""

    def __init__(self, bounds: Bounds | None = None, faulty: bool = False) -> None:
        self.bounds = bounds or Bounds()
        self.faulty = faulty
        self.folder = Path(tempfile.mkdtemp(prefix="lore-fuzz-server-"))
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.log_at = 0
        self.canary: Canary | None = None
        self.victim: Seats | None = None
        self.renewals = 0
        self.last_check = time.monotonic()

    # ------------------------------------------------------------ the server

    def __enter__(self) -> Target:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)  # (failures keep what they need)

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def start(self) -> None:
        (self.folder / "port").unlink(missing_ok=True)
        argv = [sys.executable, "-m", "tests.fuzz.server_child", str(self.folder)]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [*argv, *(["--faulty"] if self.faulty else [])],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=REPO,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        deadline = time.monotonic() + 60
        while not (self.folder / "port").exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not start: {self.log_text()}")
            time.sleep(0.05)
        self.port = int((self.folder / "port").read_text(encoding="utf-8"))
        self.log_at = self.log.stat().st_size
        seats = self.create()
        self.canary = Canary(self.ws_url(seats.session), seats.tokens["GM"], self.bounds.canary)
        self.canary.start()
        self.victim = self.create()
        self.last_check = time.monotonic()

    def stop(self) -> None:
        if self.canary is not None:
            self.canary.close()
            self.canary = None
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(20)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(10)
            self.process = None

    def restart(self) -> None:
        self.stop()
        for name in ("sessions.db", "sessions.db-wal", "sessions.db-shm"):
            (self.folder / name).unlink(missing_ok=True)
        self.start()

    def ws_url(self, session: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws?session={session}"

    def create(self, source: str = "paper") -> Seats:
        """A new session of ``source`` (an example the server was given): its id and its
        GM's and (first) player's tokens."""
        body = json.dumps({"source": source}).encode()
        reply = self.http(
            b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
            30,
        )
        status, body = reply
        if status != 201:
            raise RuntimeError(f"could not start a session: {status} {body[:300]!r}")
        made = json.loads(body)
        tokens: dict[str, str] = {}
        for seat in made["seats"]:
            link = urllib.parse.urlsplit(seat["link"])
            tokens.setdefault("GM" if seat["seat"] == "GM" else "player", link.fragment)
        return Seats(made["session"], tokens)

    def asked(self) -> tuple[str, int, dict[str, Any]]:
        """The id of the player's open question (``0/0/0`` if none), the seat's seq, and
        an answer to it as the client would send it (its first input's last choice: in a
        card game, a card's id as the seat sees it)."""
        assert self.victim is not None
        try:
            with connect(self.ws_url(self.victim.session), open_timeout=5, max_size=None) as ws:
                ws.send(json.dumps({"type": "hello", "token": self.victim.tokens["player"]}))
                for _ in range(10):
                    frame = json.loads(ws.recv(timeout=5))
                    if frame.get("type") == "snapshot":
                        questions = frame.get("questions") or [{"id": "0/0/0"}]
                        return str(questions[0]["id"]), int(frame["seq"]), _answer(questions[0])
        except Exception:  # (a probe may have revoked the seat: any question, then)
            pass
        return "0/0/0", 0, {}

    def renew_victim(self) -> None:
        """A new session attacked: the paper and BlackPoker (cards in zones, option ids
        that name cards) in turn."""
        self.renewals += 1
        self.victim = self.create(VICTIMS[self.renewals % len(VICTIMS)])

    def rss(self) -> int:
        """The server's resident memory in bytes (0 when it cannot be read)."""
        if self.process is None:
            return 0
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return 0
        line = next((x for x in status.splitlines() if x.startswith("VmRSS:")), "VmRSS: 0 kB")
        return int(line.split()[1]) * 1024

    def log_text(self) -> str:
        try:
            return self.log.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return ""

    # ------------------------------------------------------------ sending

    def send(self, probe: Probe) -> Reply:
        assert self.victim is not None
        if probe.kind in ("http", "upload"):
            status, _body = self.http(self.victim.fill(probe.raw), probe.wait)
            return Reply(f"HTTP {status}", status)
        return self.websocket(probe)

    def http(self, raw: bytes, wait: float) -> tuple[int, bytes]:
        """Send a raw HTTP request; its status (0: none came) and body."""
        data = b""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=wait) as sock:
                sock.sendall(raw)
                while chunk := sock.recv(65536):
                    data += chunk
        except OSError:
            pass
        head, _, body = data.partition(b"\r\n\r\n")
        words = head.split(b" ", 2)
        status = int(words[1]) if len(words) > 1 and words[1].isdigit() else 0
        return status, body

    def websocket(self, probe: Probe) -> Reply:
        assert self.victim is not None
        seats = self.victim
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=probe.wait) as sock:
                sock.sendall(handshake(seats.session, self.port))
                reader = Reader(sock)
                if not reader.handshake():
                    return Reply("refused")
                frames = list(probe.frames)
                if probe.hello and probe.role != "none":
                    token = "@GM@" if probe.role == "GM" else "@PLAYER@"
                    hello = json.dumps({"type": "hello", "token": token})
                    frames.insert(0, Frame(hello.encode()))
                asked = self.asked() if any(b"@Q@" in f.payload for f in frames) else None
                for frame in frames:
                    payload = seats.fill(frame.payload)
                    if asked is not None:
                        qid, seq, answer = asked
                        payload = payload.replace(b"@Q@", qid.encode())
                        payload = payload.replace(b'"@SEQ@"', str(seq).encode())
                        name = next(iter(answer), "action")
                        payload = payload.replace(b"@INPUT@", name.encode())
                        values = json.dumps(answer, ensure_ascii=False).encode()
                        payload = payload.replace(b'"@VALUES@"', values)
                    sock.sendall(encode(Frame(payload, *astuple(frame))))
                if len(frames) > BURST:  # (the ping after a burst would be rate-limited)
                    time.sleep(BURST / RATE + 0.5)
                sock.sendall(encode(Frame(json.dumps({"type": "ping", "ref": SYNC_REF}).encode())))
                return reader.until_synced(probe.wait)
        except OSError as error:
            return Reply(f"eof ({type(error).__name__})")

    # ------------------------------------------------------------ judging

    def judge(self, reply: Reply) -> list[Failure]:
        """What went wrong since the last judgement (the log is read up to now)."""
        found: list[Failure] = []
        since, self.last_check = self.last_check, time.monotonic()
        if reply.status >= 500:
            found.append(Failure("500", f"HTTP {reply.status}", reply.how))
        text = self.new_log()
        if TRACEBACK in text:
            trace = text[text.index(TRACEBACK) :]
            found.append(Failure("traceback", _exception_place(trace), trace[-4000:]))
        if self.canary is not None:
            worst = self.canary.worst_since(since)
            if worst > self.bounds.canary:
                why = "; ".join(self.canary.lost[-3:])
                detail = f"a canary ping waited {worst:.2f} s (bound {self.bounds.canary} s)"
                found.append(Failure("canary", "canary stalled", f"{detail} {why}".strip()))
        rss = self.rss()
        if rss > self.bounds.memory:
            detail = (
                f"resident memory {rss / 2**20:.0f} MB (bound {self.bounds.memory / 2**20:.0f})"
            )
            found.append(Failure("memory", "memory", detail))
        if self.process is not None and self.process.poll() is not None:
            detail = f"the server exited with {self.process.returncode}"
            found.append(Failure("died", "died", detail))
        return found

    def new_log(self) -> str:
        try:
            with self.log.open("rb") as log:
                log.seek(self.log_at)
                data = log.read()
        except OSError:
            return ""
        self.log_at += len(data)
        return data.decode("utf-8", errors="replace")


def _answer(question: dict[str, Any]) -> dict[str, Any]:
    """An answer to a question as the snapshot describes it: its first input's last
    choice (``{}`` when it has none)."""
    inputs = question.get("inputs") or []
    if not inputs or not isinstance(inputs[0], dict) or "name" not in inputs[0]:
        return {}
    choices = inputs[0].get("choices") or []
    if not choices:
        return {}
    last = choices[-1]
    return {str(inputs[0]["name"]): last.get("id", last) if isinstance(last, dict) else last}


def astuple(frame: Frame) -> tuple[int, bool, bool, int, int | None]:
    return frame.opcode, frame.fin, frame.masked, frame.rsv, frame.length


def handshake(session: str, port: int) -> bytes:
    return (
        f"GET /ws?session={session} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


MASK = b"\x37\xfa\x21\x3d"


def encode(frame: Frame) -> bytes:
    """A frame's bytes as the probe says: its bits, the length it declares, its mask."""
    first = (0x80 if frame.fin else 0) | (frame.rsv & 7) << 4 | (frame.opcode & 15)
    length = len(frame.payload) if frame.length is None else frame.length
    mask_bit = 0x80 if frame.masked else 0
    if length < 126:
        head = bytes([first, mask_bit | length])
    elif length < 2**16:
        head = bytes([first, mask_bit | 126]) + length.to_bytes(2, "big")
    else:
        head = bytes([first, mask_bit | 127]) + length.to_bytes(8, "big")
    if not frame.masked:
        return head + frame.payload
    payload = bytes(b ^ MASK[i % 4] for i, b in enumerate(frame.payload))
    return head + MASK + payload


class Reader:
    """The server's side of a raw WebSocket: its handshake's answer, then its frames."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.data = b""

    def more(self) -> bool:
        chunk = self.sock.recv(262144)
        self.data += chunk
        return bool(chunk)

    def handshake(self) -> bool:
        while b"\r\n\r\n" not in self.data:
            if not self.more():
                return False
        head, _, self.data = self.data.partition(b"\r\n\r\n")
        return head.startswith(b"HTTP/1.1 101")

    def frame(self) -> tuple[int, bytes] | None:
        """The next whole frame (opcode, payload), or None when more bytes are needed."""
        if len(self.data) < 2:
            return None
        opcode, length, at = self.data[0] & 15, self.data[1] & 127, 2
        if length == 126:
            length, at = int.from_bytes(self.data[2:4], "big"), 4
        elif length == 127:
            length, at = int.from_bytes(self.data[2:10], "big"), 10
        if len(self.data) < at + length:
            return None
        payload, self.data = self.data[at : at + length], self.data[at + length :]
        return opcode, payload

    def until_synced(self, wait: float) -> Reply:
        deadline = time.monotonic() + wait
        codes: list[str] = []
        while True:
            found = self.frame()
            if found is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return Reply("timeout", codes=tuple(codes))
                self.sock.settimeout(left)
                try:
                    if not self.more():
                        return Reply("eof", codes=tuple(codes))
                except TimeoutError:
                    return Reply("timeout", codes=tuple(codes))
                continue
            opcode, payload = found
            if opcode == 8:
                code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                return Reply(f"closed {code}", codes=tuple(codes))
            if opcode == 1:
                message: Any = json.loads(payload)
                if message.get("type") == "error":
                    codes.append(str(message.get("code")))
                if message.get("type") == "pong" and message.get("ref") == SYNC_REF:
                    return Reply("answered", codes=tuple(codes))
