"""Which values an operator combines, and what it gives: the types of ``a + b``,
``a < b`` and the like, with a hint when they do not combine."""

from __future__ import annotations

from lore.semantics.types import (
    BOOLEAN,
    DICE,
    INTEGER,
    NUMBER,
    PRIMITIVES,
    REAL,
    STRING,
    TYPED_STRINGS,
    DictT,
    EnumT,
    ListT,
    RangeT,
    Type,
    UnitT,
    is_numeric,
)


def ordered(left: Type, right: Type) -> bool:
    if is_numeric(left) and is_numeric(right):
        return True
    if isinstance(left, UnitT) and isinstance(right, UnitT):
        return left.family is right.family
    return left == right and left in (STRING, PRIMITIVES["date"])


def arithmetic(op: str, left: Type, right: Type) -> Type | None:
    if is_numeric(left) and is_numeric(right):
        if op == "/" and left == INTEGER and right == INTEGER:
            return INTEGER
        if left == right:
            return left
        return REAL if REAL in (left, right) else NUMBER
    if op == "+" and STRING in (left, right):
        # Text joins with text, typed strings, numbers and booleans: "HP: " + hp.
        other = right if left == STRING else left
        if (
            other in (*TYPED_STRINGS, STRING, BOOLEAN, DICE)
            or is_numeric(other)
            or isinstance(other, UnitT | EnumT | ListT | RangeT | DictT)
        ):
            return STRING
    if isinstance(left, UnitT) or isinstance(right, UnitT):
        return quantity_arithmetic(op, left, right)
    if DICE in (left, right) and op in "+-" and {left, right} <= {DICE, INTEGER}:
        return DICE
    return None


def quantity_arithmetic(op: str, left: Type, right: Type) -> Type | None:
    if isinstance(left, UnitT) and isinstance(right, UnitT):
        if left.family is not right.family:
            return None
        if op in "+-%":
            return left
        if op == "/":
            return REAL
        return None
    if op == "*" and isinstance(left, UnitT) and is_numeric(right):
        return left
    if op == "*" and isinstance(right, UnitT) and is_numeric(left):
        return right
    if op == "/" and isinstance(left, UnitT) and is_numeric(right):
        return left
    return None


def operand_hint(op: str, left: Type, right: Type) -> str | None:
    if isinstance(left, UnitT) != isinstance(right, UnitT):
        unit = left if isinstance(left, UnitT) else right
        other = right if unit is left else left
        assert isinstance(unit, UnitT)
        if is_numeric(other):
            return f"give the number a unit, like 1[{unit.unit}], or use .toReal"
    if isinstance(left, UnitT) and isinstance(right, UnitT):
        if left.family is right.family:
            return (
                "Lore does not build compound units: take bare numbers with .toReal "
                "and give the result a unit"
            )
        return f"[{left.unit}] and [{right.unit}] measure different things"
    return None
