"""What the world model can check before a session runs.

It finds the areas a program defines (values of type ``Area`` written as form
literals), reads their geometries, places each area in its parent's geometry, and
checks every location literal ``"/region/dungeon[1,2]":loc`` against that tree: the
areas must exist, the coordinate must be a place of the area's map, and a prohibited
square gets a warning.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lore.records import field, record
from lore.semantics.check import CheckResult
from lore.semantics.checker import Checker
from lore.semantics.literals import XMLProblem, offset_of, parse_xml
from lore.semantics.symbols import Container, FormSymbol, VarSymbol
from lore.semantics.types import FormT
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.parser import value_start
from lore.syntax.source import SourceFile, Span
from lore.syntax.walk import walk

# The geometry reader (and its XML Schemas) is imported when an area has a map: most
# files have none, and `lore check` should start fast.
if TYPE_CHECKING:
    from lore.world.geometry import Geometry

PATH_RE = re.compile(r"/((?:[^\W\d]\w*)(?:/[^\W\d]\w*)*)?(?:\[([^\]]*)\])?")


@record(frozen=False, eq=False, slots=False)
class Area:
    name: str
    label: str
    source: SourceFile
    location: ast.StringLit | None
    geometry: Geometry | None
    children: dict[str, Area] = field(default_factory=dict)
    path: str | None = None


@record(slots=False)
class Location:
    labels: tuple[str, ...]
    coordinate: str | None


def parse_location(text: str) -> Location | None:
    match = PATH_RE.fullmatch(text)
    if match is None:
        return None
    labels = tuple(match.group(1).split("/")) if match.group(1) else ()
    return Location(labels, match.group(2))


class WorldCheck:
    def __init__(self, result: CheckResult) -> None:
        self.checker: Checker = result.checker
        self.result = result
        self.diagnostics: list[Diagnostic] = []
        area = self.checker.root.members.get("Area")
        self.area_form = area if isinstance(area, FormSymbol) else None

    def report(
        self,
        source: SourceFile,
        span: Span,
        message: str,
        hint: str | None = None,
        warning: bool = False,
        code: str | None = None,
    ) -> None:
        severity = Severity.WARNING if warning else Severity.ERROR
        code = code or ("world.location" if not warning else "world.prohibited")
        self.diagnostics.append(Diagnostic(severity, code, message, source, span, hint))

    def run(self) -> list[Diagnostic]:
        if self.area_form is None:
            return []
        areas = [self.area_of(symbol) for symbol in self.area_symbols(self.checker.root)]
        placed: set[int] = set()
        root = self.build_tree([a for a in areas if a is not None], placed)
        for module in self.result.program.modules:
            if module.is_library:
                continue
            for node in walk(module.tree):
                if (
                    isinstance(node, ast.StringLit)
                    and node.kind == "loc"
                    and id(node) not in placed
                    and root is not None
                ):
                    self.check_location(node, module.source, root)
        return self.diagnostics

    def area_symbols(self, container: Container) -> list[VarSymbol]:
        found: list[VarSymbol] = []
        for symbol in container.members.values():
            if symbol.source.name.startswith("<"):
                continue
            if isinstance(symbol, Container) and not isinstance(symbol, FormSymbol):
                found.extend(self.area_symbols(symbol))
            elif isinstance(symbol, VarSymbol) and isinstance(symbol.type, FormT):
                assert self.area_form is not None
                if symbol.type.symbol.is_subform_of(self.area_form):
                    found.append(symbol)
        return found

    def area_of(self, symbol: VarSymbol) -> Area | None:
        node = symbol.node
        if node is None or not isinstance(node.value, ast.FormLit):
            return None
        members = {m.name: m.value for m in node.value.members if isinstance(m, ast.VarDef)}
        location = members.get("location")
        label = members.get("label")
        area = Area(
            symbol.name,
            label.value if isinstance(label, ast.StringLit) else symbol.name,
            symbol.source,
            location if isinstance(location, ast.StringLit) else None,
            None,
        )
        geometry = members.get("geometry")
        if geometry is not None:
            area.geometry = self.geometry_of(geometry, symbol.source)
        costs = members.get("terrainCosts")
        if isinstance(costs, ast.ListLit) and area.geometry is not None:
            self.check_terrain_costs(costs, area.geometry, symbol.source)
        return area

    def check_terrain_costs(
        self, costs: ast.ListLit, geometry: Geometry, source: SourceFile
    ) -> None:
        """The terrains an area's ``terrainCosts`` literal names must be its map's, and
        their costs above zero."""
        from lore.world.geometry import SectionedGeometry

        if not isinstance(geometry, SectionedGeometry):
            self.report(
                source,
                costs.span,
                "terrain costs apply to maps of sections (Sectioned2D), not to this map",
                code="world.terrain",
            )
            return
        known = geometry.terrains()
        for item in costs.items:
            if not isinstance(item, ast.FormLit):
                continue
            given = {m.name: m.value for m in item.members if isinstance(m, ast.VarDef)}
            terrain, cost = given.get("terrain"), given.get("cost")
            if isinstance(terrain, ast.StringLit) and terrain.value not in known:
                self.report(
                    source,
                    terrain.span,
                    f"'{terrain.value}' is not a terrain of this area's map",
                    f"its terrains: {', '.join(sorted(known)) or 'none'}",
                    code="world.terrain",
                )
            if isinstance(cost, ast.IntLit | ast.RealLit) and not cost.value > 0:
                self.report(
                    source,
                    cost.span,
                    f"a terrain's movement cost must be above 0, not {cost.value}",
                    "a terrain that cannot be entered is marked prohibited in the map",
                    code="world.terrain",
                )

    def geometry_of(self, expr: ast.Expr, source: SourceFile) -> Geometry | None:
        from lore.world.geometry import read_geometry
        from lore.world.xmldoc import XMLError, read_xml

        if isinstance(expr, ast.StringLit) and expr.kind == "xml":
            offset = value_start(expr, source)
            xml_source = None
            text = expr.value
        elif (
            isinstance(expr, ast.Member)
            and expr.name == "loadXML"
            and isinstance(expr.target, ast.StringLit)
        ):
            # As the checker read it (it reported a file it could not read or refused).
            xml_source = self.checker.xml_files.get(id(expr.target))
            if xml_source is None:
                return None
            offset, text = 0, xml_source.text
        else:
            return None
        try:
            document = read_xml(text)
        except XMLError as error:
            if _parses(text):
                # Well-formed, so the checker said nothing: a limit of the geometry reader.
                self.report_xml(
                    xml_source, source, offset, text, error.line, error.column, error.message
                )
            return None  # the checker reports malformed XML
        units = self.checker.units.definitions
        families = self.checker.units.units
        metre = families.get("m")
        geometry, problems = read_geometry(
            document,
            lambda unit: unit in units,
            lambda unit: metre is None or families.get(unit) is metre,
        )
        for problem in problems:
            self.report_xml(
                xml_source,
                source,
                offset,
                text,
                problem.place.line,
                problem.place.column,
                problem.message,
                problem.hint,
                problem.warning,
            )
        return geometry

    def report_xml(
        self,
        xml_source: SourceFile | None,
        source: SourceFile,
        offset: int,
        text: str,
        line: int,
        column: int,
        message: str,
        hint: str | None = None,
        warning: bool = False,
    ) -> None:
        """A problem at ``line``:``column`` of an XML file, or of an inline ``:xml`` text."""
        if xml_source is not None:
            start = xml_source.offset_of(line, column)
            shown = xml_source
        else:
            start = offset + offset_of(text, line, column)
            shown = source
        self.report(shown, Span(start, start + 1), message, hint, warning)

    def build_tree(self, areas: list[Area], placed: set[int]) -> Area | None:
        roots = [a for a in areas if a.location is not None and a.location.value == "/"]
        if not roots:
            return None
        root = roots[0]
        root.path = "/"
        for extra in roots[1:]:
            assert extra.location is not None
            self.report(
                extra.source,
                extra.location.span,
                f"'{extra.name}' is a second root area ('{root.name}' is the first)",
            )
        pending = [a for a in areas if a not in roots and a.location is not None]
        for area in roots:
            assert area.location is not None
            placed.add(id(area.location))
        progress = True
        while pending and progress:
            progress = False
            for area in list(pending):
                assert area.location is not None
                location = parse_location(area.location.value)
                if location is None:
                    pending.remove(area)
                    continue
                parent = self.find(root, location.labels)
                if parent is None:
                    continue
                pending.remove(area)
                progress = True
                placed.add(id(area.location))
                self.check_place(parent, location, area.location, area.source)
                if area.label in parent.children:
                    self.report(
                        area.source,
                        area.location.span,
                        f"'{parent.path}' already has an area labelled '{area.label}'",
                    )
                    continue
                parent.children[area.label] = area
                area.path = _join(parent.path, area.label)
        for area in pending:
            assert area.location is not None
            self.check_location(area.location, area.source, root)
            placed.add(id(area.location))
        return root

    @staticmethod
    def find(root: Area, labels: tuple[str, ...]) -> Area | None:
        area = root
        for label in labels:
            child = area.children.get(label)
            if child is None:
                return None
            area = child
        return area

    def check_location(self, literal: ast.StringLit, source: SourceFile, root: Area) -> None:
        location = parse_location(literal.value)
        if location is None:
            return  # the checker reports a malformed path
        area = root
        for label in location.labels:
            child = area.children.get(label)
            if child is None:
                where = area.path or "/"
                hint = _did_you_mean(label, list(area.children))
                self.report(source, literal.span, f"there is no area '{label}' in '{where}'", hint)
                return
            area = child
        self.check_place(area, location, literal, source)

    def check_place(
        self, area: Area, location: Location, literal: ast.StringLit, source: SourceFile
    ) -> None:
        geometry = area.geometry
        coordinate = location.coordinate
        if coordinate is None or geometry is None:
            return
        from lore.world.geometry import SectionedGeometry

        if isinstance(geometry, SectionedGeometry):
            section = geometry.section(coordinate)
            if section is None:
                self.report(
                    source,
                    literal.span,
                    f"[{coordinate}] is not a square of '{area.path}' (its map is "
                    f"{geometry.size()}, from [0,0])",
                )
            elif section.prohibited:
                terrain = f" ({section.terrain})" if section.terrain else ""
                self.report(
                    source,
                    literal.span,
                    f"[{coordinate}] is a prohibited square{terrain} of '{area.path}'",
                    "actors cannot stand there",
                    warning=True,
                )
            return
        if not geometry.has(coordinate):
            self.report(
                source,
                literal.span,
                f"'{area.path}' has no place '{coordinate}'",
                _did_you_mean(coordinate, geometry.coordinates()),
            )


def check_world(result: CheckResult) -> list[Diagnostic]:
    """The world model's diagnostics for a checked program (and those of the patterns of
    its chat commands, also literals checked once the program's types are known)."""
    from lore.world.command_patterns import check_command_patterns

    return WorldCheck(result).run() + check_command_patterns(result)


def _join(parent: str | None, label: str) -> str:
    return f"{(parent or '').rstrip('/')}/{label}"


def _parses(text: str) -> bool:
    """Whether the checker's XML reader takes ``text`` (it reports what it does not)."""
    try:
        parse_xml(text)
    except XMLProblem:
        return False
    return True


def _did_you_mean(name: str, candidates: list[str]) -> str | None:
    import difflib  # only for a name that is not found

    matches = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return f"did you mean '{matches[0]}'?" if matches else None
