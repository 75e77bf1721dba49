"""The root of Lore's exception hierarchy.

A ``LanguageError`` is the user's to fix: it carries diagnostics with places in their
files. An ``InternalError`` is always a bug in Lore itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lore.syntax.diagnostics import Diagnostic


class LoreError(Exception):
    """Base of every error Lore raises on purpose."""


class LanguageError(LoreError):
    """A problem in a Lore program (lexing, parsing, checking or running it)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.headline() for d in diagnostics))


class InternalError(LoreError):
    """A broken invariant inside Lore: always a bug, never the user's input."""
