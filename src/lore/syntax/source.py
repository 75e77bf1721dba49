"""Source files and spans.

Positions are kept as character offsets; line and column are derived only when a
diagnostic is rendered (lines and columns are 1-based, columns count code points).
"""

from __future__ import annotations

import bisect
import unicodedata
from pathlib import Path

from lore.records import field, record
from lore.syntax.files import FileRefused, is_binary, read_bytes


@record
class Span:
    """A half-open range ``[start, end)`` of character offsets in one source file."""

    start: int
    end: int

    def to(self, other: Span) -> Span:
        """The span from the start of this one to the end of ``other``."""
        return Span(self.start, other.end)


@record
class Position:
    line: int
    column: int


@record(frozen=False, eq=False)
class SourceFile:
    """The text of one Lore (or XML) file and the name it is shown under."""

    name: str
    text: str
    path: Path | None = None
    _line_starts: list[int] = field(default_factory=list, repr=False)
    # Where the first byte that is not UTF-8 was (as an offset in ``text``), if any.
    encoding_error: int | None = None

    @classmethod
    def from_path(cls, path: Path, name: str | None = None, limit: int | None = None) -> SourceFile:
        """The text file ``path``; raises ``OSError`` (``FileRefused``) for what is not
        a regular text file of at most ``limit`` bytes (see ``lore.syntax.files``)."""
        data = read_bytes(path, limit)
        if is_binary(data):
            raise FileRefused("it is not a text file (it holds binary data)", "binary")
        text = data.decode("utf-8-sig", errors="replace")
        source = cls(name if name is not None else str(path), text, path)
        try:
            data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            prefix = data[: error.start].decode("utf-8-sig", errors="replace")
            source.encoding_error = len(prefix)
        return source

    def _starts(self) -> list[int]:
        if not self._line_starts:
            starts = [0]
            text = self.text
            index = text.find("\n")
            while index >= 0:
                starts.append(index + 1)
                index = text.find("\n", index + 1)
            self._line_starts = starts
        return self._line_starts

    def position(self, offset: int) -> Position:
        starts = self._starts()
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(starts, offset) - 1
        return Position(line + 1, offset - starts[line] + 1)

    def line_text(self, line: int) -> str:
        starts = self._starts()
        if line < 1 or line > len(starts):
            return ""
        begin = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[begin:end].rstrip("\r")

    def offset_of(self, line: int, column: int) -> int:
        """The offset of a 1-based line and column (clamped to the file)."""
        starts = self._starts()
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + max(column, 1) - 1, len(self.text))


def display_width(text: str) -> int:
    """Terminal columns that ``text`` takes (East Asian wide characters take two)."""
    width = 0
    for char in text:
        if char == "\t":
            width += 1
        elif unicodedata.combining(char):
            continue
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            width += 2
        else:
            width += 1
    return width
