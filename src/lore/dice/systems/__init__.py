"""BCDice's game systems: their own dice commands, chosen by BCDice's ids.

``evaluate_in("Cthulhu7th", "CC(1)<=50", source)`` rolls a line as a table playing that
system would with BCDice: the system's own commands first (``CC``, ``DX``, ``K20``...),
then BCDice's common ones (``2D6+3``), with the system's changes to them (in
``DoubleCross`` a die written without its sides, ``2D``, has 10)::

    >>> from lore.dice import FixedSource
    >>> evaluate_in("DoubleCross", "3DX+1@8>=10", FixedSource([9, 3, 2, 5])).text
    '(3DX8+1>=10) ＞ 10[2,3,9]+5[5]+1 ＞ 16 ＞ 成功'

The texts are BCDice's, in the language of its tables (Japanese for these systems).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lore.dice.add_dice import IMPLICIT_SIDES
from lore.dice.commands import evaluate
from lore.dice.result import RollResult
from lore.dice.source import RandomSource, Tray
from lore.dice.systems import cthulhu, cthulhu7th, doublecross, emoklore, swordworld2_5

Own = Callable[[str, Tray], RollResult | None]


@dataclass(frozen=True, slots=True)
class GameSystem:
    """One of BCDice's game systems: its id, its names and its commands."""

    id: str  # BCDice's id: "Cthulhu7th"
    name: str  # the game's own name: "新クトゥルフ神話TRPG"
    english: str
    commands: tuple[str, ...]  # examples of its own commands, for help
    roll: Own
    implicit_sides: int = IMPLICIT_SIDES


SYSTEMS: dict[str, GameSystem] = {
    system.id: system
    for system in (
        GameSystem(
            "Cthulhu",
            "クトゥルフ神話TRPG",
            "Call of Cthulhu 6th edition",
            ("CC<=60", "CCB<=50", "CC(98)<=80", "RES(12-10)", "CBR(70,30)"),
            cthulhu.roll,
        ),
        GameSystem(
            "Cthulhu7th",
            "新クトゥルフ神話TRPG",
            "Call of Cthulhu 7th edition",
            ("CC<=50", "CC(1)<=50", "CC(-2)<=50h", "CBR(70,30)", "BMR", "PH"),
            cthulhu7th.roll,
        ),
        GameSystem(
            "SwordWorld2.5",
            "ソード・ワールド2.5",
            "Sword World 2.5",
            ("K20+5@10", "K40+24@8$+1r10", "HK10+5", "2D6@10+15>=30", "gr", "ABT"),
            swordworld2_5.roll,
        ),
        GameSystem(
            "DoubleCross",
            "ダブルクロス3rd",
            "Double Cross 3rd",
            ("10DX+5@8", "5DX7>=10", "ET"),
            doublecross.roll,
            implicit_sides=10,
        ),
        GameSystem(
            "Emoklore", "エモクロアTRPG", "Emoklore TRPG", ("2DM<=5", "2DA3+1"), emoklore.roll
        ),
    )
}


def find(name: str) -> GameSystem | None:
    """The system of the id ``name`` (BCDice's spelling; case does not matter, and
    ``_`` may stand for ``.``, as in BCDice's file names: ``SwordWorld2_5``)."""
    found = SYSTEMS.get(name)
    if found is not None:
        return found
    folded = name.casefold().replace("_", ".")
    return next(
        (system for key, system in SYSTEMS.items() if key.casefold().replace("_", ".") == folded),
        None,
    )


def evaluate_in(system_id: str, text: str, source: RandomSource) -> RollResult | None:
    """Roll ``text`` as the game system ``system_id`` does (``KeyError`` for an unknown
    id); None when the line is no command of the system nor a common one."""
    found = find(system_id)
    if found is None:
        raise KeyError(system_id)
    return evaluate(text, source, found.roll, found.implicit_sides)


__all__ = ["SYSTEMS", "GameSystem", "evaluate_in", "find"]
