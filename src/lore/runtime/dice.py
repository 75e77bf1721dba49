"""Dice values: ``3D6+2``, ``d6-2``, sums of dice and constants."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from lore.runtime.errors import LimitExceeded, RuleError
from lore.semantics import literals

# The checker holds dice literals to the same limits.
MAX_DICE = literals.MAX_DICE
MAX_SIDES = literals.MAX_SIDES


class RandomSource(Protocol):
    """What dice are rolled with: the engine gives each handler its own."""

    def randint(self, low: int, high: int) -> int: ...

    def roll(self, sides: int) -> int:
        """One die: ``randint(1, sides)``, the same number, on the quickest path."""
        ...

    def rolls(self, count: int, sides: int) -> int:
        """The sum of ``count`` dice of ``sides`` sides, as ``count`` calls of ``roll``."""
        ...


@dataclass(frozen=True, slots=True)
class Dice:
    """Groups of (count, sides) — a negative count subtracts — plus a constant."""

    groups: tuple[tuple[int, int], ...]
    bonus: int = 0

    @classmethod
    def of(cls, count: int, sides: int) -> Dice:
        if sides < 1:
            raise RuleError(f"a die has at least one side, not {sides}")
        if count < 0:
            raise RuleError(
                f"cannot roll {count} dice",
                "a number of dice is 0 or more; write -(n)d6 to subtract",
            )
        if sides > MAX_SIDES:
            raise LimitExceeded(f"dice with {sides} sides are more than the limit of {MAX_SIDES}")
        if abs(count) > MAX_DICE:
            raise LimitExceeded(
                f"{count} dice are more than the limit of {MAX_DICE} in one roll",
                "roll fewer dice, or count successes with a rule",
            )
        return cls(((count, sides),), 0)

    def count(self) -> int:
        return sum(abs(count) for count, _ in self.groups)

    def __add__(self, other: Dice | int) -> Dice:
        if isinstance(other, Dice):
            joined = Dice(self.groups + other.groups, self.bonus + other.bonus)
            if joined.count() > MAX_DICE:
                raise LimitExceeded(f"more than {MAX_DICE} dice in one roll")
            return joined
        return Dice(self.groups, self.bonus + other)

    __radd__ = __add__

    def __neg__(self) -> Dice:
        return Dice(tuple((-count, sides) for count, sides in self.groups), -self.bonus)

    def __sub__(self, other: Dice | int) -> Dice:
        return self + (-other)

    def __rsub__(self, other: int) -> Dice:
        return (-self) + other

    def roll(self, rng: RandomSource) -> int:
        die = rng.roll
        total = self.bonus
        for count, sides in self.groups:
            if count == 1:  # the common case (1D6, 1D20): one die, no loop
                total += die(sides)
                continue
            rolled = rng.rolls(abs(count), sides)
            total += rolled if count >= 0 else -rolled
        return total

    def min(self) -> int:
        return self.bonus + sum(count * (1 if count > 0 else sides) for count, sides in self.groups)

    def max(self) -> int:
        return self.bonus + sum(count * (sides if count > 0 else 1) for count, sides in self.groups)

    def mean(self) -> float:
        return self.bonus + sum(count * (sides + 1) / 2 for count, sides in self.groups)

    def __str__(self) -> str:
        parts = []
        for count, sides in self.groups:
            sign = "-" if count < 0 else "+"
            parts.append(f"{sign}{abs(count)}D{sides}")
        if self.bonus:
            parts.append(f"{'+' if self.bonus > 0 else '-'}{abs(self.bonus)}")
        text = "".join(parts) or "0"
        return text[1:] if text.startswith("+") else text
