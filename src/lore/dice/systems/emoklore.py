"""エモクロアTRPG (BCDice's ``Emoklore``): ``DM`` and ``DA`` checks.

- ``nDM<=x``: n d10, each counting one success when it is x or less; a 1 counts one
  more, a 10 one less (``(2DM<=5) ＞ [1, 6] ＞ 2 ＞ 成功数2 ダブル``). The successes
  name the result: below 0 ファンブル, 0 失敗, 1 成功, 2 ダブル, 3 トリプル, 4 to 9
  ミラクル, 10 or more カタストロフ. ``n`` and ``x`` may be arithmetic
  (``2+2DM<=5``), ``E+2`` or ``E-1`` after the target changes the count of dice; no
  dice left is a certain failure (``ダイス数が0以下 ＞ 確定失敗``).
- ``sDAa+b``: a check of skill level ``s`` (a number, or ``B``/nothing for a base
  skill, level 0 with one die) and ability ``a``: ``sDM<=a+s`` with ``b`` more dice.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.dice.lexer import NUMBER, ParseError
from lore.dice.result import RollResult
from lore.dice.source import MAX_TIMES, DiceError, Tray
from lore.dice.systems.base import SystemParser, own_commands, parsed, steps

SIDES = 10
_SIMPLE_DM = "0123456789DM<="


@dataclass(frozen=True, slots=True)
class Check:
    shown: str  # the command as typed, upper-cased
    dice: int
    target: int
    plain: bool  # written without arithmetic (then shown once)


def read_dm(parser: SystemParser) -> tuple[int, int]:
    dice = 1 if parser.peek().kind == "D" else parser.value()
    if not parser.letters("DM"):
        raise ParseError("not DM")
    if parser.cmp() != "<=":
        raise ParseError("DM takes <=")
    target = parser.value()
    if parser.accept("E"):
        dice += parser.signed_number()
    return dice, target


def read_da(parser: SystemParser) -> tuple[int, int]:
    level = 0
    if parser.accept("B") is None and parser.peek().kind == NUMBER:
        level = parser.number()
    if not parser.letters("DA"):
        raise ParseError("not DA")
    ability = parser.number()
    extra = parser.signed_number() if parser.peek().kind in ("+", "-") else 0
    return max(level, 1) + extra, ability + level


def parse(word: str) -> Check | None:
    if "DM" in word:
        found = parsed(read_dm, word)
        plain = all(char in _SIMPLE_DM for char in word)
    elif "DA" in word:
        found = parsed(read_da, word)
        plain = False
    else:
        return None
    if not isinstance(found, tuple):
        return None
    dice, target = found
    return Check(word, dice, target, plain)


def successes(face: int, target: int) -> int:
    return (face <= target) + (face == 1) - (face == SIDES)


def outcome(count: int) -> str:
    if count < 0:
        return "ファンブル"
    if count >= 10:
        return "カタストロフ"
    if count >= 4:
        return "ミラクル"
    return ("失敗", "成功", "ダブル", "トリプル")[count]


def roll_word(word: str, tray: Tray) -> RollResult | None:
    check = parse(word)
    if check is None:
        return None
    normal = f"({check.dice}DM<={check.target})"
    shown = [normal] if check.plain else [f"({check.shown})", normal]
    if check.dice <= 0:
        text = steps(f"({check.shown})", "ダイス数が0以下", "確定失敗")
        return RollResult(text, failure=True, fumble=True)
    if check.dice > MAX_TIMES:
        raise DiceError(f"a throw rolls at most {MAX_TIMES} dice")
    faces = tray.barabara(check.dice, SIDES)
    count = sum(successes(face, check.target) for face in faces)
    word_said = outcome(count)
    text = steps(
        *shown, f"[{', '.join(map(str, faces))}]", str(count), f"成功数{count} {word_said}"
    )
    return RollResult(
        text,
        count,
        success=count > 0,
        failure=count <= 0,
        critical=count >= 2,
        fumble=count < 0,
    )


roll = own_commands(roll_word)
