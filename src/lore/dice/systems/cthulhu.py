"""クトゥルフ神話TRPG, 6th edition (BCDice's ``Cthulhu``): ``CC``, ``RES``, ``CBR``.

Each command has a ``B`` form (``CCB``, ``RESB``, ``CBRB``) for tables playing the 5%
rule: a critical on 1-5 and a fumble on 96-100, where the plain forms have 1 and 100.

- ``CC<=x``: 1D100 against x (arithmetic): 決定的成功/スペシャル (a critical), スペシャル
  (a fifth of x or less, rounded down), 成功, 失敗, 致命的失敗 (a fumble). A critical
  needs a success, a fumble a failure; a 100 always fails. ``CC(n)<=x`` adds a
  malfunction number: a roll of n or more is 故障 (a failure; 致命的失敗/故障 with a
  fumble). ``CC`` alone is 1D100.
- ``RES(a-b)``: the resistance roll, against 50 + 5 × (a-b): 自動成功 at 100 or more,
  自動失敗 at 0 or less, without a roll.
- ``CBR(x,y)``: one roll against two values: 成功 when both succeed, 部分的成功 when one
  does, 失敗 when none.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.dice.lexer import ParseError
from lore.dice.result import RollResult
from lore.dice.source import Tray
from lore.dice.systems.base import SystemParser, own_commands, parsed, steps


@dataclass(frozen=True, slots=True)
class Rule:
    """Where a roll of 1D100 is critical and fumbled: the plain rule (1 and 100) or the
    5% rule of the ``B`` forms (1-5 and 96-100)."""

    critical: int  # rolls of this or less, when they succeed
    fumble: int  # rolls of this or more, when they fail


PLAIN = Rule(1, 100)
FIVE = Rule(5, 96)


@dataclass(frozen=True, slots=True)
class Judged:
    success: bool
    critical: bool
    special: bool
    fumble: bool
    broken: bool

    def word(self) -> str:
        if self.broken:
            return "致命的失敗/故障" if self.fumble else "故障"
        if self.critical:
            return "決定的成功/スペシャル"
        if self.special:
            return "スペシャル"
        if self.success:
            return "成功"
        return "致命的失敗" if self.fumble else "失敗"


def judge(roll: int, target: int, rule: Rule, broken: int = 0) -> Judged:
    success = roll <= target and roll < 100
    is_broken = broken > 0 and roll >= broken
    critical = success and roll <= rule.critical
    special = success and roll <= max(target // 5, 1)
    fumble = not success and roll >= rule.fumble
    return Judged(success and not is_broken, critical, special, fumble, is_broken)


@dataclass(frozen=True, slots=True)
class Check:
    """``CC``: a target (None: no target) and a malfunction number (0: none)."""

    rule: Rule
    target: int | None
    broken: int


@dataclass(frozen=True, slots=True)
class Resistance:
    rule: Rule
    difference: int


@dataclass(frozen=True, slots=True)
class Combined:
    rule: Rule
    targets: tuple[int, int]


Command = Check | Resistance | Combined


def read(parser: SystemParser) -> Command:
    if parser.letters("CC"):
        rule = FIVE if parser.accept("B") else PLAIN
        broken = 0
        if parser.accept("("):
            broken = parser.number()
            parser.expect(")")
        target = None
        if parser.at_cmp():
            if parser.cmp() != "<=":
                raise ParseError("CC compares with <= only")
            target = parser.value()
        return Check(rule, target, broken)
    if parser.letters("RES"):
        rule = FIVE if parser.accept("B") else PLAIN
        parser.expect("(")
        difference = parser.value()
        parser.expect(")")
        return Resistance(rule, difference)
    if parser.letters("CBR"):
        rule = FIVE if parser.accept("B") else PLAIN
        parser.expect("(")
        first = parser.value()
        parser.expect(",")
        second = parser.value()
        parser.expect(")")
        return Combined(rule, (first, second))
    raise ParseError("not a command of Cthulhu")


def parse(word: str) -> Command | None:
    found = parsed(read, word)
    return found if isinstance(found, Check | Resistance | Combined) else None


def roll_word(word: str, tray: Tray) -> RollResult | None:
    if not word.startswith(("CC", "RES", "CBR")):
        return None
    command = parse(word)
    if command is None:
        return None
    if isinstance(command, Check):
        return roll_check(command, tray)
    if isinstance(command, Resistance):
        return roll_resistance(command, tray)
    return roll_combined(command, tray)


def result_of(head: str, roll: int, judged: Judged) -> RollResult:
    return RollResult(
        steps(head, str(roll), judged.word()),
        roll,
        success=judged.success,
        failure=not judged.success,
        critical=judged.critical and judged.success,
        fumble=judged.fumble,
    )


def roll_check(command: Check, tray: Tray) -> RollResult:
    broken = f" 故障ナンバー[{command.broken}]" if command.broken else ""
    roll = tray.once(100)
    if command.target is None:
        return RollResult(steps(f"(1D100){broken}", str(roll)), roll)
    judged = judge(roll, command.target, command.rule, command.broken)
    return result_of(f"(1D100<={command.target}){broken}", roll, judged)


def roll_resistance(command: Resistance, tray: Tray) -> RollResult:
    target = 50 + 5 * command.difference
    head = f"(1d100<={target})"
    if target >= 100:
        return RollResult(steps(head, "自動成功"), success=True)
    if target <= 0:
        return RollResult(steps(head, "自動失敗"), failure=True)
    roll = tray.once(100)
    return result_of(head, roll, judge(roll, target, command.rule))


def roll_combined(command: Combined, tray: Tray) -> RollResult:
    first, second = command.targets
    roll = tray.once(100)
    judged = [judge(roll, target, command.rule) for target in command.targets]
    succeeded = sum(found.success for found in judged)
    word = ("失敗", "部分的成功", "成功")[succeeded]
    words = ",".join(found.word() for found in judged)
    return RollResult(
        steps(f"(1d100<={first},{second})", f"{roll}[{words}]", word),
        roll,
        success=succeeded > 0,
        failure=succeeded == 0,
        critical=any(found.critical for found in judged),
        fumble=any(found.fumble for found in judged),
    )


roll = own_commands(roll_word)
