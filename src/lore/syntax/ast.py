"""The Lore abstract syntax tree.

Every node is a frozen, slotted dataclass (a ``record``: its methods are made when first
used) with a ``span`` (character offsets in its file). Equality compares spans too;
:func:`lore.syntax.dump.dump` gives the span-free structure used by golden files and
round-trip properties.
"""

from __future__ import annotations

from lore.records import record
from lore.syntax.source import Span


@record
class Node:
    span: Span


# ---------------------------------------------------------------- types


@record
class NamedType(Node):
    """A builtin type keyword or a (qualified) form/enum name: ``integer``, ``rules.PC``."""

    parts: tuple[str, ...]

    @property
    def dotted(self) -> str:
        return ".".join(self.parts)


@record
class ListType(Node):
    element: TypeExpr
    wildcard: bool = False  # list<? extends T>


@record
class RangeType(Node):
    element: TypeExpr


@record
class DictType(Node):
    """``dict<K, V>``: dictionaries from keys of ``key`` to values of ``value``."""

    key: TypeExpr
    value: TypeExpr


@record
class UnitType(Node):
    unit: str  # the name inside the brackets: "R" for unit[R]


@record
class FunctionType(Node):
    """``@<(T1,T2):R>``, ``@<(T)->R>``, ``@<T->R>``, ``@<(PC)>``, ``@<>``."""

    params: tuple[TypeExpr, ...]
    result: TypeExpr | None
    arrow: bool = True
    parenthesized: bool = True


TypeExpr = NamedType | ListType | RangeType | DictType | UnitType | FunctionType


# ---------------------------------------------------------------- expressions


@record
class IntLit(Node):
    value: int
    text: str


@record
class RealLit(Node):
    value: float
    text: str


@record
class BoolLit(Node):
    value: bool


@record
class StringLit(Node):
    """A string; ``delimiter`` is ``"``, ``'`` or the opener of a long string (``[=[``).

    ``kind`` is the typed-string suffix (``url``, ``loc``, ``xml``, ...) or None.
    """

    value: str
    delimiter: str
    kind: str | None = None
    kind_span: Span | None = None


@record
class DiceLit(Node):
    """``3D6``, ``d6``, ``4d`` (4d6), ``D`` (1d6); ``text`` keeps the author's spelling."""

    count: int
    sides: int
    text: str


@record
class Name(Node):
    """An identifier, ``self`` or ``result``."""

    name: str


@record
class Member(Node):
    target: Expr
    name: str
    name_span: Span


@record
class Call(Node):
    func: Expr
    args: tuple[Expr, ...]


@record
class NamedArg(Node):
    """An argument given by name: ``min = 0`` in ``unit[hour].input(min = 0)``."""

    name: str
    value: Expr


@record
class Unary(Node):
    op: str  # "-" or "!"
    operand: Expr


@record
class Binary(Node):
    op: str  # + - * / % == != < > <= >= & |
    left: Expr
    right: Expr


@record
class RangeExpr(Node):
    """``a,...,b`` [a,b]; ``a<...,b`` (a,b]; ``a,...<b`` [a,b); ``a<...<b`` (a,b)."""

    low: Expr
    high: Expr
    low_open: bool
    high_open: bool

    @property
    def op(self) -> str:
        return ("<..." if self.low_open else ",...") + ("<" if self.high_open else ",")


@record
class WithUnit(Node):
    """``5[min]``: a number (or expression) given a unit."""

    value: Expr
    unit: str


@record
class DiceOf(Node):
    """``(1+2)d6``, ``x d6``, ``2 D 6``: a computed number of dice."""

    count: Expr
    sides: Expr
    text: str  # the dice word as written after the count ("d6", "D")


@record
class ListLit(Node):
    items: tuple[Expr, ...]


@record
class FormLit(Node):
    """``{ a = 1; rule r {...} }`` optionally typed ``{...}:Event``."""

    members: tuple[Definition, ...]
    type: TypeExpr | None = None


@record
class Lambda(Node):
    """``@{...}``, ``@(x : T){...}``, ``@(x:T):R{...}``, ``@ x:real -> real x*x``."""

    params: tuple[Param, ...]
    result: TypeExpr | None
    body: Block | Expr
    parenthesized: bool = True
    arrow: bool = False  # '->' rather than ':' before the result type


@record
class Conditional(Node):
    """``if (c) a else b``: ``a`` when ``c`` holds, else ``b`` (an extension)."""

    condition: Expr
    then: Expr
    otherwise: Expr


@record
class TypeValue(Node):
    """A type used as a value: ``list<Item>`` in ``list<Item>.empty``, ``unit[R]``."""

    type: TypeExpr


@record
class CaseArm(Node):
    values: tuple[Expr, ...]
    body: Block


@record
class AsArm(Node):
    name: str
    name_span: Span
    type: TypeExpr
    body: Block


@record
class Select(Node):
    """``select(e){ case(v){...} ... default{...} }`` or with ``as(x : T){...}`` arms."""

    subject: Expr
    arms: tuple[CaseArm | AsArm, ...]
    default: Block | None


