"""``lore serve [--db URL] [--host H] [--port P] [--workers N] [--new] [EXAMPLE_OR_BUNDLE...]``.

Serves online sessions: the GM and the players play in their browsers (or with ``lore
join``), the rules run on the server. Sessions are kept in a SQLite file (``--db``,
default ``lore-sessions.db``); a restarted server goes on with every open session.
Each EXAMPLE_OR_BUNDLE (a folder, a ``.lore`` file or a zip) is offered on the start page;
with ``--new`` a session of the first is started at once and its links are printed; with
``--ready`` the links of the latest open session of the first are printed, and a new one
is started only when there is none (when another server holds the store, its session's
links are printed; ``lore sessions`` prints every session's links).
With ``--workers N`` the sessions are spread over N processes (one per core serves the
most sessions: a session's rules run in one process, one core).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lore.cli.io import usage_error, warning
from lore.server import workers
from lore.server.collecting import Collector

if TYPE_CHECKING:
    import uvicorn

    from lore.server.databases import Database, Hold
    from lore.server.listing import Listed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("examples", nargs="*", type=Path, metavar="EXAMPLE_OR_BUNDLE")
    parser.add_argument(
        "--db",
        default="lore-sessions.db",
        metavar="URL",
        help="sqlite:///FILE or a file path (the default), or postgresql://USER@HOST/DB",
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
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="processes the sessions are spread over (default 1; one per core for many)",
    )
    parser.add_argument(
        "--new",
        action="store_true",
        help="start a session of the first example and print its links",
    )
    parser.add_argument(
        "--ready",
        action="store_true",
        help="print the links of the latest open session of the first example,"
        " or start one when there is none",
    )
    parser.add_argument(
        "--host-token",
        metavar="TOKEN",
        default=os.environ.get("LORE_HOST_TOKEN"),
        help="who may start sessions on a server others can reach (on an address that is"
        " not loopback): made and printed at start when not given (or LORE_HOST_TOKEN)",
    )
    parser.add_argument(
        "--node-url",
        metavar="URL",
        help="serve as one node of several sharing a PostgreSQL --db: the URL its clients"
        " reach it at (each session is served by one node; the others send its clients there)",
    )
    # A worker of a front (``lore.server.workers``): INDEX/COUNT/CHANNEL-FD/FRONT-PID.
    parser.add_argument("--worker-of", help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    from lore.server.databases import database

    for example in args.examples:
        if not example.exists():
            usage_error(f"{example} does not exist")
            return 2
    if args.snapshot_every is not None and args.snapshot_every < 1:
        usage_error("--snapshot-every must be 1 or more")
        return 2
    if (args.new or args.ready) and not args.examples:
        option = "--new" if args.new else "--ready"
        usage_error(f"{option} starts a session of the first example: name one")
        return 2
    if args.workers < 1:
        usage_error("--workers must be 1 or more")
        return 2
    try:
        db = database(args.db)
    except ValueError as error:
        usage_error(str(error))
        return 2
    if args.node_url is not None and db.path is not None:
        usage_error("--node-url needs a PostgreSQL --db (postgresql://USER@HOST/DB)")
        return 2
    if args.node_url is not None and args.workers > 1:
        usage_error("a node has one worker: start more nodes instead of --workers")
        return 2
    worker = None
    lock: int | None = None
    if args.worker_of is None and db.path is not None:
        for told in store_warnings(db.path):
            warning(told)
    if args.worker_of is not None:
        worker = Role.of(args.worker_of)
        workers.die_with_parent(worker.parent)
    elif args.workers > 1:
        return in_loop(front(args, db))
    elif db.path is not None:  # (a PostgreSQL database is held by ``serve``, in its loop)
        try:
            lock = workers.lock_store(db.path, lock_wait(args))
        except workers.StoreLocked as error:
            return locked(args, error, sqlite_sessions(db.path))
    workdir = Path(tempfile.mkdtemp(prefix="lore-bundles-"))
    collector = collect_for_serving()
    try:
        return in_loop(serve(args, db, workdir, collector, worker))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if lock is not None:
            os.close(lock)


def store_warnings(path: Path) -> list[str]:
    """What looks wrong with the database before the server opens it: an empty file (it
    starts with no sessions), or a write-ahead log gone while its index is there (a log
    deleted after a crash: the answers not yet written into the database are lost)."""
    found = []
    try:
        if path.exists() and path.stat().st_size == 0:
            found.append(f"{path} is empty (0 bytes): the server starts with no sessions")
        index = path.with_name(path.name + "-shm")
        if index.exists() and not path.with_name(path.name + "-wal").exists():
            found.append(
                f"{path}'s write-ahead log ({path.name}-wal) is missing while its index is"
                " there: what the last server had not yet written into the database is lost"
            )
    except OSError:
        pass  # (opening it says what is wrong)
    return found


def in_loop(main: Coroutine[Any, Any, int]) -> int:
    try:
        import uvloop  # libuv's event loop: the same asyncio, with less work per frame

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(main)
    except KeyboardInterrupt:
        return 0


@dataclass(frozen=True)
class Role:
    """A worker's place: its index of how many, its channel to the front, the front."""

    index: int
    count: int
    channel: int
    parent: int

    @staticmethod
    def of(text: str) -> Role:
        index, count, channel, parent = (int(part) for part in text.split("/"))
        return Role(index, count, channel, parent)

    def owns(self, session: str) -> bool:
        return workers.owner(session, self.count) == self.index


