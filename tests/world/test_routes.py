"""Distances and routes on every kind of map."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import pytest

from lore.engine.world_natives import destinations, route_between
from lore.world.geometry import LinkedGeometry, SectionedGeometry
from lore.world.model import AreaNode, World
from lore.world.routes import Grid, _hex_distance, linked_reachable, linked_route
from tests.world.helpers import LINKED, POINT, grid_xml, read, scenario, started

SQRT2 = math.sqrt(2)


def grid(rows: list[str], kind: int) -> Grid:
    geometry, problems = read(grid_xml(rows, kind))
    assert problems == [] and isinstance(geometry, SectionedGeometry)
    return Grid(geometry)


def length(found: tuple[float, list[tuple[int, int]]] | None) -> float:
    assert found is not None
    return found[0]


def is_walk(g: Grid, path: list[tuple[int, int]]) -> bool:
    """Each step of ``path`` goes to a neighbour (no jumps, no prohibited places)."""
    return all(
        (b[0], b[1]) in [(x, y) for x, y, _ in g.neighbours(*a)]
        for a, b in itertools.pairwise(path)
    )


# ------------------------------------------------------------ squares


def test_square_4_routes_are_manhattan() -> None:
    g = grid(["....", "....", "...."], 4)
    found = g.route((0, 0), (3, 2))
    assert found is not None and found[0] == 5.0
    assert found[1][0] == (0, 0) and found[1][-1] == (3, 2) and len(found[1]) == 6
    assert is_walk(g, found[1])
    assert {(x, y) for x, y, _ in g.neighbours(1, 1)} == {(0, 1), (2, 1), (1, 0), (1, 2)}


def test_square_8_routes_use_diagonals() -> None:
    g = grid(["....", "....", "...."], 8)
    # 2 diagonal steps and 1 straight one.
    assert length(g.route((0, 0), (3, 2))) == pytest.approx(1 + 2 * SQRT2)
    assert len({(x, y) for x, y, _ in g.neighbours(1, 1)}) == 8


def test_routes_go_around_a_wall() -> None:
    rows = [
        "########",
        "#...#..#",
        "#...#..#",
        "#......#",
        "########",
    ]
    square8 = grid(rows, 8)
    found = square8.route((1, 1), (6, 1))
    assert found is not None
    # Through the gap at [4,3], entered and left straight (the wall's corners may not be
    # cut): 3 diagonal and 3 straight steps.
    assert found[0] == pytest.approx(3 + 3 * SQRT2)
    assert (4, 3) in found[1] and is_walk(square8, found[1])
    diagonal = [(a, b) for a, b in itertools.pairwise(found[1]) if a[0] != b[0] and a[1] != b[1]]
    assert len(diagonal) == 3 and len(found[1]) == 7
    # With 4 neighbours: right 5, down 2 and back up 2 = 9 steps.
    assert length(grid(rows, 4).route((1, 1), (6, 1))) == 9.0


def test_no_route() -> None:
    rows = ["..#..", "..#..", "..#.."]
    for kind in (4, 6, 8):
        g = grid(rows, kind)
        assert g.route((0, 0), (4, 2)) is None
        assert (4, 2) not in g.reachable((0, 0))
    g = grid(rows, 8)
    assert g.route((0, 0), (2, 0)) is None  # the goal is prohibited
    assert g.route((2, 1), (0, 0)) is None  # so is the start
    assert g.route((0, 0), (9, 9)) is None  # off the map
    assert g.route((0, 0), (0, 0)) == (0.0, [(0, 0)])


def test_diagonal_steps_do_not_cut_corners() -> None:
    # [1,0] is prohibited: from [0,0] to [1,1] the diagonal would brush its corner.
    g = grid([".#", ".."], 8)
    assert (1, 1) not in [(x, y) for x, y, _ in g.neighbours(0, 0)]
    found = g.route((0, 0), (1, 1))
    assert found == (2.0, [(0, 0), (0, 1), (1, 1)])
    # Two prohibited corners: the diagonal is the only way, and it is refused.
    g = grid([".#", "#."], 8)
    assert g.route((0, 0), (1, 1)) is None
    assert g.reachable((0, 0)) == []


# ------------------------------------------------------------ hexes ("odd-r")


def test_hex_neighbours_in_odd_r_offsets() -> None:
    g = grid(["....."] * 5, 6)
    # Even line: the neighbours above and below are to the left.
    assert {(x, y) for x, y, _ in g.neighbours(2, 2)} == {
        (1, 2),
        (3, 2),
        (1, 1),
        (2, 1),
        (1, 3),
        (2, 3),
    }
    # Odd line (shifted right): the neighbours above and below are to the right.
    assert {(x, y) for x, y, _ in g.neighbours(2, 1)} == {
        (1, 1),
        (3, 1),
        (2, 0),
        (3, 0),
        (2, 2),
        (3, 2),
    }


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((0, 0), (0, 0), 0),
        ((0, 0), (0, 1), 1),  # line 1 is shifted right: [0,1] is below-right of [0,0]
        ((1, 0), (0, 1), 1),  # and below-left of [1,0]
        ((0, 0), (1, 1), 2),
        ((0, 1), (0, 2), 1),  # from an odd line, [0,2] is below-left
        ((0, 1), (1, 2), 1),  # and [1,2] below-right
        ((0, 0), (0, 2), 2),
        ((0, 2), (5, 2), 5),
        ((0, 0), (3, 4), 5),
        ((4, 1), (0, 3), 5),
    ],
)
def test_hex_distances(a: tuple[int, int], b: tuple[int, int], expected: int) -> None:
    assert _hex_distance(*a, *b) == expected
    assert _hex_distance(*b, *a) == expected


def test_hex_routes_on_an_open_map_are_hex_distances() -> None:
    g = grid(["........"] * 7, 6)
    rng = random.Random(7)
    for _ in range(200):
        a = (rng.randrange(8), rng.randrange(7))
        b = (rng.randrange(8), rng.randrange(7))
        found = g.route(a, b)
        assert found is not None
        assert found[0] == _hex_distance(*a, *b)
        assert len(found[1]) == found[0] + 1 and is_walk(g, found[1])


def test_hex_route_around_a_pond() -> None:
    # The expedition's moor: a pond at [2,1], [2,2], [3,2], [2,3].
    g = grid([".......", "..#....", "..##...", "..#....", "......."], 6)
    found = g.route((0, 2), (5, 2))
    assert found is not None and found[0] == 7.0 and is_walk(g, found[1])
    assert _hex_distance(0, 2, 5, 2) == 5


def test_hex_centres_are_one_step_apart(tmp_path: Path) -> None:
    body = f"""
 root = {{ location = "/":loc; geometry = [=[<geometry xmlns="{POINT}"/>]=]:xml; }}:Area;
 moor = {{ location = "/[0]":loc; geometry = ("moor.xml":url).loadXML; }}:Area;
