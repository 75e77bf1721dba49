"""Per-participant views: what a participant's client may be sent, built in one place.

A view is JSON-ready: the participant's actors, the areas they are in (with the places
of each map), the objects there that the participant can perceive, the places their
actors can go, and the messages sent to the participant. An object with a secret of
mode ``hide`` does not exist for a participant until its actors know the key (every key,
when it has several such secrets).
The GM's view holds everything. Nothing else about the session leaves through a view.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import chain
from typing import TYPE_CHECKING, Any

from lore.engine.natives import recipient
from lore.engine.queries import AnswerError, plain
from lore.engine.tokens import mark_entries
from lore.engine.world_natives import destinations
from lore.engine.zones import zone_views
from lore.runtime.errors import RuleError
from lore.runtime.values import EnumValue, FormInfo, InputMarker, LoreObject, TypedString
from lore.world.model import AreaNode, World

if TYPE_CHECKING:
    from lore.engine.session import Session

GM = "GM"


def actors_of(session: Session, participant: str) -> list[LoreObject]:
    system = session.rt.system
    actors: tuple[LoreObject, ...] = system.values.get("allPC", ()) if system else ()
    if participant == GM:
        return list(actors)
    return [actor for actor in actors if recipient(actor) == participant]


def known_keys(actors: list[LoreObject]) -> set[str]:
    keys: set[str] = set()
    for actor in actors:
        for key in actor.values.get("knownSecrets") or ():
            keys.add(str(key))
    return keys


def hidden_keys(obj: LoreObject) -> list[str]:
    """The keys of the ``hide`` secrets of an object (it is hidden until all are known)."""
    keys = []
    for secret in obj.values.get("secrets") or ():
        if not isinstance(secret, LoreObject):
            continue
        mode = secret.values.get("mode")
        if isinstance(mode, EnumValue) and mode.name == "hide":
            keys.append(str(secret.values.get("key")))
    return keys


def is_hidden(obj: LoreObject, keys: set[str]) -> bool:
    hides = hidden_keys(obj)
    return not all(key in keys for key in hides)


def on_map(session: Session) -> Iterator[Any]:
    """The program's values, then the objects with a location that rules made."""
    return chain(session.rt.g, session.made)


def placed_objects(session: Session) -> list[LoreObject]:
    """The session's objects that have a location (areas and triggers aside)."""
    program = session.program
    area, trigger = program.form_by_name["Area"], program.form_by_name["Trigger"]
    found = []
    for value in on_map(session):
        if (
            isinstance(value, LoreObject)
            and value.form is not None
            and "location" in value.values
            and not value.form.is_subform_of(area)
            and not value.form.is_subform_of(trigger)
        ):
            found.append(value)
    return found


def visible_objects(
    session: Session, participant: str, form: FormInfo | None
) -> tuple[LoreObject, ...]:
    """The session's objects of ``form`` that ``participant`` may know of (in the order
    they are written): an input of that form (``Actor.input``) offers them."""
    if form is None:
        return ()
    keys = None if participant == GM else known_keys(actors_of(session, participant))
    found: list[LoreObject] = []
    seen: set[int] = set()
    for value in on_map(session):
        if (
            isinstance(value, LoreObject)
            and value.form is not None
            and value.form.is_subform_of(form)
            and id(value) not in seen
            and (keys is None or not is_hidden(value, keys))
        ):
            seen.add(id(value))
            found.append(value)
    return tuple(found)


