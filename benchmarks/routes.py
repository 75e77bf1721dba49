"""Route benchmark: shortest routes on a large square map with diagonals, against networkx.

Run from the project root::

    .venv/bin/python benchmarks/routes.py [--size N] [--walls P] [--queries Q] [--seed S]
                                          [--repeat R] [--json] [--profile [K]]

It makes (seeded) an N x N Sectioned2D map of type 8 with a share P of prohibited squares,
written as geometry XML and read by Lore's geometry reader. Start and goal of each query
are drawn among the squares of the largest connected part of the map, so that every query
has a route. Then, in the same run:

- ``lore.world.routes.Grid.route`` (A*) answers the Q queries;
- ``networkx.astar_path`` answers them on the same graph: an edge to each open orthogonal
  neighbour (weight 1) and to each open diagonal neighbour whose two shared orthogonal
  neighbours are open (weight sqrt 2, no corner cutting), with the octile heuristic.

Both must give the same route lengths. It prints queries/s of each (the best of R runs),
the ratio, and PASS when Lore is not slower than networkx (FAIL otherwise), or the figures
as JSON. Exit status 0 (it is a report); 1 when the route lengths differ.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import math
import pstats
import random
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import networkx as nx

from lore.world.geometry import SectionedGeometry, read_geometry
from lore.world.routes import Grid
from lore.world.xmldoc import read_xml

SQRT2 = math.sqrt(2)
NAMESPACE = "http://www.xgmtk.org/Lore/Sectioned2D"
Cell = tuple[int, int]


@dataclass
class Figures:
    size: int
    walls: float
    queries: int
    component: int
    read_map_s: float
    lore_queries_per_s: float
    networkx_queries_per_s: float
    networkx_graph_s: float
    ratio: float
    same_lengths: bool
    passed: bool


def map_xml(size: int, walls: float, rng: random.Random) -> str:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<geometry xmlns="{NAMESPACE}" scale="1[m]" type="8">',
    ]
    wall, floor = '<section prohibited="true"/>', "<section/>"
    for _ in range(size):
        cells = "".join(wall if rng.random() < walls else floor for _ in range(size))
        lines.append(f" <line>{cells}</line>")
    lines.append("</geometry>")
    return "\n".join(lines) + "\n"


def read_map(text: str) -> SectionedGeometry:
    geometry, problems = read_geometry(read_xml(text), lambda unit: unit == "m")
    if problems or not isinstance(geometry, SectionedGeometry):
        raise SystemExit(f"the generated map does not read: {problems[:3]}")
    return geometry


def largest_component(grid: Grid) -> list[Cell]:
    """The open squares of the largest part of the map where every square reaches every other."""
    seen: set[Cell] = set()
    best: list[Cell] = []
    for y in range(grid.height):
        for x in range(grid.width):
            if (x, y) in seen or not grid.passable(x, y):
                continue
            part = [(x, y)]
            seen.add((x, y))
            queue = deque(part)
            while queue:
                cx, cy = queue.popleft()
                for nx_, ny, _ in grid.neighbours(cx, cy):
                    if (nx_, ny) not in seen:
                        seen.add((nx_, ny))
                        part.append((nx_, ny))
                        queue.append((nx_, ny))
            if len(part) > len(best):
                best = part
    return best


def networkx_graph(grid: Grid) -> nx.Graph:
    """The same moves as Lore's type-8 grid: orthogonal 1, diagonal sqrt 2 without cut corners."""
    graph = nx.Graph()
    for y in range(grid.height):
        for x in range(grid.width):
            if not grid.passable(x, y):
                continue
            graph.add_node((x, y))
            for dx, dy in ((1, 0), (0, 1)):
                if grid.passable(x + dx, y + dy):
                    graph.add_edge((x, y), (x + dx, y + dy), weight=1.0)
            for dx, dy in ((1, 1), (-1, 1)):
                if (
                    grid.passable(x + dx, y + dy)
                    and grid.passable(x + dx, y)
                    and grid.passable(x, y + dy)
                ):
                    graph.add_edge((x, y), (x + dx, y + dy), weight=SQRT2)
    return graph


