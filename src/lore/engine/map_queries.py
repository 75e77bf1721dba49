"""A map that rules can query: places, distances, who is where, bounded moves.

- ``area.at(x, y)``, ``area.node(label)``: the location of a square, of a node;
  ``system.coordinates(place)``: a square's ``{x, y}``.
- ``system.distance(a, b)`` (a length), ``system.steps(a, b)`` (squares, hexes or links
  on the way, obstacles ignored on a grid), for locations or actors of one area.
- ``system.neighbours(place)``; ``system.actorsAt(place)``, ``system.actorsWithin(place,
  steps)`` and the same for items.
- ``area.route(from, to, passable)``: the shortest route through the places ``passable``
  accepts; ``area.reachable(actor, steps, passable, stop)`` and ``area.choiceMove(...)``:
  the places an actor can reach with a movement allowance (a number of steps, each
  weighted by the terrain entered), passing only where ``passable`` says and stopping
  only where ``stop`` says (its own place too, when ``stop`` accepts it: staying is a
  move of length 0); ``choiceMove`` asks the actor's participant to pick one.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from lore.engine.queries import Input, Query
from lore.engine.world_natives import place_of, terrain_costs, world_of
from lore.runtime.errors import RuleError
from lore.runtime.quantity import Quantity
from lore.runtime.values import LoreObject, RuntimeType, TypedString, show
from lore.world.geometry import LinkedGeometry, SectionedGeometry
from lore.world.model import AreaNode, Place, World
from lore.world.render import render_map
from lore.world.routes import grid_of, place_costs

if TYPE_CHECKING:
    from lore.engine.session import Runtime
    from lore.runtime.compiler import CompiledProgram

Test = Callable[[Any, Any], Any]  # a Lore function of a location: fn(rt, loc)


def install(program: CompiledProgram) -> None:
    """Give the prelude's forms these native rules (``natives.prepare`` does, once per
    program)."""
    forms = program.form_by_name
    for form, rules in (("Area", _AREA_RULES), ("System", _SYSTEM_RULES)):
        methods = forms[form].methods
        for name, fn in rules.items():
            methods.setdefault(name, fn)


# ------------------------------------------------------------ places


def _area(rt: Runtime, obj: LoreObject) -> AreaNode:
    found = world_of(rt).by_object.get(id(obj))
    if found is None:
        raise RuleError(f"{obj!r} is not an area of the map")
    return found


def _where(rt: Runtime, value: Any) -> Place:
    """A location, or an actor's or item's location, as a place of the map."""
    if isinstance(value, LoreObject):
        return place_of(rt, value)
    if isinstance(value, TypedString | str):
        return world_of(rt).resolve(value)
    raise RuleError(f"{show(value)} is neither a location nor an object with one")


def _cell(coordinate: str | None) -> tuple[int, int] | None:
    if coordinate is None:
        return None
    parts = coordinate.replace(" ", "").split(",")
    if len(parts) != 2:
        return None
    try:
        return int(parts[0]), int(parts[1])
    except ValueError:
        return None


def area_at(rt: Runtime, obj: LoreObject, x: int, y: int) -> TypedString:
    area = _area(rt, obj)
    coordinate = f"{x},{y}"
    if not isinstance(area.geometry, SectionedGeometry) or not area.geometry.has(coordinate):
        raise RuleError(f"'{area.path}' has no square [{coordinate}]")
    return area.location(coordinate)


def area_node(rt: Runtime, obj: LoreObject, label: Any) -> TypedString:
    area = _area(rt, obj)
    if area.geometry is None or not area.geometry.has(str(label)):
        raise RuleError(f"'{area.path}' has no place [{label}]")
    return area.location(str(label))


def coordinates(rt: Runtime, system: LoreObject, place: Any) -> tuple[int, ...]:
    cell = _cell(_where(rt, place).coordinate)
    return cell if cell is not None else ()


def _pair(rt: Runtime, a: Any, b: Any) -> tuple[AreaNode, str | None, str | None]:
    first, second = _where(rt, a), _where(rt, b)
    if first.area is not second.area:
        raise RuleError(f"{show(a)} and {show(b)} are not in one area")
    return first.area, first.coordinate, second.coordinate


def distance(rt: Runtime, system: LoreObject, a: Any, b: Any) -> Quantity:
    area, one, two = _pair(rt, a, b)
    world = world_of(rt)
    found = world.distance(area, one, two)
    if found is None:
        raise RuleError(f"there is no way between {show(a)} and {show(b)}")
    return world.metres(found)


def grid_steps(geometry: SectionedGeometry, one: tuple[int, int], two: tuple[int, int]) -> int:
    """Steps between two squares (or hexes) of a map, obstacles ignored."""
    grid = grid_of(geometry)
    dx, dy = abs(one[0] - two[0]), abs(one[1] - two[1])
    if grid.kind == 8:
        return max(dx, dy)
    if grid.kind == 6:
        return int(grid.heuristic(one[0], one[1], two[0], two[1]))
    return dx + dy


def steps(rt: Runtime, system: LoreObject, a: Any, b: Any) -> int:
    area, one, two = _pair(rt, a, b)
    geometry = area.geometry
    if one == two:
        return 0
    if isinstance(geometry, SectionedGeometry):
        cells = _cell(one), _cell(two)
        if cells[0] is not None and cells[1] is not None:
            return grid_steps(geometry, cells[0], cells[1])
    if isinstance(geometry, LinkedGeometry) and one is not None and two is not None:
        found = _search(area, one, lambda _: True, math.inf, None)
        if two in found:
            return found[two][1]
    raise RuleError(f"there is no way between {show(a)} and {show(b)}")


def _next_to(area: AreaNode, coordinate: str) -> Iterator[tuple[str, float]]:
    """The places one step from a place, with the step's length in steps."""
    geometry = area.geometry
    if isinstance(geometry, SectionedGeometry):
        cell = _cell(coordinate)
        if cell is not None:
            for x, y, length in grid_of(geometry).neighbours(*cell):
                yield f"{x},{y}", length
    elif isinstance(geometry, LinkedGeometry):
        for label, links in geometry.nodes:
            if label == coordinate:
                for link in links:
                    yield link.to, link.distance


