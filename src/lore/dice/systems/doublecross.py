"""ダブルクロス3rd (BCDice's ``DoubleCross``): ``DX`` checks with a critical value.

``nDXc+m@c>=t``: n d10; each die showing the critical value ``c`` (10 unless given,
after ``DX`` or after ``@``) or more is rolled again, and a round with one counts 10,
the last round its highest die; then the modifier ``m`` (arithmetic, in either place)
is added: ``(10DX8+5) ＞ 10[2,3,6,6,6,6,7,8,10,10]+6[1,5,6]+5 ＞ 21``. Every die of the
first round a 1 is a fumble, the total 0. ``>=t`` compares with a target (a fumble
fails). A critical value below 2 is refused; no dice is an automatic failure. A die
written without sides (``8D``, in the common commands) has 10 in this system.

The tables (``lore.dice.systems.doublecross_tables``): ``ET``, 感情表, rolls both the
positive and the negative 1D100 and a d2 marking the one shown (``○``); ``HC``,
ハプニングチャート; ``PCP``, ``PCN``, the positive and negative プロローグチャート.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.dice.lexer import ParseError
from lore.dice.result import RollResult
from lore.dice.source import MAX_TIMES, DiceError, Tray
from lore.dice.systems.base import SystemParser, own_commands, parsed, steps
from lore.dice.systems.doublecross_tables import EMOTION, NEGATIVE, POSITIVE, TABLES
from lore.dice.systems.tables import roll_table

SIDES = 10
DEFAULT_CRITICAL = 10


@dataclass(frozen=True, slots=True)
class Check:
    dice: int
    critical: int
    modifier: int
    target: int | None

    def echo(self) -> str:
        modifier = f"{self.modifier:+d}" if self.modifier else ""
        target = "" if self.target is None else f">={self.target}"
        return f"({self.dice}DX{self.critical}{modifier}{target})"


def read(parser: SystemParser) -> Check:
    if not parser.at_number():
        raise ParseError("DX needs a count")
    dice = parser.arith_term()
    if not parser.letters("DX"):
        raise ParseError("not DX")
    critical = parser.arith_term() if parser.at_number() else None
    modifier = None
    while True:
        if modifier is None and parser.peek().kind in ("+", "-"):
            modifier = parser.value()
        elif critical is None and parser.accept("@"):
            critical = parser.arith_term()
        else:
            break
    target = None
    if parser.at_cmp():
        if parser.cmp() != ">=":
            raise ParseError("DX compares with >= only")
        target = parser.value()
    return Check(dice, DEFAULT_CRITICAL if critical is None else critical, modifier or 0, target)


def parse(word: str) -> Check | None:
    if "DX" not in word:
        return None
    found = parsed(read, word)
    return found if isinstance(found, Check) else None


def roll_rounds(dice: int, critical: int, tray: Tray) -> list[list[int]]:
    """The rounds of a check: the faces of each, sorted (dice at the critical value or
    above roll again)."""
    rounds = []
    while dice > 0:
        if dice > MAX_TIMES:
            raise DiceError(f"a throw rolls at most {MAX_TIMES} dice")
        faces = tray.barabara(dice, SIDES)
        rounds.append(sorted(faces))
        dice = sum(face >= critical for face in faces)
    return rounds


def round_value(faces: list[int], critical: int) -> int:
    return SIDES if faces[-1] >= critical else faces[-1]


def roll_emotion(tray: Tray) -> RollResult:
    positive_roll, positive = POSITIVE.draw(tray)
    negative_roll, negative = NEGATIVE.draw(tray)
    if tray.once(2) == 1:
        positive = f"○{positive}"
    else:
        negative = f"○{negative}"
    return RollResult(
        steps(f"{EMOTION}({positive_roll}-{negative_roll})", f"{positive} - {negative}")
    )


def roll_word(word: str, tray: Tray) -> RollResult | None:
    table = TABLES.get(word)
    if table is not None:
        return roll_table(table, tray)
    if word == "ET":
        return roll_emotion(tray)
    check = parse(word)
    if check is None:
        return None
    if check.critical <= 1:
        return RollResult(
            steps(check.echo(), "クリティカル値が低すぎます。2以上を指定してください。")
        )
    if check.dice <= 0:
        return RollResult(steps(check.echo(), "自動失敗"), failure=True)
    rounds = roll_rounds(check.dice, check.critical, tray)
    values = [round_value(faces, check.critical) for faces in rounds]
    shown = "+".join(
        f"{value}[{','.join(map(str, faces))}]" for value, faces in zip(values, rounds, strict=True)
    )
    if check.modifier:
        shown += f"{check.modifier:+d}"
    fumble = rounds[0][-1] == 1
    total = 0 if fumble else sum(values) + check.modifier
    parts = [check.echo(), shown, "0 (ファンブル)" if fumble else str(total)]
    success = failure = False
    if check.target is not None:
        success = not fumble and total >= check.target
        failure = not success
        parts.append("成功" if success else "失敗")
    return RollResult(
        steps(*parts),
        total,
        success=success,
        failure=failure,
        critical=len(rounds) > 1,
        fumble=fumble,
    )


roll = own_commands(roll_word)
