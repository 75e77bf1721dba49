"""Unit families: ``[m]=1.0;`` starts a family, ``[km]=1000[m];`` joins one.

A family has one base unit. Values keep their magnitude in the base unit; a unit's
``factor`` is how many base units one of it is. A family whose base is defined by an
integer literal (``[sec]=1;``) is integer-based: its factors are whole numbers and a
conversion to one of its units rounds half up to a whole number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from lore.syntax import ast
from lore.syntax.source import SourceFile, Span


@dataclass(eq=False)
class UnitFamily:
    base: str
    integer: bool
    factors: dict[str, Fraction] = field(default_factory=dict)

    def factor(self, unit: str) -> Fraction:
        return self.factors[unit]

    def __repr__(self) -> str:
        return f"UnitFamily([{self.base}])"


@dataclass
class UnitDefinition:
    name: str
    node: ast.UnitDef
    source: SourceFile


class UnitError(Exception):
    def __init__(self, message: str, span: Span | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint
        self.source: SourceFile | None = None


@dataclass(frozen=True, slots=True)
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
        self._resolving: set[str] = set()

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
        definition = self.definitions.get(unit)
        if definition is None:
            raise UnitError(f"unknown unit [{unit}]")
        if unit in self._resolving:
            error = UnitError(f"unit [{unit}] is defined in terms of itself",
                              definition.node.span)
            error.source = definition.source
            raise error
        self._resolving.add(unit)
        try:
            quantity = self._evaluate(definition.node.value)
        except UnitError as error:
            if error.source is None:
                error.source = definition.source
                error.span = error.span or definition.node.span
            raise
        finally:
            self._resolving.discard(unit)
        if quantity.unit is None:
            family = UnitFamily(unit, quantity.is_integer)
            if quantity.value != 1:
                raise UnitError(f"a base unit is defined as 1 or 1.0, not {quantity.value}",
                                definition.node.value.span,
                                f"write [{unit}]=1; (integer-based) or [{unit}]=1.0;")
            family.factors[unit] = Fraction(1)
        else:
            family = self.units[quantity.unit]
            factor = quantity.value * family.factor(quantity.unit)
            if family.integer and factor.denominator != 1:
                raise UnitError(f"[{unit}] must be a whole number of [{family.base}] because "
                                f"[{family.base}] is integer-based",
                                definition.node.value.span)
            if factor <= 0:
                raise UnitError(f"[{unit}] must be a positive amount", definition.node.value.span)
            family.factors[unit] = factor
        self.units[unit] = family
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
                if error.source is not None:
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
                raise UnitError("only plain numbers can be added in a unit definition",
                                expr.span)
            value = left.value + right.value if expr.op == "+" else left.value - right.value
            return Quantity(value, None, is_integer)
        if left.unit is not None and right.unit is not None:
            raise UnitError("a unit definition names one unit", expr.span)
        if expr.op == "*":
            return Quantity(left.value * right.value, left.unit or right.unit, is_integer)
        if right.unit is not None or right.value == 0:
            raise UnitError("divide only by a plain, non-zero number here", expr.span)
        return Quantity(left.value / right.value, left.unit, is_integer)
