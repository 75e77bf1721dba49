"""The paper's samples parse: the corrected ones and the verbatim ones (typos and all)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.syntax.dump import dump_text
from lore.syntax.parser import parse
from tests.conformance.paper import LORE_FILES, load_paper_file, paper_files, require_paper_dir
from tests.conftest import Golden
from tests.syntax.corpus_files import render_all

GOLDEN = Path(__file__).resolve().parent / "golden" / "paper"

# The only verbatim file with syntax errors: the typographic quotes of lines 3 and 25.
WITH_TYPOS = "verbatim/HelloWorldSaved.lore"


def _golden_name(relative: str) -> str:
    """``corrected/rules.lore`` -> ``corrected-rules``."""
    return relative.removesuffix(".lore").replace("/", "-")


def test_the_paper_samples_are_there() -> None:
    paper = require_paper_dir()
    for variant in ("corrected", "verbatim"):
        for name in LORE_FILES:
            assert (paper / variant / name).is_file(), f"{variant}/{name} is missing"


@pytest.mark.parametrize("relative", paper_files())
def test_paper_sample_ast(relative: str, golden: Golden) -> None:
    result = parse(load_paper_file(relative))
    if relative != WITH_TYPOS:
        assert render_all(result.diagnostics) == ""
    golden(dump_text(result.module), GOLDEN / f"{_golden_name(relative)}.ast")


def test_verbatim_hello_world_saved_reports_exactly_the_two_quotes(golden: Golden) -> None:
    result = parse(load_paper_file(WITH_TYPOS))
    found = [
        (d.code, d.source.position(d.span.start).line, d.message, d.hint)
        for d in result.diagnostics
    ]
    quote_error = (
        "lex.unexpected-char",
        "unexpected character U+201C (LEFT DOUBLE QUOTATION MARK)",
        "use '\"' instead",
    )
    assert found == [
        (quote_error[0], 3, *quote_error[1:]),
        (quote_error[0], 25, *quote_error[1:]),
    ]
    golden(render_all(result.diagnostics), GOLDEN / f"{_golden_name(WITH_TYPOS)}.diag")


def test_verbatim_typos_read_as_the_corrected_text() -> None:
    """After the two errors, the recovered strings give the same tree as the fixed file."""
    verbatim = parse(load_paper_file(WITH_TYPOS))
    corrected = parse(load_paper_file("corrected/HelloWorldSaved.lore"))
    assert dump_text(verbatim.module) == dump_text(corrected.module)