def unhidden_spec(session: Session, participant: str, spec: LoreObject) -> LoreObject:
    """``spec`` as ``participant`` may be asked it: the options of its ``T.choice`` and
    ``T.choices`` inputs without the objects hidden from the participant (a hidden default
    goes too). The same spec when nothing in it is hidden. Raises AnswerError when too
    few options are left to pick from (as ``Item.input`` does when none is)."""
    keys: set[str] | None = None
    changed: dict[str, InputMarker] = {}
    for name, value in spec.values.items():
        if value.__class__ is not InputMarker or not value.options:
            continue
        if not any(isinstance(o, LoreObject) and hidden_keys(o) for o in value.options):
            continue
        if keys is None:
            keys = known_keys(actors_of(session, participant))
        kept = tuple(
            o for o in value.options if not (isinstance(o, LoreObject) and is_hidden(o, keys))
        )
        args = value.args
        if len(args) > 1 and isinstance(args[1], LoreObject) and is_hidden(args[1], keys):
            args = args[:1]
        if len(kept) < max(value.least, 1 if value.most is None else 0):
            raise AnswerError(
                f"there is no {value.type} {participant} may see to offer for '{name}'"
            )
        most = None if value.most is None else min(value.most, len(kept))
        changed[name] = replace(value, options=kept, args=args, most=most)
    if not changed:
        return spec
    filtered = LoreObject(spec.form, {**spec.values, **changed}, spec.oid)
    filtered.label = spec.label
    return filtered


def view(session: Session, participant: str, *, messages: bool = True) -> dict[str, Any]:
    """What ``participant`` may know now (the GM: everything). Without ``messages`` the
    view leaves out the messages (a server sends those as they come)."""
    actors = actors_of(session, participant)
    is_gm = participant == GM
    keys = known_keys(actors)
    world = session.world
    areas: dict[str, AreaNode] = {}
    actor_views = []
    entries = []
    for actor in actors:
        described = describe(actor)
        place = _place(session, actor)
        if place is not None:
            area, coordinate = place
            areas[area.path] = area
            described["area"] = area.path
            described["routes"] = [area.location(c).text for c in destinations(area, coordinate)]
        actor_views.append(described)
        entries.append((described, actor))
    if is_gm and world is not None:
        areas = {node.path: node for node in all_areas(world.root)}
    area_views = [_area(node, world) for node in areas.values()]
    objects = []
    for obj in placed_objects(session):
        if obj in actors or (not is_gm and is_hidden(obj, keys)):
            continue
        place = _place(session, obj)
        if place is None or place[0].path not in areas:
            continue
        # Which secrets another participant's actor knows is not this one's to know.
        objects.append(describe(obj, secrets=is_gm))
        entries.append((objects[-1], obj))
    mark_entries(session, entries, actors, is_gm)
    found = {
        "participant": participant,
        "tick": session.ticks,
        "actors": actor_views,
        "areas": area_views,
        "objects": objects,
    }
    zones = zone_views(session, participant)
    if zones:  # (a program without zones of cards: no ``zones`` at all)
        found["zones"] = zones
    if messages:
        found["messages"] = [
            record
            for record in session.transcript.records
            if record["kind"] == "message" and (is_gm or record["to"] == participant)
        ]
    return found


def describe(obj: LoreObject, *, secrets: bool = True) -> dict[str, Any]:
    """An object as plain data; with ``secrets``, the keys of the secrets it knows."""
    described: dict[str, Any] = {
        "id": obj.label or f"#{obj.oid}",
        "form": obj.form.name if obj.form else "form",
    }
    for name in ("name", "location", "description"):
        value = obj.values.get(name)
        if value is not None:
            described[name] = str(value) if isinstance(value, TypedString) else plain(value)
    known = obj.values.get("knownSecrets") if secrets else None
    if known:
        described["knownSecrets"] = [str(key) for key in known]
    return described


def _place(session: Session, obj: LoreObject) -> tuple[AreaNode, str | None] | None:
    world = session.world
    location = obj.values.get("location")
    if world is None or location is None:
        return None
    try:
        place = world.resolve(location)
    except RuleError:
        return None
    return place.area, place.coordinate


def all_areas(root: AreaNode | None) -> list[AreaNode]:
    """Every area below ``root`` (itself first), parents before children."""
    found: list[AreaNode] = []
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(list(node.children.values())))
    return found


def _area(node: AreaNode, world: World | None) -> dict[str, Any]:
    geometry = node.geometry
    described: dict[str, Any] = {
        "path": node.path,
        "label": node.label,
        "description": plain(node.obj.values.get("description", "")),
        "style": geometry.style if geometry is not None else None,
        "places": geometry.coordinates() if geometry is not None else [],
    }
    environment = world.environment(node) if world is not None else None
    if environment is not None:
        described["environment"] = {
            name: plain(value) for name, value in environment.values.items()
        }
    return described
