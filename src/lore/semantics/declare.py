"""The declaration pass: every definition of every module becomes a symbol.

Sections of the same name merge (``section a.b`` equals ``b`` inside ``a``, and two
files may add to one section). A name defined twice in one place is an error.
Nothing is typed here; the checker resolves types afterwards, in any order.
"""

from __future__ import annotations

from lore.semantics.program import Module
from lore.semantics.symbols import (
    CallableSymbol,
    Container,
    EnumSymbol,
    EnumValueSymbol,
    FieldSymbol,
    FormSymbol,
    SectionSymbol,
    Symbol,
    VarSymbol,
)
from lore.semantics.units import UnitDefinition, UnitRegistry
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.dump import dump
from lore.syntax.source import SourceFile, Span

CALLABLE_NODES = (ast.RuleDef, ast.FunctionDef, ast.AccessorDef, ast.AlterDef)


class Declarer:
    def __init__(
        self, root: SectionSymbol, units: UnitRegistry, diagnostics: list[Diagnostic]
    ) -> None:
        self.root = root
        self.units = units
        self.diagnostics = diagnostics
        # Every form and enum, in declaration order, for the checker's later passes.
        self.forms: list[FormSymbol] = []
        self.enums: list[EnumSymbol] = []
        self.sections: list[SectionSymbol] = []
        # The sections that files declare at their top level (`section a.b {}` gives
        # a.b): an unqualified name unique among their members resolves to it.
        self.top_sections: list[SectionSymbol] = []

    def declare_module(self, module: Module, index: int) -> None:
        for definition in module.tree.body:
            self.declare(definition, self.root, module.source, index, module.is_library)

    def declare(
        self, node: ast.Definition, into: Container, source: SourceFile, index: int, library: bool
    ) -> None:
        private = "private" in node.modifiers
        if isinstance(node, ast.SectionDef):
            section = self._section_path(node, into, source)
            if into is self.root and section not in self.top_sections:
                self.top_sections.append(section)
            for member in node.members:
                self.declare(member, section, source, index, library)
        elif isinstance(node, ast.UnitDef):
            earlier = self.units.define(UnitDefinition(node.unit, node, source))
            if earlier is not None and not _same_unit(earlier.node, node):
                self.error(
                    source,
                    node.span,
                    "check.duplicate",
                    f"unit [{node.unit}] is already defined differently at "
                    f"{_place(earlier.source, earlier.node.span)}",
                    "unit names are global: choose another name",
                )
        elif isinstance(node, ast.VarDef):
            self._declare_var(node, into, source, private)
        elif isinstance(node, ast.FieldDecl):
            # In a section of the bundled library, `name : T;` is a value the engine
            # provides (GM, schedule, system).
            if isinstance(into, FormSymbol | EnumSymbol) or library:
                self.add(into, FieldSymbol(node.name, source, node.name_span, into, private, node))
            else:
                self.error(
                    source,
                    node.span,
                    "check.declaration-without-value",
                    f"'{node.name}' needs a value here",
                    f"write '{node.name} = ...;' (only forms declare members without values)",
                )
        elif isinstance(node, CALLABLE_NODES):
            self.add(into, CallableSymbol(node.name, source, node.name_span, into, private, node))
        elif isinstance(node, ast.FormDef):
            form = FormSymbol(node.name, source, node.name_span, into, private, node=node)
            if self.add(into, form):
                self.forms.append(form)
                for member in node.members:
                    self.declare(member, form, source, index, library)
        elif isinstance(node, ast.EnumDef):
            self._declare_enum(node, into, source, index, library, private)

    def _declare_var(
        self, node: ast.VarDef, into: Container, source: SourceFile, private: bool
    ) -> None:
        if isinstance(into, FormSymbol | EnumSymbol):
            existing = into.members.get(node.name)
            if isinstance(existing, FieldSymbol) and existing.default is None:
                existing.default = node
                return
        self.add(into, VarSymbol(node.name, source, node.name_span, into, private, node))

    def _declare_enum(
        self,
        node: ast.EnumDef,
        into: Container,
        source: SourceFile,
        index: int,
        library: bool,
        private: bool,
    ) -> None:
        enum = EnumSymbol(node.name, source, node.name_span, into, private, node=node)
        if not self.add(into, enum):
            return
        self.enums.append(enum)
        for member in node.members:
            self.declare(member, enum, source, index, library)
        for value in node.values:
            symbol = EnumValueSymbol(value.name, source, value.span, enum, False, value, enum)
            earlier = enum.values.get(value.name) or enum.members.get(value.name)
            if earlier is not None:
                self.error(
                    source,
                    Span(value.span.start, value.span.start + len(value.name)),
                    "check.duplicate",
                    f"'{value.name}' is already defined in enum '{node.name}' at "
                    f"{_place(earlier.source, earlier.span)}",
                )
                continue
            enum.values[value.name] = symbol

    def _section_path(
        self, node: ast.SectionDef, into: Container, source: SourceFile
    ) -> SectionSymbol:
        section: Container = into
        for name, span in zip(node.path, _name_spans(node, source), strict=True):
            existing = section.members.get(name)
            if isinstance(existing, SectionSymbol):
                section = existing
                continue
            created = SectionSymbol(name, source, span, section, "private" in node.modifiers)
            if existing is not None:
                self.error(
                    source,
                    span,
                    "check.duplicate",
                    f"section '{name}' has the name of the {existing.kind} defined at "
                    f"{_place(existing.source, existing.span)}",
                )
            else:
                section.members[name] = created
                self.sections.append(created)
            section = created
        assert isinstance(section, SectionSymbol)
        section.nodes.append(node)
        return section

    def add(self, into: Container, symbol: Symbol) -> bool:
        existing = into.members.get(symbol.name)
        if existing is not None:
            self.error(
                symbol.source,
                symbol.span,
                "check.duplicate",
                f"'{symbol.name}' is already defined at {_place(existing.source, existing.span)}",
            )
            return False
        into.members[symbol.name] = symbol
        return True

    def error(
        self, source: SourceFile, span: Span, code: str, message: str, hint: str | None = None
    ) -> None:
        self.diagnostics.append(Diagnostic(Severity.ERROR, code, message, source, span, hint))


def _name_spans(node: ast.SectionDef, source: SourceFile) -> list[Span]:
    """Where each name of ``section a.b.c`` is written (the whole section if not found)."""
    text = source.text
    keyword = text.find("section", node.span.start, node.span.end)
    position = keyword + len("section") if keyword >= 0 else node.span.end
    spans: list[Span] = []
    for name in node.path:
        found = text.find(name, position, node.span.end)
        if found < 0:
            return [node.span] * len(node.path)
        spans.append(Span(found, found + len(name)))
        position = found + len(name)
    return spans


def _place(source: SourceFile, span: Span) -> str:
    where = source.position(span.start)
    return f"{source.name}:{where.line}:{where.column}"


def _same_unit(a: ast.UnitDef, b: ast.UnitDef) -> bool:
    return bool(dump(a.value) == dump(b.value))
