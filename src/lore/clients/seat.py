"""A seat's client over the protocol (``docs/protocol.md``), for programs: ``lore join``,
scripted players and tests.

It says hello with the link's token, keeps what the server sends (the view, the open
questions, the messages, the last sequence number), and reconnects with the last sequence
number seen, so that it gets exactly what it missed. It connects naming its session
(``/ws?session=ID``: the link's, or the one the server named), so that a server of
several workers hands it to the one that serves the session (``docs/protocol.md``). Every
frame received is also kept as the text that came over the socket (``raw``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

Frame = dict[str, Any]


def acknowledged(frame: Frame) -> int | None:
    """The log index an acknowledgement gives (an ``ack`` frame, or an update carrying
    ``ack`` to the client whose message made it); None for any other frame (an ``ack``
    of a GM command that is not logged gives 0)."""
    if frame.get("type") == "ack":
        return int(frame.get("ack", 0))
    found = frame.get("ack")
    return int(found) if found is not None else None


class JoinError(Exception):
    """The link cannot be used (malformed, unknown or revoked)."""


def socket_url(link: str) -> tuple[str, str, str | None]:
    """The WebSocket URL, the token and the session (None when it names none) of a
    seat's link (``http://host:port/play?session=ID#TOKEN``)."""
    parts = urlsplit(link)
    if parts.scheme not in ("http", "https") or not parts.netloc or not parts.fragment:
        raise JoinError(
            f"'{link}' is not a seat's link (like http://host:8000/play?session=ID#TOKEN)"
        )
    scheme = "wss" if parts.scheme == "https" else "ws"
    named = parse_qs(parts.query).get("session")
    return f"{scheme}://{parts.netloc}/ws", parts.fragment, named[0] if named else None


MOVES = 20  # times a connection may be sent elsewhere (or fail at a node) in a row
MOVE_WAIT = 0.2  # seconds before trying a node again


def node_socket(url: str) -> str:
    """The WebSocket URL of a node's URL (``http://host:port``)."""
    parts = urlsplit(url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}/ws"


@dataclass
class SeatState:
    seq: int | None = None
    seat: str = ""
    label: str = ""
    role: str = ""
    title: str = ""
    view: dict[str, Any] = field(default_factory=dict)
    maps: dict[str, Any] = field(default_factory=dict)
    questions: dict[str, Frame] = field(default_factory=dict)
    messages: list[Frame] = field(default_factory=list)
    seats: list[Frame] = field(default_factory=list)
    status: dict[str, Any] = field(default_factory=dict)
    online: list[str] = field(default_factory=list)
    links: list[Frame] = field(default_factory=list)

    def apply(self, frame: Frame) -> None:
        kind = frame.get("type")
        if kind == "welcome":
            self.seat, self.role = frame["seat"], frame["role"]
            self.label = frame.get("label") or frame["seat"]
            self.title = frame["session"]["title"]
        elif kind == "snapshot":
            self.seq = frame["seq"]
            self.view = {
                "tick": frame["view"]["tick"],
                "actors": {a["id"]: a for a in frame["view"]["actors"]},
                "areas": {a["path"]: a for a in frame["view"]["areas"]},
                "objects": {o["id"]: o for o in frame["view"]["objects"]},
            }
            self.maps = dict(frame["maps"])
            self.questions = {q["id"]: q for q in frame["questions"]}
            self.messages = list(frame["messages"])
            self.seats, self.status = frame["seats"], frame["status"]
        elif kind == "update":
            self.update(frame)
        elif kind == "clock":  # the time moved, with nothing else for this seat
            self.view["tick"] = frame["tick"]
        elif kind == "presence":
            self.online = frame["online"]
        elif kind == "links":
            self.links = frame["links"]

    def label_of(self, seat: str) -> str:
        """A seat as people know it (its label, ``Chihiro``), not its id."""
        for item in self.seats:
            if item.get("seat") == seat:
                return str(item.get("label") or seat)
        return seat

    def update(self, frame: Frame) -> None:
        if self.seq is not None and frame["seq"] != self.seq + 1:
            raise JoinError(f"update {frame['seq']} came after {self.seq}")
        self.seq = frame["seq"]
        delta = frame.get("view") or {}
        if "tick" in delta:
            self.view["tick"] = delta["tick"]
        for name, items in (delta.get("put") or {}).items():
            for item in items:
                self.view.setdefault(name, {})[item["path" if name == "areas" else "id"]] = item
        for name, keys in (delta.get("drop") or {}).items():
            for key in keys:
                self.view.get(name, {}).pop(key, None)
        self.maps.update(frame.get("maps") or {})
        for key in frame.get("closed") or ():
            self.questions.pop(key, None)
        for spec in frame.get("opened") or ():
            self.questions[spec["id"]] = spec
        self.messages.extend(frame.get("messages") or ())
        if "seats" in frame:
            self.seats = frame["seats"]
        if "status" in frame:
            self.status = frame["status"]


