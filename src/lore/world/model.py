"""The world of a running session: the tree of areas, and places on their maps.

Areas are the session's ``Area`` objects. The root area has ``location = "/":loc``;
every other area lies at a point of its parent's geometry, and its label is the name of
the variable holding it unless it has a ``label`` member. A location path names areas
from the root and ends with an optional coordinate in the last area's geometry:
``"/region/dungeon[1,2]"``, ``"/region[start_point]"``, ``"/[0]"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from lore.runtime.errors import RuleError
from lore.runtime.quantity import Quantity
from lore.runtime.values import FormInfo, LoreObject, TypedString
from lore.semantics.units import UnitFamily
from lore.world.geometry import (
    Geometry,
    LinkedGeometry,
    PointGeometry,
    SectionedGeometry,
    read_geometry,
)
from lore.world.static import parse_location
from lore.world.xmldoc import XMLError, read_xml

SQRT3_2 = math.sqrt(3) / 2


@dataclass(eq=False)
class AreaNode:
    obj: LoreObject
    label: str
    path: str
    geometry: Geometry | None
    scale: float  # metres per step of the geometry
    parent: AreaNode | None = None
    place: str | None = None  # its coordinate in the parent's geometry
    children: dict[str, AreaNode] = field(default_factory=dict)
    problem: str | None = None  # why its geometry was refused (then ``geometry`` is None)

    def location(self, coordinate: str | None) -> TypedString:
        return TypedString(
            "loc", f"{self.path}[{coordinate}]" if coordinate is not None else self.path
        )


@dataclass(frozen=True)
class Place:
    area: AreaNode
    coordinate: str | None


class World:
    """Built once per session from its values; areas do not move."""

    def __init__(
        self,
        values: list[Any],
        area_form: FormInfo,
        length: UnitFamily,
        units: dict[str, UnitFamily],
        labels: dict[int, str],
    ) -> None:
        self.length = length
        self.units = units
        self.lengths = frozenset(name for name, family in units.items() if family is length)
        self.root: AreaNode | None = None
        self.by_object: dict[int, AreaNode] = {}
        # Geometries refused (a session is checked first, so only when its files changed or
        # it was built without a check): the area's path and why, with the XML line.
        self.problems: list[tuple[str, str]] = []
        areas = [
            v
            for v in values
            if isinstance(v, LoreObject) and v.form is not None and v.form.is_subform_of(area_form)
        ]
        self.build(areas, labels)

    # ------------------------------------------------------------ building

    def build(self, areas: list[LoreObject], labels: dict[int, str]) -> None:
        pending: list[tuple[LoreObject, list[str], str | None]] = []
        for obj in areas:
            location = obj.values.get("location")
            parsed = parse_location(str(location)) if location is not None else None
            if parsed is None:
                continue
            if not parsed.labels and parsed.coordinate is None:
                if self.root is None:
                    self.root = self.node(obj, "", "/", None)
                continue
            pending.append((obj, list(parsed.labels), parsed.coordinate))
        progress = True
        while pending and progress and self.root is not None:
            progress = False
            for entry in list(pending):
                obj, labels_path, coordinate = entry
                parent = self.find(labels_path)
                if parent is None:
                    continue
                pending.remove(entry)
                progress = True
                label = self.label_of(obj, labels)
                path = f"{parent.path.rstrip('/')}/{label}"
                node = self.node(obj, label, path, parent)
                node.place = coordinate
                parent.children[label] = node

    def label_of(self, obj: LoreObject, labels: dict[int, str]) -> str:
        label = obj.values.get("label")
        if isinstance(label, str) and label:
            return label
        name = labels.get(id(obj)) or obj.label or f"area{obj.oid}"
        return name.rsplit(".", 1)[-1]

    def node(self, obj: LoreObject, label: str, path: str, parent: AreaNode | None) -> AreaNode:
        value = obj.values.get("geometry")
        geometry, problem = None, None
        if isinstance(value, TypedString | str):
            geometry, problem = _read_geometry(str(value), frozenset(self.units), self.lengths)
        scale = self.scale_of(obj, geometry)
        node = AreaNode(obj, label, path, geometry, scale, parent, problem=problem)
        if problem is not None:
            self.problems.append((path, problem))
        self.by_object[id(obj)] = node
        return node

    def scale_of(self, obj: LoreObject, geometry: Geometry | None) -> float:
        if geometry is not None and geometry.scale is not None:
            family = self.units.get(geometry.scale.unit)
            if family is not None:
                return float(geometry.scale.value * family.factors[geometry.scale.unit])
        scale = obj.values.get("scale")
        if isinstance(scale, Quantity):
            return float(scale.value)
        return 1.0

    def find(self, labels: list[str] | tuple[str, ...]) -> AreaNode | None:
        node = self.root
        for label in labels:
            if node is None:
                return None
            node = node.children.get(label)
        return node

    # ------------------------------------------------------------ places

    def resolve(self, location: Any) -> Place:
        """The area and coordinate a location names (RuleError when there is none)."""
        text = str(location)
        parsed = parse_location(text)
        if parsed is None:
            raise RuleError(f"'{text}' is not a location path")
        if self.root is None:
            raise RuleError('the session has no root area (an Area with location "/")')
        node = self.root
        for label in parsed.labels:
            child = node.children.get(label)
            if child is None:
                raise RuleError(f"there is no area '{label}' in '{node.path}'")
            node = child
        coordinate = parsed.coordinate
        if coordinate is not None and node.problem is not None:
            raise RuleError(f"'{node.path}' has no map: its geometry was refused ({node.problem})")
        if (
            coordinate is not None
            and node.geometry is not None
            and not node.geometry.has(coordinate)
        ):
            raise RuleError(f"'{node.path}' has no place [{coordinate}]")
        return Place(node, coordinate)

    def environment(self, area: AreaNode) -> LoreObject | None:
        """The area's Environment; ``Environment.inherited`` takes the parent's."""
        node: AreaNode | None = area
        while node is not None:
            value = node.obj.values.get("environment")
            if isinstance(value, LoreObject):
                return value
            if value != "inherited":
                return None
            node = node.parent
        return None

    def metres(self, value: float) -> Quantity:
        return Quantity(float(value), "m", self.length)

    def distance(self, area: AreaNode, a: str | None, b: str | None) -> float | None:
        """Straight-line distance in metres between two places of one area's map."""
        if a is None or b is None:
            return 0.0 if a == b else None
        geometry = area.geometry
        if isinstance(geometry, SectionedGeometry):
            if not (geometry.has(a) and geometry.has(b)):
                return None
            pa, pb = _centre(geometry, a), _centre(geometry, b)
            if pa is None or pb is None:
                return None
            # Rounded so that hex neighbours are exactly one step apart (the centres'
            # coordinates involve sqrt(3)/2): ranges like 0[m],...,5[m] include them all.
            return round(math.dist(pa, pb) * area.scale, 9)
        if isinstance(geometry, LinkedGeometry):
            from lore.world.routes import linked_route

            found = linked_route(geometry, a, b)
            return found[0] * area.scale if found is not None else None
        if isinstance(geometry, PointGeometry) or geometry is None:
            return 0.0 if a == b else None
        return None