Expr = (
    IntLit
    | RealLit
    | BoolLit
    | StringLit
    | DiceLit
    | Name
    | Member
    | Call
    | NamedArg
    | Unary
    | Binary
    | RangeExpr
    | WithUnit
    | DiceOf
    | ListLit
    | FormLit
    | Lambda
    | TypeValue
    | Select
    | Conditional
)


# ---------------------------------------------------------------- statements


@record
class Block(Node):
    statements: tuple[Statement, ...]


@record
class Assign(Node):
    """``x = e;`` (a local, or ``result``) or ``self.x = e;`` (a modification, G14)."""

    target: Name | Member
    value: Expr


@record
class Modify(Node):
    """``self.x := e;`` or ``x := e;``: a modification, allowed only in an alter."""

    target: Name | Member
    value: Expr


@record
class ExprStmt(Node):
    expr: Expr


@record
class If(Node):
    """``if (c) {...} else {...}``: a documented extension to the original language."""

    condition: Expr
    then: Block
    otherwise: Block | If | None


@record
class TypedLocal(Node):
    """``x : T = e;``: a new local of type ``T`` (an extension)."""

    name: str
    name_span: Span
    type: TypeExpr
    value: Expr


@record
class For(Node):
    """``for (x in xs) { ... }``: the body once for each element of a list or each whole
    number of a range, in order (an extension)."""

    name: str
    name_span: Span
    items: Expr
    body: Block


@record
class LocalDef(Node):
    """A function, rule, form, enum or unit defined inside a block."""

    definition: Definition


Statement = Assign | Modify | ExprStmt | If | For | TypedLocal | LocalDef


# ---------------------------------------------------------------- definitions


@record
class Param(Node):
    name: str
    type: TypeExpr | None


@record
class VarDef(Node):
    """``name = e;`` (optionally ``name : T = e;``) in a section, form or enum value."""

    name: str
    name_span: Span
    value: Expr
    modifiers: tuple[str, ...] = ()
    type: TypeExpr | None = None


@record
class FieldDecl(Node):
    """``name : T;``: a member that each object gives a value to."""

    name: str
    name_span: Span
    type: TypeExpr
    modifiers: tuple[str, ...] = ()


@record
class UnitDef(Node):
    """``[R] = 5[min];`` or ``[m] = 1.0;`` (a base unit)."""

    unit: str
    value: Expr
    modifiers: tuple[str, ...] = ()


@record
class EnumValue(Node):
    name: str
    members: tuple[Definition, ...]


@record
class EnumDef(Node):
    name: str
    name_span: Span
    extends: TypeExpr | None
    values: tuple[EnumValue, ...]
    members: tuple[Definition, ...]  # member declarations shared by all values
    modifiers: tuple[str, ...] = ()


@record
class FormDef(Node):
    name: str
    name_span: Span
    extends: TypeExpr | None
    members: tuple[Definition, ...]
    modifiers: tuple[str, ...] = ()


@record
class RuleDef(Node):
    """``rule name[(params)] { ... }``: a procedure."""

    name: str
    name_span: Span
    params: tuple[Param, ...] | None
    body: Block
    modifiers: tuple[str, ...] = ()


@record
class FunctionDef(Node):
    """``function f(x : T) : R { ... }`` (or ``-> R``); sets ``result``."""

    name: str
    name_span: Span
    params: tuple[Param, ...]
    result: TypeExpr
    body: Block
    modifiers: tuple[str, ...] = ()
    arrow: bool = False


@record
class AccessorDef(Node):
    """``name(params) : T { ... }`` (G13) or ``name(params) -> T { ... }`` (G14)."""

    name: str
    name_span: Span
    params: tuple[Param, ...] | None
    result: TypeExpr
    body: Block
    modifiers: tuple[str, ...] = ()
    arrow: bool = False


@record
class AlterDef(Node):
    """``alter moved(goals : list<loc>) { self.location := goals.get1st; }``."""

    name: str
    name_span: Span
    params: tuple[Param, ...]
    body: Block
    modifiers: tuple[str, ...] = ()


@record
class SectionDef(Node):
    """``section a.b.c { ... }`` (equal to nested sections ``a { b { c { ... } } }``)."""

    path: tuple[str, ...]
    members: tuple[Definition, ...]
    modifiers: tuple[str, ...] = ()


Definition = (
    VarDef
    | FieldDecl
    | UnitDef
    | EnumDef
    | FormDef
    | RuleDef
    | FunctionDef
    | AccessorDef
    | AlterDef
    | SectionDef
)


# ---------------------------------------------------------------- documents


@record
class Entry(Node):
    """``name = value`` inside docinfo{...} or history(...){...}."""

    name: str
    value: Expr


@record
class DocInfo(Node):
    entries: tuple[Entry, ...]


@record
class Desc(Node):
    title: Expr
    body: tuple[Expr, ...]


@record
class Author(Node):
    name: Expr
    contacts: tuple[Expr, ...]


@record
class History(Node):
    date: Expr
    entries: tuple[Entry, ...]


@record
class Import(Node):
    url: Expr


Header = DocInfo | Desc | Author | History | Import


@record
class Module(Node):
    header: tuple[Header, ...]
    body: tuple[Definition, ...]
