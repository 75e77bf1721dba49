"""Where the dice of a command come from, and what BCDice allows a command to roll.

A command draws from a ``RandomSource``: anything with ``roll(sides) -> int`` giving a
face in ``1..sides``. The engine's per-handler stream (``Runtime.roll``) is one, so a
rule's ``roll("2D6")`` draws from the same stream as its other dice; ``FixedSource``
feeds given faces in order, as BCDice's own tests do; ``seeded`` and ``system`` make one
from Python's generators for the command line.

``Tray`` is what the commands roll with: it asks the source for each die, records every
face with its sides (the result shows them), and keeps BCDice's limits: at most 200 dice
in one throw (more roll nothing), dice of 1 to 10,000 sides (others show 0 without a
draw), and 10,000 dice in one command (more raise ``TooManyDice``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

MAX_TIMES = 200
MAX_SIDES = 10_000
MAX_RANDS = 10_000


class RandomSource(Protocol):
    """A source of dice: ``roll(sides)`` is a face in ``1..sides``."""

    def roll(self, sides: int) -> int: ...


class DiceError(Exception):
    """A dice command could not be rolled as asked (a limit, or fixed dice that do not
    fit the command)."""


class TooManyDice(DiceError):
    """A command would roll more than ``MAX_RANDS`` dice."""


@dataclass(frozen=True, slots=True)
class Die:
    """One die rolled: its sides and the face it showed."""

    sides: int
    value: int


@lru_cache(maxsize=64)
def faces_of(sides: int) -> tuple[Die, ...]:
    """The ``Die`` values of every face of a die (shared: they are immutable, and most
    dice rolled have few sides)."""
    return tuple(Die(sides, value) for value in range(1, sides + 1))


def die_of(sides: int, value: int) -> Die:
    if sides <= 1000 and 1 <= value <= sides:
        return faces_of(sides)[value - 1]
    return Die(sides, value)


class FixedSource:
    """Gives the faces it was made with, in order (for tests, and to replay a roll).

    Each face may be a number or a ``Die``; with a ``Die`` the command must ask for a die
    of those sides. Asking for more dice than given, or a face larger than the die asked
    for, raises ``DiceError``; ``left`` tells how many faces were not used. With
    ``zeros`` a face may be 0 (BCDice's own tests give a d10 read as a digit 0 for 10)."""

    def __init__(self, faces: Iterable[int | Die], zeros: bool = False) -> None:
        self._faces = list(faces)
        self._next = 0
        self._lowest = 0 if zeros else 1

    @property
    def left(self) -> int:
        return len(self._faces) - self._next

    def roll(self, sides: int) -> int:
        if self._next >= len(self._faces):
            raise DiceError(f"the command rolls more dice than the {len(self._faces)} faces given")
        face = self._faces[self._next]
        self._next += 1
        number = self._next
        if isinstance(face, Die):
            if face.sides != sides:
                raise DiceError(
                    f"die {number} was given as a d{face.sides}, but a d{sides} is rolled"
                )
            face = face.value
        if not self._lowest <= face <= sides:
            raise DiceError(f"die {number} is given as {face}, but a d{sides} is rolled")
        return face


class PythonSource:
    """Dice from a Python generator (``random.Random`` or ``random.SystemRandom``)."""

    def __init__(self, generator: random.Random) -> None:
        self._randint = generator.randint

    def roll(self, sides: int) -> int:
        return self._randint(1, sides)


def seeded(seed: int) -> PythonSource:
    """Dice that are the same for the same seed."""
    return PythonSource(random.Random(seed))


def system() -> PythonSource:
    """Dice from the operating system's random source."""
    return PythonSource(random.SystemRandom())


class Tray:
    """Rolls dice for one command from a source, as BCDice's randomizer does, and keeps
    every face rolled."""

    __slots__ = ("_roll", "dice")

    def __init__(self, source: RandomSource) -> None:
        self._roll = source.roll
        self.dice: list[Die] = []

    def once(self, sides: int) -> int:
        """One die; a die of no sides, or of more than ``MAX_SIDES``, shows 0 undrawn."""
        if sides <= 0 or sides > MAX_SIDES:
            return 0
        if len(self.dice) >= MAX_RANDS:
            raise TooManyDice(f"a command rolls at most {MAX_RANDS:,} dice")
        value = self._roll(sides)
        self.dice.append(die_of(sides, value))
        return value

    def barabara(self, times: int, sides: int) -> list[int]:
        """``times`` dice; none when ``times`` is not in ``1..MAX_TIMES``."""
        if times <= 0 or times > MAX_TIMES:
            return []
        if sides <= 0 or sides > MAX_SIDES:
            return [0] * times
        dice = self.dice
        if len(dice) + times > MAX_RANDS:
            raise TooManyDice(f"a command rolls at most {MAX_RANDS:,} dice")
        roll = self._roll
        values = [roll(sides) for _ in range(times)]
        dice.extend([die_of(sides, value) for value in values])
        return values

    def index(self, size: int) -> int:
        """A place in a list of ``size`` items (one d``size``)."""
        return self.once(size) - 1

    def d66(self, order: str = "") -> int:
        """Two d6 read as tens and units; ``order`` "A" puts the lower first, "D" the
        higher, "" keeps them as rolled."""
        first, second = self.once(6), self.once(6)
        if (order == "A" and first > second) or (order == "D" and first < second):
            first, second = second, first
        return first * 10 + second
