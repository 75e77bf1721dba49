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
from lore.runtime.values import EnumValue, FormInfo, LoreObject, RuntimeType, show
from lore.syntax.diagnostics import with_article

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
    before = obj.values[member]
    value: Any = (
        _list(session, obj, member, raw)
        if isinstance(before, tuple)
        else _converted(session, before, member, raw)
    )
    if entry.max:
        top = obj.values.get(entry.max)
        if _is_number(top) and _is_number(value) and value > top:
            name = entry.label or member
            raise RulingError(f"'{name}' is at most {show(top)}, not {show(value)}")
    alter = entry.ruled_by or (RELOCATE if member == "location" and _is_actor(session, obj) else "")
    session.settle()  # (a step kept waiting runs again, reading the new value)
    saved: dict[str, Any] | None = None
    queued = session.queued
    if alter:
        saved = dict(obj.values)
        _through_alter(session, obj, alter, value)
    else:
        obj.values[member] = value
        noted = RULED + member
        obj.altered = (*obj.altered, noted) if noted not in obj.altered else obj.altered
    # (A ruling that names an object a secret may hide goes to the GM alone: the seats
    # that read the line may not know it. Their sheets show what they may.)
    secret = secret or _may_hide(before) or _may_hide(value)
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
    if alter:
        record["alter"] = alter  # (what the rules made of the value is "after")
    if secret:
        record["secret"] = True
    session.transcript.add(record)
    noted_ruling(session, obj, member, before, record, saved, session.queued != queued)


def _may_hide(value: Any) -> bool:
    """Whether ``value`` is, or holds, an object with secrets (hidden from the actors
    who do not know their keys)."""
    items = value if isinstance(value, tuple) else (value,)
    return any(isinstance(item, LoreObject) and item.values.get("secrets") for item in items)


# The engine's own alter of an actor's place (the prelude's ``Actor.relocate``): a
# ruling on an actor's location goes through it, so the map's triggers see the move.
RELOCATE = "relocate"


def _converted(session: Session, before: Any, member: str, raw: Any) -> Any:
    """``raw`` as a value of the kind ``before`` is (RulingError: why it is not)."""
    if isinstance(before, LoreObject) and before.form is not None:
        return _object(session, before.form, member, raw)
    kind = _kind_of(session, before, member)
    choices = tuple(kind.enum.values) if kind.enum is not None else None
    try:
        return convert(Input(member, kind, choices), raw, session.place_problem)
    except AnswerError as error:
        raise RulingError(str(error)) from None


def _list(session: Session, obj: LoreObject, member: str, raw: Any) -> tuple[Any, ...]:
    """A member that holds a list (an actor's items): the GM gives the whole list, as a
    JSON list or as a text of its items between commas ("chest, lamp"; "" for none),
    each item checked as a member of its kind is (an object one of the program's values
    of its form, by name)."""
    element = _element_of(session, obj, member)
    if isinstance(raw, str):
        raw = [part.strip() for part in raw.replace("、", ",").split(",") if part.strip()]
    if not isinstance(raw, list):
        raise RulingError(f"'{member}' is a list: give its items, not {show(raw)}")
    if len(raw) > MAX_LIST:
        raise RulingError(f"'{member}' takes at most {MAX_LIST} items by ruling")
    items: list[Any] = []
    for item in raw:
        if isinstance(element, FormInfo):
            items.append(_object(session, element, member, item))
        else:
            kind = RuntimeType("prim", element)
            try:
                items.append(convert(Input(member, kind), item, session.place_problem))
            except AnswerError as error:
                raise RulingError(str(error)) from None
    return tuple(items)


# The most items a list is given by one ruling (a list of a sheet, not a table).
MAX_LIST = 200


def _element_of(session: Session, obj: LoreObject, member: str) -> FormInfo | str:
    """What the list ``member`` of ``obj`` holds, as its form declares it: a form, or
    the name of a primitive type (RulingError for a list of anything else)."""
    from lore.semantics.symbols import FieldSymbol, VarSymbol
    from lore.semantics.types import FormT, ListT, Prim

    forms = session.program.result.checker.declarer.forms
    symbol = next((f for f in forms if obj.form and f.qualified_name == obj.form.name), None)
    found = symbol.lookup(member) if symbol is not None else None
    declared = found.type if isinstance(found, FieldSymbol | VarSymbol) else None
    element = declared.element if isinstance(declared, ListT) else None
    if isinstance(element, FormT):
        info = session.program.form_by_name.get(element.symbol.qualified_name)
        if info is not None:
            return info
    if isinstance(element, Prim) and element.name in ("string", "integer", "real", "loc"):
        return element.name
    raise RulingError(
        f"'{member}' holds a list of {element or 'values'}: a ruling sets a list of objects,"
        " texts, numbers or places"
    )


def _object(session: Session, form: FormInfo, member: str, raw: Any) -> LoreObject:
    """A member that holds an object (a weapon): the GM names one of the program's
    values of its form, by its name in the program or by the name it shows."""
    found = declared(session, form)
    if not found:
        raise RulingError(f"'{member}' holds {with_article(form.name)}, and the rules declare none")
    names = tuple(name for name, _ in found)
    captions = tuple(_name(value) for _, value in found)
    kind = RuntimeType("form", form.name, form=form)
    values = tuple(value for _, value in found)
    item = Input(member, kind, names, captions=captions, values=values)
    try:
        picked: LoreObject = convert(item, raw)
    except AnswerError:
        shown = ", ".join(captions[:20]) + (" ..." if len(captions) > 20 else "")
        raise RulingError(f"'{member}' is one of {shown}, not {raw!r}") from None
    return picked