def octile(a: Cell, b: Cell) -> float:
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return (dx + dy) + (SQRT2 - 2) * min(dx, dy)


def best_of(repeat: int, run: Callable[[], list[float]]) -> tuple[float, list[float]]:
    best, lengths = math.inf, []
    for _ in range(repeat):
        start = time.perf_counter()
        lengths = run()
        best = min(best, time.perf_counter() - start)
    return best, lengths


def measure(size: int, walls: float, queries: int, seed: int, repeat: int) -> Figures:
    rng = random.Random(seed)
    text = map_xml(size, walls, rng)
    start = time.perf_counter()
    grid = Grid(read_map(text))
    read_s = time.perf_counter() - start
    component = largest_component(grid)
    pairs = [(rng.choice(component), rng.choice(component)) for _ in range(queries)]

    def lore() -> list[float]:
        lengths = []
        for a, b in pairs:
            found = grid.route(a, b)
            if found is None:
                raise SystemExit(f"Lore found no route from {a} to {b}")
            lengths.append(found[0])
        return lengths

    start = time.perf_counter()
    graph = networkx_graph(grid)
    graph_s = time.perf_counter() - start

    def networkx() -> list[float]:
        return [
            nx.path_weight(
                graph,
                nx.astar_path(graph, a, b, heuristic=octile, weight="weight"),
                weight="weight",
            )
            for a, b in pairs
        ]

    lore_s, lore_lengths = best_of(repeat, lore)
    nx_s, nx_lengths = best_of(repeat, networkx)
    same = all(
        math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
        for a, b in zip(lore_lengths, nx_lengths, strict=True)
    )
    lore_qps, nx_qps = queries / lore_s, queries / nx_s
    return Figures(
        size,
        walls,
        queries,
        len(component),
        read_s,
        lore_qps,
        nx_qps,
        graph_s,
        lore_qps / nx_qps,
        same,
        same and lore_qps >= nx_qps,
    )


def profile(size: int, walls: float, seed: int, top: int) -> str:
    rng = random.Random(seed)
    grid = Grid(read_map(map_xml(size, walls, rng)))
    component = largest_component(grid)
    pairs = [(rng.choice(component), rng.choice(component)) for _ in range(50)]
    profiler = cProfile.Profile()
    profiler.enable()
    for a, b in pairs:
        grid.route(a, b)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--walls", type=float, default=0.3)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", type=int, nargs="?", const=20, default=None, metavar="K")
    args = parser.parse_args(argv)
    figures = measure(args.size, args.walls, args.queries, args.seed, args.repeat)
    if args.json:
        print(json.dumps(asdict(figures), indent=1))
    else:
        print(report(figures))
    if args.profile is not None:
        print(profile(args.size, args.walls, args.seed, args.profile))
    return 0 if figures.same_lengths else 1


def report(f: Figures) -> str:
    verdict = "PASS" if f.passed else "FAIL"
    rows: list[tuple[str, Any]] = [
        (
            "map",
            f"{f.size}x{f.size} squares with diagonals, {f.walls:.0%} walls "
            f"(read in {f.read_map_s * 1000:.0f} ms)",
        ),
        ("largest connected part", f"{f.component} squares"),
        ("queries", f"{f.queries} random start/goal pairs in it"),
        ("Lore Grid.route", f"{f.lore_queries_per_s:,.1f} queries/s"),
        (
            "networkx astar_path",
            f"{f.networkx_queries_per_s:,.1f} queries/s "
            f"(graph built in {f.networkx_graph_s * 1000:.0f} ms)",
        ),
        ("same route lengths", "yes" if f.same_lengths else "NO"),
        ("Lore / networkx", f"{f.ratio:.2f}x  (target >= 1.00x: {verdict})"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


if __name__ == "__main__":
    sys.exit(main())
