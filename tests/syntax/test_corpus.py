"""The syntax corpus: valid files pin their AST, invalid files pin their diagnostics."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from lore.syntax import ast
from lore.syntax.dump import dump_text
from lore.syntax.parser import parse
from tests.conftest import Golden
from tests.syntax.corpus_files import (
    CORPUS,
    INVALID,
    VALID,
    invalid_files,
    load,
    render_all,
    valid_files,
)

SYNTAX_SRC = Path(__file__).resolve().parents[2] / "src" / "lore" / "syntax"


def _id(path: Path) -> str:
    return path.stem


@pytest.mark.parametrize("path", valid_files(), ids=_id)
def test_valid_file_parses_cleanly_to_its_golden_ast(path: Path, golden: Golden) -> None:
    result = parse(load(path))
    assert render_all(result.diagnostics) == ""
    golden(dump_text(result.module), path.with_suffix(".ast"))


@pytest.mark.parametrize("path", invalid_files(), ids=_id)
def test_invalid_file_reports_its_golden_diagnostics(path: Path, golden: Golden) -> None:
    result = parse(load(path))
    assert result.diagnostics, "an invalid corpus file must give at least one diagnostic"
    assert not result.ok
    golden(render_all(result.diagnostics), path.with_suffix(".diag"))


def test_every_golden_file_has_its_source() -> None:
    orphans = [
        p.relative_to(CORPUS).as_posix()
        for p in [*VALID.glob("*.ast"), *INVALID.glob("*.diag")]
        if not p.with_suffix(".lore").exists()
    ]
    assert orphans == [], "golden files whose .lore file is gone"


def test_the_corpus_is_there() -> None:
    assert len(valid_files()) >= 50
    assert len(invalid_files()) >= 30


def _node_kinds() -> set[str]:
    return {
        name
        for name, value in vars(ast).items()
        if isinstance(value, type)
        and issubclass(value, ast.Node)
        and value is not ast.Node
        and dataclasses.is_dataclass(value)
    }


def test_valid_corpus_uses_every_node_kind() -> None:
    dumped = "\n".join(p.with_suffix(".ast").read_text(encoding="utf-8") for p in valid_files())
    used = set(re.findall(r"^\s*([A-Z]\w*)$", dumped, re.MULTILINE))
    assert _node_kinds() - used == set()


def _error_codes() -> set[str]:
    codes: set[str] = set()
    for module in ("lexer.py", "parser.py"):
        text = (SYNTAX_SRC / module).read_text(encoding="utf-8")
        codes |= set(re.findall(r'"((?:lex|parse)\.[a-z-]+)"', text))
    return codes


# They need 200 errors, or 500,000 tokens, in one file: test_lexer.py,
# test_parser_recovery.py and tests/cli/test_hostile_files.py cover them.
_NOT_IN_CORPUS = {"lex.too-many", "parse.too-many", "lex.too-long"}


def test_invalid_corpus_shows_every_error_code() -> None:
    shown: set[str] = set()
    for path in invalid_files():
        shown |= {d.code for d in parse(load(path)).diagnostics}
    assert "parse.expected" in _error_codes()  # the scan of the sources works
    assert _error_codes() - _NOT_IN_CORPUS - shown == set()
