"""Errors of running rules: where in the Lore files, and through which rules."""

from __future__ import annotations

from dataclasses import dataclass

from lore.errors import LoreError
from lore.semantics.literals import MAX_WHOLE_BITS
from lore.syntax.diagnostics import underline
from lore.syntax.source import SourceFile, Span


@dataclass(frozen=True, slots=True)
class Frame:
    """One Lore call on the way to an error: the rule and the place in its file."""

    rule: str
    source: SourceFile
    span: Span

    def describe(self) -> str:
        pos = self.source.position(self.span.start)
        return f"{self.source.name}:{pos.line}:{pos.column}: in {self.rule}"


class RuleError(LoreError):
    """A rule went wrong while running (a bad value, a limit passed, ...).

    ``frames`` is the Lore call stack, innermost last; it is filled in by the engine
    from the compiled code's traceback, so no Python frame is ever shown to a user.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.frames: list[Frame] = []

    def location(self) -> str:
        if not self.frames:
            return "<rule>"
        last = self.frames[-1]
        pos = last.source.position(last.span.start)
        return f"{last.source.name}:{pos.line}:{pos.column}"

    def render(self) -> str:
        lines = [f"{self.location()}: error: {self.message}"]
        if self.frames:
            last = self.frames[-1]
            line, text, marks = underline(last.source, last.span)
            lines.append(f"{line} | {text}")
            lines.append(f"{' ' * len(str(line))} | {marks}")
        if self.hint:
            lines.append(f"hint: {self.hint}")
        shown: list[str] = []
        repeats = 0
        previous: Frame | None = None
        for frame in reversed(self.frames):
            if frame == previous:  # (a runaway recursion: thousands of the same place)
                repeats += 1
                continue
            previous = frame
            text = f"  {frame.describe()}"
            if shown and text == shown[-1]:
                repeats += 1
                continue
            if repeats:
                shown.append(f"  (the same {repeats} more times)")
                repeats = 0
            shown.append(text)
        if repeats:
            shown.append(f"  (the same {repeats} more times)")
        return "\n".join(lines + shown)


class LimitExceeded(RuleError):
    """A rule ran past one of the session's limits (steps, depth, sizes).

    ``at_entry``: raised as a rule was entered, so the place to show is the call.
    """

    def __init__(self, message: str, hint: str | None = None, at_entry: bool = False) -> None:
        super().__init__(message, hint)
        self.at_entry = at_entry


# About 3,900 digits: Python shows no whole number past 4,300, and squaring a number again
# and again would otherwise take minutes and all the memory before failing.
MAX_INT_BITS = MAX_WHOLE_BITS


def bounded_whole(value: int) -> int:
    """``value``, refused when it is past 2^MAX_INT_BITS (a number grown without end)."""
    if value.bit_length() > MAX_INT_BITS:
        raise LimitExceeded(f"a whole number larger than 2^{MAX_INT_BITS}")
    return value
