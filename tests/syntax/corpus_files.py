"""The syntax corpus: small Lore files under ``tests/syntax/corpus``, for any test to use.

``valid/`` holds one file per construct of the grammar, each with a golden ``.ast`` twin
(its :func:`lore.syntax.dump.dump_text`); ``invalid/`` holds one file per syntax error, each
with a golden ``.diag`` twin (every diagnostic, rendered). Files are read under their name
relative to :data:`CORPUS` (``valid/dice.lore``), so goldens hold no machine paths.
"""

from __future__ import annotations

from pathlib import Path

from lore.syntax.diagnostics import Diagnostic
from lore.syntax.source import SourceFile

CORPUS = Path(__file__).resolve().parent / "corpus"
VALID = CORPUS / "valid"
INVALID = CORPUS / "invalid"


def valid_files() -> list[Path]:
    return sorted(VALID.glob("*.lore"))


def invalid_files() -> list[Path]:
    return sorted(INVALID.glob("*.lore"))


def load(path: Path) -> SourceFile:
    """A corpus file, named relative to the corpus directory."""
    return SourceFile.from_path(path, path.relative_to(CORPUS).as_posix())


def render_all(diagnostics: list[Diagnostic]) -> str:
    """All diagnostics rendered, separated by blank lines (the ``.diag`` golden format)."""
    return "".join(d.render() + "\n\n" for d in diagnostics).removesuffix("\n")
