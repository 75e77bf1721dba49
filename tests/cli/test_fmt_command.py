"""`lore fmt FILE [--write | --check]`."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.cli.main import main

MESSY = 'section s{rule r{GM.message( "hi" );}// greet\n x=1+2 ;}\n'
CANONICAL = """section s {
    rule r {
        GM.message("hi");
    } // greet

    x = 1 + 2;
}
"""


def test_prints_the_canonical_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.lore"
    path.write_text(MESSY, encoding="utf-8")
    assert main(["fmt", str(path)]) == 0
    assert capsys.readouterr().out == CANONICAL
    assert path.read_text(encoding="utf-8") == MESSY  # untouched without --write


def test_write_rewrites_and_check_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.lore"
    path.write_text(MESSY, encoding="utf-8")
    assert main(["fmt", "--check", str(path)]) == 1
    assert "not in the canonical layout" in capsys.readouterr().err
    assert main(["fmt", "--write", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == CANONICAL
    assert main(["fmt", "--check", str(path)]) == 0


def test_a_file_that_does_not_parse_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.lore"
    path.write_text("section s { x = ; }\n", encoding="utf-8")
    assert main(["fmt", "--write", str(path)]) == 1
    out = capsys.readouterr().out
    assert "error: expected an expression" in out
    assert path.read_text(encoding="utf-8") == "section s { x = ; }\n"


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fmt", str(tmp_path / "missing.lore")]) == 2
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["fmt", "--write", "--check", str(tmp_path / "x.lore")])
    assert exit_info.value.code == 2


@pytest.mark.parametrize(
    "path",
    sorted((Path(__file__).resolve().parents[2] / "examples").rglob("*.lore")),
    ids=lambda p: p.name,
)
def test_examples_format_stably(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fmt", str(path)]) == 0
    copy = tmp_path / path.name
    copy.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["fmt", "--check", str(copy)]) == 0


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").rglob("*.lore"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_the_examples_are_in_the_canonical_layout(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What rule authors copy from should be what `lore fmt` writes.
    assert main(["fmt", "--check", str(path)]) == 0, capsys.readouterr().err
