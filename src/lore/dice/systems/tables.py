"""The random tables of the game systems, as BCDice rolls them: a table has a name,
dice and rows, and its result reads ``name(roll) ＞ row`` (``恐怖症表(36) ＞ ピン恐怖症：
針やピンが怖い。``). Their texts are in each system's data module (``*_tables``).

- ``Table``: one die, a row a face.
- ``RangeTable``: one die, a row a range of faces (given by the highest of each).
- ``D66Grid``: two d6, the first the row and the second the column (the roll shown
  as ``45``).
- ``D66Parity``: two d6, the first odd or even choosing a list, the second its row.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.dice.result import RollResult
from lore.dice.source import Tray
from lore.dice.systems.base import steps


def shown(name: str, rolled: int, row: str) -> str:
    return steps(f"{name}({rolled})", row)


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    rows: tuple[str, ...]

    def draw(self, tray: Tray) -> tuple[int, str]:
        face = tray.once(len(self.rows))
        return face, self.rows[face - 1]


@dataclass(frozen=True, slots=True)
class RangeTable:
    name: str
    sides: int
    rows: tuple[tuple[int, str], ...]  # (the highest face of the row, its text)

    def draw(self, tray: Tray) -> tuple[int, str]:
        face = tray.once(self.sides)
        return face, next(text for highest, text in self.rows if face <= highest)


@dataclass(frozen=True, slots=True)
class D66Grid:
    name: str
    rows: tuple[tuple[str, ...], ...]  # six rows of six

    def draw(self, tray: Tray) -> tuple[int, str]:
        first, second = tray.once(6), tray.once(6)
        return first * 10 + second, self.rows[first - 1][second - 1]


@dataclass(frozen=True, slots=True)
class D66Parity:
    name: str
    odd: tuple[str, ...]
    even: tuple[str, ...]

    def draw(self, tray: Tray) -> tuple[int, str]:
        first, second = tray.once(6), tray.once(6)
        rows = self.odd if first % 2 else self.even
        return first * 10 + second, rows[second - 1]


AnyTable = Table | RangeTable | D66Grid | D66Parity


def roll_table(table: AnyTable, tray: Tray) -> RollResult:
    rolled, row = table.draw(tray)
    return RollResult(shown(table.name, rolled, row))
