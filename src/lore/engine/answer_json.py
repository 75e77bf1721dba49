"""Answers as JSON text (answers files, the answers a save keeps), read strictly.

Python's ``json`` accepts ``NaN`` and ``Infinity``, turns ``1e400`` into an infinity, fails
on a 4,300-digit integer with advice about ``sys.set_int_max_str_digits()``, and runs out
of stack on deeply nested arrays. Here each of those is a ``JSONError`` in plain words,
with the line and column when the text has them.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DIGITS = 400  # digits of a number in an answer (answers are bounded far below this)
MAX_NESTING = 100  # arrays and objects in one another


class JSONError(ValueError):
    """JSON that is not a valid answer text; ``line`` and ``column`` when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def where(self) -> str:
        """``line:column: `` when known (to follow a file name), else empty."""
        if self.line is None:
            return ""
        return f"{self.line}:{self.column}: " if self.column is not None else f"{self.line}: "


def _constant(name: str) -> Any:
    raise JSONError(f"{name} is not a number an answer can give")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise JSONError(f"a number of {len(text.lstrip('-'))} digits is too long for an answer")
    return int(text)


def _real(text: str) -> float:
    if len(text) > MAX_DIGITS + 20:
        raise JSONError(f"a number of {len(text)} characters is too long for an answer")
    value = float(text)
    if not math.isfinite(value):
        raise JSONError(f"{text} is too large a number for an answer")
    return value


def loads(text: str) -> Any:
    """The value of a JSON text (a leading byte-order mark is allowed)."""
    text = text.removeprefix("\ufeff")
    depth = _nesting(text)
    if depth > MAX_NESTING:
        raise JSONError(f"arrays and objects are nested {depth} deep; answers need at most a few")
    try:
        return json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_real)
    except json.JSONDecodeError as error:
        raise JSONError(error.msg, error.lineno, error.colno) from None
    except JSONError as error:
        # Raised by a hook: find where, from the text before the token.
        raise JSONError(error.message, *_place_of(text, error.message)) from None
    except RecursionError:  # pragma: no cover - _nesting stops it before
        raise JSONError("arrays and objects are nested too deeply") from None


_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _nesting(text: str) -> int:
    """How deeply arrays and objects nest (brackets in strings not counted)."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return 0  # cannot nest deeper than it has brackets
    depth = deepest = 0
    for match in _STRUCTURE.finditer(text):
        char = match.group()[0]
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_NESTING:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def _place_of(text: str, message: str) -> tuple[int | None, int | None]:
    """The line and column of the token a hook refused (the first such token)."""
    for match in re.finditer(r"-?\d[\d.eE+-]*|NaN|-?Infinity", _without_strings(text)):
        token = match.group()
        refused = False
        if token in ("NaN", "Infinity", "-Infinity"):
            refused = token in message
        else:
            try:
                refused = (
                    len(token.lstrip("-")) > MAX_DIGITS
                    if token.lstrip("-").isdigit()
                    else not math.isfinite(float(token))
                )
            except ValueError:
                continue
        if refused:
            line = text.count("\n", 0, match.start()) + 1
            column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
            return line, column
    return None, None


def _without_strings(text: str) -> str:
    """The text with the insides of its strings blanked (offsets kept)."""
    out = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                out.append(char)
                continue
            out.append(" " if char != "\n" else "\n")
        else:
            if char == '"':
                in_string = True
            out.append(char)
    return "".join(out)
