"""Maps as text: squares, hexes (odd lines shifted), nodes, points."""

from __future__ import annotations

from pathlib import Path

from lore.world.model import AreaNode
from lore.world.render import render_map
from tests.world.helpers import LINKED, POINT, SECTIONED, grid_xml, scenario, started

HALL = f"""<geometry xmlns="{SECTIONED}" type="8">
 <line><section prohibited="true"/><section/><section/></line>
 <line><section/><section prohibited="true"/>
  <section><description><plain>altar</plain></description></section></line>
</geometry>"""


def areas(tmp_path: Path) -> dict[str, AreaNode]:
    body = f"""
 root = {{ location = "/":loc; geometry = [=[<geometry xmlns="{POINT}">
  <point label="0"/><point label="top"/></geometry>]=]:xml; }}:Area;
 road = {{ location = "/[0]":loc; geometry = [=[<geometry xmlns="{LINKED}">
  <node label="a"><link to="b" distance="2.5"/><link to="c"/></node>
  <node label="b"/><node label="c"/></geometry>]=]:xml; }}:Area;
 hall = {{ location = "/[top]":loc; geometry = ("hall.xml":url).loadXML; }}:Area;
 moor = {{ location = "/road[a]":loc; geometry = ("moor.xml":url).loadXML; }}:Area;
 void = {{ location = "/road[b]":loc; }}:Area;
"""
    files = {
        "scenario.lore": scenario(body),
        "hall.xml": HALL,
        "moor.xml": grid_xml(["...", ".#.", "..."], 6),
    }
    world = started(tmp_path, files).world
    assert world is not None
    return {node.label or "root": node for node in world.by_object.values()}


def test_squares(tmp_path: Path) -> None:
    hall = areas(tmp_path)["hall"]
    assert render_map(hall).splitlines() == [
        "    0 1 2",
        "  0 # . .",
        "  1 . # *",  # '*' a described section
    ]
    assert render_map(hall, "1,0").splitlines()[1] == "  0 # @ ."


def test_hexes_shift_odd_lines(tmp_path: Path) -> None:
    moor = areas(tmp_path)["moor"]
    assert render_map(moor, "2,1").splitlines() == [
        "    0 1 2",
        "  0 . . .",
        "  1  . # @",
        "  2 . . .",
    ]


def test_nodes_points_and_no_map(tmp_path: Path) -> None:
    found = areas(tmp_path)
    assert render_map(found["road"], "b").splitlines() == [
        "  a -> b (2.5), c (1)",
        "@ b",
        "  c",
    ]
    assert render_map(found["root"], "top").splitlines() == ["  0", "@ top"]
    assert render_map(found["void"]) == "(/road/void has no map)"