class SeatClient:
    def __init__(self, link: str, timeout: float = 10.0) -> None:
        self.base, self.token, self.session = socket_url(link)
        self.timeout = timeout
        self.state = SeatState()
        self.raw: list[str] = []  # every frame as it came over the socket
        self.socket: ClientConnection | None = None
        self.next_ref = 1
        self.nodes: list[str] = []  # a cluster's nodes, as the last welcome named them

    # ------------------------------------------------------------ the connection

    @property
    def url(self) -> str:
        """The WebSocket's URL, naming the session once it is known."""
        if self.session is None:
            return self.base
        return f"{self.base}?{urlencode({'session': self.session})}"

    def connect(self) -> None:
        """Connect (again) and say hello with the last sequence number seen (once more,
        naming the session, when the server says it is served elsewhere: by another
        worker, or at another node's URL). A node that cannot be reached is left for the
        next of the nodes the last welcome named."""
        for _ in range(MOVES):
            self.close()
            try:
                self.socket = connect(
                    self.url, open_timeout=self.timeout, max_size=2**24, legacy=True
                )
            except OSError:
                if len(self.nodes) < 2:
                    raise
                self.base = node_socket(self.next_node())
                time.sleep(MOVE_WAIT)
                continue
            hello: Frame = {"type": "hello", "token": self.token, "seq": self.state.seq}
            try:
                self.socket.send(json.dumps(hello))
                welcome = self.receive(self.timeout)
            except ConnectionClosed:
                if not self.nodes:
                    raise
                time.sleep(MOVE_WAIT)  # (a node closing: ask again, or at the next one)
                continue
            if welcome is not None and welcome.get("code") == "elsewhere":
                self.session = str(welcome["session"])
                if "url" not in welcome and self.nodes:  # (no node says it holds it yet)
                    time.sleep(MOVE_WAIT)
                continue
            if welcome is None or welcome.get("type") == "error":
                message = welcome.get("message") if welcome else "no answer"
                raise JoinError(f"the server refused the link: {message}")
            self.session = str(welcome["session"]["id"])
            # A node just started names only itself until it hears from the others: the
            # nodes known before are kept after those it names, to go on at when it fails.
            named = [str(url) for url in welcome.get("nodes", [])]
            self.nodes = named + [url for url in self.nodes if url not in named]
            return
        raise JoinError("the server named another place for the session again")

    def next_node(self) -> str:
        """The node after the one this client is at, of those the last welcome named."""
        at = [n for n, url in enumerate(self.nodes) if node_socket(url) == self.base]
        return self.nodes[(at[0] + 1 if at else 0) % len(self.nodes)]

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()
            self.socket = None

    def receive(self, timeout: float) -> Frame | None:
        """The next frame (applied to the state), or None when none came in time."""
        if self.socket is None:
            raise ConnectionClosed(None, None)
        try:
            text = self.socket.recv(timeout=timeout)
        except TimeoutError:
            return None
        text = text if isinstance(text, str) else text.decode("utf-8")
        self.raw.append(text)
        frame: Frame = json.loads(text)
        self.state.apply(frame)
        if frame.get("code") == "elsewhere" and "url" in frame:  # (the session moved:
            self.base = node_socket(str(frame["url"]))  # its node's, from now on)
        return frame

    def pump(self, quiet: float = 0.05) -> list[Frame]:
        """The frames that come until none has come for ``quiet`` seconds."""
        found = []
        while (frame := self.receive(quiet)) is not None:
            found.append(frame)
        return found

    def wait_for(self, test: Callable[[Frame], bool], timeout: float | None = None) -> Frame:
        """Receive until a frame passes ``test`` (TimeoutError when none does in time)."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the server sent nothing like what was awaited")
            frame = self.receive(left)
            if frame is not None and test(frame):
                return frame

    # ------------------------------------------------------------ sending

    def send(self, message: Frame) -> int:
        """Send a message with a fresh ``ref``; the ref."""
        if self.socket is None:
            raise ConnectionClosed(None, None)
        ref = self.next_ref
        self.next_ref += 1
        self.socket.send(json.dumps({**message, "ref": ref}))
        return ref

    def request(self, message: Frame, timeout: float | None = None) -> Frame:
        """Send a message and wait for the frame that answers it (ack, error, route...)."""
        ref = self.send(message)
        return self.wait_for(lambda f: f.get("ref") == ref, timeout)

    def answer(self, query_id: str, values: dict[str, Any]) -> Frame:
        """Answer an open question; the frame acknowledging it (``acknowledged``) or the
        error."""
        message = {"type": "answer", "id": query_id, "values": values, "seq": self.state.seq or 0}
        return self.request(message)
