"""Queries: what a participant is asked, and turning an answer into Lore values.

``actor.query(title, spec)``: the members of ``spec`` whose value is ``T.input`` become
inputs; the others are shown as they are. An answer maps input names to plain values
(an enum value by name, a quantity as a number in the asked unit, a location as a path
string); the engine checks it and gives the rule the spec with the inputs filled in.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lore.runtime.quantity import Quantity
from lore.runtime.values import InputMarker, LoreObject, Range, RuntimeType, TypedString, show
from lore.semantics import literals


@dataclass(frozen=True)
class Input:
    name: str
    type: RuntimeType
    choices: tuple[str, ...] | None = None
    allowed: Range | None = None
    default: Any = None
    captions: tuple[str, ...] | None = None  # what each choice is called (enum captions)

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {"name": self.name, "type": str(self.type)}
        if self.choices is not None:
            described["choices"] = list(self.choices)
            if self.captions is not None:
                described["captions"] = list(self.captions)
        if self.allowed is not None:
            described["range"] = str(self.allowed)
        if self.default is not None:
            described["default"] = plain(self.default)
        return described


@dataclass(frozen=True)
class Query:
    to: str
    title: str
    texts: tuple[tuple[str, str], ...]  # members shown as they are
    inputs: tuple[Input, ...]
    # Which question of the session this is: "<event seq>/<foreach path>/<number>".
    id: str = ""

    def record(self) -> dict[str, Any]:
        """The question as plain data (JSON): its id, whom it asks (``to``), its title,
        the members shown as they are (``texts``) and its inputs (``Input.describe``)."""
        return {
            "id": self.id,
            "to": self.to,
            "title": self.title,
            "texts": [[name, text] for name, text in self.texts],
            "inputs": [i.describe() for i in self.inputs],
        }


class AnswerError(Exception):
    """An answer that does not fit the query."""


def make_query(to: str, title: str, spec: Any) -> Query:
    texts: list[tuple[str, str]] = []
    inputs: list[Input] = []
    values = spec.values if isinstance(spec, LoreObject) else {}
    for name, value in values.items():
        if isinstance(value, InputMarker):
            inputs.append(_input(name, value))
        else:
            texts.append((name, show(value)))
    return Query(to, title, tuple(texts), tuple(inputs))


def _input(name: str, marker: InputMarker) -> Input:
    rtype: RuntimeType = marker.type
    choices = captions = None
    if rtype.kind == "enum" and rtype.enum is not None:
        choices = tuple(rtype.enum.values)
        captions = tuple(
            show(value.members.get("caption", value.name)) for value in rtype.enum.values.values()
        )
    allowed = marker.args[0] if marker.args and isinstance(marker.args[0], Range) else None
    default = marker.args[1] if len(marker.args) > 1 else None
    if rtype.kind == "unit" and isinstance(default, int | float) and rtype.unit is not None:
        default = Quantity.of(default, rtype.unit, rtype.family)
    return Input(name, rtype, choices, allowed, default, captions)


def fill(
    query: Query, spec: Any, answer: Any, places: Callable[[str], str | None] | None = None
) -> LoreObject:
    """The spec with its inputs replaced by the answer's values (raises AnswerError).
    ``places`` tells why a location answered names no place (None: it does)."""
    if not isinstance(answer, dict):
        raise AnswerError(f"an answer is an object of input names, not {answer!r}")
    names = {i.name for i in query.inputs}
    extra = sorted(set(answer) - names)
    if extra:
        raise AnswerError(
            f"'{query.title}' has no input '{extra[0]}' (it asks for "
            f"{', '.join(sorted(names)) or 'nothing'})"
        )
    values = dict(spec.values) if isinstance(spec, LoreObject) else {}
    for item in query.inputs:
        if item.name in answer:
            values[item.name] = convert(item, answer[item.name], places)
        elif item.default is not None:
            values[item.name] = item.default
        else:
            raise AnswerError(f"the answer to '{query.title}' lacks '{item.name}'")
    return LoreObject(None, values, 0)


def convert(item: Input, raw: Any, places: Callable[[str], str | None] | None = None) -> Any:
    rtype = item.type
    kind = rtype.kind
    value: Any
    if kind == "enum" and rtype.enum is not None:
        found = rtype.enum.values.get(raw) if isinstance(raw, str) else None
        if found is None:
            raise AnswerError(
                f"'{item.name}' is one of {', '.join(item.choices or ())}, not {_shown(raw)}"
            )
        return found
    if item.choices is not None and raw not in item.choices:
        raise AnswerError(f"'{item.name}' is one of {', '.join(item.choices)}, not {_shown(raw)}")
    if kind == "unit":
        if not _is_number(raw) or rtype.unit is None:
            raise AnswerError(f"'{item.name}' is a number of [{rtype.unit}], not {_shown(raw)}")
        value = Quantity.of(raw, rtype.unit, rtype.family)
    elif kind == "prim":
        value = _primitive(item, rtype.name, raw)
        if rtype.name == "loc" and places is not None:
            problem = places(str(value))
            if problem is not None:
                raise AnswerError(f"'{item.name}': {raw!r} is no place of the session: {problem}")
    else:
        raise AnswerError(f"'{item.name}' asks for a {rtype}, which cannot be answered yet")
    if item.allowed is not None and not item.allowed.match(value):
        raise AnswerError(f"'{item.name}' must lie in {item.allowed}, not {show(value)}")
    return value


# The largest magnitude of a number answered (whole numbers of rules are bounded much
# like this; a real past it would be infinite in a rule's arithmetic).
MAX_ANSWER = 10**300


def _is_number(raw: Any) -> bool:
    """A finite number of a sane size (NaN, infinities and 1e309 are not)."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return False
    if isinstance(raw, float):
        return math.isfinite(raw) and abs(raw) <= MAX_ANSWER
    return -MAX_ANSWER <= raw <= MAX_ANSWER


def _shown(raw: Any) -> str:
    """An answered value as the error shows it (short, also for a huge number)."""
    if isinstance(raw, int) and not isinstance(raw, bool) and abs(raw) > MAX_ANSWER:
        return f"a number of {len(str(abs(raw))) if raw.bit_length() < 10000 else 'many'} digits"
    text = repr(raw)
    return text if len(text) <= 60 else text[:57] + "..."


def _primitive(item: Input, name: str, raw: Any) -> Any:
    if name == "integer":
        if isinstance(raw, int) and _is_number(raw):
            return raw
    elif name in ("real", "number"):
        if _is_number(raw):
            return float(raw) if name == "real" else raw
    elif name == "boolean":
        if isinstance(raw, bool):
            return raw
    elif name == "string":
        if isinstance(raw, str):
            return raw
    elif name in ("loc", "url", "jid", "date") and isinstance(raw, str):
        problems = literals.check(name, raw)
        if problems:
            raise AnswerError(f"'{item.name}': {problems[0].message}")
        return TypedString(name, raw)
    raise AnswerError(f"'{item.name}' is a {name}, not {_shown(raw)}")


def plain(value: Any) -> Any:
    """A Lore value as JSON: the form an answer gives it in."""
    if isinstance(value, Quantity):
        return value.amount()
    if isinstance(value, bool | int | float | str):
        return value
    return show(value)
