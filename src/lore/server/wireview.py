"""What goes over the wire for a seat: its view, the maps of its areas, its questions.

The view is the engine's (``lore.engine.views``: what the seat's participant may know),
put in the shape the clients use: collections by id, so that a change is sent as the
items that changed. Nothing is added to a player's view but the static maps of the areas
the engine's view already holds; the GM's view also marks the objects hidden by secrets.
Other participants' actors show no ``knownSecrets`` (which secrets someone else knows is
theirs).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import msgspec
from msgspec import Raw

from lore.engine import withdrawal
from lore.engine.queries import Input, Query, plain
from lore.engine.table_view import PARTS, table_view
from lore.engine.views import GM
from lore.runtime.quantity import Quantity
from lore.runtime.values import Range
from lore.server.master import Master
from lore.server.protocol import encode
from lore.world.geometry import LinkedGeometry, PointGeometry, SectionedGeometry
from lore.world.model import AreaNode

COLLECTIONS = ("actors", "areas", "objects", "zones")
Items = dict[str, dict[str, Any]]


def seat_view(
    master: Master, seat: str, shared: dict[Any, Any] | None = None, image_base: str = ""
) -> dict[str, Any]:
    """The seat's view: ``tick`` and its collections (``actors``, ``areas``,
    ``objects``), each a dict from an item's id to the item. A token's image (a path in
    the bundle) becomes its address under ``image_base``."""
    found = master.view(seat)
    for item in (*found["actors"], *found["objects"]):
        if "image" in item:
            item["image"] = f"{image_base}/{quote(item['image'])}"
    actors: Items = {item["id"]: item for item in found["actors"]}
    areas: Items = {}
    for item in found["areas"]:
        item = {key: value for key, value in item.items() if key != "places"}
        areas[item["path"]] = item
    objects: Items = {}
    hidden = master.hidden() if seat == GM else {}
    for item in found["objects"]:
        if seat != GM:
            item = {key: value for key, value in item.items() if key != "knownSecrets"}
        marks = hidden.get(item["id"])
        if marks:
            item = {**item, "hidden": marks["keys"], "seenBy": marks["seenBy"]}
        objects[item["id"]] = item
    zones: Items = {item["id"]: item for item in found.get("zones", ())}
    shown: dict[str, Any] = {"tick": found["tick"], "actors": actors, "areas": areas}
    shown["objects"] = objects
    shown["zones"] = zones
    shown.update(table_part(master, seat, shared=shared))
    return shown


def table_part(
    master: Master,
    seat: str,
    before: dict[str, Any] | None = None,
    parts: tuple[str, ...] = PARTS,
    shared: dict[Any, Any] | None = None,
) -> dict[str, Any]:
    """The seat's ``table`` (sheets, trackers, whom the table waits for), as a view's
    field, its ``parts`` made anew and the others as in ``before``; none when the rules
    declare no sheet and no tracker."""
    table = table_view(master.session, seat, parts, shared)
    if table is None:
        return {}
    return {"table": {**before, **table} if before is not None else table}


def view_lists(found: dict[str, Any]) -> dict[str, Any]:
    """A seat view with its collections as lists (as a snapshot sends them)."""
    return {
        "tick": found["tick"],
        **{name: list(found.get(name, {}).values()) for name in COLLECTIONS},
        **({"table": found["table"]} if "table" in found else {}),
    }


def view_delta(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """What changed from ``before`` to ``after``: the tick, the items put (new or
    changed) and the ids dropped, per collection. Empty when nothing changed."""
    delta: dict[str, Any] = {}
    if before is None or before["tick"] != after["tick"]:
        delta["tick"] = after["tick"]
    put: dict[str, list[dict[str, Any]]] = {}
    drop: dict[str, list[str]] = {}
    for name in COLLECTIONS:
        old: Items = before.get(name, {}) if before is not None else {}
        new: Items = after.get(name, {})
        changed = [item for key, item in new.items() if old.get(key) != item]
        gone = [key for key in old if key not in new]
        if changed:
            put[name] = changed
        if gone:
            drop[name] = gone
    if put:
        delta["put"] = put
    table = after.get("table")
    old_table = before.get("table") if before is not None else None
    if table is not None and old_table != table:
        # Only the parts that changed (``sheets``, ``trackers``, ``waiting``), each whole.
        delta["table"] = {
            key: value
            for key, value in table.items()
            if old_table is None or old_table.get(key) != value
        }
    if drop:
        delta["drop"] = drop
    return delta


# ------------------------------------------------------------ maps


def area_map(node: AreaNode) -> dict[str, Any]:
    """An area's map as the client draws it: its geometry and the areas inside it."""
    geometry = node.geometry
    found: dict[str, Any] = {"path": node.path, "label": node.label, "scale": node.scale}
    found["unit"], found["unitMetres"] = length_unit(node)
    if isinstance(geometry, SectionedGeometry):
        terrains = sorted(geometry.terrains())
        index = {name: i for i, name in enumerate(terrains)}
        found["style"] = "Sectioned2D"
        found["kind"] = geometry.kind
        found["terrains"] = terrains
        found["rows"] = [
            [
                [
                    index.get(section.terrain, -1) if section.terrain is not None else -1,
                    1 if section.prohibited else 0,
                    section.description,
                ]
                for section in line
            ]
            for line in geometry.lines
        ]
    elif isinstance(geometry, LinkedGeometry):
        found["style"] = "Linked"
        found["nodes"] = [
            {
                "label": label,
                "description": geometry.description_of(label),
                "links": [{"to": link.to, "distance": link.distance} for link in links],
            }
            for label, links in geometry.nodes
        ]
    elif isinstance(geometry, PointGeometry):
        found["style"] = "Point"
        found["points"] = list(geometry.labels)
    else:
        found["style"] = None
    found["children"] = [
        {
            "label": child.label,
            "path": child.path,
            "place": child.place,
            # (what the marker says: as the area's own view says it, to whoever sees the
            # marker, as its label was)
            "description": plain(child.obj.values.get("description", "")),
        }
        for child in node.children.values()
    ]
    return found


