"""Positions as the protocol counts them: 0-based lines, and columns in the code units
the client and server agreed on (UTF-16 unless the client offers another).

Lore keeps offsets in code points; a character outside the Basic Multilingual Plane (an
emoji, a rare kanji) is one code point and two UTF-16 units; a kana is one UTF-16 unit
and three UTF-8 bytes.
"""

from __future__ import annotations

from lsprotocol import types

from lore.syntax.source import SourceFile, Span

UTF16 = "utf-16"


def units(char: str, encoding: str = UTF16) -> int:
    """How many code units ``char`` takes in ``encoding``."""
    if encoding == "utf-32":
        return 1
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    return 2 if ord(char) > 0xFFFF else 1


def length(text: str, encoding: str = UTF16) -> int:
    if encoding == "utf-32":
        return len(text)
    return sum(units(char, encoding) for char in text)


def position(source: SourceFile, offset: int, encoding: str = UTF16) -> types.Position:
    """The protocol's position of the code point offset ``offset``."""
    place = source.position(offset)
    start = source.offset_of(place.line, 1)
    column = length(source.text[start : start + place.column - 1], encoding)
    return types.Position(place.line - 1, column)


def span_range(source: SourceFile, span: Span, encoding: str = UTF16) -> types.Range:
    end = max(span.start, span.end)
    return types.Range(position(source, span.start, encoding), position(source, end, encoding))


def offset(source: SourceFile, where: types.Position, encoding: str = UTF16) -> int:
    """The code point offset of a protocol position (clamped to its line)."""
    lines = source.text.count("\n") + 1
    if where.line >= lines:
        return len(source.text)
    start = source.offset_of(where.line + 1, 1)
    line = source.line_text(where.line + 1)
    counted = 0
    for index, char in enumerate(line):
        if counted >= where.character:
            return start + index
        counted += units(char, encoding)
    return start + len(line)