@lru_cache(maxsize=64)
def _read_geometry(
    text: str, units: frozenset[str], lengths: frozenset[str]
) -> tuple[Geometry | None, str | None]:
    """A geometry from its XML, or why it is refused (the first error, at its XML line).

    Geometries are immutable, so sessions of one program share them.
    """
    try:
        document = read_xml(text)
    except XMLError as error:
        return None, f"XML line {error.line}, column {error.column}: {error.message}"
    geometry, problems = read_geometry(document, units.__contains__, lengths.__contains__)
    errors = [problem for problem in problems if not problem.warning]
    if geometry is None or errors:
        if not errors:
            return None, "XML line 1, column 1: not a geometry"
        first = errors[0]
        more = len(errors) - 1
        also = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        return None, (
            f"XML line {first.place.line}, column {first.place.column}: {first.message}{also}"
        )
    return geometry, None


def _centre(geometry: SectionedGeometry, coordinate: str) -> tuple[float, float] | None:
    parts = coordinate.replace(" ", "").split(",")
    if len(parts) != 2:
        return None
    try:
        x, y = int(parts[0]), int(parts[1])
    except ValueError:
        return None
    if geometry.kind == 6:
        return (x + 0.5 * (y & 1), y * SQRT3_2)
    return (float(x), float(y))
