"""Location paths: resolving them in a running world, and checking them before a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.cli.main import main
from lore.runtime.errors import RuleError
from lore.world.model import World
from lore.world.static import parse_location
from tests.world.helpers import LINKED, POINT, grid_xml, scenario, started, write

ROOT = f'root = {{ location = "/":loc; geometry = [=[<geometry xmlns="{POINT}"/>]=]:xml; }}:Area;'
ROAD = (
    f'road = {{ location = "/[0]":loc; scale = 1[km]; geometry = [=[<geometry xmlns="{LINKED}">'
    '<node label="town"><link to="keep" distance="2"/></node><node label="keep"/></geometry>'
    "]=]:xml; }:Area;"
)
KEEP = 'keep = { location = "/road[keep]":loc; geometry = ("keep.xml":url).loadXML; }:Area;'
TOWER = 'tower = { label = "spire"; location = "/road/keep[1,1]":loc; }:Area;'
FILES = {"keep.xml": grid_xml(["###", "#..", "#.."], 8, scale="5[m]")}


@pytest.fixture
def world(tmp_path: Path) -> World:
    files = {"scenario.lore": scenario("\n".join((ROOT, ROAD, KEEP, TOWER))), **FILES}
    found = started(tmp_path, files).world
    assert found is not None
    return found


def test_paths_parse() -> None:
    assert parse_location("/") is not None
    parsed = parse_location("/region/dungeon[1,2]")
    assert parsed is not None
    assert parsed.labels == ("region", "dungeon") and parsed.coordinate == "1,2"
    parsed = parse_location("/[0]")
    assert parsed is not None and parsed.labels == () and parsed.coordinate == "0"
    for bad in ("region", "/region/", "//a", "/a[1", "/1a"):
        assert parse_location(bad) is None, bad


def test_the_area_tree(world: World) -> None:
    root = world.root
    assert root is not None and root.path == "/"
    road = root.children["road"]
    keep = road.children["keep"]
    assert (road.path, road.place) == ("/road", "0")
    assert (keep.path, keep.place) == ("/road/keep", "keep")
    # A `label` member names an area instead of its variable.
    assert keep.children["spire"].path == "/road/keep/spire"


def test_resolving_places(world: World) -> None:
    place = world.resolve("/road/keep[2,1]")
    assert place.area.path == "/road/keep" and place.coordinate == "2,1"
    place = world.resolve("/road[town]")
    assert place.area.label == "road" and place.coordinate == "town"
    assert world.resolve("/").area is world.root
    assert world.resolve("/road/keep/spire").coordinate is None


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("road", "'road' is not a location path"),
        ("/road[town", "'/road[town' is not a location path"),
        ("/path[town]", "there is no area 'path' in '/'"),
        ("/road/tower", "there is no area 'tower' in '/road'"),
        ("/road[castle]", "'/road' has no place [castle]"),
        ("/road/keep[3,0]", "'/road/keep' has no place [3,0]"),
        ("/road/keep[1]", "'/road/keep' has no place [1]"),
        ("/[1]", "'/' has no place [1]"),
    ],
)
def test_resolution_errors(world: World, location: str, message: str) -> None:
    with pytest.raises(RuleError) as caught:
        world.resolve(location)
    assert caught.value.message == message


def test_a_world_without_a_root(tmp_path: Path) -> None:
    body = (
        'lost = { location = "/somewhere[0]":loc;\n'
        f' geometry = [=[<geometry xmlns="{POINT}"/>]=]:xml; }}:Area;'
    )
    world = started(tmp_path, {"scenario.lore": scenario(body)}).world
    assert world is not None and world.root is None
    with pytest.raises(RuleError, match="no root area"):
        world.resolve("/")


def test_check_reports_paths_that_lead_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "\n".join(
        (
            ROOT,
            ROAD,
            KEEP,
            'here = "/raod[town]":loc;',
            'there = "/road[kep]":loc;',
            'far = "/road/keep[7,1]":loc;',
            'wall = "/road/keep[0,0]":loc;',
        )
    )
    write(tmp_path, {"scenario.lore": scenario(body), **FILES})
    monkeypatch.chdir(tmp_path)
    assert main(["check", "scenario.lore"]) == 1
    out = capsys.readouterr().out
    found = [line for line in out.splitlines() if line.startswith("scenario.lore:")]
    assert found == [
        "scenario.lore:6:8: error: there is no area 'raod' in '/'",
        "scenario.lore:7:9: error: '/road' has no place 'kep'",
        "scenario.lore:8:7: error: [7,1] is not a square of '/road/keep' (its map is 3x3, "
        "from [0,0])",
        "scenario.lore:9:8: warning: [0,0] is a prohibited square of '/road/keep'",
    ]
    assert "did you mean 'road'?" in out
    assert "did you mean 'keep'?" in out
