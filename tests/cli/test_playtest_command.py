"""``lore test``: a play-through replayed and compared with its blessed transcript."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lore.cli.main import main

REPO = Path(__file__).resolve().parents[2]
DUEL = REPO / "examples" / "duel"


def duel(tmp_path: Path) -> Path:
    folder = tmp_path / "duel"
    shutil.copytree(DUEL, folder)
    return folder


def test_a_blessed_play_through_is_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = duel(tmp_path)
    assert main(["test", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [f"ok      {folder / 'answers.json'}", "1 ok"]


def test_a_changed_rule_fails_with_its_first_difference_and_bless_accepts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = duel(tmp_path)
    rules = folder / "rules.lore"
    text = rules.read_text(encoding="utf-8")
    changed = text.replace("damage = d6 + 3;", "damage = d6 + 4;", 1)
    assert changed != text
    rules.write_text(changed, encoding="utf-8")
    blessed = (folder / "transcript.jsonl").read_text(encoding="utf-8")
    assert main(["test", str(folder / "answers.json")]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"FAILED  {folder / 'answers.json'}"
    assert "the transcript differs from" in lines[1] and "--bless" in lines[1]
    assert lines[2].startswith("  --- ") and lines[3].startswith("  +++ ")
    assert lines[4].startswith("  @@ -")
    assert any(line.startswith("  -{") for line in lines) and any(
        line.startswith("  +{") for line in lines
    )
    assert f"to replay it: cd {folder} && lore run scenario.lore --seed 73" in out
    assert lines[-1] == "1 failed"
    assert (folder / "transcript.jsonl").read_text(encoding="utf-8") == blessed

    assert main(["test", "--bless", str(folder)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert (folder / "transcript.jsonl").read_text(encoding="utf-8") != blessed
    assert main(["test", str(folder)]) == 0


def test_a_test_without_a_transcript_is_new_until_blessed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = duel(tmp_path)
    (folder / "transcript.jsonl").rename(folder / "old.jsonl")
    assert main(["test", str(folder)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("new ") and "lore test --bless writes" in out
    assert main(["test", "--bless", str(folder)]) == 0
    capsys.readouterr()
    assert (folder / "transcript.jsonl").read_bytes() == (folder / "old.jsonl").read_bytes()


def test_a_broken_answers_file_and_a_missing_lore_file_are_said_with_their_places(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = duel(tmp_path)
    (folder / "broken.answers.json").write_text('{"GM": [', encoding="utf-8")
    answers = json.loads((folder / "answers.json").read_text(encoding="utf-8"))
    answers["$test"]["play"] = "gone.lore"
    (folder / "gone.answers.json").write_text(json.dumps(answers), encoding="utf-8")
    answers["$test"] = {"seed": -1}
    (folder / "seed.answers.json").write_text(json.dumps(answers), encoding="utf-8")
    assert main(["test", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "ERROR   " + str(folder / "broken.answers.json") in out
    assert str(folder / "broken.answers.json") + ":1:" in out
    assert "gone.lore" in out and "cannot play it" in out
    assert '"seed" is a whole number, 0 or more (got -1)' in out
    assert out.splitlines()[-1] == "1 ok, 3 with errors"
    assert "Traceback" not in out


def test_paths_that_name_no_test_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["test", str(tmp_path / "nothing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["test", str(tmp_path)]) == 2
    assert "no tests under" in capsys.readouterr().err
    (tmp_path / "notes.txt").write_text("hi", encoding="utf-8")
    assert main(["test", str(tmp_path / "notes.txt")]) == 2
    assert "is not an answers file" in capsys.readouterr().err


def test_lore_test_speaks_japanese(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_LANG", "ja")
    folder = duel(tmp_path)
    (folder / "transcript.jsonl").unlink()
    assert main(["test", str(folder)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("新規") and "承認済みの記録がまだありません" in out
    assert out.splitlines()[-1] == "新規 1"
