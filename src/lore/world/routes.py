"""Shortest routes over passable places.

- Linked maps: Dijkstra over the one-way links (``distance`` steps each).
- Sectioned2D maps: A* over sections that are not prohibited; type 4 moves to the four
  orthogonal neighbours, type 8 also diagonally (a diagonal step is sqrt(2) long and may
  not cut a prohibited corner), type 6 to the six hex neighbours ("odd-r" offsets).

Lengths are in steps of the map; the caller multiplies by the area's scale.

A rule system may give terrains a movement cost: entering a section then costs its step's
length times the cost of the section's terrain (1 for a terrain with none), and a route is
the cheapest way rather than the shortest. The estimate of A* is scaled by the lowest
cost, so it never overestimates and the route found is still the cheapest.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import OrderedDict
from collections.abc import Iterator

from lore.world.geometry import LinkedGeometry, SectionedGeometry

SQRT2 = math.sqrt(2)
_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_HEX_EVEN = ((1, 0), (-1, 0), (0, -1), (-1, -1), (0, 1), (-1, 1))
_HEX_ODD = ((1, 0), (-1, 0), (1, -1), (0, -1), (1, 1), (0, 1))


def linked_route(geometry: LinkedGeometry, start: str, goal: str) -> tuple[float, list[str]] | None:
    links = dict(geometry.nodes)
    if start not in links or goal not in links:
        return None
    best = {start: 0.0}
    previous: dict[str, str] = {}
    queue = [(0.0, start)]
    while queue:
        length, node = heapq.heappop(queue)
        if node == goal:
            return length, _unwind(previous, start, goal)
        if length > best.get(node, math.inf):
            continue
        for link in links[node]:
            candidate = length + link.distance
            if candidate < best.get(link.to, math.inf):
                best[link.to] = candidate
                previous[link.to] = node
                heapq.heappush(queue, (candidate, link.to))
    return None


def linked_reachable(geometry: LinkedGeometry, start: str) -> list[str]:
    links = dict(geometry.nodes)
    seen = {start}
    stack = [start]
    while stack:
        node = stack.pop()
        for link in links.get(node, ()):
            if link.to not in seen:
                seen.add(link.to)
                stack.append(link.to)
    return [label for label, _ in geometry.nodes if label in seen and label != start]


class Grid:
    """A Sectioned2D map as flat arrays, for fast searches.

    A place is the integer ``y * width + x``. For each open place a small integer says
    which of its neighbours can be entered (a bit per direction, the line's parity added
    on hex maps); a table shared by all places turns that into the steps to take, as
    (difference of places, length). So a search does no bounds checks and builds no
    tuples of coordinates, and the map keeps one small integer per place.
    """

    def __init__(self, geometry: SectionedGeometry) -> None:
        self.kind = geometry.kind
        self.height = len(geometry.lines)
        self.width = max((len(line) for line in geometry.lines), default=0)
        self.open = [False] * (self.width * self.height)
        for y, line in enumerate(geometry.lines):
            for x, section in enumerate(line):
                self.open[y * self.width + x] = not section.prohibited
        self._moves: list[tuple[tuple[int, float], ...]] = []
        self._mask: list[int] = []
        self._xs: list[int] = []  # the column of each place ("q" of cube coordinates on hexes)
        self._ys: list[int] = []
        # The costs of entering each place, by the terrain costs they come from.
        self.costs: dict[tuple[tuple[str, float], ...], list[float]] = {}

    def passable(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height and self.open[y * self.width + x]

    def directions(self, y: int) -> tuple[tuple[int, int, float], ...]:
        """The moves from a place of line ``y``: (dx, dy, length)."""
        if self.kind == 6:
            return tuple((dx, dy, 1.0) for dx, dy in (_HEX_ODD if y & 1 else _HEX_EVEN))
        straight = tuple((dx, dy, 1.0) for dx, dy in _ORTHOGONAL)
        if self.kind == 8:
            return straight + tuple((dx, dy, SQRT2) for dx, dy in _DIAGONAL)
        return straight

    def neighbours(self, x: int, y: int) -> Iterator[tuple[int, int, float]]:
        """The places one step from [x,y] that can be entered, with the step's length.

        A diagonal step may not cut the corner of a prohibited square.
        """
        for dx, dy, step in self.directions(y):
            if self.can_step(x, y, dx, dy):
                yield x + dx, y + dy, step

    def can_step(self, x: int, y: int, dx: int, dy: int) -> bool:
        """Whether [x+dx,y+dy] can be entered from [x,y] (no cutting prohibited corners)."""
        if not self.passable(x + dx, y + dy):
            return False
        return not (dx and dy and self.kind == 8) or (
            self.passable(x + dx, y) and self.passable(x, y + dy)
        )

    def _prepare(self) -> None:
        """Build the masks and the table of moves (once, at the first search)."""
        if self._mask or not self.open:
            return
        width, height = self.width, self.height
        masks = [0] * (width * height)
        parity_bit = 1 << 6  # hexes have six directions; bit 6 is the line's parity
        tables: dict[int, tuple[tuple[int, float], ...]] = {}
        for y in range(height):
            directions = self.directions(y)
            parity = parity_bit if self.kind == 6 and y & 1 else 0
            for x in range(width):
                key = y * width + x
                if not self.open[key]:
                    continue
                mask = 0
                for bit, (dx, dy, _) in enumerate(directions):
                    if self.can_step(x, y, dx, dy):
                        mask |= 1 << bit
                mask |= parity
                masks[key] = mask
                if mask not in tables:
                    tables[mask] = tuple(
                        (dy * width + dx, step)
                        for bit, (dx, dy, step) in enumerate(directions)
                        if mask >> bit & 1
                    )
        size = max(tables, default=0) + 1
        self._moves = [tables.get(mask, ()) for mask in range(size)]
        self._xs = [x for _ in range(height) for x in range(width)]
        self._ys = [y for y in range(height) for _ in range(width)]
        if self.kind == 6:
            self._xs = [x - (y - (y & 1)) // 2 for x, y in zip(self._xs, self._ys, strict=True)]
        self._mask = masks

    def heuristic(self, x: int, y: int, gx: int, gy: int) -> float:
        dx, dy = abs(x - gx), abs(y - gy)
        if self.kind == 8:
            return (dx + dy) + (SQRT2 - 2) * min(dx, dy)
        if self.kind == 6:
            return _hex_distance(x, y, gx, gy)
        return float(dx + dy)

    def route(
        self,
        start: tuple[int, int],
        goal: tuple[int, int],
        costs: list[float] | None = None,
    ) -> tuple[float, list[tuple[int, int]]] | None:
        """The shortest route (A*) and its length in steps, or None when there is none.

        With ``costs`` (the cost of entering each place, ``y * width + x``, all above
        zero) it is the cheapest route and its cost.
        """
        if not (self.passable(*start) and self.passable(*goal)):
            return None
        width = self.width
        origin, target = start[1] * width + start[0], goal[1] * width + goal[0]
        if origin == target:
            return 0.0, [start]
        self._prepare()
        moves, masks, xs, ys = self._moves, self._mask, self._xs, self._ys
        gx, gy = xs[target], ys[target]
        kind = self.kind
        diagonal = SQRT2 - 1
        floor = 1.0 if costs is None else min(costs)  # scales the estimate: never too high
        best = [math.inf] * len(masks)
        previous = [-1] * len(masks)
        best[origin] = 0.0
        # Entries are (estimate, -length, place): among equal estimates the place furthest
        # along comes first, which spares most of the ties of open ground.
        queue: list[tuple[float, float, int]] = [(0.0, -0.0, origin)]
        push, pop = heapq.heappush, heapq.heappop
        while queue:
            _, negative, key = pop(queue)
            if key == target:
                path = [key]
                while key != origin:
                    key = previous[key]
                    path.append(key)
                path.reverse()
                return -negative, [(k % width, k // width) for k in path]
            length = -negative
            if length > best[key]:
                continue  # a longer way to a place already reached
            for delta, step in moves[masks[key]]:
                near = key + delta
                candidate = length + (step if costs is None else step * costs[near])
                if candidate < best[near] - 1e-12:
                    best[near] = candidate
                    previous[near] = key
                    dx = xs[near] - gx
                    dy = ys[near] - gy
                    if dx < 0:
                        dx = -dx
                    if dy < 0:
                        dy = -dy
                    if kind == 8:
                        estimate = dx + diagonal * dy if dx > dy else dy + diagonal * dx
                    elif kind == 6:
                        dz = xs[near] + ys[near] - gx - gy
                        estimate = max(dx, dy, dz if dz > 0 else -dz)
                    else:
                        estimate = dx + dy
                    push(queue, (candidate + floor * estimate, -candidate, near))
        return None

    def length(self, path: list[tuple[int, int]]) -> float:
        """The length of a path of neighbouring places, in steps."""
        total = 0.0
        for (x1, y1), (x2, y2) in itertools.pairwise(path):
            total += SQRT2 if self.kind == 8 and x1 != x2 and y1 != y2 else 1.0
        return total

    def reachable(self, start: tuple[int, int]) -> list[tuple[int, int]]:
        """Every place a route from ``start`` can reach (``start`` aside), line by line."""
        if not self.passable(*start):
            return []
        self._prepare()
        moves, masks, width = self._moves, self._mask, self.width
        origin = start[1] * width + start[0]
        seen = {origin}
        stack = [origin]
        while stack:
            key = stack.pop()
            for delta, _ in moves[masks[key]]:
                near = key + delta
                if near not in seen:
                    seen.add(near)
                    stack.append(near)
        seen.discard(origin)
        return [(k % width, k // width) for k in sorted(seen)]


_GRIDS: OrderedDict[int, tuple[SectionedGeometry, Grid]] = OrderedDict()


def place_costs(grid: Grid, geometry: SectionedGeometry, costs: dict[str, float]) -> list[float]:
    """The cost of entering each place of ``grid`` (its geometry's), from the costs of
    terrains (1 for a terrain with none), kept with the grid for the next search."""
    key = tuple(sorted(costs.items()))
    found = grid.costs.get(key)
    if found is None:
        found = [1.0] * (grid.width * grid.height)
        for y, line in enumerate(geometry.lines):
            for x, section in enumerate(line):
                if section.terrain is not None:
                    found[y * grid.width + x] = costs.get(section.terrain, 1.0)
        grid.costs[key] = found
    return found


def grid_of(geometry: SectionedGeometry) -> Grid:
    """The Grid of a geometry, kept for the geometries used last (they are immutable)."""
    found = _GRIDS.get(id(geometry))
    if found is not None and found[0] is geometry:
        _GRIDS.move_to_end(id(geometry))
        return found[1]
    grid = Grid(geometry)
    _GRIDS[id(geometry)] = (geometry, grid)
    while len(_GRIDS) > 64:
        _GRIDS.popitem(last=False)
    return grid


def _hex_distance(x1: int, y1: int, x2: int, y2: int) -> float:
    def cube(x: int, y: int) -> tuple[int, int, int]:
        q = x - (y - (y & 1)) // 2
        return q, y, -q - y

    a, b = cube(x1, y1), cube(x2, y2)
    return float(max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2])))


def _unwind(previous: dict[str, str] | dict[int, int], start: object, goal: object) -> list:  # type: ignore[type-arg]
    path = [goal]
    node = goal
    while node != start:
        node = previous[node]  # type: ignore[index]
        path.append(node)
    path.reverse()
    return path
