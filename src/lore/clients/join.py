"""``lore join URL``: play one seat of an online session from the terminal.

The URL is the seat's link (``http://host:8000/play?session=ID#TOKEN``). Messages are
printed as they come, cleaned of control characters (``lore.clients.safe_text``):
another seat's chat cannot drive the terminal. Each question is asked with numbered
menus, like ``lore run``; a line typed while no question is open goes to the chat, as
the web client's chat box sends it (a dice command, ``2D6+3>=10``, rolls: the server
decides, as for the web). A line that starts with ``/`` is always for the chat, also
while a question is asked (``CHAT_HELP``); ``<`` at a question that says so goes back
(the answer before it is taken back, and its question asked again). The client
reconnects by itself when the connection drops, and gets what it missed. End of input
(Ctrl-D) leaves.
"""

from __future__ import annotations

import queue
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from websockets.exceptions import ConnectionClosed, WebSocketException

from lore.clients.asking_again import (
    BACK_HINT,
    GO_BACK,
    ask_again,
    menu_reason,
    menu_span,
    value_reason,
)
from lore.clients.chat_commands import CHAT_HELP, SLASHES, chat_text
from lore.clients.safe_text import printable
from lore.clients.seat import Frame, JoinError, SeatClient
from lore.engine.game_clock import clock_text

_TAG = re.compile(r"<[^>]*>")
GONE = (OSError, ConnectionClosed, WebSocketException)


def say(out: TextIO, text: str) -> None:
    """Print a line made of what the server sent, without its control characters."""
    print(printable(text), file=out, flush=True)


class Asker:
    """Asks one question input by input; ``feed`` takes each typed line."""

    def __init__(self, spec: Frame, out: TextIO) -> None:
        self.spec = spec
        self.out = out
        self.values: dict[str, Any] = {}
        self.index = 0

    def say(self, text: str) -> None:
        say(self.out, text)

    def start(self, who: str) -> None:
        title = self.spec["title"] + (f" (for {who})" if who else "")
        self.say(f"\n== {title}")
        if self.spec.get("back"):  # (the answer before it may be taken back)
            self.say(BACK_HINT)
        for text in self.spec["texts"]:
            if text["name"] == "map":
                self.say("\n".join("   " + line for line in text["text"].splitlines()))
            elif text["name"] == "message":
                self.say(f"   {text['text']}")
            else:
                self.say(f"   {text['name']}: {text['text']}")
        self.prompt()

    @property
    def current(self) -> Frame | None:
        inputs = self.spec["inputs"]
        return inputs[self.index] if self.index < len(inputs) else None

    def prompt(self, menu: bool = True) -> None:
        """Ask for the current input: its menu (unless ``menu`` is False: asked again),
        then its prompt, as ``lore run`` words them."""
        item = self.current
        if item is None:
            return
        choices = choice_ids(item)
        default = item.get("default")
        # (an input by its caption, as ``lore run`` says it: else its member name)
        label = (self.spec.get("captions") or {}).get(item["name"], item["name"])
        if choices:
            captions = [
                c.get("caption", c.get("id")) if isinstance(c, dict) else c for c in item["choices"]
            ]
            menu_lines = enumerate(zip(choices, captions, strict=False), 1) if menu else ()
            for number, (choice, caption) in menu_lines:
                extra = f" ({choice})" if caption != choice else ""
                mark = " (default)" if choice == default else ""
                self.say(f"   {number}. {caption}{extra}{mark}")
            several = item.get("kind") == "choices"
            span = menu_span(len(choices), several, item.get("least", 1), item.get("most"))
            self.say(f"{label} {span}> ")
        else:
            bounds = f", {item['range']}" if item.get("range") else ""
            shown = f", Enter for {default}" if default is not None else ""
            self.say(f"{label} ({item['type']}{bounds}{shown})> ")

    def feed(self, line: str) -> bool:
        """Take a typed line; True when every input has its value."""
        item = self.current
        if item is None:
            return True
        value = typed(item, line.strip())
        if value is None:
            self.say(ask_again(expected(item)))
            self.prompt(menu=False)
            return False
        self.values[item["name"]] = value
        self.index += 1
        if self.current is None:
            return True
        self.prompt()
        return False


