"""The ASGI app: the web client's files, a small HTTP API, and the WebSocket.

- ``GET /`` and ``GET /play``: the web client (one page; a seat's link is
  ``/play?session=ID#TOKEN``, the token in the fragment so that it never reaches a log or
  a referrer, the session named so that the request goes to the worker that owns it).
  Any request may name its session (``session=ID``) for that routing (``workers.py``).
- ``GET /api/sources``: what a session can be started from.
- ``GET /api/dice``: the BCDice game systems a session's chat may roll the commands of.
- ``POST /api/sessions``: start a session, of a source (``{"source": NAME}``, with
  ``"dice": SYSTEM`` to roll a game system's commands in its chat) or of an uploaded zip
  (the body, ``application/zip``; ``?dice=SYSTEM``). The bundle is checked first: its
  errors come back (422) with file, line, column and the caret, and nothing is created.
- ``GET /api/save?session=ID`` with the GM's token (``Authorization: Bearer TOKEN``):
  the session as a zip of its bundle and a Lore save ``save.lore``, which starts a new
  session when uploaded (421 with the session's id: it is another worker's, ask naming it).
- ``GET /api/status?session=ID`` with the GM's token (``Authorization: Bearer TOKEN``):
  the session's state (open or ended, paused) and its seats' links, for the start page's
  list of the sessions this browser started (403 without the GM's token: a server lists
  no session to whoever asks; 421 as for the save).
- ``GET /simulate?session=ID#TOKEN``: the GM's simulation page; it asks
  ``GET /api/simulate?session=ID&runs=N&lang=LANG`` with the GM's token for the report of
  ``lore sim`` on the session's rules (``simulating.py``; 403 without the GM's token).
- ``GET /bundle/DIGEST/PATH``: the images of a bundle (for rules' HTML messages).
- ``/ws``: the WebSocket (``docs/protocol.md``), served by Lore's own protocol on
  uvicorn's connection (``websocket.py``), not through ASGI.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lore.analysis.report import STYLE as REPORT_STYLE
from lore.dice.systems import SYSTEMS
from lore.dice.systems import find as find_system
from lore.engine.views import GM
from lore.server import sources as catalog
from lore.server.admission import Admission
from lore.server.bundles import (
    IMAGE_TYPES,
    MAX_UPLOAD,
    Bundle,
    BundleError,
    Problem,
    choose_entry,
    read_zip,
    safe_name,
    title_of,
)
from lore.server.chat import dice_json
from lore.server.checking import Uploads
from lore.server.claiming import Moved, reach, watch_lost
from lore.server.connection import Limits
from lore.server.deadlines import Late, deadlined
from lore.server.hub import Hub
from lore.server.origins import same_origin
from lore.server.rooms import Room, Rooms, seat_link
from lore.server.saving import answers_of, save_disposition, save_zip
from lore.server.simulating import SimulationRefused, Simulations, language_asked, runs_asked
from lore.server.sources import Source
from lore.server.store import ENDED, OPEN, SeatRecord, SessionRecord, StoreError, bundle_digest
from lore.server.unloading import Watch
from lore.server.websocket import socket_protocol

WEB = Path(__file__).resolve().parent.parent / "web"
log = logging.getLogger("lore.server")
# The simulation report's own style sheet, the one inline style the pages may have.
REPORT_HASH = base64.b64encode(hashlib.sha256(REPORT_STYLE.encode()).digest())

HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self' 'sha256-"
        + REPORT_HASH
        + b"'; script-src 'self';"
        b" connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


@dataclass
class Server:
    rooms: Rooms
    examples: list[Path] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    restored: list[tuple[str, str]] = field(default_factory=list)  # sessions that failed
    uploads: Uploads = field(default_factory=Uploads)  # their checks, apart
    admission: Admission = field(default_factory=Admission)  # who may start sessions
    late: Late = field(default_factory=Late)  # connections closed before saying anything
    let_go: Callable[[], object] | None = None  # rooms were unloaded (``unloading.Watch``)
    simulations: Simulations = field(default_factory=Simulations)  # the GM's ``lore sim``

    def __post_init__(self) -> None:
        self.hub = Hub(self.rooms)
        self.sources = catalog.sources(self.examples)

    @property
    def worker(self) -> bool:
        """One of several workers (``workers.py``), owning some sessions: each HTTP
        response closes its connection, so that the front routes each request by itself."""
        return self.rooms.owns is not None


def security_headers(app: ASGIApp, closing: bool = False) -> ASGIApp:
    """The app with the security headers on every response (and ``Connection: close``
    when ``closing``)."""
    headers = [*HEADERS, (b"connection", b"close")] if closing else HEADERS

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *headers]
            await send(message)

        await app(scope, receive, sending)

    return wrapped


def create_app(server: Server) -> ASGIApp:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.restored = await server.rooms.restore_all()
        for session, problem in server.restored:
            log.error("session %s was not restored: %s", session, problem)
        unloading = asyncio.create_task(Watch(server.rooms, let_go=server.let_go).run())
        watching = asyncio.create_task(watch_lost(server.rooms)) if server.rooms.nodes else None
        yield
        unloading.cancel()
        if watching is not None:
            watching.cancel()
        await server.rooms.snapshot_all()
        await server.rooms.close()
        await server.rooms.store.close()

    async def page(request: Request) -> Response:
        return FileResponse(WEB / "index.html")

    async def list_sources(request: Request) -> Response:
        return JSONResponse(
            [{"name": s.name, "kind": s.kind, "title": s.title} for s in server.sources]
        )

    async def list_dice(request: Request) -> Response:
        return JSONResponse([dice_json(system) for system in SYSTEMS.values()])

    async def create(request: Request) -> Response:
        if not same_origin(request.headers.get("origin"), request.headers.get("host")):
            refused = Problem("a page of another site may not start sessions here")
            return JSONResponse({"problems": [problem_json(refused)]}, 403)
        admission = server.admission
        denied = admission.admit(request.headers.get("authorization", ""))
        if denied is not None:
            refusal = {"problems": [problem_json(Problem(denied.message))]}
            return JSONResponse(refusal, denied.status)
        client = request.client.host if request.client is not None else ""
        denied = admission.start_reading(client)
        if denied is not None:
            refusal = {"problems": [problem_json(Problem(denied.message))]}
            return JSONResponse(refusal, denied.status, headers={"connection": "close"})
        try:
            try:
                bundle, dice = await bundle_of(request, server)
            finally:
                admission.done_reading(client)
            uploaded = sum(map(len, bundle.files.values())) if bundle.uploaded else 0
            denied = admission.charge(client, uploaded)
            if denied is not None:
                refusal = {"problems": [problem_json(Problem(denied.message))]}
                return JSONResponse(refusal, denied.status)
            room = await server.rooms.create(bundle, dice=dice)
        except BundleError as error:
            problems = {"problems": [problem_json(p) for p in error.problems]}
            if isinstance(error, Stalled):  # (and its connection closed)
                return JSONResponse(problems, 408, headers={"connection": "close"})
            return JSONResponse(problems, 413 if isinstance(error, TooLarge) else 422)
        return JSONResponse(created(room), 201)

    async def save(request: Request) -> Response:
        room = await gm_room(request, server.rooms)
        if isinstance(room, Moved):
            return moved_response(room)
        if room is None:
            elsewhere = await server.rooms.elsewhere(bearer(request))
            if elsewhere is not None:  # (another worker's: ask naming it)
                problem = {"message": "the session is served elsewhere: ask naming it"}
                return JSONResponse({"problems": [problem], "session": elsewhere}, 421)
            return JSONResponse({"problems": [{"message": "the GM's token is needed"}]}, 403)
        async with room.lock:
            room = server.rooms.by_id.get(room.id, room)  # (reloaded meanwhile: the new one)
            answers, chat = await answers_of(room, server.rooms.store)
            data = await server.rooms.in_engine(lambda: save_zip(room, answers, chat))
        return Response(
            data,
            media_type="application/zip",
            headers={"content-disposition": save_disposition(room.record.title, time.time())},
        )

    async def status(request: Request) -> Response:
        room = await gm_room(request, server.rooms)
        if isinstance(room, Moved):
            return moved_response(room)
        if room is not None:
            return JSONResponse(room_status(room))
        token = bearer(request)
        elsewhere = await server.rooms.elsewhere(token)
        if elsewhere is not None:  # (another worker's: ask naming it)
            problem = {"message": "the session is served elsewhere: ask naming it"}
            return JSONResponse({"problems": [problem], "session": elsewhere}, 421)
        found = await server.rooms.store.holder(token) if token else None
        if found is None or found[1].seat != GM:
            return JSONResponse({"problems": [{"message": "the GM's token is needed"}]}, 403)
        record = found[0]  # (not served here: ended before the server started)
        seats = await server.rooms.store.seats(record.id)
        return JSONResponse(stored_status(record, seats))

    async def simulation_page(request: Request) -> Response:
        return FileResponse(WEB / "simulate.html")

    async def simulate(request: Request) -> Response:
        room = await gm_room(request, server.rooms)
        if isinstance(room, Moved):
            return moved_response(room)
        if room is None:
            return JSONResponse({"problems": [{"message": "the GM's token is needed"}]}, 403)
        try:
            runs = runs_asked(request.query_params.get("runs"))
            page = await server.simulations.report(
                room.program.folder,
                room.record.entry,
                runs,
                language_asked(request.query_params.get("lang")),
            )
        except SimulationRefused as refused:
            return JSONResponse({"problems": [{"message": refused.message}]}, refused.status)
        return HTMLResponse(page)

    async def image(request: Request) -> Response:
        digest = request.path_params["digest"]
        path = safe_name(request.path_params["path"])
        suffix = Path(path or "").suffix.lower()
        if path is None or suffix not in IMAGE_TYPES or not digest.isalnum():
            return Response(status_code=404)
        folder = next(
            (r.program.folder for r in server.rooms.by_id.values() if r.record.digest == digest),
            None,
        )
        unloaded = any(r.digest == digest for r in server.rooms.unloaded.values())
        if folder is None and (server.worker or unloaded):  # (another worker's session's,
            # or one unloaded while idle)
            folder = await server.rooms.folder_of(digest)
        target = folder / path if folder is not None else None
        if target is None or not target.is_file() or target.is_symlink():
            return Response(status_code=404)
        return FileResponse(target, media_type=IMAGE_TYPES[suffix])

    routes = [
        Route("/", page),
        Route("/play", page),
        Route("/api/sources", list_sources),
        Route("/api/dice", list_dice),
        Route("/api/sessions", create, methods=["POST"]),
        Route("/api/save", save),
        Route("/api/status", status),
        Route("/simulate", simulation_page),
        Route("/api/simulate", simulate),
        Route("/bundle/{digest}/{path:path}", image),
        Mount("/static", StaticFiles(directory=WEB), name="static"),
    ]
    handlers = {StoreError: store_failed, Exception: server_failed}
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers=handlers)
    return security_headers(app, closing=server.worker)


async def store_failed(request: Request, error: Exception) -> Response:
    """503: the store could not keep what the request would make (it made nothing)."""
    log.warning("%s %s: the store failed: %s", request.method, request.url.path, error)
    problem = Problem(f"the sessions' store cannot write now ({error}): try again later")
    return JSONResponse({"problems": [problem_json(problem)]}, 503)


async def server_failed(request: Request, error: Exception) -> Response:
    """500 as JSON, like every other refusal (the traceback goes to the server's log, not
    to the client: uvicorn logs it, as Starlette raises the error again)."""
    problem = Problem("the server failed: nothing was changed (its log says why)")
    return JSONResponse({"problems": [problem_json(problem)]}, 500)


# The most bytes of a JSON request's body (``{"source": NAME}``).
MAX_JSON_BODY = 4096


class TooLarge(BundleError):
    """A request's body over its limit (413): refused before more of it is read."""


