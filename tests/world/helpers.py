"""Helpers of the world tests: geometries from text, and sessions built from Lore text."""

from __future__ import annotations

from pathlib import Path

from lore.engine.participants import Participants
from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_paths
from lore.world.geometry import Geometry, Problem, read_geometry
from lore.world.xmldoc import read_xml

UNITS = frozenset({"m", "km", "cm", "mm"})  # lengths
KNOWN_UNITS = UNITS | {"sec", "min"}
POINT = "http://www.xgmtk.org/Point"
LINKED = "http://www.xgmtk.org/Linked"
SECTIONED = "http://www.xgmtk.org/Lore/Sectioned2D"


def read(text: str) -> tuple[Geometry | None, list[Problem]]:
    """A geometry read from XML text, with the problems found in it."""
    return read_geometry(read_xml(text), KNOWN_UNITS.__contains__, UNITS.__contains__)


def grid_xml(rows: list[str], kind: int = 4, scale: str | None = "1[m]") -> str:
    """A Sectioned2D map from text: ``.`` an open section, ``#`` a prohibited one."""
    scale_attr = f' scale="{scale}"' if scale is not None else ""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<geometry xmlns="{SECTIONED}" type="{kind}"{scale_attr}>',
    ]
    for row in rows:
        cells = "".join(
            '<section prohibited="true"/>' if cell == "#" else "<section/>" for cell in row
        )
        lines.append(f" <line>{cells}</line>")
    lines.append("</geometry>")
    return "\n".join(lines) + "\n"


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


def scenario(body: str) -> str:
    """A Lore file with ``body`` in a section ``s`` (basic units imported)."""
    return f'import "basic.lore":url;\nsection s {{\n{body}\n}}\n'


def started(folder: Path, files: dict[str, str], entry: str = "scenario.lore") -> Session:
    """Check and compile ``entry`` among ``files`` (written to ``folder``); start a session."""
    write(folder, files)
    result = check_paths([folder / entry])
    assert result.ok, [d.message for d in result.diagnostics]
    session = Session(compile_program(result), 0, Participants(), Limits(max_steps=0))
    session.start()
    return session
