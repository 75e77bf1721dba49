"""The engine's rules that work on the world: where actors are, routes, triggers.

- ``system.areaOf(loc)`` (behind ``actor.currentArea``): the area a location lies in.
- ``system.placeName(loc)``: a place as messages say it (``place_name``).
- ``area.choiceRoute(actor)``: asks the actor's participant for a destination among the
  places reachable from the actor's place, and gives the shortest ``Route`` there (the
  cheapest, when the area gives its terrains movement costs).
- ``actor.action(A)``: runs, at once, the triggers located in the actor's current area
  whose ``actions`` contain ``A`` and whose ``effectiveRange`` contains the distance from
  the trigger to the actor; each handler gets the actor.
- A trigger with no actions fires when an actor's location update puts the actor in its
  range: its handler runs in a step right after that update, at the same time.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from lore.engine.queries import Input, Query
from lore.runtime.errors import RuleError
from lore.runtime.values import LoreObject, Range, RuntimeType, TypedString, show
from lore.world.geometry import LinkedGeometry, PointGeometry, SectionedGeometry
from lore.world.model import AreaNode, Place, World
from lore.world.render import render_map
from lore.world.routes import grid_of, linked_reachable, linked_route, place_costs

if TYPE_CHECKING:
    from lore.engine.natives import Prepared
    from lore.engine.session import Runtime, Session
    from lore.runtime.compiler import CompiledProgram


def install(program: CompiledProgram) -> None:
    """Give the prelude's forms the world's native rules (``natives.prepare`` does)."""
    forms = program.form_by_name
    forms["System"].methods.setdefault("areaOf", area_of)
    forms["System"].methods.setdefault("placeName", place_name)
    forms["Area"].methods.setdefault("choiceRoute", choice_route)
    forms["Actor"].methods.setdefault("action", action)


def build(session: Session, prepared: Prepared, report: bool = True) -> World:
    """The session's world, from its values (the GM is told of refused geometries unless
    ``report`` is False: a restored session was told before)."""
    program = session.program
    units = program.result.checker.units.units
    g = session.rt.g
    areas = [v for v in g if isinstance(v, LoreObject) and v.form in prepared.areas]
    named = {id(area) for area in areas}
    labels = {
        id(g[index]): prepared.labels[place]
        for place, (_, index, _) in enumerate(program.values)
        if id(g[index]) in named
    }
    world = World(areas, program.form_by_name["Area"], units["m"], units, labels)
    for path, problem in world.problems if report else ():
        session.report(
            RuleError(
                f"the geometry of area '{path}' is refused: {problem}",
                "fix the map and check the scenario with lore check",
            )
        )
    triggers = prepared.triggers
    session.triggers = [v for v in session.rt.g if isinstance(v, LoreObject) and v.form in triggers]
    return world


def world_of(rt: Runtime) -> World:
    world = rt.session.world
    if world is None:
        raise RuleError("the session has no areas")
    return world


def area_of(rt: Runtime, system: LoreObject, location: Any) -> LoreObject:
    return world_of(rt).resolve(location).area.obj


def place_name(rt: Runtime, system: LoreObject, location: Any) -> str:
    """A place as a message says it (as the client's buttons do): a square as ``[1,0]``
    and its description, a node of a linked map by its description (else its label), a
    point by its label; inside an area other than the root, the area's label first.
    An area itself is its label (the root: ``/``)."""
    place = world_of(rt).resolve(location)
    area, coordinate = place.area, place.coordinate
    prefix = area.label if area.parent is not None else ""
    if coordinate is None:
        return prefix or area.path
    geometry = area.geometry
    if isinstance(geometry, SectionedGeometry):
        section = geometry.section(coordinate)
        said = f"[{coordinate.replace(' ', '')}]"
        if section is not None and section.description:
            said = f"{said} {section.description}"
    elif isinstance(geometry, LinkedGeometry):
        said = geometry.description_of(coordinate) or coordinate
    else:
        said = coordinate
    return f"{prefix} {said}" if prefix else said


def place_of(rt: Runtime, actor: Any) -> Place:
    if not isinstance(actor, LoreObject):
        raise RuleError(f"{show(actor)} is not an actor")
    location = actor.values.get("location")
    if location is None:
        raise RuleError(f"{actor!r} has no location")
    return world_of(rt).resolve(location)


# ------------------------------------------------------------ routes


def destinations(area: AreaNode, start: str | None) -> list[str]:
    geometry = area.geometry
    if isinstance(geometry, LinkedGeometry):
        if start is None:
            return [label for label, _ in geometry.nodes]
        return linked_reachable(geometry, start)
    if isinstance(geometry, SectionedGeometry):
        grid = grid_of(geometry)
        origin = _cell(start)
        if origin is None:
            return [
                f"{x},{y}"
                for y, line in enumerate(geometry.lines)
                for x, section in enumerate(line)
                if not section.prohibited
            ]
        return [f"{x},{y}" for x, y in grid.reachable(origin)]
    if isinstance(geometry, PointGeometry):
        return [label for label in geometry.labels if label != start]
    return []


def route_between(
    area: AreaNode, start: str | None, goal: str, costs: dict[str, float] | None = None
) -> tuple[float, list[str]] | None:
    """The shortest route in ``area`` (the cheapest, with terrain ``costs``): its length in
    metres (its cost, with costs) and its places."""
    geometry = area.geometry
    if start is None or start == goal:
        return 0.0, [goal]
    if isinstance(geometry, LinkedGeometry):
        found = linked_route(geometry, start, goal)
        return (found[0] * area.scale, found[1]) if found is not None else None
    if isinstance(geometry, SectionedGeometry):
        origin, target = _cell(start), _cell(goal)
        if origin is None or target is None:
            return None
        grid = grid_of(geometry)
        weights = place_costs(grid, geometry, costs) if costs else None
        path = grid.route(origin, target, weights)
        if path is None:
            return None
        return path[0] * area.scale, [f"{x},{y}" for x, y in path[1]]
    return None


def path_metres(area: AreaNode, path: list[str]) -> float:
    """The length of a route's places on a map of sections, in metres (terrain costs are
    only given to such maps: ``terrain_costs`` refuses them elsewhere)."""
    geometry = area.geometry
    assert isinstance(geometry, SectionedGeometry)
    cells = [_cell(place) for place in path]
    return grid_of(geometry).length([c for c in cells if c is not None]) * area.scale


def terrain_costs(area: AreaNode) -> dict[str, float] | None:
    """The area's ``terrainCosts`` as terrain -> cost (None: it has none), checked."""
    given = area.obj.values.get("terrainCosts")
    if not given:
        return None
    geometry = area.geometry
    known = geometry.terrains() if isinstance(geometry, SectionedGeometry) else frozenset()
    costs: dict[str, float] = {}
    for entry in given:
        values = entry.values if isinstance(entry, LoreObject) else {}
        terrain, cost = values.get("terrain"), values.get("cost")
        if not isinstance(terrain, str | TypedString):
            raise RuleError(f"a terrain cost of '{area.path}' names no terrain")
        name = str(terrain)
        if not isinstance(cost, int | float) or isinstance(cost, bool) or not 0 < cost < math.inf:
            raise RuleError(
                f"the cost of terrain '{name}' in '{area.path}' must be above 0, not {show(cost)}"
            )
        if name not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise RuleError(
                f"'{name}' is not a terrain of the map of '{area.path}' (its terrains: {listed})"
            )
        costs[name] = float(cost)
    return costs


