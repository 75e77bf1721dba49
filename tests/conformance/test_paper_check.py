"""`lore check` on the Lore paper's sample programs (shared/conformance/paper)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lore.cli.main import main
from tests.conformance.locate import shared_dir

PAPER = "conformance", "paper"

# What the conformance README says `lore check` must report on verbatim/ (file, line,
# column, severity, message).
QUOTE = "unexpected character U+201C (LEFT DOUBLE QUOTATION MARK)"
PROHIBITED = "[1,4] is a prohibited square (wall) of '/region/dungeon'"
QUANTITY = 'height="0.3(m)" is not a quantity (expected like 0.3[m])'
VERBATIM = {
    "HelloWorld.lore": [],
    "HelloWorldSaved.lore": [
        ("HelloWorldSaved.lore", 3, 3, "error", QUOTE),
        ("HelloWorldSaved.lore", 25, 11, "error", QUOTE),
        ("rules.lore", 29, 1, "error", "member 'geometry' wants xml, got string"),
        ("rules.lore", 98, 20, "error", "undefined name 'delay'"),
        ("scenario.lore", 69, 17, "error", "unknown type 'Featur'"),
        ("scenario.lore", 76, 17, "error", "unknown type 'Featur'"),
        ("scenario.lore", 94, 24, "warning", PROHIBITED),
        ("scenario.lore", 100, 12, "warning", PROHIBITED),
        ("dungeon.xml", 28, 36, "error", QUANTITY),
    ],
    "rules.lore": [
        ("rules.lore", 29, 1, "error", "member 'geometry' wants xml, got string"),
        ("rules.lore", 98, 20, "error", "undefined name 'delay'"),
    ],
    "scenario.lore": [
        ("scenario.lore", 69, 17, "error", "unknown type 'Featur'"),
        ("scenario.lore", 76, 17, "error", "unknown type 'Featur'"),
        ("scenario.lore", 94, 24, "warning", PROHIBITED),
        ("scenario.lore", 100, 12, "warning", PROHIBITED),
        ("rules.lore", 29, 1, "error", "member 'geometry' wants xml, got string"),
        ("rules.lore", 98, 20, "error", "undefined name 'delay'"),
        ("dungeon.xml", 28, 36, "error", QUANTITY),
    ],
}


def headlines(output: str) -> list[tuple[str, int, int, str, str]]:
    found = []
    for line in output.splitlines():
        if line.startswith((" ", "\t")) or ": " not in line or line[0].isdigit():
            continue
        place, severity, message = line.split(": ", 2)
        name, row, column = place.rsplit(":", 2)
        found.append((os.path.basename(name), int(row), int(column), severity, message))
    return found


@pytest.mark.parametrize(
    "name", ["HelloWorld.lore", "HelloWorldSaved.lore", "rules.lore", "scenario.lore"]
)
def test_corrected_samples_check_clean(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_dir(*PAPER, "corrected") / name
    status = main(["check", str(path)])
    captured = capsys.readouterr()
    assert (status, captured.out, captured.err) == (0, "", "")


@pytest.mark.parametrize("name", sorted(VERBATIM))
def test_verbatim_samples_report_the_printed_mistakes(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shared_dir(*PAPER, "verbatim") / name
    status = main(["check", str(path)])
    out = capsys.readouterr().out
    found = headlines(out)
    assert found == VERBATIM[name]
    assert status == (1 if VERBATIM[name] else 0)


def test_quote_error_has_hint(capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_dir(*PAPER, "verbatim") / "HelloWorldSaved.lore"
    main(["check", str(path)])
    out = capsys.readouterr().out
    assert "  |   ^ use '\"' instead" in out
    assert "did you mean 'Feature'?" in out
    assert "add ':xml' after the string" in out


def test_checking_all_corrected_files_together(capsys: pytest.CaptureFixture[str]) -> None:
    folder: Path = shared_dir(*PAPER, "corrected")
    status = main(["check", *(str(p) for p in sorted(folder.glob("*.lore")))])
    assert status == 0
    assert capsys.readouterr().out == ""
