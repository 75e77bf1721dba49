"""The patterns of a rule system's own chat commands: ``NJ{pool}(@{difficulty=1})?``.

A rule system written in Lore names its commands with a pattern, as BCDice's game systems
do with their prefixes: the text players type, letters in either case, with

- ``{name}``: a whole number (digits: ``NJ7``);
- ``{+name}``: a number with its sign (``+4``, ``-1``: a modifier, ``OR3+4``, ``OR3-1``);
- ``{name=5}``, ``{+name=-1}``: the same, with the number it takes when its part is
  left out (0 without one);
- ``(...)?``: a part that may be left out;
- ``\\(``, ``\\)``, ``\\{``, ``\\}``, ``\\?``, ``\\\\``: those signs as typed.

A line matches when its first word (the rest is a comment, as for BCDice) is the whole
pattern; ``S`` before it makes the roll secret. Matching gives the numbers in the order
of the pattern. Patterns are read by a small recursive-descent parser and matched with a
regular expression made from the parse (each number at most ``MAX_DIGITS`` digits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lore.dice.lexer import first_word

MAX_DIGITS = 9
MAX_PATTERN = 200  # characters of a pattern
SPECIAL = "(){}?\\"


class PatternError(ValueError):
    """A pattern that cannot be read; ``column`` is where (counted from 1)."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True, slots=True)
class Number:
    name: str
    signed: bool
    default: int


@dataclass(frozen=True, slots=True)
class Maybe:
    parts: tuple[Part, ...]


Part = str | Number | Maybe


@dataclass(frozen=True, slots=True)
class CommandPattern:
    """A parsed pattern: its text, its parts, and the numbers it names (in order)."""

    text: str
    parts: tuple[Part, ...]
    numbers: tuple[Number, ...]
    regex: re.Pattern[str]

    def match(self, word: str) -> tuple[int, ...] | None:
        """The numbers of ``word`` when it is the whole pattern, else None."""
        found = self.regex.fullmatch(word)
        if found is None:
            return None
        values = []
        for index, number in enumerate(self.numbers):
            given = found.group(index + 1)
            values.append(number.default if given is None else int(given))
        return tuple(values)


@dataclass(frozen=True, slots=True)
class Matched:
    """A line that is a command of the pattern: its numbers, and whether it is secret."""

    command: str  # the word that matched (the line's first word)
    numbers: tuple[int, ...]
    secret: bool


def match_line(pattern: CommandPattern, line: str) -> Matched | None:
    """Whether the line's first word is the pattern (or ``S`` and the pattern)."""
    word = first_word(line)
    numbers = pattern.match(word)
    if numbers is not None:
        return Matched(word, numbers, False)
    if word[:1] in ("S", "s"):
        numbers = pattern.match(word[1:])
        if numbers is not None:
            return Matched(word, numbers, True)
    return None


@lru_cache(maxsize=256)
def parse_pattern(text: str) -> CommandPattern:
    """Read a pattern; ``PatternError`` says what is wrong and where."""
    if not text.strip():
        raise PatternError("a command's pattern is empty", 1)
    if len(text) > MAX_PATTERN:
        raise PatternError(f"a command's pattern has at most {MAX_PATTERN} characters", 1)
    if any(ch.isspace() for ch in text):
        column = next(i for i, ch in enumerate(text) if ch.isspace()) + 1
        raise PatternError(
            "a command's pattern is one word: players type the command first, then a comment",
            column,
        )
    reader = _Reader(text)
    parts = reader.parts(opened_at=None)
    numbers: list[Number] = []
    regex = "".join(piece for part in parts for piece in _regex(part, numbers))
    names = [number.name for number in numbers]
    for name in names:
        if names.count(name) > 1:
            column = text.index("{" + name) + 1 if "{" + name in text else 1
            raise PatternError(f"the pattern names the number '{name}' twice", column)
    if not any(isinstance(part, str) and any(ch.isalpha() for ch in part) for part in parts):
        raise PatternError(
            "a command's pattern needs a letter that is always typed (NJ{pool}), or every"
            " number in the chat would be the command",
            1,
        )
    return CommandPattern(text, parts, tuple(numbers), re.compile(regex, re.IGNORECASE))


def _regex(part: Part, numbers: list[Number]) -> list[str]:
    if isinstance(part, str):
        return [re.escape(part)]
    if isinstance(part, Number):
        numbers.append(part)
        digits = f"[0-9]{{1,{MAX_DIGITS}}}"
        return [f"([+-]{digits})" if part.signed else f"({digits})"]
    inner = [piece for sub in part.parts for piece in _regex(sub, numbers)]
    return ["(?:", *inner, ")?"]


class _Reader:
    """A recursive-descent reader of a pattern, one character at a time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def error(self, message: str, at: int | None = None) -> PatternError:
        return PatternError(message, (self.at if at is None else at) + 1)

    def parts(self, opened_at: int | None) -> tuple[Part, ...]:
        """The parts up to the end, or (inside a '(' at ``opened_at``) up to its ')?'."""
        parts: list[Part] = []
        literal: list[str] = []

        def flush() -> None:
            if literal:
                parts.append("".join(literal))
                literal.clear()

        text = self.text
        while self.at < len(text):
            ch = text[self.at]
            if ch == "\\":
                if self.at + 1 >= len(text) or text[self.at + 1] not in SPECIAL:
                    raise self.error("'\\' is written before one of ( ) { } ? \\ to type it")
                literal.append(text[self.at + 1])
                self.at += 2
            elif ch == "{":
                flush()
                parts.append(self.number())
            elif ch == "(":
                flush()
                start = self.at
                self.at += 1
                inner = self.parts(opened_at=start)
                if not inner:
                    raise self.error("'()?' holds nothing", start)
                parts.append(Maybe(inner))
            elif ch == ")":
                if opened_at is None:
                    raise self.error("')' closes no '(': write \\) to type it")
                if self.at + 1 >= len(text) or text[self.at + 1] != "?":
                    raise self.error("a part in ( ) is one that may be left out: write ')?'")
                self.at += 2
                flush()
                return tuple(parts)
            elif ch in "}?":
                raise self.error(f"'{ch}' stands alone: write \\{ch} to type it")
            else:
                literal.append(ch)
                self.at += 1
        if opened_at is not None:
            raise self.error("'(' is not closed: end the part with ')?'", opened_at)
        flush()
        return tuple(parts)

    def number(self) -> Number:
        text = self.text
        start = self.at
        end = text.find("}", start)
        if end < 0:
            raise self.error("'{' is not closed: write {name}")
        body = text[start + 1 : end]
        self.at = end + 1
        signed = body.startswith("+")
        if signed:
            body = body[1:]
        name, _, default_text = body.partition("=")
        if not name.isidentifier():
            raise self.error(
                f"'{{{text[start + 1 : end]}}}' does not name a number: write {{name}}", start
            )
        default = 0
        if default_text:
            try:
                default = int(default_text)
            except ValueError:
                raise self.error(
                    f"the default of '{name}' must be a whole number, not '{default_text}'", start
                ) from None
        return Number(name, signed, default)
