"""What every game system's commands share: the secret ``S``, the first word, a
parser that reads whole-number arithmetic, and the joint of a result's steps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from lore.dice.arithmetic import Expr, parse_add, parse_term
from lore.dice.lexer import CMP, NUMBER, ParseError, TokenParser, first_word
from lore.dice.result import RollResult
from lore.dice.source import Tray

STEP = " ＞ "
WordRoll = Callable[[str, Tray], RollResult | None]


def own_commands(roll_word: WordRoll) -> Callable[[str, Tray], RollResult | None]:
    """A system's commands as ``evaluate`` takes them: ``roll_word`` gets the line's
    first word upper-cased, and is tried again without a leading ``S`` (a secret roll).
    Its parse must be complete before it rolls a die (a word it does not read rolls
    nothing)."""

    def roll_line(text: str, tray: Tray) -> RollResult | None:
        word = first_word(text).upper()
        if not word:
            return None
        found = roll_word(word, tray)
        if found is None and word.startswith("S") and len(word) > 1:
            found = roll_word(word[1:], tray)
            if found is not None:
                found = replace(found, secret=True)
        return found

    return roll_line


def steps(*parts: str) -> str:
    return STEP.join(parts)


class SystemParser(TokenParser):
    """A cursor over a word's tokens with the arithmetic of BCDice's commands."""

    def letters(self, word: str) -> bool:
        """Accept the letters of ``word`` in a row (each a token), or nothing."""
        if all(self.peek(i).kind == letter for i, letter in enumerate(word)):
            self.pos += len(word)
            return True
        return False

    def arith(self) -> Expr:
        return parse_add(self)

    def value(self) -> int:
        return self.arith().eval()

    def arith_term(self) -> int:
        """A number or a parenthesised expression: ``3``, ``(1+2)``."""
        return parse_term(self).eval()

    def signed_number(self) -> int:
        """``+3``, ``-2`` or ``3``."""
        negative = False
        if self.accept("-"):
            negative = True
        elif self.accept("+"):
            pass
        number = self.number()
        return -number if negative else number

    def at_number(self) -> bool:
        return self.peek().kind in (NUMBER, "(")

    def at_cmp(self) -> bool:
        return self.peek().kind == CMP


def parsed(parse: Callable[[SystemParser], object], word: str) -> object | None:
    """``parse`` run over ``word`` to its end (None when it does not read it all)."""
    try:
        parser = SystemParser(word)
        found = parse(parser)
        parser.end()
        return found
    except (ParseError, ZeroDivisionError, OverflowError):
        return None


__all__ = ["STEP", "Expr", "ParseError", "SystemParser", "own_commands", "parsed", "steps"]