async def front(args: argparse.Namespace, db: Database) -> int:
    """Serve with ``args.workers`` worker processes (``lore.server.workers``)."""
    from lore.server.databases import open_database
    from lore.server.store import StoreError

    try:
        held = await hold(args, db)
    except workers.StoreLocked as error:
        return locked(args, error, await sessions_of(db))
    except StoreError as error:
        usage_error(str(error))
        return 2
    token = host_token(args)  # (its workers find it in the environment)
    try:
        try:  # (made or brought up to date once, before the workers open them)
            await (await open_database(db, at_least=args.workers)).close()
        except StoreError as error:
            usage_error(str(error))
            return 2
        try:
            listener = workers.listen(args.host, args.port)
        except OSError as error:
            print(f"lore serve: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
            return 1
        base = f"http://{args.host}:{listener.getsockname()[1]}"
        kept = await sessions_of(db) if args.ready and not args.new else []

        def argv(index: int, channel: int) -> list[str]:
            found = [sys.executable, "-m", "lore", "serve", "--db", args.db]
            found += ["--host", args.host, "--port", str(listener.getsockname()[1])]
            found += ["--worker-of", f"{index}/{args.workers}/{channel}/{os.getpid()}"]
            if args.snapshot_every is not None:
                found += ["--snapshot-every", str(args.snapshot_every)]
            return [*found, *map(str, args.examples)]

        def announce(sessions: int) -> None:
            print(serving_line(base, sessions), flush=True)
            if (told := start_line(base, token)) is not None:
                print(told, flush=True)
            if args.ready and not args.new and offer(args.examples[0], base, kept):
                return
            if args.new or args.ready:
                serving.tell(0, b"new " + base.encode())

        kept_open = (held,) if isinstance(held, int) else ()  # (the workers inherit it)
        serving = workers.Front(listener, args.workers, argv, kept_open)
        return await serving.run(announce)
    finally:
        await release(held)


READY_WAIT = 3.0  # seconds --ready waits for a server that holds the store to stop


def lock_wait(args: argparse.Namespace) -> float:
    """How long to wait for the store's lock (``workers.lock_store``'s usual wait, but
    for ``--ready``: a server that holds it then likely serves the session wanted)."""
    return READY_WAIT if args.ready and not args.new else workers.LOCK_WAIT


def locked(args: argparse.Namespace, error: workers.StoreLocked, sessions: list[Listed]) -> int:
    """The store is another server's: say so (with ``--ready``, print the links of the
    session it has open of the first example, at this command's address)."""
    usage_error(str(error))
    if args.ready and not args.new:
        offer(args.examples[0], f"http://{args.host}:{args.port}", sessions)
    return 2


def sqlite_sessions(path: Path) -> list[Listed]:
    """The sessions of a SQLite store as they are (none when it cannot be read)."""
    from lore.server.listing import listed
    from lore.server.store import StoreError

    try:
        return listed(path)
    except StoreError:
        return []


async def sessions_of(db: Database) -> list[Listed]:
    from lore.server.databases import listed_in
    from lore.server.store import StoreError

    try:
        return await listed_in(db)
    except StoreError:
        return []


async def hold(args: argparse.Namespace, db: Database) -> int | Hold:
    """Hold the database for this server: a SQLite file's lock (its descriptor), or a
    PostgreSQL database's advisory lock (its connection). StoreLocked when another
    server holds it."""
    from lore.server.databases import hold_postgres

    if db.path is not None:
        return await asyncio.to_thread(workers.lock_store, db.path, lock_wait(args))
    return await hold_postgres(db, lock_wait(args))


async def release(held: int | Hold | None) -> None:
    if isinstance(held, int):
        os.close(held)
    elif held is not None:
        await held.release()


def host_token(args: argparse.Namespace) -> str | None:
    """The token who starts sessions must say (None: on loopback, anyone may), made once
    when not given (and handed to the workers in the environment)."""
    from lore.server.admission import is_loopback

    if args.host_token is None and not is_loopback(args.host):
        args.host_token = secrets.token_urlsafe(24)
        os.environ["LORE_HOST_TOKEN"] = args.host_token
    token: str | None = args.host_token
    return token


def start_line(base: str, token: str | None) -> str | None:
    """The line that gives the start page's link with the host token (None: none needed)."""
    if token is None:
        return None
    return (
        f"Start sessions at {base}/#host={token}\n"
        "(this server is open to others: only who has this link, or its host token, may"
        " start sessions)"
    )


def serving_line(base: str, sessions: int) -> str:
    """What the server says once it serves: its address, how many sessions are open."""
    return f"Lore is serving on {base}/ ({sessions} open session{'' if sessions == 1 else 's'})"


def offer(example: Path, base: str, sessions: list[Listed]) -> bool:
    """Print the links of the latest open session of ``example`` among ``sessions`` (of
    its files as they are now: a session of files changed since is not offered); whether
    there was one."""
    from lore.cli.links import print_links
    from lore.server.bundles import BundleError
    from lore.server.sources import load
    from lore.server.store import OPEN, bundle_digest

    try:
        bundle = load(example)
    except BundleError:
        return False  # (starting one says why)
    digest = bundle_digest(bundle.files)
    found = [
        session
        for session in sessions
        if session.record.status == OPEN
        and session.record.digest == digest
        and session.record.entry == bundle.entry
    ]
    if not found:
        return False
    latest = max(found, key=lambda session: (session.record.created, session.record.id))
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(latest.record.created))
    print(
        f"Open session: {latest.record.title} (started {started}; --new starts another)", flush=True
    )
    print_links(base, latest.seats)
    return True


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