"""
    files = {"scenario.lore": scenario(body), "moor.xml": grid_xml(["....."] * 5, 6, "100[m]")}
    world = started(tmp_path, files).world
    assert world is not None and world.root is not None
    moor = world.root.children["moor"]
    g = Grid(moor.geometry) if isinstance(moor.geometry, SectionedGeometry) else None
    assert g is not None
    for x, y in ((2, 2), (2, 1)):
        for nx, ny, _ in g.neighbours(x, y):
            # Exactly the scale, so that an inclusive range of 100[m] holds every neighbour.
            assert world.distance(moor, f"{x},{y}", f"{nx},{ny}") == 100.0
    # Straight-line distances between centres: two lines down is sqrt(3) steps.
    assert world.distance(moor, "2,0", "2,2") == pytest.approx(100 * math.sqrt(3))
    assert world.distance(moor, "0,0", "4,0") == 400.0


# ------------------------------------------------------------ straight-line distances


def test_square_distances_are_straight_lines(tmp_path: Path) -> None:
    body = f"""
 root = {{ location = "/":loc; geometry = [=[<geometry xmlns="{POINT}"/>]=]:xml; }}:Area;
 hall = {{ location = "/[0]":loc; scale = 5[m]; geometry = ("hall.xml":url).loadXML; }}:Area;
"""
    rows = [".....", "..#..", ".....", ".....", "....."]
    files = {"scenario.lore": scenario(body), "hall.xml": grid_xml(rows, 8, None)}
    world = started(tmp_path, files).world
    assert world is not None and world.root is not None
    hall = world.root.children["hall"]
    assert world.distance(hall, "0,0", "3,4") == 25.0
    assert world.distance(hall, "0,0", "0,0") == 0.0
    # Walls do not matter to a straight line; a route goes round them, and as a diagonal
    # step may not cut the wall's corner, straight: 4 steps.
    assert world.distance(hall, "2,0", "2,2") == 10.0
    assert route_between(hall, "2,0", "2,2") == (20.0, ["2,0", "1,0", "1,1", "1,2", "2,2"])
    assert world.distance(hall, "0,0", "9,9") is None
    assert world.distance(hall, None, None) == 0.0
    assert world.distance(hall, "0,0", None) is None


# ------------------------------------------------------------ linked maps


LINKED_XML = f"""<geometry xmlns="{LINKED}" scale="1[km]">
 <node label="a"><link to="b" distance="4"/><link to="c"/></node>
 <node label="b"><link to="a" distance="4"/></node>
 <node label="c"><link to="b" distance="2"/></node>
 <node label="d"><link to="a"/></node>
