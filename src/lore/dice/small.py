"""The small commands: ``C(...)`` (a calculation), ``D66``, and ``choice``.

- ``C(1+2*3)``, ``c10/3R``: whole-number arithmetic, no dice (``c(1+2*3) ＞ 7``);
  dividing by zero gives BCDice's message instead of a number.
- ``D66``: two d6 read as tens and units; ``D66A`` or ``D66S`` puts the lower die first,
  ``D66D`` the higher, ``D66N`` keeps them as rolled (as does plain ``D66`` here).
- ``choice[A,B,C]``, ``choice(A,B,C)``, ``choice A B C``: one item at random (or
  ``choiceN``: N different ones). Items are trimmed and empty ones dropped; a single
  item ``A-F`` or ``3-10`` stands for the range; at most 100 items.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.dice.arithmetic import Expr, Group, parse_add
from lore.dice.lexer import ParseError, TokenParser, first_word
from lore.dice.result import RollResult
from lore.dice.source import Tray

ZERO_DIVISION = "ゼロ除算が発生したため計算できませんでした"
CHOICE_MAX_ITEMS = 100
_D66 = re.compile(r"(S)?D66([ANSD])?", re.ASCII)
_SPACE = re.compile(r"[ \t\n\v\f\r]+")
_DIGITS = re.compile(r"[0-9]*")
_RANGE_NUMBERS = re.compile(r"([0-9]{1,20})-([0-9]{1,20})")
RANGE_CAP = 100_000
_RANGE_LETTERS = re.compile(r"([a-z])-([a-z])|([A-Z])-([A-Z])")


@dataclass(frozen=True, slots=True)
class Calc:
    secret: bool
    expr: Expr


@dataclass(frozen=True, slots=True)
class D66:
    secret: bool
    suffix: str


@dataclass(frozen=True, slots=True)
class Choice:
    secret: bool
    takes: int
    kind: str  # "[", "(" or " "
    items: tuple[str, ...]


def parse_calc(text: str) -> Calc | None:
    try:
        parser = TokenParser(first_word(text))
        secret = parser.accept("S") is not None
        parser.expect("C")
        expr = parse_add(parser)
        parser.end()
        return Calc(secret, expr)
    except ParseError:
        return None


def roll_calc(command: Calc, tray: Tray) -> RollResult:
    shown = command.expr.output()
    if not isinstance(command.expr, Group):
        shown = f"({shown})"
    try:
        total: int | None = command.expr.eval()
    except ZeroDivisionError:
        total = None
    value = ZERO_DIVISION if total is None else str(total)
    return RollResult(f"c{shown} ＞ {value}", total, secret=command.secret)


def parse_d66(text: str) -> D66 | None:
    match = _D66.fullmatch(first_word(text).upper())
    if match is None:
        return None
    return D66(match.group(1) is not None, match.group(2) or "")


def roll_d66(command: D66, tray: Tray) -> RollResult:
    order = {"A": "A", "S": "A", "D": "D"}.get(command.suffix, "")
    total = tray.d66(order)
    return RollResult(f"(D66{command.suffix}) ＞ {total}", total, secret=command.secret)


def parse_choice(text: str) -> Choice | None:
    """BCDice's choice scanner: ``S? choice N? ("[" items "]" | "(" items ")" | " " words)``.

    As in BCDice, items are what lies between commas, and the last one ends at the first
    closing bracket after the last comma (so a comma after it spoils the command)."""
    rest = text.lstrip(" \t\n\v\f\r")
    secret = rest[:1] in ("S", "s")
    if secret:
        rest = rest[1:]
    if rest[:6].lower() != "choice":
        return None
    rest = rest[6:]
    digits = _DIGITS.match(rest)
    assert digits is not None
    if len(digits.group()) > 6:
        return None
    takes = int(digits.group()) if digits.group() else 1
    rest = rest[digits.end() :]
    space = _SPACE.match(rest)
    if takes == 0:
        return None
    if rest[:1] in ("[", "("):
        kind, parts = rest[0], rest[1:].split(",")
        end = parts[-1].find("]" if kind == "[" else ")")
        if end < 0:
            return None
        items = [*parts[:-1], parts[-1][:end]]
    elif space is not None:
        kind, items = " ", _SPACE.split(rest[space.end() :])
    else:
        return None
    kept = [item.strip(" \t\n\v\f\r\0") for item in items]
    kept = [item for item in kept if item]
    if len(kept) == 1:
        kept = expand_range(kept[0])
    if not kept or len(kept) < takes:
        return None
    return Choice(secret, takes, kind, tuple(kept))


def expand_range(item: str) -> list[str]:
    """``A-F``, ``c-g`` or ``3-10`` as the items of the range (nothing otherwise). A
    range longer than ``RANGE_CAP`` stops there (it is refused as too long anyway)."""
    numbers = _RANGE_NUMBERS.fullmatch(item)
    if numbers:
        first, last = int(numbers.group(1)), int(numbers.group(2))
        return [str(n) for n in range(first, min(last, first + RANGE_CAP) + 1)]
    letters = _RANGE_LETTERS.fullmatch(item)
    if letters:
        low, high = letters.group(1, 2) if letters.group(1) else letters.group(3, 4)
        return [chr(code) for code in range(ord(low), ord(high) + 1)]
    return []


def roll_choice(command: Choice, tray: Tray) -> RollResult:
    if len(command.items) > CHOICE_MAX_ITEMS:
        return RollResult(f"項目数は{CHOICE_MAX_ITEMS}以下としてください")
    items = list(command.items)
    chosen = [items.pop(tray.index(len(items))) for _ in range(command.takes)]
    takes = "" if command.takes == 1 else str(command.takes)
    if command.kind == " ":
        shown, joint = f"choice{takes} {' '.join(command.items)}", " "
    else:
        closing = "]" if command.kind == "[" else ")"
        shown, joint = f"choice{takes}{command.kind}{','.join(command.items)}{closing}", ", "
    return RollResult(f"({shown}) ＞ {joint.join(chosen)}", secret=command.secret)
