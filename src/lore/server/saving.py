"""The GM's download: the session as a zip of its bundle and a Lore save.

``save.lore`` is the save ``lore run --save`` writes (the seed, every answer, the state of
what changed); it imports the scenario beside it, so the zip runs with ``lore run
save.lore`` once unpacked, and starts a new session where it stopped when uploaded.

The server's sessions keep no answers in memory: the save's answers are read from the
store's log (each answer entry has the question's id, the values, and since this format
the participant asked and the question's title), after those of the save the session was
started from, if any. An entry logged before ``to`` and ``title`` were kept gives the seat
that answered and no title (right unless the GM answered for a player).
"""

from __future__ import annotations

import io
import zipfile
from urllib.parse import unquote, urlsplit

from lore.engine.saves import Answer
from lore.server.bundles import read_folder
from lore.server.rooms import Room
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
    """The answer an answer entry of the log gave."""
    data = entry.data
    to, title = data.get("to", data["seat"]), data.get("title")
    return Answer(to, data["values"], data["id"], title if isinstance(title, str) else None)


async def answers_of(room: Room, store: Store) -> list[Answer]:
    """Every answer given in the room's session since its start, in order (the room's
    lock held): the save's it started from, then those of its log."""
    stored = room.program.stored
    found = list(stored.answers) if stored is not None else []
    entries = await store.log(room.id)
    found.extend(logged_answer(entry) for entry in entries if entry.kind == "answer")
    return found


def save_zip(room: Room, answers: list[Answer]) -> bytes:
    """The zip of the room's bundle with ``save.lore`` (a save the entry was is left out),
    whose answers are ``answers`` (``answers_of``)."""
    folder = room.program.folder
    files = read_folder(folder)
    scenario = scenario_entry(room)
    if room.program.stored is not None:
        files.pop(room.record.entry, None)
    text = room.table.master.save(folder / scenario, folder / SAVE, room.record.title, answers)
    files[SAVE] = text.encode("utf-8")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, content in sorted(files.items()):
            archive.writestr(path, content)
    return buffer.getvalue()
