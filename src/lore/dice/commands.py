"""``evaluate``: one BCDice command, rolled.

The commands are tried in BCDice's order; their grammars do not overlap, so at most one
reads a line. Parsing depends on the text alone, so the parse of recent lines is kept
(a session rolls the same few commands again and again).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

from lore.dice import add_dice, pools, reroll, small
from lore.dice.repeat import Repeat, parse_repeat, roll_repeat
from lore.dice.result import RollResult
from lore.dice.source import RandomSource, Tray

Parse = Callable[[str], Any]
Roll = Callable[[Any, Tray], RollResult | None]
Own = Callable[[str, Tray], RollResult | None]  # a game system's own commands

# Each command with a letter its text must hold (upper-cased), so that a line is only
# parsed by the commands that could read it.
COMMANDS: tuple[tuple[str, Parse, Roll], ...] = (
    ("D", add_dice.prepare, add_dice.roll),
    ("B", pools.parse_barabara, pools.roll_barabara),
    ("C", small.parse_calc, small.roll_calc),
    ("CHOICE", small.parse_choice, small.roll_choice),
    ("D66", small.parse_d66, small.roll_d66),
    ("R", reroll.parse_reroll, reroll.roll_reroll),
    ("U", reroll.parse_upper, reroll.roll_upper),
    ("T", pools.parse_tally, pools.roll_tally),
)


@lru_cache(maxsize=4096)
def plan(text: str, implicit_sides: int = add_dice.IMPLICIT_SIDES) -> tuple[Roll | None, Any]:
    """How ``text`` is rolled: the roll function of the command that reads it and its
    parse, or (None, None) when no command does (then it is not a command).
    ``implicit_sides`` are the sides of a die written without them (``2D``)."""
    upper = text.upper()
    for letters, parse, roll_parsed in COMMANDS:
        if letters not in upper:
            continue
        if parse is add_dice.prepare:
            parsed = add_dice.prepare(text, implicit_sides)
        else:
            parsed = parse(text)
        if parsed is not None:
            return roll_parsed, parsed
    repeat = parse_repeat(text)
    if repeat is not None:
        return None, repeat
    return None, None


def evaluate(
    text: str,
    source: RandomSource,
    own: Own | None = None,
    implicit_sides: int = add_dice.IMPLICIT_SIDES,
) -> RollResult | None:
    """Roll the BCDice command ``text`` with dice from ``source``.

    ``own`` is a game system's own commands (``lore.dice.systems``), tried first, and
    ``implicit_sides`` its sides of a die written without them.

    Returns None when ``text`` is not a command (no die is rolled then, and it is no
    error: in a chat most lines are not commands). Only the first word counts, except
    for ``choice`` and repeats, which read the whole line. Raises ``TooManyDice`` when
    the command would roll more than 10,000 dice, and whatever ``source`` raises."""
    tray = Tray(source)
    result = roll_text(text, tray, False, own, implicit_sides)
    if result is None or len(result.dice) == len(tray.dice):
        return result  # the roll took its dice from the tray itself
    return RollResult(
        result.text,
        result.total,
        tuple(tray.dice),
        result.secret,
        result.success,
        result.failure,
        result.critical,
        result.fumble,
    )


def roll_text(
    text: str,
    tray: Tray,
    nested: bool = False,
    own: Own | None = None,
    implicit_sides: int = add_dice.IMPLICIT_SIDES,
) -> RollResult | None:
    try:
        if own is not None:
            found = own(text, tray)
            if found is not None:
                return found
        roll_parsed, parsed = plan(text, implicit_sides)
        if isinstance(parsed, Repeat):
            if nested:
                return None
            return roll_repeat(parsed, tray, partial(roll_nested, own, implicit_sides))
        if roll_parsed is None:
            return None
        return roll_parsed(parsed, tray)
    except (ZeroDivisionError, OverflowError):
        return None


def roll_nested(own: Own | None, implicit_sides: int, text: str, tray: Tray) -> RollResult | None:
    return roll_text(text, tray, True, own, implicit_sides)
