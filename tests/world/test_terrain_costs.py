"""Movement costs by terrain: routes take the cheapest way, and say its length and cost."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_paths
from lore.world.geometry import SectionedGeometry
from lore.world.routes import Grid, place_costs
from tests.world.helpers import LINKED, POINT, SECTIONED, read, scenario, write
from tests.world.test_routes import dijkstra

TERRAINS = {".": "plain", "s": "swamp", "r": "road"}


def terrain_xml(rows: list[str], kind: int) -> str:
    """A Sectioned2D map: ``.`` plain, ``s`` swamp, ``r`` road, ``#`` prohibited."""
    lines = [f'<geometry xmlns="{SECTIONED}" type="{kind}" scale="10[m]">']
    for row in rows:
        cells = "".join(
            '<section terrain="rock" prohibited="true"/>'
            if cell == "#"
            else f'<section terrain="{TERRAINS[cell]}"/>'
            for cell in row
        )
        lines.append(f" <line>{cells}</line>")
    lines.append("</geometry>")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("kind", [4, 6, 8])
def test_routes_are_the_cheapest_ways(kind: int) -> None:
    rng = random.Random(100 + kind)
    for _ in range(15):
        width, height = rng.randint(2, 10), rng.randint(2, 10)
        rows = ["".join(rng.choice("...ssr#") for _ in range(width)) for _ in range(height)]
        geometry, problems = read(terrain_xml(rows, kind))
        assert problems == [] and isinstance(geometry, SectionedGeometry)
        g = Grid(geometry)
        # Costs below 1 too (a road): the estimate must still never be too high.
        terrain_costs = {"swamp": rng.choice([0.5, 2.0, 3.5]), "road": rng.choice([0.25, 0.8])}
        costs = place_costs(g, geometry, terrain_costs)
        opened = [(x, y) for y in range(height) for x in range(width) if rows[y][x] != "#"]
        for start in rng.sample(opened, min(3, len(opened))):
            best = dijkstra(g, start, costs)
            for goal in opened:
                found = g.route(start, goal, costs)
                if goal not in best:
                    assert found is None
                    continue
                assert found is not None
                cost, path = found
                assert cost == pytest.approx(best[goal], abs=1e-9)
                assert path[0] == start and path[-1] == goal
                paid = 0.0
                for a, b in itertools.pairwise(path):
                    steps = {(x, y): step for x, y, step in g.neighbours(*a)}
                    assert b in steps
                    paid += steps[b] * costs[b[1] * g.width + b[0]]
                assert paid == pytest.approx(cost, abs=1e-9)
                plain = sum(
                    math.sqrt(2) if kind == 8 and a[0] != b[0] and a[1] != b[1] else 1.0
                    for a, b in itertools.pairwise(path)
                )
                assert g.length(path) == pytest.approx(plain)


FIELD = [".....", ".sss.", "....."]


def walk(tmp_path: Path, costs: str | None) -> tuple[list[str], list[str]]:
    """Hana walks across the field from [2,0] to [2,2]; the GM is told the route."""
    given = f"terrainCosts = {{{costs}}};" if costs is not None else ""
    body = f"""
 root = {{ location = "/":loc; geometry = [=[<geometry xmlns="{POINT}"/>]=]:xml; }}:Area;
 field = {{
  location = "/[0]":loc;
  geometry = ("field.xml":url).loadXML;
  {given}
 }}:Area;
 hana = {{
  name = "Hana";
  player = "hana@example.org":jid;
  location = "/field[2,0]":loc;
  features = list<Feature>.empty;
  items = list<Item>.empty;
  knownSecrets = list<string>.empty;
 }}:Actor;
 go = {{ ticks = 0; priority = 0; handler = @{{
  way = field.choiceRoute(hana);
  GM.message(way.distance + " " + way.cost + " " + way.path.length);
 }}; }}:Event;
"""
    write(tmp_path, {"scenario.lore": scenario(body), "field.xml": terrain_xml(FIELD, 4)})
    result = check_paths([tmp_path / "scenario.lore"])
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    hana = Scripted([{"goal": "/field[2,2]"}])
    participants = Participants({"GM": gm, "hana@example.org": hana})
    session = Session(compile_program(result), 0, participants)
    session.run()
    told = [str(r.get("text")) for r in gm.told if r["kind"] == "message"]
    return told, [error.message for error in session.errors]


def swamp(cost: str) -> str:
    return f'{{ terrain = "swamp"; cost = {cost}; }}:TerrainCost'


def test_a_cheap_swamp_is_crossed_and_a_dear_one_walked_round(tmp_path: Path) -> None:
    # Straight across: 2 steps (20 m), entering the swamp (x3) then plain: cost 40 m.
    assert walk(tmp_path, swamp("3.0")) == (["20[m] 40[m] 3"], [])
    # At x6 straight would cost 70 m: round by the side, 6 plain steps, 60 m.
    assert walk(tmp_path, swamp("6.0")) == (["60[m] 60[m] 7"], [])


def test_without_costs_the_cost_is_the_distance(tmp_path: Path) -> None:
    assert walk(tmp_path, None) == (["20[m] 20[m] 3"], [])


def test_bad_terrain_costs_are_rule_errors(tmp_path: Path) -> None:
    unknown = '{ terrain = "lava"; cost = 2.0; }:TerrainCost'
    assert walk(tmp_path, unknown) == (
        [],
        ["'lava' is not a terrain of the map of '/field' (its terrains: plain, swamp)"],
    )
    assert walk(tmp_path, swamp("0.0")) == (
        [],
        ["the cost of terrain 'swamp' in '/field' must be above 0, not 0.0"],
    )


def test_check_names_terrains_the_map_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    road = (
        f'<geometry xmlns="{LINKED}"><node label="a"><link to="b"/></node>'
        '<node label="b"/></geometry>'
    )
    body = f"""
 root = {{ location = "/":loc; geometry = [=[<geometry xmlns="{POINT}"/>]=]:xml; }}:Area;
 field = {{
  location = "/[0]":loc;
  geometry = ("field.xml":url).loadXML;
  terrainCosts = {{ {{ terrain = "lava"; cost = 2.0; }}:TerrainCost, {swamp("0")} }};
 }}:Area;
 road = {{
  location = "/[0]":loc;
  geometry = [=[{road}]=]:xml;
  terrainCosts = {{ {swamp("2.0")} }};
 }}:Area;
"""
    write(tmp_path, {"scenario.lore": scenario(body), "field.xml": terrain_xml(FIELD, 4)})
    assert main(["check", str(tmp_path / "scenario.lore")]) == 1
    out = capsys.readouterr().out
    assert out.count("error:") == 3
    where = f"{tmp_path / 'scenario.lore'}"
    assert f"{where}:8:32: error: 'lava' is not a terrain of this area's map" in out
    assert "^^^^^^ its terrains: plain, swamp" in out
    assert f"{where}:8:95: error: a terrain's movement cost must be above 0, not 0" in out
    assert (
        f"{where}:13:18: error: terrain costs apply to maps of sections (Sectioned2D), "
        "not to this map" in out
    )


def test_a_map_s_terrains_are_those_it_declares_and_uses() -> None:
    text = terrain_xml(["s."], 4).replace(
        '">\n',
        '">\n <terrains><element name="plain"/><element name="swamp"/>'
        '<element name="snow"/></terrains>\n',
        1,
    )
    geometry, problems = read(text)
    assert problems == [] and isinstance(geometry, SectionedGeometry)
    assert geometry.terrains() == {"plain", "swamp", "snow"}  # snow: declared, not used
