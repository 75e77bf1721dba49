"""The chat of a saved session: its chat lines and rolls, in ``chat.jsonl`` beside the
save in the GM's download, one JSON object a line (``{"kind": "chat" | "roll", "tick":
..., "from": seat, "to": seat (a whisper), "text": ..., "secret": true (a secret
roll)}``), in the order they were said.

A session started from such a download shows them again as they were, each to whom it
was for, before anything new; saved again, its download has them and the new ones. A
download without ``chat.jsonl`` (saved before chat was kept) starts with an empty chat.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lore.server.store import LogEntry

CHAT = "chat.jsonl"
KINDS = ("chat", "roll")
MEMBERS = ("tick", "from", "to", "text", "secret")


def saved_chat(folder: Path) -> list[LogEntry]:
    """The chat lines and rolls of the save a session was started from (its bundle's
    ``chat.jsonl``), as the log entries that said them; lines that are no such record are
    left out (a save edited by hand loses them, not the session)."""
    path = folder / CHAT
    if not path.is_file():
        return []
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        entry = _entry(record)
        if entry is not None:
            found.append(entry)
    return found


def _entry(record: Any) -> LogEntry | None:
    if not isinstance(record, dict) or record.get("kind") not in KINDS:
        return None
    data = {name: record[name] for name in MEMBERS if record.get(name) is not None}
    if not isinstance(data.get("from"), str) or not isinstance(data.get("text"), str):
        return None
    if not isinstance(data.get("tick", 0), int) or not isinstance(data.get("to", ""), str):
        return None
    return LogEntry(0, record["kind"], data)


def chat_lines(earlier: list[LogEntry], entries: list[LogEntry]) -> bytes:
    """``chat.jsonl`` of the chat said before the session's log (``earlier``) and in its
    log entries."""
    lines = []
    for entry in [*earlier, *entries]:
        if entry.kind not in KINDS:
            continue
        record = {"kind": entry.kind}
        data = entry.data
        record.update((name, data[name]) for name in MEMBERS if data.get(name) is not None)
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(lines).encode("utf-8")
