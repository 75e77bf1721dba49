"""The ASGI app: the web client's files, a small HTTP API, and the WebSocket.

- ``GET /`` and ``GET /play``: the web client (one page; a seat's link is
  ``/play?session=ID#TOKEN``, the token in the fragment so that it never reaches a log or
  a referrer, the session named so that the request goes to the worker that owns it).
  Any request may name its session (``session=ID``) for that routing (``workers.py``).
- ``GET /api/sources``: what a session can be started from.
- ``POST /api/sessions``: start a session, of a source (``{"source": NAME}``) or of an
  uploaded zip (the body, ``application/zip``). The bundle is checked first: its errors
  come back (422) with file, line, column and the caret, and nothing is created.
- ``GET /api/save?session=ID`` with the GM's token (``Authorization: Bearer TOKEN``):
  the session as a zip of its bundle and a Lore save ``save.lore``, which starts a new
  session when uploaded (421 with the session's id: it is another worker's, ask naming it).
- ``GET /bundle/DIGEST/PATH``: the images of a bundle (for rules' HTML messages).
- ``/ws``: the WebSocket (``docs/protocol.md``), served by Lore's own protocol on
  uvicorn's connection (``websocket.py``), not through ASGI.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lore.server import sources as catalog
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
from lore.server.connection import Limits
from lore.server.hub import Hub
from lore.server.rooms import Room, Rooms, seat_link
from lore.server.saving import answers_of, save_disposition, save_zip
from lore.server.websocket import socket_protocol

WEB = Path(__file__).resolve().parent.parent / "web"
log = logging.getLogger("lore.server")

HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self';"
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
        yield
        await server.rooms.snapshot_all()
        await server.rooms.close()
        await server.rooms.store.close()

    async def page(request: Request) -> Response:
        return FileResponse(WEB / "index.html")

    async def list_sources(request: Request) -> Response:
        return JSONResponse(
            [{"name": s.name, "kind": s.kind, "title": s.title} for s in server.sources]
        )

    async def create(request: Request) -> Response:
        try:
            bundle = await bundle_of(request, server)
            room = await server.rooms.create(bundle)
        except BundleError as error:
            return JSONResponse({"problems": [problem_json(p) for p in error.problems]}, 422)
        return JSONResponse(created(room), 201)

    async def save(request: Request) -> Response:
        room = gm_room(request, server.rooms)
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
        if folder is None and server.worker:  # (another worker's session's, maybe)
            folder = await server.rooms.folder_of(digest)
        target = folder / path if folder is not None else None
        if target is None or not target.is_file() or target.is_symlink():
            return Response(status_code=404)
        return FileResponse(target, media_type=IMAGE_TYPES[suffix])

    routes = [
        Route("/", page),
        Route("/play", page),
        Route("/api/sources", list_sources),
        Route("/api/sessions", create, methods=["POST"]),
        Route("/api/save", save),
        Route("/bundle/{digest}/{path:path}", image),
        Mount("/static", StaticFiles(directory=WEB), name="static"),
    ]
    return security_headers(Starlette(routes=routes, lifespan=lifespan), closing=server.worker)


async def bundle_of(request: Request, server: Server) -> Bundle:
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind == "application/json":
        try:
            body = await request.json()
        except ValueError:
            body = None
        name = body.get("source") if isinstance(body, dict) else None
        source = next((s for s in server.sources if s.name == name), None)
        if source is None:
            raise BundleError([Problem(f"there is no example '{name}'")])
        return await asyncio.to_thread(catalog.load, source.path)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_UPLOAD:
            raise BundleError([Problem(f"the upload is larger than {MAX_UPLOAD} bytes")])
    files = read_zip(bytes(data))
    entry = choose_entry(files)
    return Bundle(files, entry, title_of(files, entry, "uploaded session"))


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
    return {"session": room.id, "title": room.record.title, "seats": seats}


def bearer(request: Request) -> str:
    """The token of a request's ``Authorization: Bearer TOKEN`` ("" without one)."""
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header.lower().startswith("bearer ") else ""


def gm_room(request: Request, rooms: Rooms) -> Room | None:
    token = bearer(request)
    found = rooms.find(token) if token else None
    if found is None or found[1] != "GM":
        return None
    return found[0]


def uvicorn_config(server: Server, host: str, port: int) -> uvicorn.Config:
    """How the server listens: the app over HTTP, and ``/ws`` served by Lore's own
    WebSocket protocol (``websocket.py``) on uvicorn's connections."""
    return uvicorn.Config(
        create_app(server),
        host=host,
        port=port,
        log_level="warning",
        ws=socket_protocol(server),
        lifespan="on",
    )
