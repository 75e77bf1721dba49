"""What a seat sees of the table: the sheets it may read, the trackers, whom the table
waits for.

A player's seat gets the sheets of its own actors (the lines shown to the owner and to
everyone) and of the other objects it may see (the lines shown to everyone); the GM gets
every sheet with every line. An object hidden from a seat by a secret has no sheet there,
and an actor hidden from it is left out of a tracker's order and of whom the table waits
for. A line's value is the member's value now: a field, or a derived value (an accessor
without parameters) worked out as the view is made. A sheet is made again only when what
it is made of changed (``sheet_key``): the fields its lines show when they are all
fields, else every member of its object and of the objects that object holds.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from lore.engine.natives import recipient
from lore.engine.queries import Query, plain
from lore.engine.table_decls import EVERYONE, GM_ONLY, SheetDecl, TableDecls, table_decls
from lore.engine.views import GM, actors_of, hidden_keys, is_hidden, known_keys, placed_objects
from lore.errors import LoreError
from lore.runtime.ops import rule_of
from lore.runtime.quantity import Quantity
from lore.runtime.values import EnumValue, LoreObject, TypedString

if TYPE_CHECKING:
    from lore.engine.session import Session


# The members that say whose an object is and who may see it (``is_hidden``): a sheet
# whose lines are all fields is made of these and of its lines' fields.
SEEN_BY = ("name", "player", "secrets", "knownSecrets")


def sheet_key(obj: LoreObject, sheet: SheetDecl) -> tuple[Any, ...]:
    """What an object's sheet is made of: when every line shows a field, those fields
    (an object in one as its name, which is what the line shows) and ``SEEN_BY``, so that
    a change of another member (a place, a flag the rules keep) makes no sheet again;
    with a derived line, which may read any member, ``members_key``."""
    values = obj.values
    found = []
    for name in sheet.reads:
        if name not in values:
            return members_key(obj)  # (an accessor's line)
        found.append(_shown_key(values[name]))
    found += [values.get(name) for name in SEEN_BY]
    return tuple(found)


def _shown_key(value: Any) -> Any:
    """A field's value as far as a line shows it: an object by its name, a list item by
    item (``shown_value``)."""
    if isinstance(value, LoreObject):
        return (value, value.values.get("name"))
    if isinstance(value, tuple) and any(isinstance(x, LoreObject | tuple) for x in value):
        return tuple([_shown_key(x) for x in value])
    return value


def members_key(obj: LoreObject) -> tuple[Any, ...]:
    """What an object's sheet with a derived line is made of: its members, and the
    members of the objects they hold (a derived line may read them: a player's life is
    the size of a zone it holds). A derived value reading further than that is not
    followed."""
    values = tuple(obj.values.values())
    held: list[Any] = []
    for value in values:
        if isinstance(value, LoreObject):
            held.append(tuple(value.values.values()))
        elif isinstance(value, tuple):
            held += [tuple(x.values.values()) for x in value if isinstance(x, LoreObject)]
    return (values, tuple(held)) if held else values


def sheeted(session: Session, decls: TableDecls) -> list[tuple[LoreObject, SheetDecl]]:
    """The objects that have a sheet, each with its sheet: the actors, then the other
    placed objects (found again only when the actors or the objects rules made change:
    ``_SHEETED``)."""
    if not decls.sheets:
        return []
    system = session.rt.system
    actors = system.values.get("allPC", ()) if system is not None else ()
    made = session.made
    key = (id(actors), id(made), len(made))
    kept = _SHEETED.get(session)
    if kept is not None and kept[0] == key and kept[1] is actors:
        return kept[2]
    found: list[tuple[LoreObject, SheetDecl]] = []
    seen: set[int] = set()
    for obj in (*actors_of(session, GM), *placed_objects(session)):
        sheet = decls.sheet_of(obj) if id(obj) not in seen else None
        if sheet is not None:
            seen.add(id(obj))
            found.append((obj, sheet))
    _SHEETED[session] = (key, actors, found)
    return found


# The objects with a sheet, by session, with what they were found from: the list of
# actors (kept alive here, so that its id is its own) and the objects rules made.
_SHEETED: weakref.WeakKeyDictionary[
    Session, tuple[tuple[int, int, int], Any, list[tuple[LoreObject, SheetDecl]]]
]
_SHEETED = weakref.WeakKeyDictionary()


# The parts of a table, each sent whole when it changed.
PARTS = ("sheets", "trackers", "waiting")


def table_key(session: Session) -> tuple[Any, ...]:
    """What the table views are made of, part by part (``PARTS``): the members of every
    object with a sheet, of every tracker, and who is asked. While a part's stays the
    same, so does that part of every table."""
    decls = table_decls(session)
    if not decls.sheets and not decls.trackers:
        return ()
    return (
        tuple([sheet_key(obj, sheet) for obj, sheet in sheeted(session, decls)]),
        tuple([tuple(tracker.values.values()) for tracker in decls.trackers]),
        tuple([(q.to, q.actor) for q in session.open_questions() if isinstance(q, Query)]),
    )


def table_view(
    session: Session,
    participant: str,
    parts: tuple[str, ...] = PARTS,
    shared: dict[Any, Any] | None = None,
) -> dict[str, Any] | None:
    """The seat's table, or those of its ``parts`` (None when the program declares no
    sheet and no tracker). ``shared``: what the tables made at one time share (a sheet
    as its owner, another seat or the GM reads it; the trackers and whom the table waits
    for, as seats that know the same secrets see them; each object's ``sheet_key``, hidden
    keys and owner), to be made once for every seat."""
    decls = table_decls(session)
    if not decls.sheets and not decls.trackers:
        return None
    if shared is None:
        shared = {}
    is_gm = participant == GM
    keys = None if is_gm else known_keys(actors_of(session, participant))
    known = None if keys is None else frozenset(keys)
    found: dict[str, Any] = {}
    if "sheets" in parts:
        objects = shared.get("objects")
        if objects is None:  # (what every seat reads of them: once)
            objects = shared["objects"] = [
                (obj, sheet, sheet_key(obj, sheet), tuple(hidden_keys(obj)), recipient(obj))
                for obj, sheet in sheeted(session, decls)
            ]
        sheets = []
        for obj, sheet, made, hides, owner in objects:
            if hides and keys is not None and not all(key in keys for key in hides):
                continue  # (hidden from the seat)
            mine = owner == participant
            role = (id(obj), is_gm, mine, known)
            shown = shared.get(role, shared)
            if shown is shared:
                shown = shared[role] = kept_sheet(session, obj, sheet, made, mine, known)
            if shown is not None:
                sheets.append(shown)
        found["sheets"] = sheets
    if "trackers" in parts:
        trackers = shared.get(("trackers", known))
        if trackers is None:
            trackers = shared[("trackers", known)] = [tracker_view(t, keys) for t in decls.trackers]
        found["trackers"] = trackers
    if "waiting" in parts:
        asked = shared.get(("waiting", known))
        if asked is None:
            asked = shared[("waiting", known)] = waiting(session, keys)
        found["waiting"] = asked
    return found


def kept_sheet(
    session: Session,
    obj: LoreObject,
    sheet: SheetDecl,
    values: tuple[Any, ...],
    mine: bool,
    known: frozenset[str] | None,
) -> dict[str, Any] | None:
    """``sheet_of``, made again only when what it is made of (``values``: its
    ``sheet_key``) changed (``_KEPT``): a derived value is worked out again when its
    object's own members change, or those of the objects it holds."""
    kept = _KEPT.get(session)
    if kept is None:
        kept = _KEPT[session] = {}
    role = (id(obj), mine, known)
    found = kept.get(role)
    if found is not None and found[0] is obj and found[1] == values:
        made: dict[str, Any] | None = found[2]
        return made
    made = sheet_of(session, obj, sheet, mine, known)
    kept[role] = (obj, values, made)  # (the object kept alive with it: its id is its own)
    return made


