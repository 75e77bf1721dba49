"""Symbols: what the names of a program stand for.

Sections, forms and enums hold their members by name. A symbol keeps its definition
node and the file it comes from, so that diagnostics can point at it.
"""

from __future__ import annotations

from collections.abc import Iterator

from lore.records import field, record
from lore.semantics.types import Type
from lore.syntax import ast
from lore.syntax.source import SourceFile, Span


@record(frozen=False, eq=False, slots=False)
class Symbol:
    name: str
    source: SourceFile
    span: Span
    parent: Container | None = None
    private: bool = False

    @property
    def kind(self) -> str:
        return "name"

    @property
    def qualified_name(self) -> str:
        names = [self.name]
        parent = self.parent
        while parent is not None and not parent.is_root:
            names.append(parent.name)
            parent = parent.parent
        return ".".join(reversed(names))


@record(frozen=False, eq=False, slots=False)
class Container(Symbol):
    """Something with named members: the root, a section, a form, an enum."""

    members: dict[str, Symbol] = field(default_factory=dict)

    @property
    def is_root(self) -> bool:
        return False


@record(frozen=False, eq=False, slots=False)
class SectionSymbol(Container):
    nodes: list[ast.SectionDef] = field(default_factory=list)
    root: bool = False

    @property
    def kind(self) -> str:
        return "section"

    @property
    def is_root(self) -> bool:
        return self.root


@record(frozen=False, eq=False, slots=False)
class VarSymbol(Symbol):
    """A value definition ``name = e;`` (in a section, or a form member with a default)."""

    node: ast.VarDef | None = None
    declared: Type | None = None  # from `name : T = e;`
    type: Type | None = None  # inferred, once known
    resolving: bool = False

    @property
    def kind(self) -> str:
        return "value"


@record(frozen=False, eq=False, slots=False)
class FieldSymbol(Symbol):
    """A form member declared ``name : T;`` (each object gives it a value)."""

    node: ast.FieldDecl | None = None
    type: Type | None = None
    default: ast.VarDef | None = None

    @property
    def kind(self) -> str:
        return "field"


@record(frozen=False, eq=False, slots=False)
class CallableSymbol(Symbol):
    """A rule, function, accessor or alter."""

    node: ast.RuleDef | ast.FunctionDef | ast.AccessorDef | ast.AlterDef | None = None
    params: tuple[Type, ...] | None = None
    param_names: tuple[str, ...] = ()
    result: Type | None = None  # None for rules and alters

    @property
    def kind(self) -> str:
        node = self.node
        if isinstance(node, ast.RuleDef):
            return "rule"
        if isinstance(node, ast.FunctionDef):
            return "function"
        if isinstance(node, ast.AlterDef):
            return "alter"
        return "accessor"


@record(frozen=False, eq=False, slots=False)
class FormSymbol(Container):
    node: ast.FormDef | None = None
    extends: FormSymbol | None = None
    extends_resolved: bool = False

    @property
    def kind(self) -> str:
        return "form"

    def ancestors(self) -> Iterator[FormSymbol]:
        """This form, then the forms it extends, nearest first (cycles cut)."""
        seen: set[int] = set()
        form: FormSymbol | None = self
        while form is not None and id(form) not in seen:
            seen.add(id(form))
            yield form
            form = form.extends

    def is_subform_of(self, other: FormSymbol) -> bool:
        return any(form is other for form in self.ancestors())

    def lookup(self, name: str) -> Symbol | None:
        """A member by name, inherited ones included (the nearest definition wins)."""
        for form in self.ancestors():
            found = form.members.get(name)
            if found is not None:
                return found
        return None

    def all_member_names(self) -> list[str]:
        names: list[str] = []
        for form in self.ancestors():
            names.extend(n for n in form.members if n not in names)
        return names


@record(frozen=False, eq=False, slots=False)
class EnumValueSymbol(Symbol):
    node: ast.EnumValue | None = None
    enum: EnumSymbol | None = None

    @property
    def kind(self) -> str:
        return "enum value"


@record(frozen=False, eq=False, slots=False)
class EnumSymbol(Container):
    """An enum: its values, and the members every value has."""

    node: ast.EnumDef | None = None
    values: dict[str, EnumValueSymbol] = field(default_factory=dict)
    extends: EnumSymbol | None = None

    @property
    def kind(self) -> str:
        return "enum"

    def is_subenum_of(self, other: EnumSymbol) -> bool:
        seen: set[int] = set()
        enum: EnumSymbol | None = self
        while enum is not None and id(enum) not in seen:
            if enum is other:
                return True
            seen.add(id(enum))
            enum = enum.extends
        return False

    def lookup_value(self, name: str) -> EnumValueSymbol | None:
        seen: set[int] = set()
        enum: EnumSymbol | None = self
        while enum is not None and id(enum) not in seen:
            seen.add(id(enum))
            if name in enum.values:
                return enum.values[name]
            enum = enum.extends
        return None


@record(frozen=False, eq=False, slots=False)
class BuiltinTypeSymbol(Symbol):
    """A type the prelude cannot define in Lore itself (``boolean``, ``any``)."""

    type: Type | None = None

    @property
    def kind(self) -> str:
        return "type"


@record(frozen=False, eq=False, slots=False)
class LocalSymbol(Symbol):
    """A parameter, a local binding or an ``as`` binding inside a body."""

    type: Type | None = None

    @property
    def kind(self) -> str:
        return "local"


TYPE_SYMBOLS = (FormSymbol, EnumSymbol, BuiltinTypeSymbol)
