"""The GM's download: the session as a zip of its bundle and a Lore save.

``save.lore`` is the save ``lore run --save`` writes (the seed, every answer, the state of
what changed); it imports the scenario beside it, so the zip runs with ``lore run
save.lore`` once unpacked, and starts a new session where it stopped when uploaded.
Beside it, ``chat.jsonl`` holds the chat and the rolls (``lore.server.saved_chat``).

The server's sessions keep no answers in memory: the save's answers are read from the
store's log (each answer entry has the question's id, the values, and since this format
the participant asked and the question's title), after those of the save the session was
started from, if any. An entry logged before ``to`` and ``title`` were kept gives the seat
that answered and no title (right unless the GM answered for a player).
"""

from __future__ import annotations

import io
import re
import time
import zipfile
from urllib.parse import quote, unquote, urlsplit

from lore.engine.saves import Answer
from lore.server.bundles import read_folder
from lore.server.rooms import Room
from lore.server.saved_chat import CHAT, chat_lines, saved_chat
from lore.server.store import LogEntry, Store
from lore.syntax import ast
from lore.syntax.parser import parse
from lore.syntax.source import SourceFile

SAVE = "save.lore"


def scenario_entry(room: Room) -> str:
    """The scenario a save of the room imports: its entry, or, when the session was
    started from a save, the scenario that save imports."""
    entry = room.record.entry
    if room.program.stored is None:
        return entry
    path = room.program.folder / entry
    tree = parse(SourceFile(entry, path.read_text(encoding="utf-8", errors="replace"))).module
    for item in tree.header:
        if isinstance(item, ast.Import) and isinstance(item.url, ast.StringLit):
            target = unquote(urlsplit(item.url.value).path)
            if (room.program.folder / target).is_file():
                return target
    return entry


def logged_answer(entry: LogEntry) -> Answer:
    """The answer an answer entry of the log gave (or, of a back entry, going back)."""
    data = entry.data
    to, title = data.get("to", data["seat"]), data.get("title")
    title = title if isinstance(title, str) else None
    if entry.kind == "back":
        return Answer(to, {}, data["id"], title, back=True)
    return Answer(to, data["values"], data["id"], title)


async def answers_of(room: Room, store: Store) -> tuple[list[Answer], bytes]:
    """Every answer given in the room's session since its start, in order (the room's
    lock held): the save's it started from, then those of its log; and the chat said
    since its start (``saved_chat.chat_lines``: the save's, then the log's)."""
    stored = room.program.stored
    found = list(stored.answers) if stored is not None else []
    entries = await store.log(room.id)
    found.extend(logged_answer(entry) for entry in entries if entry.kind in ("answer", "back"))
    earlier = saved_chat(room.program.folder) if stored is not None else []
    return found, chat_lines(earlier, entries)


def save_zip(room: Room, answers: list[Answer], chat: bytes = b"") -> bytes:
    """The zip of the room's bundle with ``save.lore`` (a save the entry was is left out),
    whose answers are ``answers``, and the chat ``chat.jsonl`` (``answers_of``)."""
    folder = room.program.folder
    files = read_folder(folder)
    scenario = scenario_entry(room)
    if room.program.stored is not None:
        files.pop(room.record.entry, None)
    text = room.table.master.save(folder / scenario, folder / SAVE, room.record.title, answers)
    files[SAVE] = text.encode("utf-8")
    files[CHAT] = chat
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, content in sorted(files.items()):
            archive.writestr(path, content)
    return buffer.getvalue()


def save_name(title: str, when: float) -> str:
    """A download's file name: the session's title and the time (UTC) it was saved,
    without the characters file systems refuse (``シナリオ・サンプル 2026-12-02 0345.zip``)."""
    name = re.sub(r'[\\/:*?"<>|\x00-\x1f\x7f]+', "_", title).strip(" .") or "lore-session"
    stamp = time.strftime("%Y-%m-%d %H%M", time.gmtime(when))
    return f"{name[:80]} {stamp}.zip"


def save_disposition(title: str, when: float) -> str:
    """The download's Content-Disposition: its name (``save_name``) for every browser."""
    name = save_name(title, when)
    plain = name.encode("ascii", "replace").decode("ascii").replace("?", "_")
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name)}"
