"""Diagnostics: what is wrong, where, and how to fix it.

Every diagnostic has a stable message id (``code``) so that a catalogue in another
language (Japanese first) can replace the English text later.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from lore.records import record
from lore.syntax.source import SourceFile, Span, display_width


def with_article(word: str) -> str:
    """``word`` after "a" or "an", as English wants it: "an integer", "an alter", "a
    rule", "a unit[m]", "a url", "an xml"."""
    lower = word.lower()
    if lower.startswith(("uni", "use", "usu", "uti", "url", "eu")):
        return f"a {word}"  # sounds like "you"
    if lower.startswith(("html", "xml")) or lower[:1] in ("a", "e", "i", "o", "u"):
        return f"an {word}"
    return f"a {word}"


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@record
class Diagnostic:
    """One problem found in one file."""

    severity: Severity
    code: str
    message: str
    source: SourceFile
    span: Span
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def location(self) -> str:
        pos = self.source.position(self.span.start)
        return f"{self.source.name}:{pos.line}:{pos.column}"

    def headline(self) -> str:
        return f"{self.location()}: {self.severity.value}: {self.message}"

    def render(self) -> str:
        """The headline, the source line with carets under the span, and the hint."""
        line, line_text, marks = underline(self.source, self.span)
        gutter = " " * len(str(line))
        lines = [
            self.headline(),
            f"{gutter} |",
            f"{line} | {line_text}",
            f"{gutter} | {marks}" + (f" {self.hint}" if self.hint else ""),
        ]
        return "\n".join(lines)


def underline(source: SourceFile, span: Span) -> tuple[int, str, str]:
    """The line where ``span`` starts, its text, and what goes under it: spaces, then
    carets under the span's part on that line (as wide as the characters they mark)."""
    start = source.position(span.start)
    end = source.position(max(span.start, span.end))
    line_text = source.line_text(start.line)
    last = end.column if end.line == start.line else len(line_text) + 1
    last = max(last, start.column + 1)
    before = line_text[: start.column - 1]
    marked = line_text[start.column - 1 : last - 1] or " "
    carets = "^" * max(1, display_width(marked))
    pad = "".join("\t" if c == "\t" else " " * display_width(c) for c in before)
    return start.line, line_text, pad + carets


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)