def _cell(coordinate: str | None) -> tuple[int, int] | None:
    if coordinate is None:
        return None
    parts = coordinate.replace(" ", "").split(",")
    try:
        return (int(parts[0]), int(parts[1])) if len(parts) == 2 else None
    except ValueError:
        return None


def choice_route(rt: Runtime, area_obj: LoreObject, actor: Any) -> LoreObject:
    from lore.engine.natives import ask_query, recipient

    world = world_of(rt)
    area = world.by_object.get(id(area_obj))
    if area is None:
        raise RuleError(f"{area_obj!r} is not an area of the map")
    place = place_of(rt, actor)
    start = place.coordinate if place.area is area else None
    goals = [area.location(c).text for c in destinations(area, start)]
    if not goals:
        raise RuleError(f"{actor!r} can go nowhere in '{area.path}'")
    goal_input = Input("goal", RuntimeType("prim", "loc"), tuple(goals))
    texts = (("map", render_map(area, start)),)
    query = Query(recipient(actor), f"route in {area.label}", texts, (goal_input,), purpose="route")
    answer = ask_query(rt, query).values["goal"].text
    goal = world.resolve(answer)
    costs = terrain_costs(area)
    found = route_between(area, start, goal.coordinate or "", costs)
    if found is None:
        raise RuleError(f"no way from {show(actor.values.get('location'))} to {answer}")
    cost, path = found
    metres = path_metres(area, path) if costs else cost
    route_form = rt.session.program.form_by_name["Route"]
    return rt.new(
        route_form,
        {
            "goal": TypedString("loc", answer),
            "distance": world.metres(metres),
            "cost": world.metres(cost),
            "path": tuple(area.location(c) for c in path),
        },
    )


# ------------------------------------------------------------ triggers


def in_range(world: World, trigger: LoreObject, place: Place) -> bool:
    location = trigger.values.get("location")
    if location is None:
        return False
    where = world.resolve(location)
    if where.area is not place.area:
        return False
    distance = world.distance(place.area, where.coordinate, place.coordinate)
    if distance is None:
        return False
    bounds = trigger.values.get("effectiveRange")
    return not isinstance(bounds, Range) or bounds.match(world.metres(distance))


def action(rt: Runtime, actor: LoreObject, what: Any) -> None:
    world = world_of(rt)
    place = place_of(rt, actor)
    for trigger in rt.session.triggers:
        actions = trigger.values.get("actions") or ()
        if what in actions and in_range(world, trigger, place):
            rt.call_field(trigger, "handler", actor)


def after_moves(session: Session, moved: list[tuple[LoreObject, Any]]) -> None:
    """Queue the automatic triggers that actors' location updates put them in range of."""
    world = session.world
    if world is None or not session.triggers:
        return
    actor_form = session.program.form_by_name["Actor"]
    for obj, before in moved:
        if obj.form is None or not obj.form.is_subform_of(actor_form):
            continue
        try:
            place = world.resolve(obj.values["location"])
            old = world.resolve(before) if before is not None else None
        except RuleError:
            continue
        for trigger in session.triggers:
            if trigger.values.get("actions"):
                continue
            if in_range(world, trigger, place) and not (
                old is not None and in_range(world, trigger, old)
            ):
                session.fire_soon(trigger, obj)
