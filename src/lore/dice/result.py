"""What a dice command gives: its text, as BCDice writes it, and the facts behind it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lore.dice.source import Die


@dataclass(frozen=True, slots=True)
class RollResult:
    """The result of one dice command.

    - ``text``: BCDice's result text, steps joined by " ＞ " (``(2D6+3>=10) ＞ 9[6,3]+3 ＞
      12 ＞ 成功``).
    - ``total``: the number the command came to: the total of a sum (``2D6+3``), the
      count of successes of a pool with a target (``5B6>=4``, ``3R6>=5``, ``4U6[6]>=10``),
      the total of an upper roll without a target, the value of ``D66`` and ``C(...)``;
      None for ``choice``, tallies, repeats and messages.
    - ``dice``: every die rolled, in order, with its sides.
    - ``secret``: the command began with ``S`` (show it to the roller and the GM only).
    - ``success``, ``failure``: a sum with a target (``2D6>=7``) met it, or did not.
    - ``critical``, ``fumble``: set by rule systems; the common commands never set them.
    """

    text: str
    total: int | None = None
    dice: tuple[Die, ...] = ()
    secret: bool = False
    success: bool = False
    failure: bool = False
    critical: bool = False
    fumble: bool = False

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON values (what ``lore roll --json`` prints)."""
        return {
            "text": self.text,
            "total": self.total,
            "dice": [{"sides": die.sides, "value": die.value} for die in self.dice],
            "secret": self.secret,
            "success": self.success,
            "failure": self.failure,
            "critical": self.critical,
            "fumble": self.fumble,
        }