BODY_WAIT = 10.0  # seconds a request's body may pause before it is refused (408)
# After its first BODY_WAIT seconds, a body must keep coming at this many bytes a second
# on average (408 otherwise): a byte every few seconds passed the pause limit for ever.
BODY_PACE = 16 * 1024


class Stalled(BundleError):
    """A request's body that stopped coming, or came too slowly (408)."""


async def body_of(request: Request, limit: int, what: str) -> bytes:
    """A request's body, read only up to ``limit`` bytes (TooLarge past it, whatever its
    content type: a body is never read whole before it is measured). It may pause at most
    ``BODY_WAIT`` seconds, and must have come at ``BODY_PACE`` bytes a second after the
    first ``BODY_WAIT`` seconds (Stalled otherwise)."""
    refusal = f"{what} is larger than {limit} bytes"
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge([Problem(refusal)])
    data = bytearray()
    chunks = request.stream().__aiter__()
    loop = asyncio.get_running_loop()
    start = last = loop.time()
    try:
        while True:
            # (the moment the bytes so far fall behind the pace, if nothing more comes)
            behind = start + BODY_WAIT + len(data) / BODY_PACE
            slow = behind < last + BODY_WAIT / 2  # (its pace, not a pause, is what ends it)
            try:  # (a body that stops coming held its connection and its bytes for ever)
                async with asyncio.timeout_at(min(behind, last + BODY_WAIT)):
                    chunk = await anext(chunks)
            except StopAsyncIteration:
                break
            except TimeoutError:
                if slow:
                    pace = f"{what} came slower than {BODY_PACE // 1024} KiB a second"
                    raise Stalled([Problem(pace)]) from None
                raise Stalled([Problem(f"{what} stopped coming for {BODY_WAIT:g} s")]) from None
            data += chunk
            last = loop.time()
            if len(data) > limit:
                raise TooLarge([Problem(refusal)])
    except ClientDisconnect:  # (left, or sent a body that cannot be read: no one to tell)
        raise BundleError([Problem(f"{what} was not sent whole")]) from None
    return bytes(data)


