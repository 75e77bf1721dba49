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
from operator import attrgetter
from typing import Any

from lore.runtime.quantity import Quantity
from lore.runtime.values import (
    EnumValue,
    InputMarker,
    LoreObject,
    Range,
    RuntimeType,
    TypedString,
    show,
)
from lore.semantics import literals
from lore.syntax.diagnostics import with_article


@dataclass(frozen=True)
class Input:
    """One input of a query. With ``choices`` the participant picks among them, by name:
    ``values`` holds the Lore value of each choice (None: an enum's values by name), and
    ``most`` (not None) makes it a pick of ``least`` to ``most`` of them, answered with a
    list of names."""

    name: str
    type: RuntimeType
    choices: tuple[str, ...] | None = None
    allowed: Range | None = None
    default: Any = None
    captions: tuple[str, ...] | None = None  # what each choice is called (enum captions)
    values: tuple[Any, ...] | None = None
    least: int = 1
    most: int | None = None

    @property
    def multiple(self) -> bool:
        return self.most is not None

    def describe(self) -> dict[str, Any]:
        """The input as plain data, all a client needs to draw its control: its name, its
        kind (``choice``, ``choices``, ``integer``, ``unit[m]`` ...), the choices with
        their captions, the range allowed, how many picks, the default."""
        described: dict[str, Any] = {"name": self.name, "type": str(self.type)}
        if self.choices is not None:
            described["kind"] = "choices" if self.multiple else "choice"
            captions = self.captions or self.choices
            described["choices"] = [
                {"id": choice, "caption": caption}
                for choice, caption in zip(self.choices, captions, strict=True)
            ]
            if self.multiple:
                described["least"] = self.least
                described["most"] = self.most
        else:
            described["kind"] = str(self.type)
        if self.allowed is not None:
            described["range"] = str(self.allowed)
        if self.default is not None:
            described["default"] = self.default_answer()
        return described

    def default_answer(self) -> Any:
        """The default as an answer gives it (a choice by its name)."""
        if self.values is not None:
            for choice, value in zip(self.choices or (), self.values, strict=True):
                if value is self.default or value == self.default:
                    return choice
        return plain(self.default)


@dataclass(frozen=True)
class Query:
    to: str
    title: str
    texts: tuple[tuple[str, str], ...]  # members shown as they are
    inputs: tuple[Input, ...]
    # Which question of the session this is: "<event seq>/<foreach path>/<number>".
    id: str = ""
    actor: str = ""  # the label of the actor asked (``actor.query``); "" for a participant
    # What the rules call each input, for people (the spec's ``captions``): input name,
    # caption. An input without one is shown by what it offers.
    captions: tuple[tuple[str, str], ...] = ()
    # What the engine itself asks ("route", "move": a destination), for the clients to
    # title in their own language; "" for a rule's question.
    purpose: str = ""

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

    def offered(self) -> dict[str, list[str]]:
        """The choices each input with choices offers, by input name (for the transcript)."""
        found = {}
        for i in self.inputs:  # (a loop: a comprehension makes a function each time)
            if i.choices is not None:
                found[i.name] = list(i.choices)
        return found


class AnswerError(Exception):
    """An answer that does not fit the query."""


def make_query(
    to: str,
    title: str,
    spec: Any,
    objects: Callable[[RuntimeType], tuple[Any, ...]] | None = None,
    id: str = "",
    actor: str = "",
    made: InputCache | None = None,
) -> Query:
    """The query ``spec`` makes; ``objects`` gives the objects of a form that ``to`` may
    see, which an input of that form (``Actor.input``) offers. ``made``: the inputs of
    plain markers made so far (see ``InputCache``)."""
    texts: list[tuple[str, str]] = []
    inputs = _inputs(spec, objects, texts, made)
    # (Made as ``Query(...)`` makes it, without the frozen class's ``__init__``, which
    # sets each of the six fields through ``object.__setattr__``: one query per question.)
    query: Query = _new(Query)
    query.__dict__.update(to=to, title=title, texts=tuple(texts), inputs=inputs, id=id, actor=actor)
    if isinstance(spec, LoreObject) and CAPTIONS in spec.values:
        _take_captions(query, spec.values)
    return query


# The member of a question's spec that captions its inputs (``{use = "使う"; ...}``):
# not shown as a text, not asked.
CAPTIONS = "captions"


