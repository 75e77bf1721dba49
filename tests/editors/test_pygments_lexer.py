"""The Pygments lexer: Lore's tokens, the entry point that registers it, and every Lore
block of the docs highlighted without an error token."""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

import pytest
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String, Token

from lore.pygments_lexer import LoreLexer

REPO = Path(__file__).resolve().parents[2]

SAMPLE = """import "orm.lore":url;
// a line comment
section s {
    /* a block
       comment */
    stride = 5[m];
    pool = 3D6;
    name = "リン";
    story = [==[a long
string]] still]==];
    rule r { if (true) { self.x := result; } }
}
"""


def _tokens(text: str) -> list[tuple[object, str]]:
    return [(kind, value) for kind, value in LoreLexer().get_tokens(text) if value.strip()]


def test_the_sample_tokens() -> None:
    found = _tokens(SAMPLE)
    assert (Keyword.Declaration, "import") in found
    assert (String, '"orm.lore"') in found and (Keyword.Type, "url") in found
    assert (Comment.Single, "// a line comment") in found
    assert (Comment.Multiline, "/*") in found
    assert (Keyword.Declaration, "section") in found
    assert (Name.Decorator, "[m]") in found  # a unit
    assert (Number.Other, "3D6") in found  # dice
    assert (Number.Integer, "5") in found
    assert (String.Double, '"リン"') in found
    assert (String.Heredoc, "[==[a long\nstring]] still]==]") in found
    assert (Keyword, "if") in found and (Keyword.Constant, "true") in found
    assert (Keyword.Constant, "self") in found and (Operator, ":=") in found
    assert (Name, "stride") in found
    assert not [value for kind, value in found if kind is Error]
    assert (Error, "#") in _tokens("x = 1 # 2;")  # what Lore does not read is marked


def test_a_word_with_a_d_is_a_name_not_dice() -> None:
    found = _tokens("desc d6 rid x2d 4d d")
    assert found[0] == (Keyword, "desc")
    assert [kind for kind, _ in found[1:]] == [Number.Other, Name, Name, Number.Other, Number.Other]


def test_the_entry_point_names_the_lexer() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    target = project["project"]["entry-points"]["pygments.lexers"]["lore"]
    module, _, name = target.partition(":")
    assert getattr(importlib.import_module(module), name) is LoreLexer
    assert "lore" in LoreLexer.aliases and "*.lore" in LoreLexer.filenames


BLOCK = re.compile(r"```lore\n(.*?)```", re.DOTALL)
DOCS = [*sorted((REPO / "docs").rglob("*.md")), REPO / "README.md"]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_lore_block_of_the_docs_highlights_without_errors(doc: Path) -> None:
    blocks = BLOCK.findall(doc.read_text(encoding="utf-8"))
    for block in blocks:
        errors = [value for kind, value in LoreLexer().get_tokens(block) if kind in Token.Error]
        assert not errors, (doc.name, block[:80])