def source_named(body: bytes, server: Server) -> tuple[Source, str]:
    """The example a JSON body names (``{"source": NAME}``, with ``"dice": SYSTEM`` for
    its dice system), or BundleError saying why, quoting no more of the body than a name's
    length."""
    try:
        found = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        found = None
    name = found.get("source") if isinstance(found, dict) else None
    if not isinstance(name, str):
        raise BundleError([Problem('send {"source": NAME}, NAME one of /api/sources')])
    source = next((s for s in server.sources if s.name == name), None)
    if source is None:
        raise BundleError([Problem(f"there is no example {shortened(name)!r}")])
    assert isinstance(found, dict)
    return source, dice_named(found.get("dice", ""))


def dice_named(name: object) -> str:
    """The id of the BCDice game system ``name`` names ("" for none: the common commands
    only), or BundleError naming the ones there are."""
    if name in ("", None):
        return ""
    known = ", ".join(SYSTEMS)
    if not isinstance(name, str):
        raise BundleError([Problem(f'"dice" is the name of a dice system: one of {known}')])
    found = find_system(name)
    if found is None:
        raise BundleError([Problem(f"there is no dice system {shortened(name)!r}: one of {known}")])
    return found.id


def shortened(name: str) -> str:
    return name if len(name) <= 80 else name[:80] + "…"


