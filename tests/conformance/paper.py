"""The Lore paper's sample programs: the first conformance suite.

They live in the shared folder beside the repository's checkout
(``../shared/conformance/paper/{corrected,verbatim}``), not in the repository. A test that
needs them is skipped when the folder is missing, and fails where it is required (see
``locate``), saying where it was looked for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.syntax.source import SourceFile
from tests.conformance.locate import SHARED, shared_dir

PAPER_DIR = SHARED / "conformance" / "paper"

# The Lore files of the paper (dungeon.xml is data, not Lore).
LORE_FILES = ("HelloWorld.lore", "HelloWorldSaved.lore", "rules.lore", "scenario.lore")
VARIANTS = ("corrected", "verbatim")


def paper_files() -> list[str]:
    """``variant/name`` of every Lore sample: the known ones, and any others found."""
    names = {f"{variant}/{name}" for variant in VARIANTS for name in LORE_FILES}
    names |= {p.relative_to(PAPER_DIR).as_posix() for p in PAPER_DIR.glob("*/*.lore")}
    return sorted(names)


def require_paper_dir() -> Path:
    return shared_dir("conformance", "paper")


def load_paper_file(relative: str) -> SourceFile:
    """A sample, named ``variant/name`` so that messages and goldens hold no machine path."""
    path = require_paper_dir() / relative
    if not path.is_file():
        pytest.fail(f"paper sample {relative} is missing from {PAPER_DIR}", pytrace=False)
    return SourceFile.from_path(path, relative)
