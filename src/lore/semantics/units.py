"""Unit families: ``[m]=1.0;`` starts a family, ``[km]=1000[m];`` joins one.

A family has one base unit. Values keep their magnitude in the base unit; a unit's
``factor`` is how many base units one of it is. A family whose base is defined by an
integer literal (``[sec]=1;``) is integer-based: its factors are whole numbers and a
conversion to one of its units rounds half up to a whole number.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from lore.records import field, record
from lore.syntax import ast
from lore.syntax.source import SourceFile, Span


@record(frozen=False, eq=False, slots=False)
class UnitFamily:
    base: str
    integer: bool
    factors: dict[str, Fraction] = field(default_factory=dict)

    def factor(self, unit: str) -> Fraction:
        return self.factors[unit]

    def __repr__(self) -> str:
        return f"UnitFamily([{self.base}])"


@record(frozen=False, slots=False)
class UnitDefinition:
    name: str
    node: ast.UnitDef
    source: SourceFile


class UnitError(Exception):
    """What is wrong with a unit. ``source`` is set when the problem lies in a unit's
    definition (reported there); ``silent`` when it was already reported (a unit
    defined from a broken one)."""

    def __init__(
        self, message: str, span: Span | None = None, hint: str | None = None, silent: bool = False
    ) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint
        self.silent = silent
        self.source: SourceFile | None = None


@record
class Quantity:
    """A constant met while evaluating a unit definition: magnitude and unit (or None)."""

    value: Fraction
    unit: str | None
    is_integer: bool


class UnitRegistry:
    """Every unit of a program, resolved to its family on demand."""

    def __init__(self) -> None:
        self.definitions: dict[str, UnitDefinition] = {}
        self.units: dict[str, UnitFamily] = {}
        # Units whose definition is wrong, or uses such a unit: reported once.
        self.broken: set[str] = set()
        self._resolving: list[str] = []

    def define(self, definition: UnitDefinition) -> UnitDefinition | None:
        """Record a definition; returns an earlier one of the same name, if any."""
        earlier = self.definitions.get(definition.name)
        if earlier is None:
            self.definitions[definition.name] = definition
        return earlier

    def family(self, unit: str) -> UnitFamily:
        """The family of ``unit``; raises UnitError when it is unknown or ill-defined."""
        found = self.units.get(unit)
        if found is not None:
            return found
        if unit in self.broken:
            raise UnitError(f"unit [{unit}] is ill-defined", silent=True)
        definition = self.definitions.get(unit)
        if definition is None:
            raise UnitError(f"unknown unit [{unit}]")
        if unit in self._resolving:
            raise self._circle(self._resolving[self._resolving.index(unit) :])
        self._resolving.append(unit)
        try:
            self._define_dependencies(unit, definition)
            family = self._define(unit, definition)
        except UnitError as error:
            self.broken.add(unit)
            if error.source is None and not error.silent:
                error.source = definition.source
                error.span = error.span or definition.node.span
            raise
        finally:
            self._resolving.pop()
        self.units[unit] = family
        return family

    def _define_dependencies(self, unit: str, definition: UnitDefinition) -> None:
        """Resolve the units a definition is made from, farthest first, so that a long
        chain of units (`[b]=2[a]; [c]=2[b]; ...`) does not recurse; a circle is
        reported with the path around it."""
        path = [unit]  # path[0] uses path[1], which uses path[2] ...
        pending = [iter(_units_in(definition.node))]
        seen: set[str] = set()
        order: list[str] = []
        while pending:
            name = next(pending[-1], None)
            if name is None:
                pending.pop()
                finished = path.pop()
                if pending:
                    order.append(finished)
                continue
            if name in path:
                raise self._circle(path[path.index(name) :])
            used = self.definitions.get(name)
            if name in seen or name in self.units or name in self.broken or used is None:
                continue
            seen.add(name)
            path.append(name)
            pending.append(iter(_units_in(used.node)))
        for name in order:
            self.family(name)

    def _circle(self, cycle: list[str]) -> UnitError:
        """The error for units defined in a circle: ``cycle[0]`` uses ``cycle[1]`` ..."""
        first = cycle[0]
        message = f"unit [{first}] is defined in terms of itself"
        if len(cycle) > 1:
            message += ": it uses " + ", which uses ".join(f"[{u}]" for u in [*cycle[1:], first])
        definition = self.definitions[first]
        error = UnitError(message, definition.node.span)
        error.source = definition.source
        self.broken.update(cycle)
        return error

    def _define(self, unit: str, definition: UnitDefinition) -> UnitFamily:
        quantity = self._evaluate(definition.node.value)
        value_span = definition.node.value.span
        if quantity.unit is None:
            if quantity.value != 1:
                raise UnitError(
                    f"a base unit is defined as 1 or 1.0, not {_show(quantity.value)}",
                    value_span,
                    f"write [{unit}]=1; (integer-based) or [{unit}]=1.0;",
                )
            family = UnitFamily(unit, quantity.is_integer)
            family.factors[unit] = Fraction(1)
            return family
        family = self.units[quantity.unit]
        factor = quantity.value * family.factor(quantity.unit)
        if family.integer and factor.denominator != 1:
            raise UnitError(
                f"[{unit}] must be a whole number of [{family.base}] because "
                f"[{family.base}] is integer-based",
                value_span,
                f"it is {_show(factor)}[{family.base}]",
            )
        if factor <= 0:
            raise UnitError(f"[{unit}] must be a positive amount", value_span)
        family.factors[unit] = factor
        return family

    def _evaluate(self, expr: ast.Expr) -> Quantity:
        if isinstance(expr, ast.IntLit):
            return Quantity(Fraction(expr.value), None, True)
        if isinstance(expr, ast.RealLit):
            return Quantity(Fraction(expr.value).limit_denominator(10**12), None, False)
        if isinstance(expr, ast.WithUnit):
            inner = self._evaluate(expr.value)
            if inner.unit is not None:
                raise UnitError("a unit is given twice", expr.span)
            try:
                self.family(expr.unit)
            except UnitError as error:
                if error.source is not None or error.silent:
                    raise
                raise UnitError(error.message, expr.span, error.hint) from None
            return Quantity(inner.value, expr.unit, inner.is_integer)
        if isinstance(expr, ast.Unary) and expr.op == "-":
            inner = self._evaluate(expr.operand)
            return Quantity(-inner.value, inner.unit, inner.is_integer)
        if isinstance(expr, ast.Binary) and expr.op in "+-*/":
            return self._evaluate_binary(expr)
        raise UnitError("a unit is defined by a constant like 1, 1.0 or 60[sec]", expr.span)

    def _evaluate_binary(self, expr: ast.Binary) -> Quantity:
        left = self._evaluate(expr.left)
        right = self._evaluate(expr.right)
        is_integer = left.is_integer and right.is_integer and expr.op != "/"
        if expr.op in "+-":
            if left.unit is not None or right.unit is not None:
                raise UnitError("only plain numbers can be added in a unit definition", expr.span)
            value = left.value + right.value if expr.op == "+" else left.value - right.value
            return Quantity(value, None, is_integer)
        if left.unit is not None and right.unit is not None:
            raise UnitError("a unit definition names one unit", expr.span)
        if expr.op == "*":
            return Quantity(left.value * right.value, left.unit or right.unit, is_integer)
        if right.unit is not None or right.value == 0:
            raise UnitError("divide only by a plain, non-zero number here", expr.span)
        return Quantity(left.value / right.value, left.unit, is_integer)


def _units_in(node: ast.UnitDef) -> list[str]:
    """The units that a unit definition names."""
    found: list[str] = []
    pending: list[ast.Expr] = [node.value]
    while pending:
        expr = pending.pop()
        if isinstance(expr, ast.WithUnit):
            found.append(expr.unit)
            pending.append(expr.value)
        elif isinstance(expr, ast.Unary):
            pending.append(expr.operand)
        elif isinstance(expr, ast.Binary):
            pending.extend((expr.left, expr.right))
    return found


def _show(value: Fraction) -> str:
    """A magnitude as a rule author would write it: 2, 0.5."""
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


@functools.cache
def basic_units() -> frozenset[str]:
    """The units that the bundled ``basic.lore`` defines (to hint at importing it)."""
    from lore.semantics.program import LIBRARY_DIR

    try:
        text = (LIBRARY_DIR / "basic.lore").read_text(encoding="utf-8")
    except OSError:
        return frozenset()
    return frozenset(re.findall(r"^\s*\[([^\]\s]+)\]\s*=", text, re.MULTILINE))
