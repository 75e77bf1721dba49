"""The pages of the bundled rule systems (docs/systems/) name only Lore that exists (in the
library, the prelude or the system's sample scenario), and the Japanese page of a system
names the same Lore as the English one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SYSTEMS = REPO / "docs" / "systems"
LIBRARY = REPO / "src" / "lore" / "lib"
# `name`, `Form.member`, `rule(args)`: the Lore a page names (not a chat command or a file).
CODE = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?(?:\([^`]*\))?`")
NOT_LORE = {"lore", "true", "false", "d10", "type", "Sectioned2D"}


def lore_names(page: Path) -> set[str]:
    found = set()
    for match in CODE.finditer(page.read_text(encoding="utf-8")):
        found.update(name for name in match.groups() if name and name not in NOT_LORE)
    return found


@pytest.mark.parametrize("system", ["orm", "ninja"])
def test_every_name_on_a_systems_page_is_in_its_library(system: str) -> None:
    source = (LIBRARY / f"{system}.lore").read_text(encoding="utf-8")
    source += (LIBRARY / "prelude.lore").read_text(encoding="utf-8")
    source += (REPO / "examples" / system / "scenario.lore").read_text(encoding="utf-8")
    page = SYSTEMS / f"{system}.md"
    names = lore_names(page)
    assert len(names) > 60
    missing = sorted(name for name in names if not re.search(rf"\b{name}\b", source))
    assert not missing, f"{page.name} names what {system}.lore does not have: {missing}"


@pytest.mark.parametrize("system", ["orm", "ninja"])
def test_the_japanese_page_names_the_same_lore(system: str) -> None:
    english = lore_names(SYSTEMS / f"{system}.md")
    japanese = lore_names(SYSTEMS / f"{system}.ja.md")
    assert english == japanese, (english - japanese, japanese - english)
