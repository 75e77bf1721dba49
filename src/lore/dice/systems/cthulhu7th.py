"""新クトゥルフ神話TRPG, 7th edition (BCDice's ``Cthulhu7th``): ``CC`` and ``CBR``.

- ``CC(n)<=x``: a percentile roll with n bonus dice (n > 0) or penalty dice (n < 0),
  -100 to 100, also written ``CC1``, ``CC-1``: a units d10 and 1+|n| tens d10 (the tens
  rolled first), keeping the lowest result with bonus dice and the highest with penalty
  dice (``(1D100<=93) ボーナス・ペナルティダイス[-1] ＞ 92, 72 ＞ 92 ＞ レギュラー成功``).
  The result is クリティカル (a 1), ファンブル (100, or 96 and more against a value
  below 50), イクストリーム成功 (a fifth of x or less), ハード成功 (half), レギュラー成功
  or 失敗. ``CC`` with no value (or 0) and no bonus dice is 1D100.
- ``CC<=xr``, ``h``, ``e``, ``c``: a check of that difficulty (regular; hard, x/2;
  extreme, x/5; critical, 0): 成功 or 失敗, with クリティカル and ファンブル.
- ``CBR(x,y)``: one 1D100 against two values: 成功 when both succeed, 部分的成功 when
  one does, 失敗 when none.
- ``FAR(...)``: full-auto fire (``lore.dice.systems.full_auto``).
- The tables (``lore.dice.systems.cthulhu7th_tables``): ``BMR``, ``BMS``, a bout of
  madness (a d10, then the 1D10 of its length in rounds or hours); ``FCL``, ``FCM``,
  a failed pushed casting roll (1D8); ``PH``, ``MA``, phobias and manias (1D100).
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.dice.lexer import NUMBER, ParseError
from lore.dice.result import RollResult
from lore.dice.source import Tray
from lore.dice.systems.base import SystemParser, own_commands, parsed, steps
from lore.dice.systems.cthulhu7th_tables import BOUTS, TABLES
from lore.dice.systems.tables import Table, roll_table

BONUS_LIMIT = 100
DIFFICULTY = {"R": 1, "H": 2, "E": 5, "C": 0}  # the value is divided by this (C: 0)


@dataclass(frozen=True, slots=True)
class Check:
    bonus: int
    target: int  # 0: none
    difficulty: str  # "" or R, H, E, C


@dataclass(frozen=True, slots=True)
class Combined:
    targets: tuple[int, int]


def read(parser: SystemParser) -> Check | Combined:
    if parser.letters("CBR"):
        parser.expect("(")
        first = parser.value()
        parser.expect(",")
        second = parser.value()
        parser.expect(")")
        return Combined((first, second))
    if not parser.letters("CC"):
        raise ParseError("not a command of Cthulhu7th")
    bonus = 0
    if parser.accept("("):
        bonus = parser.signed_number()
        parser.expect(")")
    elif parser.peek().kind in ("+", "-", NUMBER):
        bonus = parser.signed_number()
    target, difficulty = 0, ""
    if parser.at_cmp():
        if parser.cmp() != "<=":
            raise ParseError("CC compares with <= only")
        target = parser.value()
        letter = parser.peek().kind
        if letter in DIFFICULTY:
            parser.pos += 1
            difficulty = letter
    return Check(bonus, target, difficulty)


def parse(word: str) -> Check | Combined | None:
    found = parsed(read, word)
    return found if isinstance(found, Check | Combined) else None


def level(roll: int, target: int) -> str:
    """The result of ``roll`` against ``target`` (BCDice's word for it)."""
    if roll == 1:
        return "クリティカル"
    if roll == 100 or (target < 50 and roll >= 96):
        return "ファンブル"
    if roll <= target // 5:
        return "イクストリーム成功"
    if roll <= target // 2:
        return "ハード成功"
    if roll <= target:
        return "レギュラー成功"
    return "失敗"


def percentile(tray: Tray, bonus: int) -> list[int]:
    """The results a roll with ``bonus`` bonus (or penalty) dice can keep: the tens dice
    are rolled first, then the units die; a face 10 (or 0) reads as the digit 0."""
    tens = [tray.once(10) % 10 for _ in range(abs(bonus) + 1)]
    units = tray.once(10) % 10
    return [ten * 10 + units or 100 for ten in tens]


def roll_bout(word: str, tray: Tray) -> RollResult:
    name, rows, unit = BOUTS[word]
    rolled, row = Table(name, rows).draw(tray)
    return RollResult(steps(f"{name}({rolled})", f"{row}(1D10＞{tray.once(10)}{unit})"))


def roll_word(word: str, tray: Tray) -> RollResult | None:
    table = TABLES.get(word)
    if table is not None:
        return roll_table(table, tray)
    if word in BOUTS:
        return roll_bout(word, tray)
    if word.startswith("FAR"):
        from lore.dice.systems import full_auto

        fire = full_auto.parse(word)
        return None if fire is None else full_auto.roll_fire(fire, tray)
    if not word.startswith(("CC", "CBR")):
        return None
    command = parse(word)
    if command is None:
        return None
    if isinstance(command, Combined):
        return roll_combined(command, tray)
    if not -BONUS_LIMIT <= command.bonus <= BONUS_LIMIT:
        return RollResult("ボーナス・ペナルティダイスの値は-100以上、100以下としてください")
    if command.bonus == 0 and command.target == 0:
        roll = tray.once(100)
        return RollResult(steps("(1D100)", str(roll)), roll)
    results = percentile(tray, command.bonus)
    roll = min(results) if command.bonus >= 0 else max(results)
    listed = ", ".join(map(str, results))
    marks = f"ボーナス・ペナルティダイス[{command.bonus}]"
    if command.target == 0:
        return RollResult(steps(f"(1D100) {marks}", listed, str(roll)), roll)
    target = command.target
    if command.difficulty:
        divisor = DIFFICULTY[command.difficulty]
        target = target // divisor if divisor else 0
    found = level(roll, target)
    success = found == "クリティカル" or found.endswith("成功")
    if command.difficulty and found.endswith("成功"):
        found = "成功" if roll <= target else "失敗"
        success = found == "成功"
    return RollResult(
        steps(f"(1D100<={target}) {marks}", listed, str(roll), found),
        roll,
        success=success,
        failure=not success,
        critical=found == "クリティカル",
        fumble=found == "ファンブル",
    )


def roll_combined(command: Combined, tray: Tray) -> RollResult:
    first, second = command.targets
    roll = tray.once(100)
    found = [level(roll, target) for target in command.targets]
    succeeded = sum(word == "クリティカル" or word.endswith("成功") for word in found)
    return RollResult(
        steps(
            f"(1d100<={first},{second})",
            f"{roll}[{','.join(found)}]",
            ("失敗", "部分的成功", "成功")[succeeded],
        ),
        roll,
        success=succeeded == 2,
        failure=succeeded == 0,
    )


roll = own_commands(roll_word)