def choice_ids(item: Frame) -> list[Any]:
    """The ids of an input's choices (each is ``{"id", "caption"}``)."""
    return [c.get("id") if isinstance(c, dict) else c for c in item.get("choices") or ()]


def expected(item: Frame) -> str:
    """What an input takes, as said when a typed line is not that."""
    choices = choice_ids(item)
    if choices:
        return menu_reason(len(choices), item.get("kind") == "choices")
    return value_reason(str(item.get("type", "")))


def typed(item: Frame, text: str) -> Any:
    """A typed line as the value of an input, or None when it is not one (Enter gives
    the default)."""
    if not text and item.get("default") is not None:
        return item["default"]
    choices = choice_ids(item)
    if choices and item.get("kind") == "choices":
        if not text and item.get("least") == 0:
            return []
        picked = [typed({"choices": item["choices"]}, word) for word in text.split()]
        return picked if picked and None not in picked else None
    if choices:
        if text.isdigit() and 1 <= int(text) <= len(choices):
            return choices[int(text) - 1]
        return text if text in choices else None
    kind = str(item.get("type", ""))
    if kind.startswith("unit[") or kind in ("integer", "real", "number"):
        try:
            return int(text) if kind == "integer" or text.lstrip("-").isdigit() else float(text)
        except ValueError:
            return None
    if kind == "boolean":
        lowered = text.lower()
        if lowered in ("y", "yes", "true", "1"):  # (as lore run reads it)
            return True
        return False if lowered in ("n", "no", "false", "0") else None
    return text or None


class Join:
    def __init__(self, client: SeatClient, out: TextIO) -> None:
        self.client = client
        self.out = out
        self.printed = 0
        self.asking: Asker | None = None
        self.waiting_ref: int | None = None
        self.answered = ""  # the question of the answer awaiting its acknowledgement
        self.done: set[str] = set()

    def say(self, text: str) -> None:
        say(self.out, text)

    def show_messages(self) -> None:
        messages = self.client.state.messages
        if self.printed > len(messages):
            self.printed = 0  # a snapshot replaced them
        for message in messages[self.printed :]:
            self.say(describe(message, self.client.state.label_of))
        self.printed = len(messages)

    def handle(self, frame: Frame) -> None:
        if frame.get("ref") is not None and frame.get("ref") == self.waiting_ref:
            self.waiting_ref = None
            if frame["type"] != "error":
                # (Gone back: the question answered before is open again, to be asked.)
                questions = self.client.state.questions
                self.done = {q for q in self.done if q not in questions}
            if frame["type"] == "error":
                # Refused: the question is asked again while it is open, as lore run does.
                self.done.discard(self.answered)
                again = self.answered in self.client.state.questions
                self.say(ask_again(frame["message"]) if again else f"   {frame['message']}")
                self.asking = None
        elif frame["type"] == "error":
            self.say(f"   {frame['code']}: {frame['message']}")

    def next_question(self) -> None:
        if self.asking is not None or self.waiting_ref is not None:
            return
        for query_id, spec in self.client.state.questions.items():
            if query_id not in self.done:
                self.asking = Asker(spec, self.out)
                state = self.client.state
                self.asking.start(state.label_of(spec["to"]) if state.role == "gm" else "")
                return

    def line(self, text: str) -> None:
        if text.lstrip().startswith(SLASHES):  # a chat command, also while a question is asked
            self.chat(text.strip()[1:])
            return
        if self.asking is not None and text.strip() == GO_BACK:
            # Going back at this question: its answer before is taken back (or refused).
            spec = self.asking.spec
            self.done.add(spec["id"])
            self.answered = spec["id"]
            self.waiting_ref = self.client.send({"type": "back", "id": spec["id"]})
            self.asking = None
        elif self.asking is not None:
            if self.asking.feed(text):
                spec = self.asking.spec
                if spec["id"] not in self.client.state.questions:
                    self.say("   that question is no longer open")
                    self.asking = None
                    return
                self.done.add(spec["id"])
                self.answered = spec["id"]
                message = {"type": "answer", "id": spec["id"], "values": self.asking.values}
                self.waiting_ref = self.client.send({**message, "seq": self.client.state.seq or 0})
                self.asking = None
        elif text.strip():
            self.client.send({"type": "chat", "text": text.strip()})

    def chat(self, command: str) -> None:
        """A line typed after the slash: help, or what it sends to the chat."""
        if command.strip().lower() in ("help", "?", "\uff1f"):
            self.say(CHAT_HELP)
            return
        said = chat_text(command)
        if said:
            self.client.send({"type": "chat", "text": said})