def neighbours(rt: Runtime, system: LoreObject, place: Any) -> tuple[TypedString, ...]:
    where = _where(rt, place)
    if where.coordinate is None:
        return ()
    return tuple(where.area.location(c) for c, _ in _next_to(where.area, where.coordinate))


# ------------------------------------------------------------ who is where


def _placed(rt: Runtime, form_name: str) -> list[LoreObject]:
    form = rt.session.program.form_by_name[form_name]
    return [
        value
        for value in itertools.chain(rt.session.rt.g, rt.session.made)
        if isinstance(value, LoreObject)
        and value.form is not None
        and value.form.is_subform_of(form)
        and value.values.get("location") is not None
    ]


def _near(rt: Runtime, form_name: str, centre: Any, within: int | None) -> tuple[Any, ...]:
    where = _where(rt, centre)
    world = world_of(rt)
    found: list[LoreObject] = []
    for obj in dict.fromkeys(_placed(rt, form_name)):
        if obj is centre:
            continue
        try:
            place = world.resolve(obj.values["location"])
        except RuleError:
            continue
        if place.area is not where.area:
            continue
        if within is None:
            if place.coordinate == where.coordinate:
                found.append(obj)
        elif _steps_between(where.area, where.coordinate, place.coordinate) <= within:
            found.append(obj)
    return tuple(found)


def _steps_between(area: AreaNode, one: str | None, two: str | None) -> float:
    if one == two:
        return 0
    geometry = area.geometry
    cells = _cell(one), _cell(two)
    if isinstance(geometry, SectionedGeometry) and cells[0] is not None and cells[1] is not None:
        return grid_steps(geometry, cells[0], cells[1])
    if one is not None and two is not None:
        found = _search(area, one, lambda _: True, math.inf, None)
        if two in found:
            return found[two][1]
    return math.inf


def actors_at(rt: Runtime, system: LoreObject, place: Any) -> tuple[Any, ...]:
    return _near(rt, "Actor", place, None)


def actors_within(rt: Runtime, system: LoreObject, place: Any, within: int) -> tuple[Any, ...]:
    return _near(rt, "Actor", place, within)


def items_at(rt: Runtime, system: LoreObject, place: Any) -> tuple[Any, ...]:
    return _near(rt, "Item", place, None)


def items_within(rt: Runtime, system: LoreObject, place: Any, within: int) -> tuple[Any, ...]:
    return _near(rt, "Item", place, within)


# ------------------------------------------------------------ bounded routes


def _search(
    area: AreaNode,
    start: str,
    passable: Callable[[str], bool],
    allowance: float,
    costs: dict[str, float] | None,
) -> dict[str, tuple[float, int, str | None]]:
    """Dijkstra from ``start`` over the places ``passable`` accepts, within ``allowance``
    (steps weighted by the terrain entered): each place reached, with its cost, its number
    of steps and the place before it on the cheapest way."""
    geometry = area.geometry
    weights = None
    if costs and isinstance(geometry, SectionedGeometry):
        grid = grid_of(geometry)
        weights = place_costs(grid, geometry, costs)
    best: dict[str, tuple[float, int, str | None]] = {start: (0.0, 0, None)}
    queue: list[tuple[float, int, str]] = [(0.0, 0, start)]
    checked: dict[str, bool] = {}
    while queue:
        cost, count, place = heapq.heappop(queue)
        if cost > best[place][0]:
            continue
        for near, length in _next_to(area, place):
            if weights is not None and isinstance(geometry, SectionedGeometry):
                cell = _cell(near)
                assert cell is not None
                length *= weights[cell[1] * grid_of(geometry).width + cell[0]]
            candidate = cost + length
            if candidate > allowance + 1e-9:
                continue
            if near not in checked:
                checked[near] = passable(near)
            if not checked[near]:
                continue
            if near not in best or candidate < best[near][0] - 1e-12:
                best[near] = (candidate, count + 1, place)
                heapq.heappush(queue, (candidate, count + 1, near))
    return best


