"""The checker's corpus: small Lore programs under ``tests/semantics/corpus``.

``valid/`` holds programs the checker must accept without a single diagnostic (warnings
included): one file per construct, and folders that hold multi-file programs (every
``.lore`` file of a folder is checked together). ``invalid/`` holds one program per kind
of diagnostic, each with a golden ``.diag`` twin: its name is the diagnostic's code
without the ``check.`` prefix (``undefined.lore`` for ``check.undefined``,
``import-missing.lore`` for ``import.missing``), optionally followed by ``--`` and a
variant (``undefined--did-you-mean.lore``). Files in ``_data`` folders are only read by
other programs.

Programs are checked with the corpus folder as the working directory, so files are named
relative to it (``invalid/undefined.lore``) and goldens hold no machine paths.
"""

from __future__ import annotations

from pathlib import Path

from lore.semantics.check import CheckResult, check_paths
from lore.syntax.diagnostics import Diagnostic

CORPUS = Path(__file__).resolve().parent / "corpus"
VALID = CORPUS / "valid"
INVALID = CORPUS / "invalid"


def programs(folder: Path) -> list[Path]:
    """The programs of a corpus folder: its ``.lore`` files and its sub-folders."""
    found = [p for p in folder.glob("*.lore")]
    found += [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("_")]
    return sorted(found)


def program_files(program: Path) -> list[Path]:
    """The files to check for a program, relative to :data:`CORPUS`."""
    files = sorted(program.glob("*.lore")) if program.is_dir() else [program]
    return [f.relative_to(CORPUS) for f in files]


def check_program(program: Path) -> CheckResult:
    """Check a program; the working directory must be :data:`CORPUS`."""
    return check_paths(program_files(program))


def expected_code(program: Path) -> str:
    """The code an invalid program is named after."""
    stem = program.stem if program.is_file() else program.name
    kind = stem.split("--")[0]
    if kind.startswith("import-"):
        return "import." + kind.removeprefix("import-")
    return "check." + kind


def render_all(diagnostics: list[Diagnostic]) -> str:
    """All diagnostics rendered, separated by blank lines (the ``.diag`` golden format)."""
    return "".join(d.render() + "\n\n" for d in diagnostics).removesuffix("\n")
