"""The checker's corpus: valid programs give no diagnostic at all, invalid programs give
the diagnostics pinned in their golden ``.diag`` files."""

from __future__ import annotations

import errno
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import FrameType

import pytest

from lore.syntax import files as files_module
from lore.syntax import recursion
from lore.syntax import source as source_module
from lore.syntax.source import SourceFile
from lore.syntax.tokens import STRING_TYPES
from tests.conftest import Golden
from tests.semantics.corpus_files import (
    CORPUS,
    INVALID,
    VALID,
    check_program,
    expected_code,
    programs,
    render_all,
)

SEMANTICS_SRC = Path(__file__).resolve().parents[2] / "src" / "lore" / "semantics"


def _id(path: Path) -> str:
    return path.name


@contextmanager
def _unreadable(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Files named ``unreadable.*`` exist but cannot be read (as without permission)."""
    original = SourceFile.from_path.__func__  # type: ignore[attr-defined]

    def from_path(cls: type[SourceFile], path: Path, name: str | None = None) -> SourceFile:
        if path.stem == "unreadable":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        result: SourceFile = original(cls, path, name)
        return result

    monkeypatch.setattr(SourceFile, "from_path", classmethod(from_path))
    yield


@contextmanager
def _small_size_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Files named ``large.*`` are read with a limit of 40 bytes."""
    original = files_module.read_bytes

    def read_bytes(path: Path, limit: int | None = None) -> bytes:
        return original(path, 40 if path.stem == "large" else limit)

    monkeypatch.setattr(source_module, "read_bytes", read_bytes)
    yield


@contextmanager
def _known_stack_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Python's recursion limit a known distance above the current depth, so that a
    program is too deep for the checker however deep pytest itself runs."""
    depth = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 400)
    monkeypatch.setattr(recursion, "RECURSION_LIMIT", depth + 400)  # what check() may raise
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@contextmanager
def _nothing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield


# What some programs need around them: a file that cannot be read, a lower size limit,
# a known limit on Python's stack.
SETUP: dict[str, Callable[[pytest.MonkeyPatch], AbstractContextManager[None]]] = {
    "import-unreadable.lore": _unreadable,
    "unreadable-file.lore": _unreadable,
    "import-too-large.lore": _small_size_limit,
    "too-deep.lore": _known_stack_limit,
}


@pytest.fixture
def in_corpus(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.chdir(CORPUS)
    return monkeypatch


@pytest.mark.parametrize("program", programs(VALID), ids=_id)
def test_valid_program_gives_no_diagnostic(program: Path, in_corpus: pytest.MonkeyPatch) -> None:
    result = check_program(program)
    assert render_all(result.diagnostics) == ""


@pytest.mark.parametrize("program", programs(INVALID), ids=_id)
def test_invalid_program_gives_its_golden_diagnostics(
    program: Path, in_corpus: pytest.MonkeyPatch, golden: Golden
) -> None:
    with SETUP.get(program.name, _nothing)(in_corpus):
        result = check_program(program)
    codes = {d.code for d in result.diagnostics}
    assert expected_code(program) in codes, f"{program.name} must show its code"
    golden_path = program.with_suffix(".diag") if program.is_file() else program / "all.diag"
    golden(render_all(result.diagnostics), golden_path)


def _codes_in_sources() -> set[str]:
    codes = {f"check.{kind}" for kind in STRING_TYPES}
    for module in SEMANTICS_SRC.glob("*.py"):
        text = module.read_text(encoding="utf-8")
        codes |= set(re.findall(r'"((?:check|import)\.[a-z-]+)"', text))
    return codes


def test_every_code_has_an_invalid_program() -> None:
    named = {expected_code(program) for program in programs(INVALID)}
    assert _codes_in_sources() - named == set()


def test_every_invalid_program_is_named_after_a_code() -> None:
    named = {expected_code(program) for program in programs(INVALID)}
    assert named - _codes_in_sources() == set()


def test_every_golden_file_has_its_program() -> None:
    orphans = [
        p.relative_to(CORPUS).as_posix()
        for p in INVALID.rglob("*.diag")
        if not (p.with_suffix(".lore").exists() or p.name == "all.diag")
    ]
    assert orphans == []


def test_the_corpus_is_there() -> None:
    assert len(programs(VALID)) >= 25
    assert len(programs(INVALID)) >= 60
