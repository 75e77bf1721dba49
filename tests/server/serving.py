"""A real server for tests: the app under uvicorn on a loopback port, in a thread (or a
``lore serve`` subprocess), and an HTTP helper. Clients talk to it over real sockets, so
tests see the bytes the server sends."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import uvicorn
from websockets.exceptions import ConnectionClosed, WebSocketException

from lore.clients.seat import SeatClient
from lore.server.app import Server, uvicorn_config
from lore.server.connection import Limits
from lore.server.rooms import SNAPSHOT_EVERY, Rooms
from lore.server.sqlite_store import SQLiteStore

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
PAPER = EXAMPLES / "paper"
PLAYER = "Chihiro_Shiiji@xmpp.xgmtk.org"


class ServerThread:
    """``with ServerThread(tmp_path) as server:`` a server on 127.0.0.1, stopped at the end."""

    def __init__(
        self,
        folder: Path,
        examples: list[Path] | None = None,
        limits: Limits | None = None,
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        self.folder = folder
        self.snapshot_every = snapshot_every
        self.examples = examples if examples is not None else [PAPER]
        self.limits = limits or Limits()
        self.web: uvicorn.Server | None = None
        self.server: Server | None = None
        self.thread: threading.Thread | None = None
        self.port = 0

    def __enter__(self) -> ServerThread:
        work = self.folder / "bundles"
        work.mkdir(exist_ok=True)
        store = SQLiteStore(self.folder / "sessions.db")
        rooms = Rooms(store, work, snapshot_every=self.snapshot_every)
        self.server = Server(rooms, self.examples, self.limits)
        self.web = uvicorn.Server(uvicorn_config(self.server, "127.0.0.1", 0))
        self.thread = threading.Thread(target=lambda: asyncio.run(self.web.serve()), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.web.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        self.port = self.web.servers[0].sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.web is not None and self.thread is not None
        self.web.should_exit = True
        self.thread.join(20)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def create(self, source: str = "paper") -> dict[str, Any]:
        return create_session(self.base, source)


def http(
    base: str,
    path: str,
    body: bytes | None = None,
    kind: str = "application/json",
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    request = urllib.request.Request(base + path, data=body, headers=headers or {})
    if body is not None:
        request.add_header("content-type", kind)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def create_session(base: str, source: str) -> dict[str, Any]:
    status, body = http(base, "/api/sessions", json.dumps({"source": source}).encode())
    assert status == 201, body
    found: dict[str, Any] = json.loads(body)
    return found


def links(created: dict[str, Any], base: str) -> dict[str, str]:
    """Each seat's full link, by seat."""
    return {seat["seat"]: base + seat["link"] for seat in created["seats"]}


GONE = (OSError, WebSocketException, ConnectionClosed, TimeoutError)  # a server away


def reconnect(client: SeatClient, timeout: float = 60) -> None:
    """Connect a client again, trying until the server is back (``GONE`` past that)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.connect()
            return
        except GONE:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class ServeProcess:
    """``lore serve`` as a subprocess (for crash tests): started, killed, started again
    on the same port; killed on leaving its ``with`` block."""

    def __init__(
        self,
        db: Path | str,
        examples: list[Path],
        options: tuple[str, ...] = (),
        logs: Path | None = None,
    ) -> None:
        self.db = db  # a SQLite file, or a PostgreSQL URL (then ``logs`` is its folder)
        self.logs = logs if logs is not None else Path(db).parent
        self.examples = examples
        self.options = options
        self.port = 0
        self.starts = 0
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        argv = [sys.executable, "-m", "lore", "serve", "--db", str(self.db)]
        argv += ["--port", str(self.port), *self.options, *map(str, self.examples)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.starts += 1
        output = self.logs / f"serve-{self.starts}.log"
        with output.open("wb") as out:
            self.process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while True:
            text = output.read_text(encoding="utf-8", errors="replace")
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", text)
            if found is not None:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"lore serve did not start: {text}")
            time.sleep(0.05)

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()  # whatever failed, no server is left running

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()  # SIGKILL
            self.process.wait(10)
            self.process = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def start_examples() -> list[str]:
    """What ``scripts/start`` gives ``lore serve`` to offer (its examples, in order)."""
    script = (REPO / "scripts" / "start").read_text(encoding="utf-8").replace("\\\n", " ")
    line = next(line for line in script.splitlines() if line.startswith("exec .venv/bin/lore"))
    words = shlex.split(line)
    assert words[:3] == ["exec", ".venv/bin/lore", "serve"]
    return [word for word in words[3:] if not word.startswith("-") and word != "$@"]
