"""Quantities: a magnitude in a unit family.

The magnitude is kept in the family's base unit: an ``int`` for an integer-based
family (time: ticks), a ``float`` for a real-based one. Converting to a unit of an
integer-based family rounds half up to a whole number of that unit.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Final

from lore.runtime.errors import LimitExceeded, RuleError, bounded_whole
from lore.semantics.units import UnitFamily


def round_half_up(value: Fraction | float | int) -> int:
    return math.floor(Fraction(value) + Fraction(1, 2))


class Quantity:
    """An immutable quantity; ``unit`` is how it is shown and what it converts to."""

    __slots__ = ("family", "unit", "value")

    def __init__(self, value: int | float, unit: str, family: UnitFamily) -> None:
        # Final: nothing sets them again (mypy holds the code to it). A guard in
        # ``__setattr__`` would make every quantity, the clock's of each step among them,
        # cost twice as much to make.
        self.value: Final = value
        self.unit: Final = unit
        self.family: Final = family

    @classmethod
    def of(cls, amount: int | float, unit: str, family: UnitFamily) -> Quantity:
        """``amount`` of ``unit``: ``Quantity.of(5, "min", time)`` is 300 ticks."""
        factor = family.factors[unit]
        if family.integer:
            return cls(bounded_whole(round_half_up(Fraction(amount) * factor)), unit, family)
        try:
            return cls(float(amount * factor), unit, family)
        except OverflowError:
            raise LimitExceeded(f"a quantity in [{unit}] too large for a number") from None

    def _same(self, other: Quantity) -> None:
        if other.family is not self.family:
            raise RuleError(
                f"cannot combine [{self.unit}] and [{other.unit}]: they measure different things"
            )

    def _make(self, value: int | float | Fraction) -> Quantity:
        if self.family.integer:
            whole = value if isinstance(value, int) else round_half_up(value)
            return Quantity(bounded_whole(whole), self.unit, self.family)
        return Quantity(float(value), self.unit, self.family)

    def __add__(self, other: Quantity) -> Quantity:
        family = self.family
        if other.family is not family:
            self._same(other)
        return Quantity(self.value + other.value, self.unit, family)

    def __sub__(self, other: Quantity) -> Quantity:
        family = self.family
        if other.family is not family:
            self._same(other)
        return Quantity(self.value - other.value, self.unit, family)

    def __mul__(self, other: int | float) -> Quantity:
        return self._make(self.value * other)

    __rmul__ = __mul__

    def __truediv__(self, other: int | float | Quantity) -> Quantity | float:
        if isinstance(other, Quantity):
            self._same(other)
            if other.value == 0:
                raise RuleError("division by a zero quantity")
            return self.value / other.value
        if other == 0:
            raise RuleError("division by zero")
        if self.family.integer:
            return self._make(Fraction(self.value) / Fraction(other))
        return self._make(self.value / other)

    def __mod__(self, other: Quantity) -> Quantity:
        self._same(other)
        if other.value == 0:
            raise RuleError("remainder by a zero quantity")
        return Quantity(self.value % other.value, self.unit, self.family)

    def __neg__(self) -> Quantity:
        return Quantity(-self.value, self.unit, self.family)

    def __abs__(self) -> Quantity:
        return Quantity(abs(self.value), self.unit, self.family)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Quantity)
            and other.family is self.family
            and other.value == self.value
        )

    def __hash__(self) -> int:
        return hash((id(self.family), self.value))

    def __lt__(self, other: Quantity) -> bool:
        if other.family is not self.family:  # (``_same`` only then: most compare alike)
            self._same(other)
        return self.value < other.value

    def __le__(self, other: Quantity) -> bool:
        if other.family is not self.family:  # (``_same`` only then: most compare alike)
            self._same(other)
        return self.value <= other.value

    def __gt__(self, other: Quantity) -> bool:
        if other.family is not self.family:  # (``_same`` only then: most compare alike)
            self._same(other)
        return self.value > other.value

    def __ge__(self, other: Quantity) -> bool:
        if other.family is not self.family:  # (``_same`` only then: most compare alike)
            self._same(other)
        return self.value >= other.value

    def to(self, unit: str) -> Quantity:
        """The same quantity shown in ``unit`` (rounded for integer-based families)."""
        if unit == self.unit:
            return self
        factor = self.family.factors[unit]
        if self.family.integer and factor != 1:
            whole = round_half_up(Fraction(self.value) / factor) * factor
            return Quantity(int(whole), unit, self.family)
        return Quantity(self.value, unit, self.family)

    def rounded(self, unit: str, how: str) -> Quantity:
        """``unit[R].ceil(x)``: a whole number of ``unit`` (``ceil``, ``floor``, ``round``)."""
        factor = self.family.factors[unit]
        ratio = Fraction(self.value) / factor
        count = {"ceil": math.ceil, "floor": math.floor}.get(how, round_half_up)(ratio)
        value = count * factor
        return Quantity(int(value) if self.family.integer else float(value), unit, self.family)

    def amount(self) -> int | float:
        """The magnitude in its own unit (what a player sees)."""
        ratio = Fraction(self.value) / self.family.factors[self.unit]
        return int(ratio) if ratio.denominator == 1 else float(ratio)

    def to_real(self) -> float:
        return float(self.value)

    def to_int(self) -> int:
        """The magnitude in the base unit as a whole number (halves round up)."""
        value = self.value
        return value if isinstance(value, int) else round_half_up(value)

    def __repr__(self) -> str:
        return f"{self.amount()}[{self.unit}]"

    __str__ = __repr__