def length_unit(node: AreaNode) -> tuple[str, float]:
    """The unit the area's map measures lengths in, as its scale is written (``1[km]``,
    ``5[m]``, a unit of the rules'), and how many metres one of it is: the clients show
    the map's, the routes' and the dialogs' lengths in it."""
    scale = node.geometry.scale if node.geometry is not None else None
    if scale is not None and scale.value:
        return scale.unit, node.scale / float(scale.value)
    given = node.obj.values.get("scale")
    if isinstance(given, Quantity) and given.family is not None:
        factor = given.family.factors.get(given.unit)
        if factor:
            return given.unit, float(factor)
    return "m", 1.0


# ------------------------------------------------------------ questions


def query_spec(query: Query, master: Master) -> dict[str, Any]:
    """An open question as a dialog: its title, the texts shown as they are, and an
    input per answer member (described generically, so new kinds of input fit)."""
    return query_specs(query, master)[0]


def query_specs(query: Query, master: Master) -> tuple[dict[str, Any], Raw]:
    """``query_spec``, and the spec encoded (to be put in updates as it is). A menu's
    inputs, asked again and again, are encoded once (``_MENUS``), and so is each actor
    asked with them."""
    inputs = query.inputs
    key: Any = id(inputs[0]) if len(inputs) == 1 else tuple(map(id, inputs))
    # Whether its dialog offers to go back (the first question of a step never does).
    session = master.session
    back = bool(session.step_answers) and withdrawal.refusal(session, query) is None
    menu = _MENUS.get(key)
    if menu is None:
        return new_spec(query, master, key, back)
    texts = []
    for name, text in query.texts:
        texts.append(Shown(name, text))
    qid, to, title = query.id, query.to, query.title
    described = menu[1]
    captions = dict(query.captions) if query.captions else None
    if not query.actor:
        spec: dict[str, Any] = {"id": qid, "to": to, "title": title, "texts": texts}
        spec["inputs"] = described
        if captions:
            spec["captions"] = captions
        if back:
            spec["back"] = True
        return spec, Raw(encode(Spec(qid, to, title, texts, None, menu[2], captions, back)))
    actor = actor_of(query.actor, master)
    actors = menu[3]
    found = actors.get(id(actor))
    if found is None:
        found = (actor, Raw(encode(actor)))  # (kept with the actor: its id stays its own)
        if _ACTORS.get(actor["label"], (None, None))[1] is actor:
            if len(actors) >= MENUS_KEPT:
                actors.clear()
            actors[id(actor)] = found  # (an actor described anew each time is not kept)
    encoded = found[1]
    spec = {
        "id": qid,
        "to": to,
        "title": title,
        "texts": texts,
        "actor": actor,
        "inputs": described,
    }
    if captions:
        spec["captions"] = captions
    if back:
        spec["back"] = True
    return spec, Raw(encode(Spec(qid, to, title, texts, encoded, menu[2], captions, back)))


def new_spec(
    query: Query, master: Master, key: Any, back: bool = False
) -> tuple[dict[str, Any], Raw]:
    """``query_specs`` of a question whose inputs are no menu known yet (made one when
    they are ``_fixed``); ``back``: its dialog offers to go back."""
    inputs = query.inputs
    described = [input_spec(item) for item in inputs]
    if all(map(_fixed, inputs)):
        if len(_MENUS) >= MENUS_KEPT:
            _MENUS.clear()
        _MENUS[key] = (inputs, described, Raw(encode(described)), {})
    texts = [Shown(name, text) for name, text in query.texts]
    spec: dict[str, Any] = {"id": query.id, "to": query.to, "title": query.title, "texts": texts}
    if query.actor:
        spec["actor"] = actor_of(query.actor, master)
    spec["inputs"] = described
    if query.captions:
        spec["captions"] = dict(query.captions)
    if query.purpose:
        spec["purpose"] = query.purpose  # the client titles it in its language
    area = location_area(query, master)
    if area is not None:
        spec["area"] = area.path
        start = master.start_of(query.to, area)
        if start is not None:
            spec["from"] = start
    if back:
        spec["back"] = True
    return spec, Raw(encode(spec))


