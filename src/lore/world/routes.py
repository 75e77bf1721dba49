"""Shortest routes over passable places.

- Linked maps: Dijkstra over the one-way links (``distance`` steps each).
- Sectioned2D maps: A* over sections that are not prohibited; type 4 moves to the four
  orthogonal neighbours, type 8 also diagonally (a diagonal step is sqrt(2) long and may
  not cut a prohibited corner), type 6 to the six hex neighbours ("odd-r" offsets).

Lengths are in steps of the map; the caller multiplies by the area's scale.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator

from lore.world.geometry import LinkedGeometry, SectionedGeometry

SQRT2 = math.sqrt(2)
_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_HEX_EVEN = ((1, 0), (-1, 0), (0, -1), (-1, -1), (0, 1), (-1, 1))
_HEX_ODD = ((1, 0), (-1, 0), (1, -1), (0, -1), (1, 1), (0, 1))


def linked_route(geometry: LinkedGeometry, start: str, goal: str
                 ) -> tuple[float, list[str]] | None:
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
    """A Sectioned2D map as flat arrays, for fast searches."""

    def __init__(self, geometry: SectionedGeometry) -> None:
        self.kind = geometry.kind
        self.height = len(geometry.lines)
        self.width = max((len(line) for line in geometry.lines), default=0)
        self.open = [False] * (self.width * self.height)
        for y, line in enumerate(geometry.lines):
            for x, section in enumerate(line):
                self.open[y * self.width + x] = not section.prohibited

    def passable(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height and self.open[y * self.width + x]

    def neighbours(self, x: int, y: int) -> Iterator[tuple[int, int, float]]:
        if self.kind == 6:
            for dx, dy in (_HEX_ODD if y & 1 else _HEX_EVEN):
                if self.passable(x + dx, y + dy):
                    yield x + dx, y + dy, 1.0
            return
        for dx, dy in _ORTHOGONAL:
            if self.passable(x + dx, y + dy):
                yield x + dx, y + dy, 1.0
        if self.kind == 8:
            for dx, dy in _DIAGONAL:
                if (self.passable(x + dx, y + dy) and self.passable(x + dx, y)
                        and self.passable(x, y + dy)):
                    yield x + dx, y + dy, SQRT2

    def heuristic(self, x: int, y: int, gx: int, gy: int) -> float:
        dx, dy = abs(x - gx), abs(y - gy)
        if self.kind == 8:
            return (dx + dy) + (SQRT2 - 2) * min(dx, dy)
        if self.kind == 6:
            return _hex_distance(x, y, gx, gy)
        return float(dx + dy)

    def route(self, start: tuple[int, int], goal: tuple[int, int]
              ) -> tuple[float, list[tuple[int, int]]] | None:
        if not (self.passable(*start) and self.passable(*goal)):
            return None
        width = self.width
        gx, gy = goal
        best = {start[1] * width + start[0]: 0.0}
        previous: dict[int, int] = {}
        queue = [(self.heuristic(*start, gx, gy), 0.0, start[0], start[1])]
        goal_key = gy * width + gx
        while queue:
            _, length, x, y = heapq.heappop(queue)
            key = y * width + x
            if key == goal_key:
                keys = _unwind(previous, start[1] * width + start[0], goal_key)
                return length, [(k % width, k // width) for k in keys]
            if length > best.get(key, math.inf):
                continue
            for nx, ny, step in self.neighbours(x, y):
                candidate = length + step
                nkey = ny * width + nx
                if candidate < best.get(nkey, math.inf) - 1e-12:
                    best[nkey] = candidate
                    previous[nkey] = key
                    heapq.heappush(queue, (candidate + self.heuristic(nx, ny, gx, gy),
                                           candidate, nx, ny))
        return None

    def reachable(self, start: tuple[int, int]) -> list[tuple[int, int]]:
        if not self.passable(*start):
            return []
        seen = {start}
        stack = [start]
        while stack:
            x, y = stack.pop()
            for nx, ny, _ in self.neighbours(x, y):
                if (nx, ny) not in seen:
                    seen.add((nx, ny))
                    stack.append((nx, ny))
        seen.discard(start)
        return sorted(seen, key=lambda p: (p[1], p[0]))


def _hex_distance(x1: int, y1: int, x2: int, y2: int) -> float:
    def cube(x: int, y: int) -> tuple[int, int, int]:
        q = x - (y - (y & 1)) // 2
        return q, y, -q - y

    a, b = cube(x1, y1), cube(x2, y2)
    return float(max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2])))


def _unwind(previous: dict[str, str] | dict[int, int], start: object, goal: object
            ) -> list:  # type: ignore[type-arg]
    path = [goal]
    node = goal
    while node != start:
        node = previous[node]  # type: ignore[index]
        path.append(node)
    path.reverse()
    return path
