"""The pictures the docs show are in the repository, where the docs say."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_picture_the_docs_show_exists() -> None:
    shown = []
    for page in sorted(DOCS.rglob("*.md")):
        for match in re.finditer(r"!\[[^\]]*\]\(([^)\s]+)\)", page.read_text("utf-8")):
            target = match.group(1)
            if "://" not in target:
                shown.append(target)
                assert (page.parent / target).is_file(), f"{page.name}: {target} is missing"
    assert "images/sim-serve.png" in shown
