"""Reading geometries: the three styles, their defaults, and where the scale comes from."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.world.geometry import (
    Link,
    LinkedGeometry,
    PointGeometry,
    Quantity,
    SectionedGeometry,
    parse_quantity,
)
from tests.world.helpers import LINKED, POINT, SECTIONED, grid_xml, read, scenario, started


def test_point_defaults_to_the_point_0() -> None:
    geometry, problems = read(f'<geometry xmlns="{POINT}"/>')
    assert problems == []
    assert isinstance(geometry, PointGeometry)
    assert geometry.coordinates() == ["0"]
    assert geometry.scale is None


def test_point_labels_and_a_label_given_twice() -> None:
    text = (
        f'<geometry xmlns="{POINT}">\n <point label="gate"/>\n <point label="hall"/>\n'
        ' <point label="gate"/>\n</geometry>'
    )
    geometry, problems = read(text)
    assert isinstance(geometry, PointGeometry)
    assert geometry.coordinates() == ["gate", "hall"]
    assert [(p.message, p.place.line) for p in problems] == [("point 'gate' is defined twice", 4)]


@pytest.mark.parametrize("prefix", ["http://www.xgmtk.org/", "http://www.xgmtk.org/Lore/"])
def test_styles_are_named_by_the_last_segment_of_the_namespace(prefix: str) -> None:
    for style, kind in (("Point", PointGeometry), ("Linked", LinkedGeometry)):
        geometry, problems = read(f'<geometry xmlns="{prefix}{style}"/>')
        assert isinstance(geometry, kind) and problems == []
    geometry, problems = read(grid_xml(["."]).replace(SECTIONED, prefix + "Sectioned2D"))
    assert isinstance(geometry, SectionedGeometry) and problems == []


def test_an_unknown_style_is_named() -> None:
    geometry, problems = read('<geometry xmlns="http://www.xgmtk.org/Cube"/>')
    assert geometry is None
    assert problems[0].message == "unknown geometry style 'Cube'"
    geometry, problems = read("<map/>")
    assert geometry is None
    assert problems[0].message == "the root element is <map>, expected <geometry>"


def test_linked_links_are_one_way_and_default_to_distance_1() -> None:
    text = f"""<geometry xmlns="{LINKED}" scale="2[km]">
 <node label="a"><link to="b"/><link to="c" distance="2.5"/></node>
 <node label="b"><link to="a" distance="3"/></node>
 <node label="c"/>
</geometry>"""
    geometry, problems = read(text)
    assert problems == []
    assert isinstance(geometry, LinkedGeometry)
    assert geometry.scale == Quantity(2.0, "km")
    assert dict(geometry.nodes) == {
        "a": (Link("b", 1.0), Link("c", 2.5)),
        "b": (Link("a", 3.0),),
        "c": (),
    }
    assert geometry.coordinates() == ["a", "b", "c"]


def test_sectioned_defaults_and_coordinates() -> None:
    text = f"""<geometry xmlns="{SECTIONED}">
 <terrains><element name="floor"/><element name="wall"/></terrains>
 <line><section terrain="floor"/><section terrain="wall" prohibited="true"/></line>
 <line><section height="0.3[m]"><description><plain>altar</plain></description></section>
  <section prohibited="false"/></line>
 <line><section/></line>
</geometry>"""
    geometry, problems = read(text)
    assert problems == []
    assert isinstance(geometry, SectionedGeometry)
    assert geometry.kind == 4  # the default type
    assert geometry.scale is None
    assert geometry.coordinates() == ["0,0", "1,0", "0,1", "1,1", "0,2"]
    assert geometry.size() == "2x3"
    wall = geometry.section("1,0")
    assert wall is not None and wall.prohibited and wall.terrain == "wall"
    altar = geometry.section("0, 1")
    assert altar is not None and altar.height == Quantity(0.3, "m")
    assert altar.description == "altar" and not altar.prohibited
    # [x,y] is section x of line y: line 2 has one section only.
    assert geometry.has("0,2") and not geometry.has("1,2")
    for outside in ("2,0", "-1,0", "0,3", "0", "a,b", "1,1,1"):
        assert geometry.section(outside) is None


@pytest.mark.parametrize("kind", [4, 6, 8])
def test_sectioned_types(kind: int) -> None:
    geometry, problems = read(grid_xml(["..", ".."], kind))
    assert problems == [] and isinstance(geometry, SectionedGeometry)
    assert geometry.kind == kind


def test_quantities_are_written_as_in_lore() -> None:
    assert parse_quantity("5[m]") == Quantity(5.0, "m")
    assert parse_quantity(" -0.5[km] ") == Quantity(-0.5, "km")
    assert parse_quantity("1e3[m]") == Quantity(1000.0, "m")
    for bad in ("0.3(m)", "5", "[m]", "5[m", "5 [m] x"):
        assert parse_quantity(bad) is None


def test_an_unknown_unit_is_reported() -> None:
    geometry, problems = read(grid_xml(["."], scale="5[furlong]"))
    assert isinstance(geometry, SectionedGeometry) and geometry.scale is None
    assert [p.message for p in problems] == ['unknown unit [furlong] in scale="5[furlong]"']


def test_terrain_must_be_one_of_the_maps_terrains() -> None:
    text = f"""<geometry xmlns="{SECTIONED}">
 <terrains><element name="floor"/></terrains>
 <line><section terrain="lava"/></line>
</geometry>"""
    _, problems = read(text)
    assert [(p.message, p.place.line) for p in problems] == [
        ("terrain 'lava' is not one of the <terrains> of this map", 3)
    ]


def test_scale_comes_from_the_geometry_or_the_areas_scale_member(tmp_path: Path) -> None:
    point = f'<geometry xmlns="{POINT}"/>'
    linked = f'<geometry xmlns="{LINKED}"><node label="n"/></geometry>'
    body = f"""
 root = {{ location = "/":loc; scale = 1[km]; geometry = [=[{point}]=]:xml; }}:Area;
 byAttribute = {{ location = "/[0]":loc; scale = 7[m];
  geometry = ("attr.xml":url).loadXML; }}:Area;
 byMember = {{ location = "/[0]":loc; scale = 250[cm];
  geometry = ("member.xml":url).loadXML; }}:Area;
 neither = {{ location = "/[0]":loc; geometry = [=[{linked}]=]:xml; }}:Area;
"""
    files = {
        "scenario.lore": scenario(body),
        "attr.xml": grid_xml(["..."], 8, scale="0.5[km]"),
        "member.xml": grid_xml(["..."], 6, scale=None),
    }
    world = started(tmp_path, files).world
    assert world is not None and world.root is not None
    assert world.root.scale == 1000.0
    children = world.root.children
    # The geometry's own attribute wins over the area's member.
    assert children["byAttribute"].scale == 500.0
    assert children["byMember"].scale == 2.5
    assert children["neither"].scale == 1.0
    assert world.distance(children["byAttribute"], "0,0", "2,0") == 1000.0
    assert world.distance(children["byMember"], "0,0", "2,0") == 5.0