# Each object's sheet as each kind of seat reads it, by session, with the members it
# was made of.
_KEPT: weakref.WeakKeyDictionary[Session, dict[Any, Any]] = weakref.WeakKeyDictionary()


def sheet_of(
    session: Session,
    obj: LoreObject,
    sheet: SheetDecl,
    mine: bool,
    known: frozenset[str] | None = None,
) -> dict[str, Any] | None:
    """An object's sheet as the seat may read it (None: no line of it); ``known``: the
    keys of the secrets the seat's actors know (None: the GM, who reads everything).
    An object a line holds that a secret hides from the seat is left out of it."""
    is_gm = known is None
    sections = []
    for section in sheet.sections:
        entries = []
        for entry in section.entries:
            if not (is_gm or entry.shown == EVERYONE or (mine and entry.shown != GM_ONLY)):
                continue
            line: dict[str, Any] = {
                "member": entry.member,
                "label": entry.label,
                "labelJa": entry.label_ja or entry.label,
                "value": member_value(session, obj, entry.member, known),
            }
            if entry.max:
                line["max"] = member_value(session, obj, entry.max, known)
            if entry.member not in obj.values:
                line["derived"] = True  # (worked out: the GM rules on what it reads)
            entries.append(line)
        if entries:
            sections.append(
                {
                    "label": section.label,
                    "labelJa": section.label_ja or section.label,
                    "entries": entries,
                }
            )
    if not sections:
        return None
    return {
        "id": actor_id(obj),
        "name": _name(obj),
        "form": obj.form.name if obj.form is not None else "form",
        "mine": mine,
        "sections": sections,
    }