def describe(message: Frame, label_of: Callable[[str], str] = str) -> str:
    """A message as one line: its game time, then who said what (seats by their label)."""
    at = message.get("tick")
    tick = clock_text(at) if isinstance(at, int) else ""
    kind = message["kind"]
    if kind == "message":
        text = message["text"]
        if message.get("format") == "html":
            text = " ".join(_TAG.sub(" ", text).split())
        also = message.get("also") or []  # (the GM's one line of a message to several)
        to = f" -> {', '.join(label_of(seat) for seat in [message['to'], *also])}" if also else ""
        return f"[{tick}]{to} {text}"
    if kind in ("chat", "roll"):
        to = f" -> {label_of(message['to'])}" if message.get("to") else ""
        text = message.get("text") or "(a secret roll)"
        if message.get("comment") and message.get("text"):
            text = f"{text} {message['comment']}"
        text = text.replace("\n", "\n    ")  # a line of its own could pass for another's
        return f"[{tick}] {label_of(message['from'])}{to}: {text}"
    if kind == "answer":
        who = label_of(message["from"])
        if message.get("by") and message["by"] != message["from"]:
            who = f"{label_of(message['by'])} for {who}"
        return f"[{tick}] {who} answered {answer_text(message)}"
    if kind == "back":
        return f"[{tick}] {label_of(message['from'])} went back to: {message.get('title') or ''}"
    if kind == "assign":
        actor = message.get("name") or message.get("actor", "")
        moved = f"{label_of(message['from'])} to {label_of(message['to'])}"
        return f"[{tick}] the GM moved {actor} from {moved}"
    if kind == "error":
        return f"[{tick}] rule error at {message.get('where')}: {message['text']}"
    return f"[{tick}] {message.get('text', '')}"


def answer_text(message: Frame) -> str:
    """What an answer chose, as the page shows it: each input's caption and the chosen
    choice's (``shown``), else the values as sent."""
    shown = message.get("shown")
    if isinstance(shown, list):
        parts = []
        for part in shown:
            caption = part.get("caption") or ("destination" if part.get("purpose") else "")
            value = show_value(part.get("value"))
            parts.append(f"{caption}: {value}" if caption else value)
        return ", ".join(parts)
    values = message.get("values") or {}
    return ", ".join(f"{name}={show_value(value)}" for name, value in values.items())


def show_value(value: Any) -> str:
    """An answered value as the player typed or picked it (a list as its items)."""
    if isinstance(value, list):
        return "[" + ", ".join(show_value(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def read_lines(lines: queue.Queue[str | None], source: TextIO) -> None:
    for text in source:
        lines.put(text)
    lines.put(None)


def play(link: str, source: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    try:
        client = SeatClient(link)
        client.connect()
    except JoinError as error:
        say(sys.stderr, f"lore join: {error}")  # (it may quote the server)
        return 2
    except GONE as error:
        print(f"lore join: cannot reach {client.url}: {error}", file=sys.stderr)
        return 2
    join = Join(client, out)
    state = client.state
    seat = state.label if state.label == state.seat else f"{state.label} ({state.seat})"
    say(out, f"Joined '{state.title}' as {seat} (/help: the chat commands)")
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=read_lines, args=(lines, source), daemon=True).start()
    while True:
        try:
            for frame in client.pump(0.1):
                join.handle(frame)
        except GONE:
            print("(connection lost: reconnecting)", file=out, flush=True)
            reconnect(client)
            continue
        join.show_messages()
        if client.state.status.get("ended") and not client.state.questions:
            say(out, f"session ended: {client.state.status['ended']}")
            return 0
        join.next_question()
        if join.waiting_ref is not None:
            continue
        try:
            text = lines.get(timeout=0.05)
        except queue.Empty:
            continue
        if text is None:
            client.close()
            return 0
        try:
            join.line(text)
        except GONE:
            reconnect(client)


def reconnect(client: SeatClient) -> None:
    delay = 0.2
    while True:
        try:
            client.connect()
            return
        except GONE:
            time.sleep(delay)
            delay = min(delay * 2, 5.0)
