"""Lore's static types and the rules for which value fits where.

Types are frozen values. Forms, enums and sections are referred to by their symbol
(compared by identity), so two mentions of ``rules.PC`` are the same type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lore.records import record

if TYPE_CHECKING:
    from lore.semantics.symbols import EnumSymbol, FormSymbol, SectionSymbol
    from lore.semantics.units import UnitFamily


@record
class Type:
    def __str__(self) -> str:
        return display(self)


@record
class Prim(Type):
    """integer, real, number, string, boolean, url, jid, html, xml, date, loc, dice."""

    name: str


@record
class UnitT(Type):
    """A quantity in a unit family, shown in one of its units: ``unit[R]``."""

    family: UnitFamily
    unit: str


@record
class ListT(Type):
    element: Type


@record
class RangeT(Type):
    element: Type


@record
class DictT(Type):
    """``dict<K, V>``: a dictionary from keys of ``key`` to values of ``value``."""

    key: Type
    value: Type


@record
class FuncT(Type):
    """A function value: ``@<(T1,T2)->R>``; ``result`` None for rules (no value)."""

    params: tuple[Type, ...]
    result: Type | None


@record(eq=False)
class FormT(Type):
    symbol: FormSymbol

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FormT) and other.symbol is self.symbol

    def __hash__(self) -> int:
        return id(self.symbol)


@record(eq=False)
class EnumT(Type):
    symbol: EnumSymbol

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EnumT) and other.symbol is self.symbol

    def __hash__(self) -> int:
        return id(self.symbol)


@record
class AnonFormT(Type):
    """The type of an untyped form literal ``{ a = 1; b = "x"; }``."""

    members: tuple[tuple[str, Type], ...]

    def member(self, name: str) -> Type | None:
        for member, type_ in self.members:
            if member == name:
                return type_
        return None


@record
class TypeOf(Type):
    """A type used as a value (``integer`` in ``integer.input``, ``list<Item>``)."""

    type: Type


@record
class InputT(Type):
    """``T.input``: a query member that the participant fills in with a ``T``."""

    type: Type


@record(eq=False)
class SectionT(Type):
    symbol: SectionSymbol

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SectionT) and other.symbol is self.symbol

    def __hash__(self) -> int:
        return id(self.symbol)


@record
class TypeParam(Type):
    """A stand-in for "any type" in the reference's member tables (``T`` in ``list<T>``);
    the checker itself never meets one."""

    name: str


@record
class VoidT(Type):
    """What a rule call gives: no value."""


@record
class UnknownT(Type):
    """The type of something already reported as wrong; fits everywhere, says nothing."""


@record
class AnyT(Type):
    """``any``: the prelude's escape hatch for engine-provided members of any type."""


INTEGER = Prim("integer")
REAL = Prim("real")
NUMBER = Prim("number")
STRING = Prim("string")
BOOLEAN = Prim("boolean")
URL = Prim("url")
JID = Prim("jid")
HTML = Prim("html")
XML = Prim("xml")
DATE = Prim("date")
LOC = Prim("loc")
DICE = Prim("dice")
VOID = VoidT()
UNKNOWN = UnknownT()
ANY = AnyT()

PRIMITIVES = {
    p.name: p
    for p in (INTEGER, REAL, NUMBER, STRING, BOOLEAN, URL, JID, HTML, XML, DATE, LOC, DICE)
}
NUMERIC = (INTEGER, REAL, NUMBER)
TYPED_STRINGS = (URL, JID, HTML, XML, DATE, LOC)


def is_numeric(t: Type) -> bool:
    return t in NUMERIC


def is_lenient(t: Type) -> bool:
    return isinstance(t, UnknownT | AnyT)


def has_unknown(t: Type) -> bool:
    """Whether ``t`` is, or is built from, a type already reported as wrong."""
    if isinstance(t, UnknownT):
        return True
    if isinstance(t, ListT | RangeT):
        return has_unknown(t.element)
    if isinstance(t, DictT):
        return has_unknown(t.key) or has_unknown(t.value)
    if isinstance(t, TypeOf | InputT):
        return has_unknown(t.type)
    if isinstance(t, FuncT):
        return any(has_unknown(p) for p in t.params) or (
            t.result is not None and has_unknown(t.result)
        )
    return False


