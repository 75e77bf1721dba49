"""Geometries: the maps of areas, read from XML.

The style is the last segment of the root element's namespace (``.../Point``,
``.../Linked``, ``.../Sectioned2D``, also under ``.../Lore/``):

- ``Point``: a single point (or a few named ones): ``<point label="0"/>``.
- ``Linked``: named nodes with one-way links, ``<node label="a"><link to="b"
  distance="4"/></node>``; a link's length is ``distance`` (default 1) times ``scale``.
- ``Sectioned2D``: ``<line>`` elements of ``<section>`` elements; ``type`` 4 is a square
  grid, 8 a square grid with diagonal moves, 6 a hex grid. The coordinate ``[x,y]`` is
  the x-th section (from 0) of the y-th line (from 0). Hex grids use "odd-r" offset
  coordinates: every odd line is shifted half a hex to the right.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from xml.etree.ElementTree import Element

from lore.world.schemas import MAX_PROBLEMS, validate
from lore.world.xmldoc import Document, Place, local_name, namespace

MAX_SECTIONS = 160_000  # a 400x400 map (fewer than xmldoc.MAX_ELEMENTS)
STYLES = ("Point", "Linked", "Sectioned2D")
QUANTITY_RE = re.compile(r"\s*(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*\[([^\[\]\s]+)\]\s*")


@dataclass(frozen=True, slots=True)
class Problem:
    message: str
    place: Place
    hint: str | None = None
    warning: bool = False


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    unit: str


@dataclass(frozen=True, slots=True)
class Link:
    to: str
    distance: float


@dataclass(frozen=True, slots=True)
class Section:
    terrain: str | None
    prohibited: bool
    height: Quantity | None
    description: str


@dataclass(frozen=True)
class Geometry:
    style: str
    scale: Quantity | None

    def coordinates(self) -> list[str]:
        return []

    def has(self, coordinate: str) -> bool:
        return coordinate in self.coordinates()

    def describe(self, coordinate: str) -> str:
        return f"[{coordinate}]"


@dataclass(frozen=True)
class PointGeometry(Geometry):
    labels: tuple[str, ...] = ("0",)

    def coordinates(self) -> list[str]:
        return list(self.labels)


@dataclass(frozen=True)
class LinkedGeometry(Geometry):
    nodes: tuple[tuple[str, tuple[Link, ...]], ...] = ()
    # What each node is, for people (its <description>), by label; "" when it has none.
    descriptions: tuple[tuple[str, str], ...] = ()

    def description_of(self, label: str) -> str:
        return next((text for name, text in self.descriptions if name == label), "")

    def coordinates(self) -> list[str]:
        return [label for label, _ in self.nodes]


@dataclass(frozen=True)
class SectionedGeometry(Geometry):
    kind: int = 4
    lines: tuple[tuple[Section, ...], ...] = ()
    declared: frozenset[str] = frozenset()  # the <terrains> of the map, if it lists them

    def terrains(self) -> frozenset[str]:
        """The terrains of the map: those it declares and those its sections have."""
        used = {s.terrain for line in self.lines for s in line if s.terrain is not None}
        return self.declared | used

    def section(self, coordinate: str) -> Section | None:
        parts = coordinate.replace(" ", "").split(",")
        if len(parts) != 2 or not all(re.fullmatch(r"-?\d+", p) for p in parts):
            return None
        x, y = int(parts[0]), int(parts[1])
        if 0 <= y < len(self.lines) and 0 <= x < len(self.lines[y]):
            return self.lines[y][x]
        return None

    def has(self, coordinate: str) -> bool:
        return self.section(coordinate) is not None

    def coordinates(self) -> list[str]:
        return [f"{x},{y}" for y, line in enumerate(self.lines) for x in range(len(line))]

    def size(self) -> str:
        width = max((len(line) for line in self.lines), default=0)
        return f"{width}x{len(self.lines)}"


def parse_quantity(text: str) -> Quantity | None:
    match = QUANTITY_RE.fullmatch(text)
    if match is None:
        return None
    return Quantity(float(match.group(1)), match.group(2))


class _Reader:
    def __init__(
        self,
        document: Document,
        known_unit: Callable[[str], bool],
        is_length: Callable[[str], bool] | None,
    ) -> None:
        self.document = document
        self.known_unit = known_unit
        self.is_length = is_length
        self.problems: list[Problem] = []
        # Elements the schema found fault with: their attributes are not reported again.
        self.faulty: set[int] = set()

    def problem(
        self, message: str, place: Place, hint: str | None = None, warning: bool = False
    ) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(message, place, hint, warning))

    def quantity(self, element: Element, name: str) -> Quantity | None:
        text = element.get(name)
        if text is None:
            return None
        place = self.document.attribute_place(element, name)
        found = parse_quantity(text)
        if found is None and id(element) in self.faulty:
            return None
        if found is None:
            self.problem(
                f'{name}="{text}" is not a quantity (expected like 0.3[m])',
                place,
                "write the number and the unit in brackets, as in Lore",
            )
            return None
        if not self.known_unit(found.unit):
            self.problem(f'unknown unit [{found.unit}] in {name}="{text}"', place)
            return None
        problem = self.length_problem(found, name == "scale")
        if problem is not None:
            self.problem(f'{name}="{text}" {problem}', place)
            return None
        return found

    def length_problem(self, found: Quantity, positive: bool) -> str | None:
        """Why a scale (``positive``) or a height is not a length that can be used."""
        if self.is_length is not None and not self.is_length(found.unit):
            return f"is not a length ([{found.unit}] is not a unit of length like [m])"
        if not math.isfinite(found.value):
            return "is too large a number"
        if positive and not found.value > 0:
            return "must be above 0"
        return None

    def flag(self, element: Element, name: str) -> bool:
        text = element.get(name)
        if text is None:
            return False
        if text not in ("true", "false") and id(element) not in self.faulty:
            self.problem(
                f'{name}="{text}" must be true or false',
                self.document.attribute_place(element, name),
            )
        return text == "true"

    def description(self, element: Element) -> str:
        for child in element:
            if local_name(child.tag) == "description":
                return "".join(child.itertext()).strip()
        return ""

    def read(self) -> Geometry | None:
        root = self.document.root
        place = self.document.place(root)
        if local_name(root.tag) != "geometry":
            self.problem(
                f"the root element is <{local_name(root.tag)}>, expected <geometry>", place
            )
            return None
        style = namespace(root.tag).rstrip("/").rsplit("/", 1)[-1]
        if style in STYLES:
            if style == "Sectioned2D" and not self.within_section_limit():
                return None
            for place_, message, element_ids in validate(self.document, style, namespace(root.tag)):
                self.problem(message, place_)
                self.faulty.update(element_ids)
        scale = self.quantity(root, "scale")
        if style == "Point":
            return self.read_points(scale)
        if style == "Linked":
            return self.read_linked(scale)
        if style == "Sectioned2D":
            return self.read_sectioned(scale)
        self.problem(
            f"unknown geometry style '{style or '(no namespace)'}'",
            place,
            'use xmlns="http://www.xgmtk.org/Point", ".../Linked" or ".../Lore/Sectioned2D"',
        )
        return None

    def within_section_limit(self) -> bool:
        """False (with the problem at the first section too many) for a map too large."""
        count = 0
        for line in self.children(self.document.root, "line"):
            count += len(line)
            if count > MAX_SECTIONS:
                extra = line[len(line) - (count - MAX_SECTIONS)]
                self.problem(
                    f"the map has more than {MAX_SECTIONS} sections",
                    self.document.place(extra),
                    "split it into several areas",
                )
                return False
        return True

    def children(self, element: Element, name: str) -> list[Element]:
        return [child for child in element if local_name(child.tag) == name]

    def read_points(self, scale: Quantity | None) -> Geometry:
        labels: list[str] = []
        for point in self.children(self.document.root, "point"):
            label = point.get("label")
            if label is None:
                self.problem("a <point> needs a label", self.document.place(point))
            elif label in labels:
                self.problem(f"point '{label}' is defined twice", self.document.place(point))
            else:
                labels.append(label)
        return PointGeometry("Point", scale, tuple(labels) or ("0",))

    def read_linked(self, scale: Quantity | None) -> Geometry:
        nodes: dict[str, tuple[Link, ...]] = {}
        descriptions: dict[str, str] = {}
        pending: list[tuple[Element, str]] = []
        for node in self.children(self.document.root, "node"):
            label = node.get("label")
            if label is None:
                self.problem("a <node> needs a label", self.document.place(node))
                continue
            if label in nodes:
                self.problem(f"node '{label}' is defined twice", self.document.place(node))
                continue
            links: list[Link] = []
            for link in self.children(node, "link"):
                target = link.get("to")
                if target is None:
                    self.problem('a <link> needs to="node"', self.document.place(link))
                    continue
                pending.append((link, target))
                links.append(Link(target, self.distance(link)))
            nodes[label] = tuple(links)
            descriptions[label] = self.description(node)
        for link, target in pending:
            if target not in nodes:
                self.problem(
                    f"a link goes to '{target}', which is not a node here",
                    self.document.attribute_place(link, "to"),
                )
        return LinkedGeometry("Linked", scale, tuple(nodes.items()), tuple(descriptions.items()))

    def distance(self, link: Element) -> float:
        text = link.get("distance")
        if text is None:
            return 1.0
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if (not value > 0 or value == float("inf")) and id(link) not in self.faulty:
            self.problem(
                f'distance="{text}" must be a positive number',
                self.document.attribute_place(link, "distance"),
            )
            return 1.0
        return value

    def read_sectioned(self, scale: Quantity | None) -> Geometry | None:
        root = self.document.root
        kind_text = root.get("type", "4")
        kind = int(kind_text) if kind_text in ("4", "6", "8") else 4
        if kind_text not in ("4", "6", "8") and id(root) not in self.faulty:
            self.problem(
                f'type="{kind_text}" must be 4 (squares), 8 (squares with diagonals) or 6 (hexes)',
                self.document.attribute_place(root, "type"),
            )
        terrains = {
            element.get("name")
            for terrains in self.children(root, "terrains")
            for element in self.children(terrains, "element")
        }
        terrains.discard(None)
        lines: list[tuple[Section, ...]] = []
        count = 0
        for line in self.children(root, "line"):
            sections: list[Section] = []
            for section in self.children(line, "section"):
                count += 1
                if count > MAX_SECTIONS:
                    self.problem(
                        f"the map has more than {MAX_SECTIONS} sections",
                        self.document.place(section),
                    )
                    return None
                sections.append(self.section(section, terrains))
            lines.append(tuple(sections))
        if not lines:
            self.problem(
                "a Sectioned2D geometry needs at least one <line> of <section>s",
                self.document.place(root),
            )
        declared = frozenset(name for name in terrains if name is not None)
        return SectionedGeometry("Sectioned2D", scale, kind, tuple(lines), declared)

    def section(self, element: Element, terrains: set[str | None]) -> Section:
        terrain = element.get("terrain")
        if terrain is not None and terrains and terrain not in terrains:
            self.problem(
                f"terrain '{terrain}' is not one of the <terrains> of this map",
                self.document.attribute_place(element, "terrain"),
            )
        return Section(
            terrain,
            self.flag(element, "prohibited"),
            self.quantity(element, "height"),
            self.description(element),
        )


def read_geometry(
    document: Document,
    known_unit: Callable[[str], bool],
    is_length: Callable[[str], bool] | None = None,
) -> tuple[Geometry | None, list[Problem]]:
    """The geometry of a parsed document, and every problem found in it. A scale must be
    a length above 0 and a height a length (when ``is_length`` says which units are)."""
    reader = _Reader(document, known_unit, is_length)
    geometry = reader.read()
    return geometry, reader.problems