async def bundle_of(request: Request, server: Server) -> tuple[Bundle, str]:
    """The bundle a request starts a session of, and the dice system it chose (the JSON
    body's ``dice``, or an upload's ``?dice=SYSTEM``)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind == "application/json":
        body = await body_of(request, MAX_JSON_BODY, "the request")
        source, dice = source_named(body, server)
        return await asyncio.to_thread(catalog.load, source.path), dice
    dice = dice_named(request.query_params.get("dice", ""))
    files = read_zip(await body_of(request, MAX_UPLOAD, "the upload"))
    entry = choose_entry(files)
    if (bundle_digest(files), entry) not in server.rooms.programs:  # (not checked before)
        await server.uploads.check(files, entry)
    title = title_of(files, entry, "uploaded session")
    return Bundle(files, entry, title, uploaded=True), dice


def problem_json(problem: Problem) -> dict[str, Any]:
    return {
        "message": problem.message,
        "file": problem.file,
        "line": problem.line,
        "column": problem.column,
        "text": problem.text(),
    }


def created(room: Room) -> dict[str, Any]:
    seats = [
        {"seat": s.seat, "label": s.label, "link": seat_link(room.id, s.token)}
        for s in room.seats.values()
        if s.token is not None
    ]
    return {
        "session": room.id,
        "title": room.record.title,
        "dice": room.record.dice,
        "seats": seats,
    }


def room_status(room: Room) -> dict[str, Any]:
    """A session's state for its GM (``GET /api/status``)."""
    status = room.table.status()
    state = ENDED if room.over or room.record.status == ENDED else OPEN
    return {
        "session": room.id,
        "title": room.record.title,
        "dice": room.record.dice,
        "state": state,
        "paused": status["paused"],
        "ended": status["ended"],
        "seats": seat_links(list(room.seats.values())),
    }


