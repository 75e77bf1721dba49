"""Saved sessions: a Lore file that imports the scenario and adds ``_auto_stored``.

A save holds what the session was made from and everything needed to go on exactly:

```
docinfo {encoding = "UTF-8", version = "http://xgmtk.org/lore/1.0":url}
desc("[saved session] tavern.lore") {"Saved by lore run: ..."}
history("2025-06-01T12:00:00+00:00":date) {reviser = "lore run", desc = "saved at 3000[sec]"}

import "tavern.lore":url;

section _auto_stored {
    format = 2;
    master = "GM";
    seed = 42;
    ticks = 3000;
    files = {"sha256:… tavern.lore", "sha256:… <lore>/basic.lore"};
    answers = {"{\\"from\\":\\"GM\\",\\"query\\":\\"3//0\\",\\"values\\":{…}}", …};
    count = 17;
    records = 40;
    shown = 40;
    snapshot = "base64 of the engine's snapshot";
    check = "sha256:…";
    section state { … }
}
```

The text is in ``lore fmt``'s layout. ``check`` is the SHA-256 of what the save keeps that
is read back (seed, ticks, files, answers, counts and snapshot): a save changed after it
was written is refused, naming the line of its check. ``files`` are the files the program
was made from, with their SHA-256: a session whose files changed is not continued unless
asked to. ``answers`` is every answer given, with who gave it and the question it
answered. ``snapshot`` is the whole state at the save (``engine/snapshot.py``): restoring
is the snapshot, then the answers after the ``answers`` count it holds (none, unless the
save was written in the middle of a replay). ``records`` is how many transcript records
the session had made at the snapshot, and ``shown`` how many it had made (and shown) in
all. ``state`` shows the objects that changed and the schedule, for people and tools;
nothing reads it back.

A save without ``format`` (written before snapshots) has ``seed``, ``ticks``, ``shown``
and ``answers``: it is replayed from the start. A save in the paper's format (a stored
``schedule``, no ``seed``) is run by the engine from its schedule.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.engine.answer_json import JSONError, loads
from lore.runtime.quantity import Quantity
from lore.runtime.values import EnumValue, TypedString
from lore.semantics.program import Module
from lore.syntax import ast
from lore.syntax.parser import parse
from lore.syntax.printer import format_module
from lore.syntax.source import SourceFile

SECTION = "_auto_stored"
FORMAT = 2
MARK = "[saved session]"  # how a save's desc title begins


@dataclass(frozen=True)
class Answer:
    """One answer of the log: who gave it, its values, the question it answered (id and
    title, when known) and, for an answer read from a save, its line there. ``back``: not
    an answer but going back at the question (``engine/withdrawal.py``), no values."""

    seat: str
    values: dict[str, Any]
    query: str | None = None
    title: str | None = None
    line: int = 0
    back: bool = False

    def record(self) -> dict[str, Any]:
        found: dict[str, Any] = {"from": self.seat}
        if self.query is not None:
            found["query"] = self.query
        if self.title is not None:
            found["title"] = self.title
        if self.back:
            found["back"] = True
        else:
            found["values"] = self.values
        return found


@dataclass
class Stored:
    """What a save file holds."""

    source: SourceFile | None = None  # the save file
    format: int = 0  # 0: no save; 1: a save of before snapshots
    seed: int = 0
    ticks: int = 0
    answers: list[Answer] = field(default_factory=list)
    files: list[tuple[str, str]] | None = None
    snapshot: bytes | None = None
    records: int = 0
    shown: int = 0
    history: list[str] = field(default_factory=list)  # the save's history lines, as written
    imports: list[Path] = field(default_factory=list)  # the files it imports (resolved)

    @property
    def path(self) -> Path | None:
        return self.source.path if self.source is not None else None


class SaveError(Exception):
    """A save that cannot be read: the message names the file and line."""


# ------------------------------------------------------------ writing


@dataclass
class SaveData:
    """What ``save_text`` writes."""

    scenario: list[Path]  # the files the save imports
    seed: int
    ticks: int
    answers: list[Answer]
    files: list[tuple[str, str]]
    snapshot: bytes | None
    records: int
    shown: int
    title: str = ""
    history: list[str] = field(default_factory=list)
    when: str = ""  # the date of this save (an ISO date-time)
    changed: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    schedule: list[str] = field(default_factory=list)  # lines that tell the schedule


def save_text(data: SaveData, target: Path) -> str:
    """The text of a save, to be written at ``target``."""
    folder = target.resolve().parent
    lines = [
        'docinfo{encoding="UTF-8", version="http://xgmtk.org/lore/1.0":url}',
        f"desc({_quote(MARK + ' ' + (data.title or data.scenario[0].name))}){{"
        f"{_quote('Saved by lore run: the files, the seed, every answer and the state.')}}}",
        *data.history,
    ]
    if data.when:
        lines.append(
            f"history({_quote(data.when)}:date){{reviser={_quote('lore run')}, "
            f"desc={_quote(f'session saved at {data.ticks}[sec], {len(data.answers)} answers')}}}"
        )
    lines.append("")
    files = [f"sha256:{sha} {name}" for name, sha in data.files]
    answers = [
        json.dumps(a.record(), ensure_ascii=False, separators=(",", ":")) for a in data.answers
    ]
    for path in data.scenario:
        relative = Path(os.path.relpath(path.resolve(), folder)).as_posix()
        lines.append(f"import {_quote(relative)}:url;")
    lines += [
        "",
        f"section {SECTION} {{",
        f" format = {FORMAT};",
        ' master = "GM";',
        f" seed = {data.seed};",
        f" ticks = {data.ticks};",
        " files = {",
        *_items(files),
        " };",
        " answers = {",
        *_items(answers),
        " };",
        f" count = {len(data.answers)};",
        f" records = {data.records};",
        f" shown = {data.shown};",
    ]
    snapshot = base64.b64encode(data.snapshot).decode("ascii") if data.snapshot else None
    if snapshot is not None:
        lines.append(f" snapshot = {_quote(snapshot)};")
    kept = _Kept(data.seed, data.ticks, files, answers, data.records, data.shown, snapshot)
    lines.append(f" check = {_quote(kept.check())};")
    lines.extend(state_lines(data.changed, data.schedule))
    lines.append("}")
    return _canonical("\n".join(lines) + "\n", target.name)


def _canonical(text: str, name: str) -> str:
    """The save in ``lore fmt``'s layout, as every Lore file of the project is. Only the
    layout changes (``check`` is a digest of the values, not of the text); a save too
    large for the parser's limits keeps the plain layout it was made in."""
    result = parse(SourceFile(name, text))
    return format_module(result) if result.ok else text


