"""Hostile and broken geometries: refused with an error at their XML line, never a crash.

Each document is tried three ways: ``lore check`` on a Lore file that loads it with
``loadXML`` (the diagnostic is in the XML file, at the line), the same document written
inline as an ``:xml`` string (the diagnostic is in the Lore file, at the XML's line), and
a session whose map passed the checker but not the World (the World checks again: the GM
is told where, and resolving a place there is a rule error).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import Element

import pytest

from lore.cli.main import main
from lore.engine.participants import Participants
from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.runtime.errors import RuleError
from lore.semantics.check import check_paths
from lore.syntax.source import SourceFile
from lore.world import geometry as geometry_module
from lore.world import schemas, xmldoc
from lore.world.xmldoc import XMLError, read_xml
from tests.world.helpers import LINKED, POINT, SECTIONED, grid_xml, read

DECL = '<?xml version="1.0" encoding="UTF-8"?>'
REFUSED = (
    "XML refused: a <!DOCTYPE> is not allowed (Lore's XML has no DTDs, entities or "
    "external references)"
)


@dataclass(frozen=True)
class Hostile:
    name: str
    text: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return self.name


LAUGHS = f"""{DECL}
<!DOCTYPE geometry [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<geometry xmlns="{POINT}"><point label="&lol9;"/></geometry>
"""
PASSWD = f"""{DECL}
<!DOCTYPE geometry [
 <!ENTITY secret SYSTEM "file:///etc/passwd">
]>
<geometry xmlns="{POINT}"><point label="&secret;"/></geometry>
"""
DTD = f"""{DECL}
<!DOCTYPE geometry SYSTEM "http://example.org/geometry.dtd">
<geometry xmlns="{POINT}"><point label="0"/></geometry>
"""
INTERNAL_DTD = f"""{DECL}

<!DOCTYPE geometry [ <!ELEMENT geometry ANY> ]>
<geometry xmlns="{POINT}"/>
"""
BAD_TYPE = f"""{DECL}
<geometry xmlns="{SECTIONED}"
 scale="5[m]" type="5">
 <line><section/></line>
</geometry>
"""
BAD_FLAG = f"""{DECL}
<geometry xmlns="{SECTIONED}" type="8">
 <line><section/><section/></line>
 <line><section/><section prohibited="maybe"/></line>
</geometry>
"""
BAD_HEIGHT = f"""{DECL}
<geometry xmlns="{SECTIONED}" scale="5[m]">
 <line>
  <section/>
  <section height="0.3(m)"/>
 </line>
</geometry>
"""
BAD_DISTANCE = f"""{DECL}
<geometry xmlns="{LINKED}" scale="1[km]">
 <node label="a">
  <link to="b" distance="-1"/>
 </node>
 <node label="b"><link to="a"/></node>
</geometry>
"""
MISSING_NODE = f"""{DECL}
<geometry xmlns="{LINKED}" scale="1[km]">
 <node label="a"><link to="b"/></node>
 <node label="b">
  <link to="nowhere"/>
 </node>
</geometry>
"""
MALFORMED = f"""{DECL}
<geometry xmlns="{POINT}">
 <point label="0">
</geometry>
"""

UNKNOWN_ENCODING = f"""<?xml version="1.0" encoding="foo"?>
<geometry xmlns="{POINT}"><point label="0"/></geometry>
"""
NESTED = (
    f'{DECL}\n<geometry xmlns="{POINT}">\n<point label="0"><description>\n'
    + "<plain>" * 500
    + "</plain>" * 500
    + "</description></point></geometry>\n"
)
READER_CASES = 6  # the first cases: refused by the XML reader itself

CASES = [
    Hostile(
        "unknown-encoding", UNKNOWN_ENCODING, 1, 21, "unknown encoding 'foo' (Lore's XML is UTF-8)"
    ),
    Hostile("nested-500", NESTED, 4, 680, "elements nest more than 100 levels deep"),
    Hostile("billion-laughs", LAUGHS, 2, 1, REFUSED),
    Hostile("external-entity", PASSWD, 2, 1, REFUSED),
    Hostile("dtd", DTD, 2, 1, REFUSED),
    Hostile("internal-dtd", INTERNAL_DTD, 3, 1, REFUSED),
    Hostile(
        "type-5",
        BAD_TYPE,
        3,
        21,
        'type="5" is not 4 (squares), 8 (squares with diagonals) or 6 (hexes)',
    ),
    Hostile("prohibited-maybe", BAD_FLAG, 4, 39, 'prohibited="maybe" is not true or false'),
    Hostile(
        "height-0.3(m)",
        BAD_HEIGHT,
        5,
        20,
        'height="0.3(m)" is not a quantity (expected like 0.3[m])',
    ),
    Hostile("distance-minus-1", BAD_DISTANCE, 4, 26, 'distance="-1" is not a positive number'),
    *(
        Hostile(
            f"scale-{scale}",
            f'{DECL}\n<geometry xmlns="{POINT}"\n scale="{scale}"><point label="0"/></geometry>\n',
            3,
            9,
            f'scale="{scale}" {problem}',
        )
        for scale, problem in (
            ("5[sec]", "is not a length ([sec] is not a unit of length like [m])"),
            ("0[m]", "must be above 0"),
            ("-5[m]", "must be above 0"),
            ("1e999[m]", "is too large a number"),
        )
    ),
    Hostile(
        "height-in-minutes",
        f'{DECL}\n<geometry xmlns="{SECTIONED}">\n <line><section height="3[min]"/></line>'
        "\n</geometry>\n",
        3,
        25,
        'height="3[min]" is not a length ([min] is not a unit of length like [m])',
    ),
    Hostile(
        "missing-node",
        MISSING_NODE,
        5,
        13,
        "a link goes to 'nowhere', which is not a node here",
    ),
]


def lore_file(folder: Path, geometry: str) -> Path:
    path = folder / "scenario.lore"
    path.write_text(
        'import "basic.lore":url;\n'
        "section s {\n"
        f' root = {{ location = "/":loc;\n'
        f'  geometry = [=[<geometry xmlns="{POINT}"/>]=]:xml; }}:Area;\n'
        f' map = {{ location = "/[0]":loc; geometry = {geometry}; }}:Area;\n'
        "}\n",
        encoding="utf-8",
    )
    return path


def check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    status = main(["check", str(path)])
    out = capsys.readouterr().out
    return status, [line for line in out.splitlines() if ": error: " in line]


# ------------------------------------------------------------ the XML reader itself


@pytest.mark.parametrize("case", CASES[:READER_CASES], ids=str)
def test_the_reader_refuses_dtds_entities_and_what_python_cannot_read(case: Hostile) -> None:
    with pytest.raises(XMLError) as caught:
        read_xml(case.text)
    assert caught.value.line == case.line
    assert caught.value.column == case.column
    assert caught.value.message == case.message


@pytest.mark.parametrize("case", CASES[READER_CASES:], ids=str)
def test_the_geometry_reader_names_the_line(case: Hostile) -> None:
    _, problems = read(case.text)
    assert [(p.place.line, p.place.column) for p in problems][:1] == [(case.line, case.column)]
    assert problems[0].message == case.message


# ------------------------------------------------------------ lore check


@pytest.mark.parametrize("case", [*CASES, Hostile("malformed", MALFORMED, 4, 1, "")], ids=str)
def test_check_points_into_the_xml_file(
    case: Hostile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "map.xml").write_text(case.text, encoding="utf-8")
    status, errors = check(lore_file(tmp_path, '("map.xml":url).loadXML'), capsys)
    assert status == 1
    assert errors[0].startswith(f"{tmp_path / 'map.xml'}:{case.line}:{case.column}: error: ")
    assert errors[0].endswith(case.message)
    assert len(errors) == 1


@pytest.mark.parametrize("case", CASES, ids=str)
def test_check_points_into_an_inline_geometry(
    case: Hostile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The XML starts on line 6 of the Lore file, right after `[=[` and its line break.
    path = lore_file(tmp_path, f"[=[\n{case.text}]=]:xml")
    status, errors = check(path, capsys)
    assert status == 1
    line = 5 + case.line
    assert errors[0].startswith(f"{path}:{line}:"), errors
    assert case.message in errors[0]


# ------------------------------------------------------------ sizes


def million_squares() -> str:
    line = "<line>" + "<section/>" * 1000 + "</line>\n"
    return f'{DECL}\n<geometry xmlns="{SECTIONED}" type="8">\n' + line * 1000 + "</geometry>\n"


def test_a_million_squares_are_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = million_squares()
    start = time.perf_counter()
    with pytest.raises(XMLError, match="too large"):
        read_xml(text)
    (tmp_path / "map.xml").write_text(text, encoding="utf-8")
    status, errors = check(lore_file(tmp_path, '("map.xml":url).loadXML'), capsys)
    assert status == 1
    assert errors[0].startswith(f"{tmp_path / 'map.xml'}:1:1: error: the XML is too large")
    assert time.perf_counter() - start < 10


def test_the_section_limit_comes_before_the_element_limit() -> None:
    lines = 1000  # lines of sections are elements too
    assert geometry_module.MAX_SECTIONS + lines < xmldoc.MAX_ELEMENTS


def test_too_many_sections_are_refused_before_validation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(geometry_module, "MAX_SECTIONS", 1000)
    # 40 lines of 30 sections: the 1001st section is the 11th of line 34 (the file's 36th).
    text = grid_xml(["." * 30] * 40, 8)
    _, problems = read(text)
    assert [(p.message, p.place.line) for p in problems] == [
        ("the map has more than 1000 sections", 36)
    ]
    column = len(" <line>") + 10 * len("<section/>") + 1
    assert problems[0].place.column == column
    (tmp_path / "map.xml").write_text(text, encoding="utf-8")
    status, errors = check(lore_file(tmp_path, '("map.xml":url).loadXML'), capsys)
    assert status == 1
    assert errors == [
        f"{tmp_path / 'map.xml'}:36:{column}: error: the map has more than 1000 sections"
    ]


def test_too_many_elements_are_reported_by_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Well-formed, so the checker's own XML reading finds nothing: the geometry reader's
    # limit must still be reported.
    monkeypatch.setattr(xmldoc, "MAX_ELEMENTS", 500)
    (tmp_path / "map.xml").write_text(grid_xml(["." * 30] * 40, 8), encoding="utf-8")
    status, errors = check(lore_file(tmp_path, '("map.xml":url).loadXML'), capsys)
    assert status == 1
    assert len(errors) == 1
    assert errors[0].startswith(f"{tmp_path / 'map.xml'}:19:")
    assert errors[0].endswith("error: the document has more than 500 elements")


# ------------------------------------------------------------ at run time


def session_with_map_changed_to(folder: Path, text: str) -> Session:
    """A session whose geometry passed the checker but is ``text`` when the world reads
    it (the world checks every map again, whoever compiled the program)."""
    (folder / "map.xml").write_text(grid_xml(["..", ".."], 8), encoding="utf-8")
    result = check_paths([lore_file(folder, '("map.xml":url).loadXML')])
    assert result.ok
    [url] = result.checker.xml_files
    result.checker.xml_files[url] = SourceFile("map.xml", text)
    session = Session(compile_program(result), 0, Participants(), Limits(max_steps=5))
    session.run()
    return session


def test_a_map_file_is_read_once_the_session_uses_what_was_checked(tmp_path: Path) -> None:
    (tmp_path / "map.xml").write_text(grid_xml(["..", ".."], 8), encoding="utf-8")
    result = check_paths([lore_file(tmp_path, '("map.xml":url).loadXML')])
    assert result.ok
    (tmp_path / "map.xml").write_text(million_squares(), encoding="utf-8")
    session = Session(compile_program(result), 0, Participants(), Limits(max_steps=5))
    session.run()
    assert session.world is not None and session.world.problems == []


@pytest.mark.parametrize("case", CASES, ids=str)
def test_the_world_refuses_a_bad_map_at_run_time(case: Hostile, tmp_path: Path) -> None:
    session = session_with_map_changed_to(tmp_path, case.text)
    world = session.world
    assert world is not None and world.root is not None
    where = f"XML line {case.line}, column {case.column}: "
    assert len(world.problems) == 1
    path, problem = world.problems[0]
    assert path == "/map" and problem.startswith(where)
    area = world.root.children["map"]
    assert area.geometry is None and area.problem == problem
    # The GM is told, with the XML line.
    errors = [r for r in session.transcript.records if r["kind"] == "error"]
    assert [r["message"] for r in errors] == [f"the geometry of area '/map' is refused: {problem}"]
    with pytest.raises(RuleError, match=f"'/map' has no map: its geometry was refused \\({where}"):
        world.resolve("/map[0,0]")
    assert session.ended == "no-events"


def test_the_world_refuses_a_million_squares_at_run_time(tmp_path: Path) -> None:
    session = session_with_map_changed_to(tmp_path, million_squares())
    assert session.world is not None
    assert [problem for _, problem in session.world.problems] == [
        "XML line 1, column 1: the document is too large (10014117 bytes, at most 4194304)"
    ]


# ------------------------------------------------------------ many problems


def test_thousands_of_attributes_are_refused_briefly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    attributes = " ".join(f'a{i}="x"' for i in range(8000))
    text = f'<geometry xmlns="{POINT}" {attributes}><point label="0"/></geometry>'
    (tmp_path / "map.xml").write_text(text, encoding="utf-8")
    status = main(["check", str(lore_file(tmp_path, '("map.xml":url).loadXML'))])
    out = capsys.readouterr().out
    assert status == 1
    assert out.count(": error: ") == 1
    assert f"1:1: error: an element has more than {xmldoc.MAX_ATTRIBUTES} attributes" in out
    assert max(len(line) for line in out.splitlines()) < 200  # the long line is cut


def test_unknown_attributes_are_reported_without_the_validator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    attributes = " ".join(f'a{i}="x"' for i in range(90))
    points = "".join(f'<point label="p{i}" {attributes}/>\n' for i in range(40))
    text = f'<geometry xmlns="{POINT}">\n{points}</geometry>'
    _, problems = read(text)
    assert len(problems) == schemas.MAX_PROBLEMS
    assert [p.message for p in problems[:2]] == [
        "<point> has no attribute 'a0'",
        "<point> has no attribute 'a1'",
    ]
    assert (problems[0].place.line, problems[0].place.column) == (2, 23)


def test_a_fault_in_every_section_stops_the_validation_early(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(schemas, "BATCH_ELEMENTS", 50)
    batches = 0
    original = schemas._batches

    def counted(root: Element) -> Iterator[schemas.Batch]:
        nonlocal batches
        for batch in original(root):
            batches += 1
            yield batch

    monkeypatch.setattr(schemas, "_batches", counted)
    rows = "".join(
        "<line>" + "".join(f'<section prohibited="m{y}-{x}"/>' for x in range(40)) + "</line>\n"
        for y in range(40)
    )
    _, problems = read(f'<geometry xmlns="{SECTIONED}">\n{rows}</geometry>')
    assert len(problems) == schemas.MAX_PROBLEMS
    assert problems[0].message == 'prohibited="m0-0" is not true or false'
    assert problems[0].place.line == 2
    assert batches == 3  # of 1,600 sections, about 150 validated


def test_a_big_map_is_validated_in_parts_with_the_same_problems(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nodes = "".join(
        f'<node label="n{i}"><link to="n{i + 1}" distance="{"x" if i % 97 == 5 else 1}"/></node>\n'
        for i in range(300)
    )
    text = f'<geometry xmlns="{LINKED}">\n{nodes}<node label="n300"/></geometry>'
    whole = [(p.place, p.message) for p in read(text)[1]]
    monkeypatch.setattr(schemas, "BATCH_ELEMENTS", 40)
    assert [(p.place, p.message) for p in read(text)[1]] == whole
    assert [place.line for place, _ in whole] == [7, 104, 201, 298]