def captions_of(values: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The inputs' captions a spec's ``captions`` member gives (none when it is no
    object of texts by input name)."""
    found = values.get(CAPTIONS)
    if not isinstance(found, LoreObject):
        return ()
    return tuple((name, show(text)) for name, text in found.values.items())


def _take_captions(query: Query, values: dict[str, Any]) -> None:
    """Give the query the spec's captions, and drop them from the texts shown."""
    captions = captions_of(values)
    if captions:
        texts = tuple(text for text in query.texts if text[0] != CAPTIONS)
        query.__dict__.update(captions=captions, texts=texts)


_new = object.__new__


def fill_answered(
    title: str,
    spec: Any,
    answer: Any,
    objects: Callable[[RuntimeType], tuple[Any, ...]] | None = None,
    places: Callable[[str], str | None] | None = None,
    named: Callable[[Query], Query] | None = None,
) -> LoreObject:
    """The spec filled in by an answer its question already has (when the step that
    asked it runs again): as ``fill`` of ``make_query``'s query, with only the inputs
    made (they convert the answer), not the rest of the question's description.
    ``named``: the question with its options named as its seat was asked it."""
    query = Query("", title, (), _inputs(spec, objects, None))
    return fill(named(query) if named else query, spec, answer, places)


# The inputs made of plain markers (``T.input`` of no arguments: all but the name comes
# from the type), by input name and the type's identity, with the type (which the entry
# keeps alive, so its id is not another's): what every session of a program shares
# (``natives.Prepared``), so that a question asked again makes none. Each entry is the same
# whichever session or thread made it first.
InputCache = dict[tuple[str, int], tuple[RuntimeType, "Input"]]
MAX_CACHED_INPUTS = 4_096  # (types made at run time might otherwise fill it)


@dataclass(frozen=True, eq=False)
class Shape:
    """What a described question takes from its spec's members alone, when each of its
    inputs is a plain marker of a type other than a form (most questions): which members
    are shown and which are asked (``markers``: a member's plain marker, None for one
    shown), the inputs and the choices they offer (the transcript's). Kept per program by
    member names (``ShapeCache``), so that a question asked again in that shape makes
    only its texts and its ``Query``. (The choices are shared by every record of the
    shape: nothing changes a record.)"""

    markers: tuple[InputMarker | None, ...]
    inputs: tuple[Input, ...]
    offered: dict[str, list[str]]


ShapeCache = dict[tuple[str, ...], Shape]
MAX_CACHED_SHAPES = 1_024  # (specs made at run time might otherwise fill it)


def shape_of(values: dict[str, Any], query: Query) -> Shape | None:
    """The shape of a question ``make_query`` made of a spec with these members, or None
    when an input's choices or range may change from one asking to the next."""
    markers: list[InputMarker | None] = []
    for value in values.values():
        if value.__class__ is not InputMarker:
            markers.append(None)
        elif value.args or value.options is not None or value.type.kind == "form":
            return None
        else:
            markers.append(value)
    return Shape(tuple(markers), query.inputs, query.offered())


def shaped_query(
    to: str, title: str, values: dict[str, Any], shape: Shape, id: str, actor: str
) -> Query | None:
    """``make_query``'s query of a spec with the members ``values`` in ``shape`` (its
    member names are the shape's), or None when its markers are not the shape's."""
    texts = []
    for (name, value), marker in zip(values.items(), shape.markers, strict=True):
        if marker is None:
            if value.__class__ is InputMarker:
                return None
            texts.append((name, value if type(value) is str else show(value)))
        elif value is not marker and (
            value.__class__ is not InputMarker
            or value.type is not marker.type
            or value.args
            or value.options is not None
        ):
            return None  # (a plain marker of the same type makes the same input)
    query: Query = _new(Query)
    query.__dict__.update(
        to=to, title=title, texts=tuple(texts), inputs=shape.inputs, id=id, actor=actor
    )
    if CAPTIONS in values:
        _take_captions(query, values)
    return query


def _inputs(
    spec: Any,
    objects: Callable[[RuntimeType], tuple[Any, ...]] | None,
    texts: list[tuple[str, str]] | None,
    made: InputCache | None = None,
) -> tuple[Input, ...]:
    """The inputs of ``spec``; its other members, shown, join ``texts`` (None: the
    question is not described, and the inputs have no captions). ``made``: the inputs of
    plain markers made so far (only for described questions: theirs have captions)."""
    inputs: list[Input] = []
    values = spec.values if isinstance(spec, LoreObject) else {}
    for name, value in values.items():
        if value.__class__ is not InputMarker:
            if texts is not None:  # (``show`` of a text is the text: most are texts)
                texts.append((name, value if type(value) is str else show(value)))
            continue
        rtype = value.type
        plain_marker = not value.args and value.options is None
        if made is not None and texts is not None and plain_marker:
            # A plain marker of a described question whose input was made before (most
            # questions): the input made then. (No input of a form is kept: its choices
            # are the objects the participant sees now.)
            cached = made.get((name, id(rtype)))
            if cached is not None and cached[0] is rtype:
                inputs.append(cached[1])
                continue
            if rtype.kind != "form":
                made_now = _input(name, value)
                if len(made) < MAX_CACHED_INPUTS:
                    made[(name, id(rtype))] = (rtype, made_now)
                inputs.append(made_now)
                continue
        if value.options is None and rtype.kind == "form" and objects is not None:
            found = objects(rtype)
            if not found:
                raise AnswerError(f"there is no {rtype} to offer for '{name}'")
            inputs.append(choice_input(name, rtype, found, value))
            continue
        inputs.append(_input(name, value, texts is not None))
    return tuple(inputs)


def _input(name: str, marker: InputMarker, captions_too: bool = True) -> Input:
    rtype: RuntimeType = marker.type
    if marker.options is not None:
        return choice_input(name, rtype, marker.options, marker)
    choices = captions = None
    if rtype.kind == "enum" and rtype.enum is not None:
        choices = tuple(rtype.enum.values)
        if captions_too:  # what a client shows; an answer names a member by its name
            captions = tuple(
                show(value.members.get("caption", value.name))
                for value in rtype.enum.values.values()
            )
    allowed = marker.args[0] if marker.args and isinstance(marker.args[0], Range) else None
    default = marker.args[1] if len(marker.args) > 1 else None
    if rtype.kind == "unit" and isinstance(default, int | float) and rtype.unit is not None:
        default = Quantity.of(default, rtype.unit, rtype.family)
    return Input(name, rtype, choices, allowed, default, captions)


def choice_input(
    name: str, rtype: RuntimeType, options: tuple[Any, ...], marker: InputMarker | None = None
) -> Input:
    """An input that picks among ``options`` (objects, enum values, numbers, texts), each
    named as an answer names it: its ``name`` (when no other option has it), else its
    label, else the name and its rank among the options of that name."""
    names = [option_name(option) for option in options]
    seen: dict[str, int] = {}
    counts = {n: names.count(n) for n in names}
    ids = []
    for option, shown in zip(options, names, strict=True):
        if counts[shown] == 1:
            ids.append(shown)
            continue
        label = option.label if isinstance(option, LoreObject) else None
        rank = seen[shown] = seen.get(shown, 0) + 1
        ids.append(label.rsplit(".", 1)[-1] if label else f"{shown}#{rank}")
    captions = tuple(option_caption(option) for option in options)
    default = marker.args[1] if marker is not None and len(marker.args) > 1 else None
    least = marker.least if marker is not None else 1
    most = marker.most if marker is not None else None
    return Input(name, rtype, tuple(ids), None, default, captions, options, least, most)


def option_name(option: Any) -> str:
    """How an answer names an option: an object by its name, an enum value by its name."""
    if isinstance(option, LoreObject):
        name = option.values.get("name")
        if isinstance(name, str | TypedString) and str(name):
            return str(name)
        return (option.label or f"#{option.oid}").rsplit(".", 1)[-1]
    if isinstance(option, EnumValue):
        return option.name
    return show(option)


def option_caption(option: Any) -> str:
    """How an option is shown: an enum value's caption, an object's caption or name."""
    members = option.members if isinstance(option, EnumValue) else None
    if isinstance(option, LoreObject):
        members = option.values
    if members is not None:
        caption = members.get("caption")
        if isinstance(caption, str | TypedString):
            return str(caption)
    return option_name(option)


def fill(
    query: Query, spec: Any, answer: Any, places: Callable[[str], str | None] | None = None
) -> LoreObject:
    """The spec with its inputs replaced by the answer's values (raises AnswerError).
    ``places`` tells why a location answered names no place (None: it does)."""
    if not isinstance(answer, dict):
        raise AnswerError(f"an answer is an object of input names, not {answer!r}")
    inputs = query.inputs
    names = set(map(_name, inputs))
    if not names.issuperset(answer):
        extra = sorted(set(answer) - names)
        raise AnswerError(
            f"'{query.title}' has no input '{extra[0]}' (it asks for "
            f"{', '.join(sorted(names)) or 'nothing'})"
        )
    values = dict(spec.values) if isinstance(spec, LoreObject) else {}
    for item in inputs:
        name = item.name
        if name in answer:
            values[name] = convert(item, answer[name], places)
        elif item.default is not None:
            values[name] = item.default
        else:
            raise AnswerError(f"the answer to '{query.title}' lacks '{name}'")
    return LoreObject(None, values, 0)


_name = attrgetter("name")


def convert(item: Input, raw: Any, places: Callable[[str], str | None] | None = None) -> Any:
    if item.values is not None:
        return _picked(item, raw)
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
        what = with_article(str(rtype))
        raise AnswerError(f"'{item.name}' asks for {what}, which cannot be answered yet")
    if item.allowed is not None and not item.allowed.match(value):
        allowed = item.allowed
        if allowed.high is None:
            bound = f"be at least {show(allowed.low)}"
        elif allowed.low is None:
            bound = f"be at most {show(allowed.high)}"
        else:
            bound = f"lie in {allowed}"
        raise AnswerError(f"'{item.name}' must {bound}, not {show(value)}")
    return value


def _picked(item: Input, raw: Any) -> Any:
    """The option (or, for several picks, the list of options) an answer names."""
    if not item.multiple:
        return _option(item, raw)
    if not isinstance(raw, list):
        raise AnswerError(f"'{item.name}' is a list of choices, not {raw!r}")
    picked = [_option(item, one) for one in raw]
    if len({id(p) for p in picked}) != len(picked) or len(set(map(repr, raw))) != len(raw):
        raise AnswerError(f"'{item.name}' names a choice twice")
    if not item.least <= len(picked) <= (item.most or 0):
        raise AnswerError(
            f"'{item.name}' takes from {item.least} to {item.most} choices, not {len(picked)}"
        )
    return tuple(picked)


def _option(item: Input, raw: Any) -> Any:
    choices = item.choices or ()
    values = item.values or ()
    wanted = raw if isinstance(raw, str) else show(raw) if _is_number(raw) else None
    if wanted is not None:
        for choice, value in zip(choices, values, strict=True):
            if choice == wanted:
                return value
        captions = item.captions or ()
        matches = [v for c, v in zip(captions, values, strict=True) if c == wanted]
        if len(matches) == 1:
            return matches[0]
    shown = ", ".join(choices[:20]) + (" ..." if len(choices) > 20 else "")
    raise AnswerError(f"'{item.name}' is one of {shown}, not {raw!r}")


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
    elif name in ("loc", "url", "jid", "date", "html", "xml") and isinstance(raw, str):
        problems = literals.check(name, raw)
        if problems:
            raise AnswerError(f"'{item.name}': {problems[0].message}")
        return TypedString(name, raw)
    raise AnswerError(f"'{item.name}' is {with_article(name)}, not {_shown(raw)}")


MAX_PLAIN_ITEMS = 10_000  # items of lists in one value as JSON (then "…")
MAX_PLAIN_DEPTH = 100  # lists in lists


def plain(value: Any) -> Any:
    """A Lore value as JSON: the form an answer gives it in. A list is cut (with "…")
    past ``MAX_PLAIN_ITEMS`` items in all or ``MAX_PLAIN_DEPTH`` lists deep: a list may
    hold the same list twice, that one the same twice, and so on."""
    kind = type(value)
    if kind is str or kind is int or kind is bool:  # most answers' values
        return value
    return _plain(value, [MAX_PLAIN_ITEMS], 0)


def _plain(value: Any, budget: list[int], depth: int) -> Any:
    if isinstance(value, Quantity):
        return value.amount()
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        if depth >= MAX_PLAIN_DEPTH:
            return "…"
        items: list[Any] = []
        for item in value:
            if budget[0] <= 0:
                items.append("…")
                break
            budget[0] -= 1
            items.append(_plain(item, budget, depth + 1))
        return items
    return show(value)