@dataclass(frozen=True)
class _Kept:
    """What a save keeps that is read back, as written: its ``check`` is their digest, so
    that a save changed after it was written (a byte of its snapshot, an answer) is
    refused rather than read as another state."""

    seed: int
    ticks: int
    files: list[str]
    answers: list[str]
    records: int
    shown: int
    snapshot: str | None

    def check(self) -> str:
        fields = [self.seed, self.ticks, self.files, self.answers, self.records, self.shown]
        text = json.dumps([*fields, self.snapshot], ensure_ascii=False, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _items(texts: list[str]) -> list[str]:
    return [f"  {_quote(text)}{',' if i < len(texts) - 1 else ''}" for i, text in enumerate(texts)]


def lore_literal(value: Any) -> str | None:
    """A value written as a Lore literal, or None when it has no literal form."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, int) or value == value else None
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, TypedString):
        return f"{_quote(value.text)}:{value.kind}"
    if isinstance(value, Quantity):
        return f"{value.amount()!r}[{value.unit}]"
    if isinstance(value, EnumValue):
        return f"{value.enum.name}.{value.name}"
    if isinstance(value, tuple) and value:
        items = [lore_literal(item) for item in value]
        if all(item is not None for item in items):
            return "{" + ", ".join(item for item in items if item is not None) + "}"
    return None


def state_lines(changed: list[tuple[str, dict[str, Any]]], schedule: list[str]) -> list[str]:
    """``section state { ... }``: the changed members of each changed object, and the
    schedule as comments (its handlers are compiled rules, not Lore text)."""
    lines = [
        " // The state when saved, for people and tools (the snapshot above is what the",
        " // session goes on from).",
        " section state {",
    ]
    for label, members in changed:
        written = [(name, lore_literal(value)) for name, value in sorted(members.items())]
        inner = " ".join(f"{name} = {text};" for name, text in written if text is not None)
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in label)
        lines.append(f"  {name} = {{ {inner} }};")
    lines.extend(f"  // {line}" for line in schedule)
    lines.append(" }")
    return lines


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


# ------------------------------------------------------------ reading


def read_stored(modules: list[Module], entry: Path | None = None) -> Stored:
    """The ``_auto_stored`` data of a loaded save (``format`` 0 when the program is not
    a save of ``lore run``). Raises SaveError, naming the file and line, for a damaged
    save: one cut short, without its seed, with an answer that is not valid."""
    found = [
        (module, definition)
        for module in modules
        for definition in module.tree.body
        if isinstance(definition, ast.SectionDef) and definition.path == (SECTION,)
    ]
    # A save of lore run (it has a seed) before a save in the paper's format it imports.
    found.sort(key=lambda item: not any(_is_seed(m) for m in item[1].members))
    if found:
        return _stored(*found[0])
    for module in modules:
        path = module.source.path
        if entry is not None and path is not None and path.resolve() == entry.resolve():
            title = _desc_title(module.tree)
            if title is not None and title.startswith(MARK):
                raise SaveError(
                    f"{module.source.name}: it is a saved session without its section "
                    f"{SECTION} (the file was cut short?)"
                )
    return Stored()


def _is_seed(member: ast.Definition) -> bool:
    return isinstance(member, ast.VarDef) and member.name == "seed"


def _desc_title(tree: ast.Module) -> str | None:
    for item in tree.header:
        if isinstance(item, ast.Desc) and isinstance(item.title, ast.StringLit):
            return item.title.value
    return None


class _Reader:
    def __init__(self, module: Module, section: ast.SectionDef) -> None:
        self.source = module.source
        self.section = section
        self.values = {m.name: m for m in section.members if isinstance(m, ast.VarDef)}

    def error(self, node: ast.Node | None, message: str) -> SaveError:
        span = node.span if node is not None else self.section.span
        line = self.source.position(span.start).line
        return SaveError(f"{self.source.name}:{line}: {message}")

    def integer(self, name: str, default: int | None = None) -> int:
        member = self.values.get(name)
        if member is None:
            if default is None:
                raise self.error(None, f"the save has no '{name}' (it is damaged)")
            return default
        expr = member.value
        if isinstance(expr, ast.IntLit):
            return expr.value
        if isinstance(expr, ast.Unary) and expr.op == "-" and isinstance(expr.operand, ast.IntLit):
            return -expr.operand.value
        raise self.error(member, f"'{name}' must be a whole number")

    def strings(self, name: str) -> list[tuple[str, ast.Node]]:
        member = self.values.get(name)
        if member is None or (isinstance(member.value, ast.FormLit) and not member.value.members):
            return []  # none (`{}` reads as an empty form literal)
        if not isinstance(member.value, ast.ListLit):
            raise self.error(member, f"'{name}' must be a list of strings")
        found: list[tuple[str, ast.Node]] = []
        for item in member.value.items:
            if not isinstance(item, ast.StringLit):
                raise self.error(item, f"each item of '{name}' is a string")
            found.append((item.value, item))
        return found


def _stored(module: Module, section: ast.SectionDef) -> Stored:
    reader = _Reader(module, section)
    values = reader.values
    ours = ("format", "answers", "shown", "snapshot", "files", "count")
    if "seed" not in values:
        if any(name in values for name in ours):
            raise reader.error(None, "the save has no 'seed' (it is damaged)")
        return Stored(source=module.source)  # a save in the paper's format
    stored = Stored(source=module.source)
    stored.format = reader.integer("format", 1)
    if stored.format not in (1, FORMAT):
        raise reader.error(
            values["format"], f"the save has format {stored.format}; this Lore reads 1 and 2"
        )
    stored.seed = reader.integer("seed")
    stored.ticks = reader.integer("ticks", 0)
    stored.shown = reader.integer("shown", 0)
    stored.records = reader.integer("records", 0)
    for text, node in reader.strings("answers"):
        stored.answers.append(_answer(reader, text, node))
    if stored.format >= 2:
        count = reader.integer("count")
        if count != len(stored.answers):
            raise reader.error(
                values["count"],
                f"the save should hold {count} answers and holds {len(stored.answers)}"
                " (it is damaged)",
            )
        stored.files = [_file(reader, text, node) for text, node in reader.strings("files")]
        snapshot = values.get("snapshot")
        if snapshot is not None:
            if not isinstance(snapshot.value, ast.StringLit):
                raise reader.error(snapshot, "'snapshot' must be a string")
            try:
                stored.snapshot = base64.b64decode(snapshot.value.value, validate=True)
            except (binascii.Error, ValueError):
                raise reader.error(snapshot, "the snapshot is damaged (not base64)") from None
        _check(reader, stored)
    stored.history = [
        module.source.text[item.span.start : item.span.end]
        for item in module.tree.header
        if isinstance(item, ast.History)
    ]
    stored.imports = [m.source.path for m in module.imports if m.source.path is not None]
    return stored


def _check(reader: _Reader, stored: Stored) -> None:
    """Refuse a save whose ``check`` is not the digest of what it holds (a save written
    before saves had one is read as it is)."""
    member = reader.values.get("check")
    if member is None:
        return
    if not isinstance(member.value, ast.StringLit):
        raise reader.error(member, "'check' must be a string")
    snapshot = reader.values.get("snapshot")
    kept = _Kept(
        stored.seed,
        stored.ticks,
        [text for text, _ in reader.strings("files")],
        [text for text, _ in reader.strings("answers")],
        stored.records,
        stored.shown,
        snapshot.value.value
        if snapshot is not None and isinstance(snapshot.value, ast.StringLit)
        else None,
    )
    if kept.check() != member.value.value:
        raise reader.error(
            member,
            "the save was changed after it was written (what it holds does not match its"
            " check): it is not continued; use a copy of it as it was written",
        )


def _file(reader: _Reader, text: str, node: ast.Node) -> tuple[str, str]:
    digest, _, name = text.partition(" ")
    if not digest.startswith("sha256:") or not name:
        raise reader.error(node, f"a file of the save is 'sha256:HEX name', not {text!r}")
    return name, digest.removeprefix("sha256:")


def _answer(reader: _Reader, text: str, node: ast.Node) -> Answer:
    line = reader.source.position(node.span.start).line
    try:
        record = loads(text)
    except JSONError as error:
        raise reader.error(node, f"a stored answer is not valid: {error.message}") from None
    back = isinstance(record, dict) and record.get("back") is True and "values" not in record
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("from"), str)
        or not (back or isinstance(record.get("values"), dict))
    ):
        raise reader.error(
            node,
            'a stored answer is {"from": participant, "values": {...}}'
            ' (or {"from": participant, "back": true})',
        )
    query, title = record.get("query"), record.get("title")
    return Answer(
        record["from"],
        {} if back else record["values"],
        query if isinstance(query, str) else None,
        title if isinstance(title, str) else None,
        line,
        back,
    )
