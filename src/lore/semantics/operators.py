"""Which values an operator combines, and what it gives: the types of ``a + b``,
``a < b`` and the like, with a hint when they do not combine."""

from __future__ import annotations

from lore.records import record
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
    assignable,
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


@record
class OperandProblem:
    """Why two operands do not combine (said after the message) and what to write."""

    reason: str | None = None
    hint: str | None = None


def operand_problem(op: str, left: Type, right: Type, texts: tuple[str, str]) -> OperandProblem:
    """Why ``left op right`` does not combine; ``texts`` are the operands as written, in
    parentheses where a member or a unit after them would bind to less."""
    if isinstance(left, UnitT) != isinstance(right, UnitT):
        return _bare_number(op, left, right, texts)
    if isinstance(left, UnitT) and isinstance(right, UnitT):
        if left.family is right.family:
            return OperandProblem(
                hint="Lore does not build compound units: take bare numbers with .toReal "
                "and give the result a unit"
            )
        return OperandProblem(hint=f"[{left.unit}] and [{right.unit}] measure different things")
    if isinstance(left, ListT) or isinstance(right, ListT):
        return _list_operand(op, left, right, texts)
    return OperandProblem()


def _bare_number(op: str, left: Type, right: Type, texts: tuple[str, str]) -> OperandProblem:
    unit = left if isinstance(left, UnitT) else right
    other, (unit_text, other_text) = (right, texts) if unit is left else (left, texts[::-1])
    assert isinstance(unit, UnitT)
    if not is_numeric(other):
        return OperandProblem()
    if op == "/" and unit is right:
        return OperandProblem(
            "a number cannot be divided by a quantity",
            f"divide by its bare number: {other_text} / {unit_text}.toReal",
        )
    return OperandProblem(
        f"the {other} has no unit",
        f"give it the unit of the other side: {other_text}[{unit.unit}]",
    )


def _list_operand(op: str, left: Type, right: Type, texts: tuple[str, str]) -> OperandProblem:
    if op == "+" and isinstance(left, ListT) and isinstance(right, ListT):
        if not assignable(right.element, left.element):
            return OperandProblem("'+' does not join lists, and these hold different types")
        return OperandProblem(
            "'+' does not join lists",
            f"{texts[0]}.addAll({texts[1]}) is a new list with the elements of both",
        )
    if op == "+" and isinstance(left, ListT) and assignable(right, left.element):
        return OperandProblem(
            "'+' does not add to a list",
            f"{texts[0]}.add({texts[1]}) is a new list with {texts[1]} at the end",
        )
    if op == "+" and isinstance(right, ListT) and assignable(left, right.element):
        return OperandProblem(
            "'+' does not add to a list",
            f"{texts[1]}.insertAt(0, {texts[0]}) is a new list with {texts[0]} first",
        )
    if op == "-" and isinstance(left, ListT) and assignable(right, left.element):
        return OperandProblem(
            "'-' does not take from a list",
            f"{texts[0]}.remove({texts[1]}) is a new list without the elements equal to it",
        )
    return OperandProblem()