async def serve(
    args: argparse.Namespace,
    db: Database,
    workdir: Path,
    collector: Collector,
    worker: Role | None = None,
) -> int:
    """Serve in this process (alone, or as a worker of a front). A PostgreSQL database
    is held here, for as long as this server runs (a SQLite file was locked before)."""
    from lore.server.databases import hold_postgres
    from lore.server.store import StoreError

    held = None
    if db.path is None and worker is None and args.node_url is None:
        try:
            held = await hold_postgres(db, lock_wait(args))
        except workers.StoreLocked as error:
            return locked(args, error, await sessions_of(db))
        except StoreError as error:
            usage_error(str(error))
            return 2
    try:
        return await serve_held(args, db, workdir, collector, worker)
    finally:
        await release(held)


async def serve_held(
    args: argparse.Namespace,
    db: Database,
    workdir: Path,
    collector: Collector,
    worker: Role | None = None,
) -> int:
    import uvicorn

    from lore.cli.links import print_links
    from lore.server import trace
    from lore.server.admission import Admission
    from lore.server.app import Server, uvicorn_config
    from lore.server.bundles import BundleError
    from lore.server.databases import open_database
    from lore.server.listing import Listed
    from lore.server.rooms import Rooms
    from lore.server.sources import load
    from lore.server.store import StoreError

    try:
        if worker is None:
            store = await open_database(db)
        else:
            store = await open_database(db, worker.index, worker.owns)
    except StoreError as error:
        usage_error(str(error))
        return 2
    owns = worker.owns if worker is not None else None
    rooms = (
        Rooms(store, workdir, owns=owns)
        if args.snapshot_every is None
        else Rooms(store, workdir, snapshot_every=args.snapshot_every, owns=owns)
    )
    if args.node_url is not None:
        from lore.server.nodes import Nodes

        try:
            rooms.nodes = await Nodes.join(db.url, args.node_url)
        except StoreError as error:
            await store.close()
            usage_error(str(error))
            return 2
    server = Server(
        rooms, list(args.examples), admission=Admission(host_token(args)), let_go=collector.ask
    )

    async def announce() -> None:
        port = web.servers[0].sockets[0].getsockname()[1] if web.servers else args.port
        base = f"http://{args.host}:{port}"
        rooms = server.rooms.by_id
        print(serving_line(base, server.rooms.open_count()), flush=True)
        if (told := start_line(base, server.admission.token)) is not None:
            print(told, flush=True)
        if args.ready and not args.new:
            held = [Listed(room.record, tuple(room.seats.values())) for room in rooms.values()]
            if await asyncio.to_thread(offer, args.examples[0], base, held):
                return
        if args.new or args.ready:
            await start_new(base)

    async def start_new(base: str) -> None:
        try:
            room = await server.rooms.create(await asyncio.to_thread(load, args.examples[0]))
        except BundleError as error:
            print(f"cannot start a session of {args.examples[0]}:", file=sys.stderr)
            for problem in error.problems:
                print(problem.text(), file=sys.stderr)
            return
        print(f"New session: {room.record.title}", flush=True)
        print_links(base, room.seats.values())

    if rooms.nodes is None:
        web = uvicorn.Server(uvicorn_config(server, args.host, args.port))
    else:  # (SIGTERM hands its sessions over to the other nodes before it stops)
        from lore.server.claiming import Draining

        web = Draining(uvicorn_config(server, args.host, args.port), rooms)
    recorder = trace.start(f".w{worker.index}" if worker is not None else "")
    watch = asyncio.create_task(recorder.watch()) if recorder is not None else None
    tending = asyncio.create_task(tend(collector))
    # A worker listens to nothing: the front hands it its connections.
    task = asyncio.create_task(web.serve(sockets=[] if worker is not None else None))
    while not web.started and not task.done():
        await asyncio.sleep(0.05)
    if web.started and worker is None:
        await announce()
    elif web.started and worker is not None:
        channel = worker_channel(web, worker, start_new)
        channel.ready(server.rooms.open_count())
    await task
    if rooms.nodes is not None:
        await rooms.nodes.leave()
    tending.cancel()
    if watch is not None:
        watch.cancel()
    return 0 if web.started else 1


def worker_channel(
    web: uvicorn.Server, worker: Role, start_new: Callable[[str], Coroutine[Any, Any, None]]
) -> workers.Channel:
    """A worker's channel to the front, open: each connection it hands over is served as
    if the worker's own listener had accepted it (uvicorn's protocol, its state)."""
    loop = asyncio.get_running_loop()
    config = web.config
    tasks: set[asyncio.Task[Any]] = set()

    def protocol() -> asyncio.Protocol:
        made: asyncio.Protocol = config.http_protocol_class(  # type: ignore[call-arg]
            config=config, server_state=web.server_state, app_state=web.lifespan.state
        )
        return made

    async def adopting(connection: socket.socket) -> None:
        try:
            await loop.connect_accepted_socket(protocol, connection)
        except OSError:
            connection.close()

    def later(work: Coroutine[Any, Any, None]) -> None:
        task = loop.create_task(work)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def told(message: bytes) -> None:
        if message.startswith(b"new "):
            later(start_new(message[4:].decode()))

    def gone() -> None:  # the front stopped (it kills its workers when it dies)
        web.should_exit = True

    channel = workers.Channel(worker.channel, lambda c: later(adopting(c)), told, gone)
    channel.open()
    return channel
