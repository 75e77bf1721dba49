"""Every ```lore example in docs/language.md parses without a diagnostic.

Examples that are meant to be wrong are fenced as ```text in the document, so a
``lore`` block that the parser rejects is a mistake in the docs or in the parser.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lore.syntax.parser import parse_text

LANGUAGE_DOC = Path(__file__).resolve().parents[2] / "docs" / "language.md"

_FENCE = re.compile(r"^```([\w-]*)[ \t]*$", re.MULTILINE)


def _fenced_blocks(text: str) -> list[tuple[str, int, str]]:
    """``(info, first line, code)`` of every fenced block, in order."""
    blocks: list[tuple[str, int, str]] = []
    fences = list(_FENCE.finditer(text))
    assert len(fences) % 2 == 0, "a code fence in the document is not closed"
    for opener, closer in zip(fences[::2], fences[1::2], strict=True):
        assert closer.group(1) == "", f"fence at offset {closer.start()} should close a block"
        first_line = text.count("\n", 0, opener.end()) + 2
        code = text[opener.end() + 1 : closer.start()]
        blocks.append((opener.group(1), first_line, code))
    return blocks


def _lore_blocks() -> list[tuple[int, str]]:
    text = LANGUAGE_DOC.read_text(encoding="utf-8")
    return [(line, code) for info, line, code in _fenced_blocks(text) if info == "lore"]


def test_the_document_has_lore_examples() -> None:
    assert len(_lore_blocks()) >= 30


@pytest.mark.parametrize(
    ("line", "code"), [pytest.param(line, code, id=f"line{line}") for line, code in _lore_blocks()]
)
def test_lore_example_parses(line: int, code: str) -> None:
    result = parse_text(code, f"language.md:{line}")
    rendered = "\n".join(d.render() for d in result.diagnostics)
    assert not result.diagnostics, (
        f"the example starting on line {line} of docs/language.md does not parse:\n{rendered}"
    )
