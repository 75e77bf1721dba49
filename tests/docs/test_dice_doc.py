"""The terminal examples of the dice pages (English and Japanese) print what they show."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from lore.cli.main import main

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = ["dice.md", "dice.ja.md"]


def examples(page: str) -> list[tuple[str, str]]:
    """``(command line, expected output)`` of every ``$ lore`` line in a text block."""
    text = (DOCS / page).read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```text\n(.*?)```", text, re.S):
        if not block.startswith("$ lore "):
            continue
        for part in re.split(r"^(?=\$ lore )", block, flags=re.M):
            if part:
                line, _, output = part.partition("\n")
                found.append((line[2:], output))
    return found


@pytest.mark.parametrize("page", PAGES)
def test_the_page_has_examples(page: str) -> None:
    assert len(examples(page)) >= 8


@pytest.mark.parametrize(
    ("page", "line", "output"),
    [(page, line, output) for page in PAGES for line, output in examples(page)],
)
def test_example_prints_what_the_page_shows(
    page: str, line: str, output: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(shlex.split(line)[1:]) == 0
    assert capsys.readouterr().out == output