def stored_status(record: SessionRecord, seats: list[SeatRecord]) -> dict[str, Any]:
    """The state of a session no room here holds, as the store has it."""
    return {
        "session": record.id,
        "title": record.title,
        "state": record.status,
        "paused": False,
        "ended": None,
        "seats": seat_links(seats),
    }


def seat_links(seats: list[SeatRecord]) -> list[dict[str, Any]]:
    """Each seat's link (None when revoked)."""
    return [
        {
            "seat": seat.seat,
            "label": seat.label,
            "link": seat_link(seat.session, seat.token) if seat.token is not None else None,
        }
        for seat in seats
    ]


def bearer(request: Request) -> str:
    """The token of a request's ``Authorization: Bearer TOKEN`` ("" without one)."""
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header.lower().startswith("bearer ") else ""


async def gm_room(request: Request, rooms: Rooms) -> Room | Moved | None:
    """The room of the GM's token the request says (Moved: another node holds it)."""
    token = bearer(request)
    if rooms.nodes is not None and token:
        reached = await reach(rooms, token)
        if isinstance(reached, Moved):
            return reached
        found = reached
    else:
        found = await rooms.find_loaded(token) if token else None
    if found is None or found[1] != "GM":
        return None
    return found[0]


def moved_response(moved: Moved) -> Response:
    """421: ask the node that holds the session (``url``, when one is known)."""
    problem = {"message": "the session is served by another node: ask there"}
    body: dict[str, Any] = {"problems": [problem], "session": moved.session}
    if moved.url is not None:
        body["url"] = moved.url
    return JSONResponse(body, 421)


def uvicorn_config(server: Server, host: str, port: int) -> uvicorn.Config:
    """How the server listens: the app over HTTP, and ``/ws`` served by Lore's own
    WebSocket protocol (``websocket.py``) on uvicorn's connections."""
    return uvicorn.Config(
        create_app(server),
        host=host,
        port=port,
        log_level="warning",
        ws=socket_protocol(server),
        http=deadlined(server.late, server.limits.request_wait),
        lifespan="on",
    )