def _test(rt: Runtime, fn: Test | None, area: AreaNode) -> Callable[[str], bool]:
    def accepts(coordinate: str) -> bool:
        if fn is None:
            return True
        rt.count_op()
        answer = fn(rt, area.location(coordinate))
        if not isinstance(answer, bool):
            raise RuleError(f"a test of places must give true or false, not {show(answer)}")
        return answer

    return accepts


def _allowance(value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        raise RuleError(
            f"a movement allowance is a number of steps of 0 or more, not {show(value)}"
        )
    return float(value)


def _stops(
    rt: Runtime, area: AreaNode, start: str, allowance: Any, passable: Test, stop: Test
) -> tuple[dict[str, tuple[float, int, str | None]], list[str]]:
    found = _search(
        area, start, _test(rt, passable, area), _allowance(allowance), terrain_costs(area)
    )
    can_stop = _test(rt, stop, area)
    goals = [place for place in found if can_stop(place)]
    return found, _in_map_order(area, goals)


def _in_map_order(area: AreaNode, places: list[str]) -> list[str]:
    geometry = area.geometry
    if isinstance(geometry, SectionedGeometry):
        return sorted(places, key=lambda p: (_cell(p) or (0, 0))[::-1])
    if geometry is not None:
        order = {c: i for i, c in enumerate(geometry.coordinates())}
        return sorted(places, key=lambda p: order.get(p, len(order)))
    return places


def _start(rt: Runtime, area: AreaNode, actor: Any) -> str:
    place = place_of(rt, actor)
    if place.area is not area or place.coordinate is None:
        raise RuleError(f"{actor!r} is not on the map of '{area.path}'")
    return place.coordinate


def area_reachable(
    rt: Runtime, obj: LoreObject, actor: Any, allowance: Any, passable: Test, stop: Test
) -> tuple[TypedString, ...]:
    area = _area(rt, obj)
    _, goals = _stops(rt, area, _start(rt, area, actor), allowance, passable, stop)
    return tuple(area.location(goal) for goal in goals)


def _route(
    rt: Runtime, area: AreaNode, found: dict[str, tuple[float, int, str | None]], goal: str
) -> LoreObject:
    path = [goal]
    while (before := found[path[-1]][2]) is not None:
        path.append(before)
    path.reverse()
    world: World = world_of(rt)
    length = 0.0
    for one, two in itertools.pairwise(path):
        length += next((d for c, d in _next_to(area, one) if c == two), 1.0)
    return rt.new(
        rt.session.program.form_by_name["Route"],
        {
            "goal": area.location(goal),
            "distance": world.metres(length * area.scale),
            "cost": world.metres(found[goal][0] * area.scale),
            "path": tuple(area.location(c) for c in path),
        },
    )


def choice_move(
    rt: Runtime, obj: LoreObject, actor: Any, allowance: Any, passable: Test, stop: Test
) -> LoreObject:
    from lore.engine.natives import ask_query, recipient

    area = _area(rt, obj)
    start = _start(rt, area, actor)
    found, goals = _stops(rt, area, start, allowance, passable, stop)
    if not goals:
        raise RuleError(f"{actor!r} can move nowhere in '{area.path}' with {show(allowance)} steps")
    locations = tuple(area.location(goal) for goal in goals)
    goal_input = Input("goal", RuntimeType("prim", "loc"), tuple(str(g) for g in locations))
    texts = (("map", render_map(area, start)),)
    title = f"move in {area.label or area.path}"
    query = Query(recipient(actor), title, texts, (goal_input,), purpose="move")
    answer = ask_query(rt, query).values["goal"]
    goal = world_of(rt).resolve(answer).coordinate
    assert goal is not None
    return _route(rt, area, found, goal)


def area_route(rt: Runtime, obj: LoreObject, start: Any, goal: Any, passable: Test) -> LoreObject:
    area = _area(rt, obj)
    one, two = _where(rt, start), _where(rt, goal)
    if one.area is not area or two.area is not area or one.coordinate is None:
        raise RuleError(f"{show(start)} and {show(goal)} are not both places of '{area.path}'")
    found = _search(area, one.coordinate, _test(rt, passable, area), math.inf, terrain_costs(area))
    if two.coordinate not in found:
        raise RuleError(f"there is no way from {show(start)} to {show(goal)} in '{area.path}'")
    return _route(rt, area, found, two.coordinate)


_AREA_RULES: dict[str, Callable[..., Any]] = {
    "at": area_at,
    "node": area_node,
    "route": area_route,
    "reachable": area_reachable,
    "choiceMove": choice_move,
}
_SYSTEM_RULES: dict[str, Callable[..., Any]] = {
    "coordinates": coordinates,
    "distance": distance,
    "steps": steps,
    "neighbours": neighbours,
    "actorsAt": actors_at,
    "actorsWithin": actors_within,
    "itemsAt": items_at,
    "itemsWithin": items_within,
}