</geometry>"""


def test_linked_shortest_paths_follow_one_way_links() -> None:
    geometry, problems = read(LINKED_XML)
    assert problems == [] and isinstance(geometry, LinkedGeometry)
    assert linked_route(geometry, "a", "b") == (3.0, ["a", "c", "b"])
    assert linked_route(geometry, "b", "c") == (5.0, ["b", "a", "c"])
    assert linked_route(geometry, "a", "a") == (0.0, ["a"])
    assert linked_route(geometry, "a", "d") is None  # nothing leads to d
    assert linked_route(geometry, "a", "zz") is None
    assert linked_reachable(geometry, "a") == ["b", "c"]
    assert linked_reachable(geometry, "d") == ["a", "b", "c"]


def linked_world(tmp_path: Path) -> tuple[World, AreaNode]:
    body = f"""
 root = {{ location = "/":loc; geometry = [=[<geometry xmlns="{POINT}"/>]=]:xml; }}:Area;
 land = {{ location = "/[0]":loc; geometry = ("land.xml":url).loadXML; }}:Area;
"""
    world = started(tmp_path, {"scenario.lore": scenario(body), "land.xml": LINKED_XML}).world
    assert world is not None and world.root is not None
    return world, world.root.children["land"]


def test_linked_distances_and_routes_are_scaled(tmp_path: Path) -> None:
    world, land = linked_world(tmp_path)
    assert world.distance(land, "a", "b") == 3000.0
    assert world.distance(land, "b", "a") == 4000.0
    assert world.distance(land, "a", "d") is None
    assert route_between(land, "a", "b") == (3000.0, ["a", "c", "b"])
    assert destinations(land, "a") == ["b", "c"]
    assert destinations(land, None) == ["a", "b", "c", "d"]


def test_destinations_on_squares_are_the_reachable_open_places(tmp_path: Path) -> None:
    body = f"""
 root = {{ location = "/":loc; geometry = [=[<geometry xmlns="{POINT}"/>]=]:xml; }}:Area;
 cave = {{ location = "/[0]":loc; geometry = ("cave.xml":url).loadXML; }}:Area;
"""
    files = {"scenario.lore": scenario(body), "cave.xml": grid_xml(["..#.", "..#.", "##.."], 8)}
    world = started(tmp_path, files).world
    assert world is not None and world.root is not None
    cave = world.root.children["cave"]
    assert destinations(cave, "0,0") == ["1,0", "0,1", "1,1"]
    # Entering from outside the map: every open place.
    assert destinations(cave, None) == ["0,0", "1,0", "3,0", "0,1", "1,1", "3,1", "2,2", "3,2"]
    assert route_between(cave, "0,0", "3,0") is None


# ------------------------------------------------------------ against a plain search


def dijkstra(
    g: Grid, start: tuple[int, int], costs: list[float] | None = None
) -> dict[tuple[int, int], float]:
    """Shortest lengths from ``start`` to every place, by Dijkstra over ``neighbours``
    (with ``costs``, the cheapest: entering a place costs the step times its cost)."""
    import heapq

    best = {start: 0.0}
    queue = [(0.0, start)]
    while queue:
        length, here = heapq.heappop(queue)
        if length > best[here]:
            continue
        for x, y, step in g.neighbours(*here):
            candidate = length + (step if costs is None else step * costs[y * g.width + x])
            if candidate < best.get((x, y), math.inf) - 1e-12:
                best[(x, y)] = candidate
                heapq.heappush(queue, (candidate, (x, y)))
    return best


@pytest.mark.parametrize("kind", [4, 6, 8])
def test_routes_agree_with_a_plain_dijkstra(kind: int) -> None:
    rng = random.Random(kind)
    for _ in range(20):
        width, height = rng.randint(1, 12), rng.randint(1, 12)
        rows = [
            "".join("#" if rng.random() < 0.3 else "." for _ in range(width)) for _ in range(height)
        ]
        g = grid(rows, kind)
        open_places = [(x, y) for y in range(height) for x in range(width) if rows[y][x] == "."]
        for start in rng.sample(open_places, min(4, len(open_places))):
            lengths = dijkstra(g, start)
            assert sorted(g.reachable(start), key=lambda p: (p[1], p[0])) == g.reachable(start)
            assert set(g.reachable(start)) == set(lengths) - {start}
            for goal in open_places:
                found = g.route(start, goal)
                if goal not in lengths:
                    assert found is None
                    continue
                assert found is not None
                assert found[0] == pytest.approx(lengths[goal], abs=1e-9)
                assert found[1][0] == start and found[1][-1] == goal and is_walk(g, found[1])
                steps = sum(
                    1.0 if a[0] == b[0] or a[1] == b[1] or kind == 6 else SQRT2
                    for a, b in itertools.pairwise(found[1])
                )
                assert steps == pytest.approx(found[0], abs=1e-9)
