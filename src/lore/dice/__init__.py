"""BCDice's dice commands, with BCDice's result text: ``2D6+3>=10``, ``4D6KH3``,
``5B6>=4``, ``3R6[6]>=5``, ``4U6[6]``, ``D66``, ``C(1+2)``, ``choice[A,B]``, ``x3 2D6``,
``20TY6``, and ``S`` first for a secret roll.

The package is pure: no I/O, and nothing of the rest of Lore, so that the engine (a
rule's ``roll("2D6")``), the session server (chat rolls) and the command line can all
use it. The dice come from a ``RandomSource`` (anything with ``roll(sides)``)::

    >>> from lore.dice import FixedSource, evaluate
    >>> result = evaluate("2D6+3>=10", FixedSource([6, 3]))
    >>> result.text
    '(2D6+3>=10) ＞ 9[6,3]+3 ＞ 12 ＞ 成功'
    >>> result.total, result.success, [die.value for die in result.dice]
    (12, True, [6, 3])
    >>> evaluate("hello", FixedSource([])) is None
    True

``lore.dice.odds`` gives the exact odds of a command's outcomes.
"""

from __future__ import annotations

from lore.dice.commands import evaluate
from lore.dice.result import RollResult
from lore.dice.source import (
    DiceError,
    Die,
    FixedSource,
    PythonSource,
    RandomSource,
    TooManyDice,
    seeded,
    system,
)

__all__ = [
    "DiceError",
    "Die",
    "FixedSource",
    "PythonSource",
    "RandomSource",
    "RollResult",
    "TooManyDice",
    "evaluate",
    "seeded",
    "system",
]
