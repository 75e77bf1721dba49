"""Saved sessions: a Lore file that imports the scenario and adds ``_auto_stored``.

A session is its files, its seed and the log of answers: replaying the answers
reproduces it exactly, also a step that was waiting for answers when it was saved
(the answers given so far are kept; the open query is asked again). The save records:

```
import "scenario.lore":url;
section _auto_stored {
 seed = 42;
 ticks = 3000;
 shown = 17;
 answers = {"{\"from\":\"GM\",\"values\":{...}}", ...};
}
```
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.runtime.quantity import Quantity
from lore.runtime.values import EnumValue, TypedString
from lore.semantics.program import Module
from lore.syntax import ast

SECTION = "_auto_stored"


@dataclass
class Stored:
    """What a save file holds (None when the program has no ``_auto_stored`` data)."""

    seed: int = 0
    ticks: int = 0
    shown: int = 0  # transcript records the session had made (without its end)
    answers: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    ids: list[str | None] = field(default_factory=list)  # the question of each answer


class SaveError(Exception):
    pass


def lore_literal(value: Any) -> str | None:
    """A value written as a Lore literal, or None when it has no literal form."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
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


def state_lines(changed: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """``section state { ... }``: the changed members of each changed object."""
    lines = [
        " // The state when saved, for people and tools: replaying the answers above",
        " // restores the session exactly.",
        " section state {",
    ]
    for label, members in changed:
        written = [(name, lore_literal(value)) for name, value in sorted(members.items())]
        inner = " ".join(f"{name} = {text};" for name, text in written if text is not None)
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in label)
        lines.append(f"  {name} = {{ {inner} }};")
    lines.append(" }")
    return lines


def save_text(
    entry: Path,
    target: Path,
    seed: int,
    ticks: int,
    answers: list[tuple[str, dict[str, Any]]],
    shown: int = 0,
    title: str = "",
    changed: list[tuple[str, dict[str, Any]]] | None = None,
    ids: list[str] | None = None,
) -> str:
    """The text of a save of a session of ``entry``, to be written at ``target``."""
    relative = os.path.relpath(entry.resolve(), target.resolve().parent)
    url = Path(relative).as_posix()
    lines = [
        'docinfo{encoding="UTF-8", version="http://xgmtk.org/lore/1.0":url}',
        f"desc({_quote('[saved session] ' + (title or entry.name))}){{"
        f"{_quote('Saved by lore run: the seed and every answer given.')}}}",
        "",
        f"import {_quote(url)}:url;",
        "",
        f"section {SECTION} {{",
        f" seed = {seed};",
        f" ticks = {ticks};",
        f" shown = {shown};",
    ]
    if answers:
        lines.append(" answers = {")
        records: list[dict[str, Any]] = [{"from": who, "values": values} for who, values in answers]
        for record, query_id in zip(records, ids or (), strict=False):
            record["query"] = query_id  # the question it answered
        encoded = [
            json.dumps(record, ensure_ascii=False, separators=(",", ":")) for record in records
        ]
        lines.extend(
            f"  {_quote(item)}{',' if i < len(encoded) - 1 else ''}"
            for i, item in enumerate(encoded)
        )
        lines.append(" };")
    if changed:
        lines.extend(state_lines(changed))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def read_stored(modules: list[Module]) -> Stored | None:
    """The ``_auto_stored`` data of a loaded save file, if the program has one."""
    for module in modules:
        for definition in module.tree.body:
            if isinstance(definition, ast.SectionDef) and definition.path == (SECTION,):
                return _stored(definition)
    return None


def _stored(section: ast.SectionDef) -> Stored | None:
    values = {m.name: m.value for m in section.members if isinstance(m, ast.VarDef)}
    if "seed" not in values:
        return None  # a save in the paper's state format, not a replay log
    stored = Stored()
    stored.seed = _integer(values["seed"], "seed")
    if "ticks" in values:
        stored.ticks = _integer(values["ticks"], "ticks")
    if "shown" in values:
        stored.shown = _integer(values["shown"], "shown")
    answers = values.get("answers")
    if answers is not None:
        if not isinstance(answers, ast.ListLit):
            raise SaveError("'answers' must be a list of answer records")
        for item in answers.items:
            who, values, query_id = _answer(item)
            stored.answers.append((who, values))
            stored.ids.append(query_id)
    return stored


def _integer(expr: ast.Expr, name: str) -> int:
    if isinstance(expr, ast.IntLit):
        return expr.value
    if isinstance(expr, ast.Unary) and expr.op == "-" and isinstance(expr.operand, ast.IntLit):
        return -expr.operand.value
    raise SaveError(f"'{name}' must be a whole number")


def _answer(item: ast.Expr) -> tuple[str, dict[str, Any], str | None]:
    if not isinstance(item, ast.StringLit):
        raise SaveError("each stored answer is a JSON string")
    try:
        record = json.loads(item.value)
    except json.JSONDecodeError as error:
        raise SaveError(f"a stored answer is not valid JSON: {error.msg}") from None
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("from"), str)
        or not isinstance(record.get("values"), dict)
    ):
        raise SaveError('a stored answer is {"from": participant, "values": {...}}')
    query_id = record.get("query")
    return record["from"], record["values"], query_id if isinstance(query_id, str) else None
