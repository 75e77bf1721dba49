"""The tokens of BCDice's common commands, and a small base for their parsers.

As in BCDice, only the first word of a line is a command (the rest is a comment: words
are split at ASCII white space). A word is read as numbers (``[0-9]+``), comparison
operators (a run of ``<>!=``, normalised as BCDice does: ``=>`` is ``>=``, ``==`` is
``=``, ``!=`` is ``<>``), and single characters, letters upper-cased.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

NUMBER = "NUMBER"
CMP = "CMP"
END = "END"
MAX_DIGITS = 1000  # a longer number is not read as one (it is not a command)
MAX_NESTING = 100  # parentheses nested deeper are not a command

_WORD_SPLIT = re.compile(r"[ \t\n\v\f\r]+")
_TOKEN = re.compile(r"(?P<number>[0-9]+)|(?P<cmp>[<>!=]+)|(?P<char>.)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # NUMBER, CMP, END, or the character itself ("D", "+", "(")
    value: int | str | None = None


class ParseError(Exception):
    """The text is not the command a parser reads."""


def first_word(text: str) -> str:
    """The command part of a line: its first word (ASCII white space separates)."""
    words = _WORD_SPLIT.split(text.strip(" \t\n\v\f\r"), maxsplit=1)
    return words[0]


def normalize_cmp(text: str) -> str | None:
    """BCDice's reading of a run of comparison characters (None: not an operator)."""
    if "<=" in text or "=<" in text:
        return "<="
    if ">=" in text or "=>" in text:
        return ">="
    if "<>" in text or "!=" in text or "=!" in text:
        return "!="
    if "<" in text:
        return "<"
    if ">" in text:
        return ">"
    if "=" in text:
        return "=="
    return None


def format_cmp(op: str | None) -> str:
    """How an operator is written in a result (``==`` as ``=``, ``!=`` as ``<>``)."""
    if op is None:
        return ""
    return {"==": "=", "!=": "<>"}.get(op, op)


def compare(left: int, op: str, right: int) -> bool:
    if op == "<=":
        return left <= right
    if op == ">=":
        return left >= right
    if op == "<":
        return left < right
    if op == ">":
        return left > right
    if op == "==":
        return left == right
    return left != right


@lru_cache(maxsize=1024)
def tokenize(word: str) -> tuple[Token, ...]:
    """The tokens of one word, then END (the several commands a word is tried as read
    the same tokens)."""
    return (*_tokens(word), Token(END))


def _tokens(word: str) -> Iterator[Token]:
    for match in _TOKEN.finditer(word):
        number, cmp, char = match.group("number", "cmp", "char")
        if number is not None:
            if len(number) > MAX_DIGITS:
                raise ParseError("number too long")
            yield Token(NUMBER, int(number))
        elif cmp is not None:
            yield Token(CMP, normalize_cmp(cmp))
        else:
            yield Token(char.upper() if char.isascii() else char)


class TokenParser:
    """A recursive-descent parser's cursor over the tokens of one word."""

    def __init__(self, word: str) -> None:
        self.tokens = tokenize(word)
        self.pos = 0
        self.nesting = 0

    def peek(self, ahead: int = 0) -> Token:
        index = min(self.pos + ahead, len(self.tokens) - 1)
        return self.tokens[index]

    def at(self, *kinds: str) -> bool:
        """Whether the next tokens are of these kinds, in order."""
        return all(self.peek(i).kind == kind for i, kind in enumerate(kinds))

    def accept(self, kind: str) -> Token | None:
        token = self.tokens[self.pos]
        if token.kind != kind:
            return None
        if kind != END:
            self.pos += 1
        return token

    def expect(self, kind: str) -> Token:
        token = self.accept(kind)
        if token is None:
            raise ParseError(f"expected {kind}, got {self.peek().kind}")
        return token

    def number(self) -> int:
        value = self.expect(NUMBER).value
        assert isinstance(value, int)
        return value

    def cmp(self) -> str:
        """A comparison operator (one BCDice does not read is an error)."""
        op = self.expect(CMP).value
        if not isinstance(op, str):
            raise ParseError("not a comparison operator")
        return op

    def end(self) -> None:
        self.expect(END)

    def enter(self) -> None:
        """Count one more level of parentheses (bounded, so hostile text cannot exhaust
        the stack)."""
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise ParseError("parentheses nested too deep")

    def leave(self) -> None:
        self.nesting -= 1

    def signs(self) -> int:
        """Skip a run of ``+`` and ``-``; how many ``-`` there were."""
        negations = count = 0
        while self.peek().kind in ("+", "-"):
            negations += self.peek().kind == "-"
            self.pos += 1
            count += 1
            if count > MAX_NESTING:
                raise ParseError("too many signs in a row")
        return negations

    def rounding(self, letters: dict[str, str]) -> str:
        """The rounding letter after a division, as ``letters`` names it ("" if none)."""
        rounding = letters.get(self.peek().kind, "")
        if rounding:
            self.pos += 1
        return rounding
