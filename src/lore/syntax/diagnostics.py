"""Diagnostics: what is wrong, where, and how to fix it.

Every diagnostic has a stable message id (``code``) so that a catalogue in another
language (Japanese first) can replace the English text later.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from lore.records import record
from lore.syntax.source import SourceFile, Span, display_width

MAX_PER_FILE = 100  # diagnostics shown for one file
MAX_LINE_SHOWN = 160  # characters of a quoted line; a longer one is cut around the spot
_CONTEXT = 60  # characters kept before (and after) the spot in a line cut


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
    line_text, first, last = window(line_text, start.column, last)
    before = line_text[: first - 1]
    marked = line_text[first - 1 : last - 1] or " "
    carets = "^" * max(1, display_width(marked))
    pad = "".join("\t" if c == "\t" else " " * display_width(c) for c in before)
    return start.line, line_text, pad + carets


def window(text: str, first: int, last: int) -> tuple[str, int, int]:
    """A long line cut around the columns ``first`` to ``last`` (1-based, ``last``
    excluded), with ``…`` where it was cut; the columns in the part kept."""
    if len(text) <= MAX_LINE_SHOWN:
        return text, first, last
    begin = max(0, first - 1 - _CONTEXT)
    end = min(len(text), max(last - 1, first) + _CONTEXT, begin + MAX_LINE_SHOWN)
    prefix = "…" if begin > 0 else ""
    suffix = "…" if end < len(text) else ""
    shift = len(prefix) - begin
    return prefix + text[begin:end] + suffix, first + shift, min(last, end + 1) + shift


def limit_per_file(diagnostics: list[Diagnostic], most: int | None = None) -> list[Diagnostic]:
    """At most ``most`` diagnostics of each file (in the order given), and for a file
    with more, a note saying how many are not shown."""
    most = MAX_PER_FILE if most is None else most
    counts: dict[int, int] = {}
    kept: list[Diagnostic] = []
    first_left_out: dict[int, Diagnostic] = {}
    for diagnostic in diagnostics:
        key = id(diagnostic.source)
        counts[key] = counts.get(key, 0) + 1
        if counts[key] <= most:
            kept.append(diagnostic)
        else:
            first_left_out.setdefault(key, diagnostic)
    for key, diagnostic in first_left_out.items():
        more = counts[key] - most
        kept.append(
            Diagnostic(
                Severity.NOTE,
                "limit.diagnostics",
                f"{more:,} more problem{'s' if more != 1 else ''} in this file "
                f"not shown (the first {most} are)",
                diagnostic.source,
                diagnostic.span,
                "fix these first, then check again",
            )
        )
    return kept


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)
