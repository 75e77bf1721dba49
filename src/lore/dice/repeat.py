"""Repeats: ``x3 2D6``, ``rep3 2D6``, ``repeat3 2D6`` roll a command 1 to 100 times.

BCDice's ``Repeat``: ``S? (repeat | rep | x) N`` then white space and the command. The
results are numbered (``#1``, ``#2``...) and joined by blank lines; the repeat is secret
when it begins with ``S`` or its command does. A repeat of a repeat is refused (that is
how counts would explode), as are counts outside 1..100 and a command that never rolls.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lore.dice.result import RollResult
from lore.dice.source import Tray

REPEAT_LIMIT = 100
_REPEAT = re.compile(r"(s)?(repeat|rep|x)([0-9]+)[ \t\n\v\f\r]+", re.IGNORECASE)
_NESTED = re.compile(r"(repeat|rep|x)[0-9]")


@dataclass(frozen=True, slots=True)
class Repeat:
    secret: bool
    times: int
    command: str


def parse_repeat(text: str) -> Repeat | None:
    match = _REPEAT.match(text)
    if match is None or len(match.group(3)) > 6 or not text[match.end() :]:
        return None
    return Repeat(match.group(1) is not None, int(match.group(3)), text[match.end() :])


def roll_repeat(
    command: Repeat, tray: Tray, roll_one: Callable[[str, Tray], RollResult | None]
) -> RollResult:
    """Roll ``command.command`` with ``roll_one`` (which must not repeat again)."""
    if _NESTED.match(command.command):
        return RollResult("Repeatコマンドの重複はできません", secret=command.secret)
    if not 1 <= command.times <= REPEAT_LIMIT:
        return RollResult(
            f"繰り返し回数は1以上、{REPEAT_LIMIT}以下としてください", secret=command.secret
        )
    results = [roll_one(command.command, tray) for _ in range(command.times)]
    found = [result for result in results if result is not None]
    if not found:
        return RollResult(
            f"繰り返し対象のコマンドが実行できませんでした ({command.command})",
            secret=command.secret,
        )
    text = "\n\n".join(f"#{number}\n{result.text}" for number, result in enumerate(found, 1))
    secret = command.secret or any(result.secret for result in found)
    return RollResult(text, secret=secret)
