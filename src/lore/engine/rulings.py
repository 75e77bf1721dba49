"""The GM's rulings on values: a member of an object changed by the GM, over the rules.

Both bundled rulebooks put the GM above the rules; a ruling is how the GM says so at the
table. A value ruling sets a member that the rules expose on a sheet (``Sheet`` values,
``lore.engine.table_decls``): HP, an ability, a counter. It is checked as an answer is:
the member keeps its kind (a whole number stays one, an enum value names one of its
enum's, a place is a place of the session's map), a bar's value stays at most its
maximum, and a member worked out from others (a derived line) is not set (rule on what
it reads). A refused ruling changes nothing and says why.

A ruling applies between steps, or while a step waits for answers: the waiting step runs
again from its start when it goes on (as after the GM hands an actor to another seat),
so it reads the new value. It is an entry of the session's log like an answer (the
session server's ``ruling`` entry), and the transcript's ``ruling`` record tells it to
the seats that may read the line (the GM, the object's own seat, and for a line shown to
everyone the seats that see the object), or to the GM alone for a secret ruling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lore.engine.queries import AnswerError, Input, convert
from lore.engine.table_decls import EVERYONE, GM_ONLY, Entry, table_decls, values_of
from lore.engine.table_view import actor_id, member_value, sheeted, shown_value
from lore.engine.views import GM
from lore.runtime.values import EnumValue, LoreObject, RuntimeType, show

if TYPE_CHECKING:
    from lore.engine.session import Session

# The name a ruled member is noted under among an object's alters (``LoreObject.altered``),
# so that a save's state shows it as it shows what alters changed.
RULED = "="


class RulingError(ValueError):
    """A ruling that cannot be made: why, in plain words."""


def set_value(session: Session, object_id: str, member: str, raw: Any, secret: bool) -> None:
    """The GM sets ``member`` of the object ``object_id`` (as its sheet names it) to
    ``raw`` (an answer's JSON value); RulingError says why not (then nothing changed)."""
    if session.ended is not None:
        raise RulingError("the session is over")
    obj, entry = _line(session, object_id, member)
    if member not in obj.values:
        raise RulingError(
            f"'{entry.label or member}' is worked out from other members: rule on those"
        )
    if member == "location":
        raise RulingError("a ruling does not move objects: where an object is changes by the rules")
    before = obj.values[member]
    kind = _kind_of(session, before, member)
    choices = tuple(kind.enum.values) if kind.enum is not None else None
    item = Input(member, kind, choices)
    try:
        value = convert(item, raw, session.place_problem)
    except AnswerError as error:
        raise RulingError(str(error)) from None
    if entry.max:
        top = obj.values.get(entry.max)
        if _is_number(top) and _is_number(value) and value > top:
            name = entry.label or member
            raise RulingError(f"'{name}' is at most {show(top)}, not {show(value)}")
    session.settle()  # (a step kept waiting runs again, reading the new value)
    obj.values[member] = value
    noted = RULED + member
    obj.altered = (*obj.altered, noted) if noted not in obj.altered else obj.altered
    record: dict[str, Any] = {
        "tick": session.ticks,
        "kind": "ruling",
        "ruling": "value",
        "to": [GM] if secret else audience(session, obj, entry),
        "object": actor_id(obj),
        "name": _name(obj),
        "member": member,
        "label": entry.label or member,
        "labelJa": entry.label_ja or entry.label or member,
        "before": shown_value(before),
        "after": member_value(session, obj, member),
    }
    if secret:
        record["secret"] = True
    session.transcript.add(record)
    noted_ruling(session, obj, member, before, record)


def audience(session: Session, obj: LoreObject, entry: Entry) -> list[str]:
    """The seats that may read a sheet line of ``obj``, the GM first."""
    from lore.engine.natives import recipient
    from lore.engine.shown_rolls import watchers

    if entry.shown == GM_ONLY:
        return [GM]
    seats = [GM, recipient(obj)]
    if entry.shown == EVERYONE:
        seats += watchers(session, obj)
    return list(dict.fromkeys(seats))


def _line(session: Session, object_id: str, member: str) -> tuple[LoreObject, Entry]:
    """The object with a sheet named ``object_id``, and the line of its sheet that shows
    ``member``."""
    decls = table_decls(session)
    found = next((pair for pair in sheeted(session, decls) if actor_id(pair[0]) == object_id), None)
    if found is None:
        raise RulingError(f"no object with a sheet is '{object_id}'")
    obj, sheet = found
    for section in sheet.sections:
        for entry in section.entries:
            if entry.member == member:
                return obj, entry
    shown = ", ".join(e.member for s in sheet.sections for e in s.entries)
    raise RulingError(f"the sheet of '{_name(obj)}' shows no '{member}' (it shows {shown})")


def _kind_of(session: Session, value: Any, member: str) -> RuntimeType:
    """What a member holds now, as an answer's type: a ruling keeps it."""
    if isinstance(value, EnumValue):
        return RuntimeType("enum", value.enum.name, enum=value.enum)
    kind = session.rt.type_of(value)
    if kind.kind not in ("prim", "unit"):
        raise RulingError(
            f"'{member}' holds {show(value)}: a ruling sets a number, a text, a truth value,"
            " an enum value, a place or a quantity"
        )
    return kind


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _name(obj: LoreObject) -> str:
    name = obj.values.get("name")
    return str(name) if name is not None else actor_id(obj)


def scenes(session: Session) -> list[tuple[str, LoreObject]]:
    """The program's ``SceneEnd`` values (scenes the GM may end by ruling), by name."""
    return [(symbol.qualified_name, value) for symbol, value in values_of(session, "SceneEnd")]


def describe_scene(name: str, scene: LoreObject) -> dict[str, Any]:
    """A scene as the GM's client offers it."""
    values = scene.values
    label = values.get("label") if isinstance(values.get("label"), str) else name
    label_ja = values.get("labelJa")
    outcomes = [o for o in values.get("outcomes") or () if isinstance(o, str)]
    return {
        "id": name,
        "label": label,
        "labelJa": label_ja if isinstance(label_ja, str) and label_ja else label,
        "outcomes": outcomes,
    }


def end_scene(session: Session, scene_id: str, outcome: str) -> None:
    """The GM ends the scene ``scene_id`` by ruling, with ``outcome`` (one of its own):
    its ``ruled`` is set, for the rules to end it where they can (RulingError: why not).
    Told to every seat."""
    from lore.engine.shown_rolls import player_seats

    if session.ended is not None:
        raise RulingError("the session is over")
    found = dict(scenes(session))
    scene = found.get(scene_id)
    if scene is None:
        raise RulingError(f"no scene '{scene_id}' may be ended by ruling")
    shown = describe_scene(scene_id, scene)
    if outcome not in shown["outcomes"]:
        raise RulingError(f"'{outcome}' is none of {', '.join(shown['outcomes'])}")
    session.settle()
    scene.values["ruled"] = outcome
    noted = RULED + "ruled"
    scene.altered = (*scene.altered, noted) if noted not in scene.altered else scene.altered
    record: dict[str, Any] = {
        "tick": session.ticks,
        "kind": "ruling",
        "ruling": "end",
        "to": [GM, *player_seats(session)],
        "object": scene_id,
        "label": shown["label"],
        "labelJa": shown["labelJa"],
        "outcome": outcome,
    }
    session.transcript.add(record)
    noted_ruling(session, scene, "ruled", "", record)


def noted_ruling(
    session: Session, obj: LoreObject, member: str, before: Any, record: dict[str, Any]
) -> None:
    """Keep what taking the ruling back needs: the member and its value before, and
    where the session stood (its steps, its answers) when it was made."""
    place = (session.steps, session.answer_count)
    session.last_ruling = (obj, member, before, obj.values[member], place, record)


def take_back(session: Session) -> None:
    """The GM takes back the last ruling, while nothing has followed from it (no step
    ran and no answer came since, and the member still holds what it set): the member
    has its value again, and the seats told of the ruling are told it was taken back.
    Otherwise RulingError: a result applied is not rewound (巻き戻しの禁止)."""
    found = session.last_ruling
    if found is None or session.ended is not None:
        raise RulingError("there is no ruling to take back")
    obj, member, before, after, place, record = found
    if place != (session.steps, session.answer_count) or obj.values.get(member) is not after:
        raise RulingError(
            "something followed from the last ruling (an answer, or the rules went on):"
            " a result applied is not rewound"
        )
    session.settle()
    obj.values[member] = before
    session.last_ruling = None
    back = {**record, "ruling": "back", "taken": record["ruling"]}
    if "after" in record:
        back["before"], back["after"] = record["after"], record["before"]
    session.transcript.add(back)