class Shown(msgspec.Struct, gc=False):
    """A member a question shows as it is: encoded as its dict (``{"name": ..., "text":
    ...}``) would be, the names encoded once."""

    name: str
    text: str


class Spec(msgspec.Struct, omit_defaults=True, gc=False):
    """A menu's question's spec (``query_specs``), encoded as that dict would be: its
    actor (when it has one) and inputs as encoded once."""

    id: str
    to: str
    title: str
    texts: list[Shown]
    actor: Raw | None = None
    inputs: Raw | None = None
    captions: dict[str, str] | None = None
    back: bool = False


# The inputs' descriptions of questions whose inputs are all enums described by what
# they are made of (``_fixed``), by the inputs' identities: a rule asks the same menu
# again and again, its inputs made once (``queries.InputCache``). Each entry keeps its
# inputs alive, so that an object of one of their ids is that input. Never changed once
# made; shared by the questions' specs. With them: the descriptions encoded, and the
# actors asked with them encoded, by the identity of ``actor_of``'s description (kept
# alive by the entry).
Menu = tuple[
    tuple[Input, ...],
    list[dict[str, Any]],
    Raw,
    dict[int, tuple[dict[str, str], Raw]],
]
_MENUS: dict[Any, Menu] = {}
MENUS_KEPT = 4096


def _fixed(item: Input) -> bool:
    """Whether the input's description is made of the input alone (``input_spec``'s
    enums), and it offers no places (``location_area``)."""
    rtype = item.type
    return (
        rtype.kind == "enum"
        and item.allowed is None
        and item.default is None
        and rtype.name != "loc"
    )


def actor_of(label: str, master: Master) -> dict[str, str]:
    """The actor a question asks: its label and name."""
    system = master.session.rt.system
    actors = system.values.get("allPC", ()) if system is not None else ()
    by_label = master.by_label
    # (``Master.actor``'s table read here while it is that of these actors: one call less)
    actor = by_label[1].get(label) if by_label[0] is actors else master.actor(label)
    if actor is None:
        return {"label": label, "name": label}
    name = actor.values.get("name")
    found = _ACTORS.get(label)
    if found is not None and found[0] is name:
        return found[1]
    made = {"label": label, "name": str(name) if name is not None else label}
    if type(name) is str or name is None:  # (made of the label and the name alone)
        if len(_ACTORS) >= ACTORS_KEPT:
            _ACTORS.clear()
        _ACTORS[label] = (name, made)
    return made


# The actors' descriptions (``actor_of``), by label, with the name they were made of (kept
# alive by the entry): the same actor is asked again and again. Never changed once made;
# shared by the questions' specs.
_ACTORS: dict[str, tuple[str | None, dict[str, str]]] = {}
ACTORS_KEPT = 4096


# The descriptions of enum inputs, by what they are made of: a rule asks the same menu
# again and again (the engine makes its input anew each time). Never changed once made.
_ENUM_INPUTS: dict[tuple[Any, ...], dict[str, Any]] = {}
ENUM_INPUTS_KEPT = 4096


def input_spec(item: Input) -> dict[str, Any]:
    """The engine's description of an input (name, type, kind, choices with captions,
    picks, range, default: it leads, so new kinds of input fit), with the unit and the
    range's bounds as numbers for a number field."""
    if item.type.kind == "enum" and item.allowed is None and item.default is None:
        key = (item.name, item.type.name, item.choices, item.captions, item.least, item.most)
        found = _ENUM_INPUTS.get(key)
        if found is None:
            if len(_ENUM_INPUTS) >= ENUM_INPUTS_KEPT:
                _ENUM_INPUTS.clear()
            found = _ENUM_INPUTS[key] = item.describe()
        return found
    spec = item.describe()
    if item.type.unit is not None:
        spec["unit"] = item.type.unit
    if item.allowed is not None:
        spec["bounds"] = bounds(item.allowed)
    return spec


def bounds(allowed: Range) -> dict[str, Any]:
    def number(value: Any) -> Any:
        if isinstance(value, Quantity):
            return value.amount()
        return plain(value)

    return {
        "low": number(allowed.low),
        "high": number(allowed.high),
        "lowOpen": allowed.low_open,
        "highOpen": allowed.high_open,
    }


def location_area(query: Query, master: Master) -> AreaNode | None:
    """The area whose places a location question offers (all its choices in one area),
    so that the client lets the places be picked on that area's map."""
    for item in query.inputs:
        if item.type.name != "loc" or not item.choices:
            continue
        paths = {choice.split("[", 1)[0] for choice in item.choices}
        if len(paths) == 1:
            return master.area(paths.pop())
    return None