def assignable(source: Type, target: Type) -> bool:
    """Can a value of type ``source`` be given where ``target`` is expected?"""
    if source == target or is_lenient(source) or is_lenient(target):
        return True
    if isinstance(target, Prim):
        return _prim_assignable(source, target)
    if isinstance(target, UnitT):
        if isinstance(source, UnitT):
            return source.family is target.family
        # An integer is a count of the base unit of an integer-based family: ticks are
        # game seconds, so `ticks = 86400;` fits `unit[sec]`.
        return source == INTEGER and target.family.integer and target.unit == target.family.base
    if isinstance(target, ListT):
        return isinstance(source, ListT) and assignable(source.element, target.element)
    if isinstance(target, RangeT):
        return isinstance(source, RangeT) and assignable(source.element, target.element)
    if isinstance(target, DictT):
        return (
            isinstance(source, DictT)
            and assignable(source.key, target.key)
            and assignable(source.value, target.value)
        )
    if isinstance(target, FuncT):
        return isinstance(source, FuncT) and _func_assignable(source, target)
    if isinstance(target, FormT):
        return isinstance(source, FormT) and source.symbol.is_subform_of(target.symbol)
    if isinstance(target, EnumT):
        return isinstance(source, EnumT) and source.symbol.is_subenum_of(target.symbol)
    return False


def _prim_assignable(source: Type, target: Prim) -> bool:
    if target == NUMBER:
        return source in NUMERIC
    if target == REAL:
        return source == INTEGER
    if target == STRING:
        # Typed strings are strings; a plain string is not a url, xml, ...
        return source in TYPED_STRINGS
    if target == DICE:
        return source == INTEGER
    return False


def _func_assignable(source: FuncT, target: FuncT) -> bool:
    if len(source.params) != len(target.params):
        return False
    # Parameters are contravariant: the function must accept what the caller passes.
    if not all(assignable(t, s) for s, t in zip(source.params, target.params, strict=True)):
        return False
    if target.result is None:
        return True
    return source.result is not None and assignable(source.result, target.result)


def common_type(a: Type, b: Type) -> Type | None:
    """The type of a list holding both ``a`` and ``b``, if there is one."""
    if assignable(a, b):
        return b
    if assignable(b, a):
        return a
    if a in NUMERIC and b in NUMERIC:
        return REAL
    if isinstance(a, FormT) and isinstance(b, FormT):
        for ancestor in a.symbol.ancestors():
            if b.symbol.is_subform_of(ancestor):
                return FormT(ancestor)
    if a in (*TYPED_STRINGS, STRING) and b in (*TYPED_STRINGS, STRING):
        return STRING
    return None


def display(t: Type) -> str:
    """How a type is written in Lore (for messages)."""
    if isinstance(t, Prim):
        return t.name
    if isinstance(t, UnitT):
        return f"unit[{t.unit}]"
    if isinstance(t, ListT):
        return f"list<{display(t.element)}>"
    if isinstance(t, RangeT):
        return f"range<{display(t.element)}>"
    if isinstance(t, DictT):
        return f"dict<{display(t.key)}, {display(t.value)}>"
    if isinstance(t, TypeParam):
        return t.name
    if isinstance(t, FuncT):
        if not t.params and t.result is None:
            return "@<>"
        params = ",".join(display(p) for p in t.params)
        result = f"->{display(t.result)}" if t.result is not None else ""
        return f"@<({params}){result}>"
    if isinstance(t, FormT | EnumT):
        return t.symbol.qualified_name
    if isinstance(t, AnonFormT):
        inner = " ".join(f"{name} = {display(member)};" for name, member in t.members)
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(t, TypeOf):
        return f"type {display(t.type)}"
    if isinstance(t, InputT):
        return f"{display(t.type)}.input"
    if isinstance(t, SectionT):
        return f"section {t.symbol.qualified_name}"
    if isinstance(t, VoidT):
        return "no value"
    if isinstance(t, AnyT):
        return "any"
    return "unknown"