def _is_actor(session: Session, obj: LoreObject) -> bool:
    actor = session.program.form_by_name.get("Actor")
    return actor is not None and obj.form is not None and obj.form.is_subform_of(actor)


def _through_alter(session: Session, obj: LoreObject, alter: str, value: Any) -> None:
    """Request ``alter`` of ``obj`` with ``value`` and run an update phase of it, as a
    step's would (alters it requests, the hooks on it, the triggers a move sets off,
    queued to run next); RulingError when the alter goes wrong (nothing changed)."""
    rt = session.rt
    form = obj.form
    if form is None or alter not in form.resolve():
        raise RulingError(f"'{_name(obj)}' has no alter '{alter}' to rule through")
    try:
        session.rounds({(obj, alter): [value]})
    except Exception as error:
        rt.rest()
        found = session.rule_error(error, error.__traceback__)
        raise RulingError(f"the rules' alter '{alter}' went wrong: {found.message}") from None
    if rt.adds:
        session.queue(rt.adds)


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


def declared(session: Session, form: str | FormInfo) -> list[tuple[str, LoreObject]]:
    """The program's top-level values of ``form`` (a form extending it too), by name."""
    return [(symbol.qualified_name, value) for symbol, value in values_of(session, form)]


def labelled(name: str, obj: LoreObject, list_member: str) -> dict[str, Any]:
    """A value the GM's client offers (a scene, an arrival): its name, its labels in
    English and in Japanese (its name without them), and the texts of ``list_member``."""
    values = obj.values
    label = values.get("label") if isinstance(values.get("label"), str) else name
    label_ja = values.get("labelJa")
    return {
        "id": name,
        "label": label,
        "labelJa": label_ja if isinstance(label_ja, str) and label_ja else label,
        list_member: [o for o in values.get(list_member) or () if isinstance(o, str)],
    }


def chosen(
    session: Session,
    offered: list[tuple[str, LoreObject]],
    name: str,
    option: str,
    member: str,
    unknown: str,
) -> tuple[LoreObject, dict[str, Any]]:
    """The value named ``name`` among those the GM's table ``offered`` (a scene, an
    arrival), and ``option`` one of its ``member``; RulingError (``unknown`` for no
    such value) when not."""
    if session.ended is not None:
        raise RulingError("the session is over")
    found = dict(offered).get(name)
    if found is None:
        raise RulingError(unknown)
    shown = labelled(name, found, member)
    if option not in shown[member]:
        raise RulingError(f"'{option}' is none of {', '.join(shown[member]) or 'its ' + member}")
    return found, shown


def scenes(session: Session) -> list[tuple[str, LoreObject]]:
    """The program's ``SceneEnd`` values (scenes the GM may end by ruling), by name."""
    return declared(session, "SceneEnd")


def describe_scene(name: str, scene: LoreObject) -> dict[str, Any]:
    """A scene as the GM's client offers it."""
    return labelled(name, scene, "outcomes")


def end_scene(session: Session, scene_id: str, outcome: str) -> None:
    """The GM ends the scene ``scene_id`` by ruling, with ``outcome`` (one of its own):
    its ``ruled`` is set, for the rules to end it where they can (RulingError: why not).
    Told to every seat."""
    from lore.engine.shown_rolls import player_seats

    unknown = f"no scene '{scene_id}' may be ended by ruling"
    scene, shown = chosen(session, scenes(session), scene_id, outcome, "outcomes", unknown)
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
    session: Session,
    obj: LoreObject,
    member: str,
    before: Any,
    record: dict[str, Any],
    saved: dict[str, Any] | None = None,
    set_off: bool = False,
) -> None:
    """Keep what taking the ruling back needs: the member and its value before (and,
    for a ruling through an alter, all the object's members before: ``saved``), and
    where the session stood (its steps, its answers, its queue) when it was made;
    ``set_off``: it queued steps (the hooks on its alter, the triggers of a move)."""
    place = (session.steps, session.answer_count, session.queued)
    found = (obj, member, before, obj.values.get(member), place, record, saved, set_off)
    session.last_ruling = found


def take_back(session: Session) -> None:
    """The GM takes back the last ruling, while nothing has followed from it (no step
    ran and no answer came since, and the member still holds what it set): the member
    has its value again, and the seats told of the ruling are told it was taken back.
    Otherwise RulingError: a result applied is not rewound (巻き戻しの禁止)."""
    found = session.last_ruling
    if found is None or session.ended is not None:
        raise RulingError("there is no ruling to take back")
    obj, member, before, after, place, record, saved, set_off = found
    if place != (session.steps, session.answer_count, session.queued) or (
        obj.values.get(member) is not after
    ):
        raise RulingError(
            "something followed from the last ruling (an answer, or the rules went on):"
            " a result applied is not rewound"
        )
    if set_off:
        raise RulingError(
            "the rules went on from the last ruling (what it set off, a hook, a trigger or"
            " an arrival, is to run): a result applied is not rewound"
        )
    session.settle()
    if saved is not None:
        obj.values.clear()
        obj.values.update(saved)
    else:
        obj.values[member] = before
    session.last_ruling = None
    back = {**record, "ruling": "back", "taken": record["ruling"]}
    if "after" in record:
        back["before"], back["after"] = record["after"], record["before"]
    session.transcript.add(back)
