"""``lore serve [--db URL] [--host H] [--port P] [--new] [EXAMPLE_OR_BUNDLE...]``.

Serves online sessions: the GM and the players play in their browsers (or with ``lore
join``), the rules run on the server. Sessions are kept in a SQLite file (``--db``,
default ``lore-sessions.db``); a restarted server goes on with every open session.
Each EXAMPLE_OR_BUNDLE (a folder, a ``.lore`` file or a zip) is offered on the start page;
with ``--new`` a session of the first is started at once and its links are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

from lore.cli.io import usage_error
from lore.server.collecting import Collector


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("examples", nargs="*", type=Path, metavar="EXAMPLE_OR_BUNDLE")
    parser.add_argument(
        "--db", default="lore-sessions.db", metavar="URL", help="sqlite:///FILE or a file path"
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--snapshot-every",
        type=int,
        metavar="N",
        help="snapshot a session every N log entries (default 500; restoring replays fewer than N)",
    )
    parser.add_argument(
        "--new",
        action="store_true",
        help="start a session of the first example and print its links",
    )


def run(args: argparse.Namespace) -> int:
    from lore.server.sqlite_store import sqlite_path

    for example in args.examples:
        if not example.exists():
            usage_error(f"{example} does not exist")
            return 2
    if args.snapshot_every is not None and args.snapshot_every < 1:
        usage_error("--snapshot-every must be 1 or more")
        return 2
    if args.new and not args.examples:
        usage_error("--new starts a session of the first example: name one")
        return 2
    try:
        path = sqlite_path(args.db)
    except ValueError as error:
        usage_error(str(error))
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="lore-bundles-"))
    collector = collect_for_serving()
    try:
        import uvloop  # libuv's event loop: the same asyncio, with less work per frame

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(serve(args, path, workdir, collector))
    except KeyboardInterrupt:
        return 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def collect_for_serving() -> Collector:
    """The cyclic collector's policy while serving (``lore.server.collecting``): young
    passes of a few milliseconds, and no pass through the older objects, which with
    Python's thresholds took about 15% of the server's CPU time per answer and, with
    thresholds raised instead, paused every session for 100 ms or more now and then."""
    collector = Collector()
    collector.install()
    return collector


TEND_EVERY = 1.0  # seconds between looks at whether the collector's full pass is due
QUIET = 0.005  # seconds late the loop may wake from such a look and be called quiet


async def tend(collector: Collector) -> None:
    """Make the collector's full pass when one is due and the loop is quiet (between
    the loop's callbacks: the collector cannot start one from its own callback)."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(TEND_EVERY)
        collector.full_if_due(quiet=loop.time() - before - TEND_EVERY < QUIET)


async def serve(args: argparse.Namespace, path: Path, workdir: Path, collector: Collector) -> int:
    import uvicorn

    from lore.server import trace
    from lore.server.app import Server, uvicorn_config
    from lore.server.bundles import BundleError
    from lore.server.rooms import Rooms
    from lore.server.sources import load
    from lore.server.sqlite_store import SQLiteStore
    from lore.server.store import StoreError

    try:
        store = SQLiteStore(path)
    except StoreError as error:
        usage_error(str(error))
        return 2
    rooms = (
        Rooms(store, workdir)
        if args.snapshot_every is None
        else Rooms(store, workdir, snapshot_every=args.snapshot_every)
    )
    server = Server(rooms, list(args.examples))

    async def announce() -> None:
        port = web.servers[0].sockets[0].getsockname()[1] if web.servers else args.port
        base = f"http://{args.host}:{port}"
        rooms = server.rooms.by_id
        print(f"Lore is serving on {base}/ ({len(rooms)} open sessions)", flush=True)
        if not args.new:
            return
        try:
            room = await server.rooms.create(await asyncio.to_thread(load, args.examples[0]))
        except BundleError as error:
            print(f"cannot start a session of {args.examples[0]}:", file=sys.stderr)
            for problem in error.problems:
                print(problem.text(), file=sys.stderr)
            return
        print(f"New session: {room.record.title}", flush=True)
        for seat in room.seats.values():
            who = "GM link" if seat.seat == "GM" else f"invite for {seat.label}"
            print(f"  {who}: {base}/play#{seat.token}", flush=True)

    web = uvicorn.Server(uvicorn_config(server, args.host, args.port))
    recorder = trace.start()
    watch = asyncio.create_task(recorder.watch()) if recorder is not None else None
    tending = asyncio.create_task(tend(collector))
    task = asyncio.create_task(web.serve())
    while not web.started and not task.done():
        await asyncio.sleep(0.05)
    if web.started:
        await announce()
    await task
    tending.cancel()
    if watch is not None:
        watch.cancel()
    return 0 if web.started else 1
