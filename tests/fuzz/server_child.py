"""The server the server campaign attacks: ``python -m tests.fuzz.server_child FOLDER``.

Lore's server as ``lore serve`` makes it (the app, Lore's WebSocket protocol, the
request deadlines, uvloop when installed) on a free loopback port, with its store and its
bundles in FOLDER, its port written to ``FOLDER/port`` once it serves, and every log
record (uvicorn's, Lore's, asyncio's) on its standard error, which the campaign reads.
The quotas of a client are lifted (the campaign is one client starting many sessions).

With ``--faulty`` it also answers two paths the way a defect would, for the campaign's
own tests: ``/fuzz/raise`` raises (a traceback in the log and a 500), ``/fuzz/stall``
holds the event loop for two seconds (the canary stalls), ``/fuzz/eat`` keeps 200 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from lore.cli.serve_command import in_loop
from lore.server.admission import Admission
from lore.server.app import Server, uvicorn_config
from lore.server.rooms import Rooms
from lore.server.sqlite_store import SQLiteStore

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = [
    REPO / "examples" / "paper",
    REPO / "examples" / "blackpoker",
    REPO / "examples" / "hello.lore",
]
_HOARD: list[bytearray] = []


def faulty(app: ASGIApp) -> ASGIApp:
    """``app`` with the three faults of the module's doc."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path == "/fuzz/raise":
            raise KeyError("a deliberate fault")
        if path == "/fuzz/stall":
            time.sleep(2)  # (holds the event loop, as a blocking defect would)
        if path == "/fuzz/eat":
            _HOARD.append(bytearray(200 * 1024 * 1024))
        await app(scope, receive, send)

    return wrapped


async def serve(folder: Path, broken: bool) -> int:
    (folder / "bundles").mkdir(exist_ok=True)
    store = SQLiteStore(folder / "sessions.db")
    rooms = Rooms(store, folder / "bundles")
    admission = Admission(sessions_per_hour=10**9, upload_bytes_per_hour=10**15)
    server = Server(rooms, EXAMPLES, admission=admission)
    config = uvicorn_config(server, "127.0.0.1", 0)
    if broken:
        config.app = faulty(config.app)
    web = uvicorn.Server(config)
    task = asyncio.create_task(web.serve())
    while not web.started:
        if task.done():
            return 1
        await asyncio.sleep(0.02)
    port = web.servers[0].sockets[0].getsockname()[1]
    (folder / "port.partial").write_text(str(port), encoding="utf-8")
    (folder / "port.partial").rename(folder / "port")
    await task
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--faulty", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    return in_loop(serve(args.folder, args.faulty))


if __name__ == "__main__":
    sys.exit(main())