def member_value(
    session: Session, obj: LoreObject, name: str, known: frozenset[str] | None = None
) -> Any:
    """A member's value as plain data: a field's, or an accessor's worked out now (None
    when it has none, or its rule fails); ``known``: see ``shown_value``."""
    values = obj.values
    if name in values:
        value = values[name]
    elif obj.form is not None and any(name in f.accessors for f in obj.form.ancestors()):
        try:
            value = rule_of(obj, name)(session.rt, obj)
        except LoreError:
            return None
    else:
        return None
    return shown_value(value, known)


def shown_value(value: Any, known: frozenset[str] | None = None) -> Any:
    """A value as a sheet shows it: an object by its name, an enum value by its caption
    (its name without one), a quantity with its unit, a list item by item. ``known``:
    the keys a seat knows (None: every key), so that an object a secret hides from the
    seat is not shown (None for itself, left out of a list)."""
    if isinstance(value, LoreObject):
        if known is not None and value.values.get("secrets") and is_hidden(value, set(known)):
            return None
        return _name(value)
    if isinstance(value, EnumValue):
        caption = value.members.get("caption")
        return caption if isinstance(caption, str) else value.name
    if isinstance(value, TypedString | Quantity):
        return str(value)
    if isinstance(value, tuple | list):
        shown = [shown_value(item, known) for item in value]
        if known is None:
            return shown
        return [s for s, item in zip(shown, value, strict=True) if s is not None or item is None]
    try:
        return plain(value)
    except LoreError:
        return str(value)


def tracker_view(tracker: LoreObject, keys: set[str] | None) -> dict[str, Any]:
    """A tracker as a seat sees it (``keys``: what its actors know; None for the GM)."""
    values = tracker.values

    def seen(actors: Any) -> list[LoreObject]:
        return [
            actor
            for actor in actors or ()
            if isinstance(actor, LoreObject) and (keys is None or not is_hidden(actor, keys))
        ]

    round_ = values.get("round")
    return {
        "id": tracker.label or f"#{tracker.oid}",
        "label": _text(values.get("label")),
        "labelJa": _text(values.get("labelJa")) or _text(values.get("label")),
        "round": round_ if isinstance(round_, int) else 0,
        "phase": _text(values.get("phase")),
        "order": [{"id": actor_id(a), "name": _name(a)} for a in seen(values.get("order"))],
        "current": [actor_id(a) for a in seen(values.get("current"))],
    }


def waiting(session: Session, keys: set[str] | None) -> list[dict[str, str]]:
    """Whom the table waits for: each actor asked (by name, as the seat may see it) or
    seat asked (the GM, a player), once, in the order asked."""
    found: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    by_label = {a.label: a for a in actors_of(session, GM) if a.label}
    for query in session.open_questions():
        if not isinstance(query, Query):
            continue
        actor = by_label.get(query.actor) if query.actor else None
        if actor is not None and keys is not None and is_hidden(actor, keys):
            actor = None
        item = {"seat": query.to}
        if actor is not None:
            item["actor"] = actor_id(actor)
            item["name"] = _name(actor)
        key = (query.to, item.get("actor", ""))
        if key not in seen:
            seen.add(key)
            found.append(item)
    return found


def actor_id(obj: LoreObject) -> str:
    return obj.label or f"#{obj.oid}"


def _name(obj: LoreObject) -> str:
    name = obj.values.get("name")
    return str(name) if name is not None else actor_id(obj)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
