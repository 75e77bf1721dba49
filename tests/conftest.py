"""Shared pytest setup: the ``--update-golden`` switch and the ``golden`` fixture.

Golden files hold the expected output of the parser, the checker and sessions. A test
compares its output with the file; ``pytest --update-golden`` rewrites the files from the
current output instead (review the change with ``git diff`` before committing it).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files from the current output instead of comparing with them",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def shown(path: Path) -> str:
    """A path as shown in messages: relative to the repository when it is inside it."""
    try:
        return path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


class Golden:
    """Compares a text with a golden file, or rewrites the file under --update-golden."""

    def __init__(self, update: bool) -> None:
        self.update = update

    def __call__(self, actual: str, path: Path) -> None:
        if self.update:
            if not path.exists() or path.read_text(encoding="utf-8") != actual:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(actual, encoding="utf-8", newline="\n")
            return
        if not path.exists():
            pytest.fail(
                f"golden file {shown(path)} is missing; run pytest --update-golden to create it",
                pytrace=False,
            )
        expected = path.read_text(encoding="utf-8")
        if actual != expected:
            diff = difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{shown(path)} (golden)",
                tofile="actual",
            )
            pytest.fail(
                f"output differs from {shown(path)} (pytest --update-golden accepts it):\n"
                + "".join(diff),
                pytrace=False,
            )


@pytest.fixture
def golden(update_golden: bool) -> Golden:
    """``golden(text, path)``: assert ``text`` equals the golden file at ``path``."""
    return Golden(update_golden)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line for each kind of suite skipped for what the machine lacks: the
    conformance suites on a clone without the shared data, the PostgreSQL ones where
    there is no PostgreSQL, the accessibility checks without axe-core."""
    from tests.conformance.locate import NEEDED
    from tests.server.axe import NEEDED as AXE
    from tests.server.postgres import NEEDED as POSTGRES

    kinds = (("conformance", NEEDED), ("postgresql", POSTGRES), ("accessibility", AXE))
    for what, needed in kinds:
        skipped = [
            report
            for report in terminalreporter.stats.get("skipped", [])
            if isinstance(report.longrepr, tuple) and needed in str(report.longrepr[2])
        ]
        if skipped:
            files = {report.nodeid.split("::", 1)[0] for report in skipped}
            terminalreporter.write_line(
                f"{what}: {len(skipped)} tests in {len(files)} files skipped: {needed}"
            )
