"""`lore check`: output format and exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lore.cli.main import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").rglob("*.lore"))


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_examples_are_clean(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", str(path)], capsys) == (0, "", "")


def test_errors_are_printed_with_place_caret_and_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.lore").write_text(
        'section s {\n rule r {\n  GM.mesage("hi");\n  x = 1 + undefinedName;\n }\n}\n',
        encoding="utf-8",
    )
    status, out, err = run(["check", "bad.lore"], capsys)
    assert status == 1
    assert out == (
        "bad.lore:3:6: error: form 'Participant' has no member 'mesage'\n"
        "  |\n"
        '3 |   GM.mesage("hi");\n'
        "  |      ^^^^^^ did you mean 'message'? its members: message, query, actors, roll\n"
        "bad.lore:4:11: error: undefined name 'undefinedName'\n"
        "  |\n"
        "4 |   x = 1 + undefinedName;\n"
        "  |           ^^^^^^^^^^^^^\n"
    )
    assert err == "2 errors\n"


def test_warnings_alone_exit_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("warn.lore").write_text("section s { rule r { 1 + 2; } }\n", encoding="utf-8")
    status, out, err = run(["check", "warn.lore"], capsys)
    assert status == 0
    assert "warning: this value is computed but not used" in out
    assert err == "1 warning\n"


def test_wide_characters_get_wide_carets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("ja.lore").write_text("section s { 値 = 未定義; }\n", encoding="utf-8")
    status, out, _ = run(["check", "ja.lore"], capsys)
    assert status == 1
    # "section s { 値 = " takes 17 terminal columns: 値 is two wide.
    assert out.splitlines()[3] == "  | " + " " * 17 + "^" * 6


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "is a folder"),
    ],
)
def test_unusable_files_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, message: str
) -> None:
    target = tmp_path / "x.lore"
    assert callable(make)
    make(target)
    status, out, err = run(["check", str(target)], capsys)
    assert status == 2
    assert out == ""
    assert message in err


def test_a_binary_file_is_refused_without_being_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "junk.lore"
    target.write_bytes(bytes(range(256)) * 4)
    status, out, err = run(["check", str(target)], capsys)
    assert status == 2
    assert out == ""
    assert (
        err == f"lore: error: cannot read {target}: it is not a text file (it holds binary data)\n"
    )


def test_broken_encodings_give_diagnostics_not_tracebacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "junk.lore"
    target.write_bytes(bytes(range(1, 256)) * 4)
    status, out, err = run(["check", str(target)], capsys)
    assert status == 1
    assert "Traceback" not in out + err
    assert "error:" in out


def test_no_command_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2


def test_the_console_entry_point_runs(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "lore", "check", str(REPO / "examples" / "hello.lore")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "")


def test_at_most_100_problems_of_a_file_are_shown_and_all_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "many.lore"
    body = "".join(f" x{i} = missing{i};\n" for i in range(300))
    target.write_text(f"section s {{\n{body}}}\n", encoding="utf-8")
    status, out, err = run(["check", str(target)], capsys)
    assert status == 1
    assert out.count(": error: ") == 100
    assert out.count("\n") == 101 * 4  # four lines each, the note too
    assert f"{target}:102:9: note: 200 more problems in this file not shown" in out
    assert err == "300 errors\n"


def test_a_long_line_is_cut_around_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "long.lore"
    before = " ".join(f"a{i} = {i};" for i in range(2000))
    after = " ".join(f"c{i} = {i};" for i in range(2000))
    target.write_text(f"section s {{ {before} b = missing; {after} }}\n", encoding="utf-8")
    status, out, _ = run(["check", str(target)], capsys)
    assert status == 1
    lines = out.splitlines()
    assert lines[0].endswith("error: undefined name 'missing'")
    assert lines[2].startswith("1 | …") and lines[2].endswith("…")
    assert "b = missing;" in lines[2]
    assert lines[3].index("^") == lines[2].index("missing")
    assert max(len(line) for line in lines) < 200
