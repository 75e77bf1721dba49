"""Every ```lore example in docs/language.md parses, checks and runs without a diagnostic.

Examples that are meant to be wrong are fenced as ```text in the document, so a
``lore`` block that the parser or the checker rejects is a mistake in the docs or in Lore.
Each example is checked as a file of its own that imports ``basic.lore`` (as every
program does), in the folder of the paper's samples: examples quoted from the paper's
scenario import it (``import "scenario.lore":url;``) and read its maps. An example with
events is run, bots answering, and must run without a rule error.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lore.engine.participants import Bot, Participant, Participants
from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import CheckResult, check_text
from lore.syntax.parser import parse_text
from lore.world.static import check_world

LANGUAGE_DOC = Path(__file__).resolve().parents[2] / "docs" / "language.md"
# The folder the examples are checked in: the paper's example, whose files (the dungeon's
# XML among them) the reference's examples load.
PAPER_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "paper"

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


def _checked(line: int, code: str) -> CheckResult:
    text = code if 'import "basic.lore"' in code else 'import "basic.lore":url;\n' + code
    return check_text(text, f"language.md:{line}", PAPER_EXAMPLE)


@pytest.mark.parametrize(
    ("line", "code"), [pytest.param(line, code, id=f"line{line}") for line, code in _lore_blocks()]
)
def test_lore_example_checks(line: int, code: str) -> None:
    result = _checked(line, code)
    found = result.diagnostics + check_world(result)
    rendered = "\n".join(d.render() for d in found)
    assert not found, f"the example on line {line} of docs/language.md does not check:\n{rendered}"


def _bot(who: str) -> Participant:
    return Bot()


@pytest.mark.parametrize(
    ("line", "code"), [pytest.param(line, code, id=f"line{line}") for line, code in _lore_blocks()]
)
def test_lore_example_with_events_runs(line: int, code: str) -> None:
    result = _checked(line, code)
    program = compile_program(result)
    if not program.events:
        return
    session = Session(program, 1, Participants(default=_bot), Limits(max_steps=500))
    session.run()
    errors = [f"{e.location()}: {e.message}" for e in session.errors]
    assert errors == [], f"the example on line {line} of docs/language.md goes wrong: {errors}"


def test_several_examples_have_events_to_run() -> None:
    with_events = [
        line for line, code in _lore_blocks() if compile_program(_checked(line, code)).events
    ]
    assert len(with_events) >= 5
