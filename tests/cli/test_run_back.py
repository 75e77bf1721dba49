"""``<`` at a ``lore run`` prompt, and ``{"back": true}`` in an answers file: the
participant's last answer of the step is taken back and its question asked again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from lore.cli.main import main

REPO = Path(__file__).resolve().parents[2]
PAPER = REPO / "examples" / "paper" / "scenario.lore"
CHIHIRO = "Chihiro_Shiiji@xmpp.xgmtk.org"


def records_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run_typed(
    tmp_path: Path, typed: str, file: Path = PAPER, *extra: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``lore run`` of ``file`` at a terminal where ``typed`` is typed (``extra``: more
    options): what it printed, and its transcript."""
    transcript = tmp_path / "t.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "lore", "run", str(file), "--transcript", str(transcript), *extra],
        input=typed,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done, transcript


def test_a_lt_sign_at_the_route_goes_back_to_what_to_do(tmp_path: Path) -> None:
    # 2: 移動する; at the route, <; then 1: 探す.
    done, transcript = run_typed(tmp_path, "2\n<\n1\n")
    assert "(type < at a prompt to take back your last answer)" in done.stdout
    assert done.stdout.count("(type < at a prompt") == 1
    assert done.stdout.count("== Chihiro: どうしますか？") == 3
    kinds = [(r["kind"], r.get("title") or r.get("values")) for r in records_of(transcript)]
    assert kinds[:6] == [
        ("query", "どうしますか？"),
        ("answer", {"action": "move"}),
        ("query", "route in region"),
        ("back", "どうしますか？"),
        ("answer", {"action": "search"}),
        ("query", "どうしますか？"),
    ]


def test_a_lt_sign_with_nothing_to_take_back_is_refused_and_asked_again(tmp_path: Path) -> None:
    done, transcript = run_typed(tmp_path, "<\n3\n")
    assert "cannot go back: there is no earlier answer of this step" in done.stdout
    assert not any(r["kind"] == "back" for r in records_of(transcript))
    assert {"action": "sleep"} in [r.get("values") for r in records_of(transcript)]


def test_an_answers_file_goes_back(tmp_path: Path, capsys: Any) -> None:
    def run(answers: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({CHIHIRO: answers}), encoding="utf-8")
        out = tmp_path / f"{name}.jsonl"
        assert main(["run", str(PAPER), "--answers", str(path), "--transcript", str(out)]) == 0
        return records_of(out)

    direct_answers = [{"action": "search"}, {"action": "move"}, {"goal": "/region[dungeon]"}]
    direct = run(direct_answers, "d")
    back = run(
        [{"action": "move"}, {"back": True}, *direct_answers],
        "b",
    )
    assert [r["kind"] for r in back[1:4]] == ["answer", "query", "back"]
    assert back[:1] + back[4:] == direct


def test_a_back_that_cannot_be_is_an_error_naming_the_answer(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps({CHIHIRO: [{"back": True}]}), encoding="utf-8")
    assert main(["run", str(PAPER), "--answers", str(path)]) == 1
    err = capsys.readouterr().err
    assert "a.json: answer 1 of 'Chihiro_Shiiji@xmpp.xgmtk.org'" in err
    assert "cannot go back: there is no earlier answer" in err
    assert "Traceback" not in err


def test_a_back_in_an_answers_file_is_kept_in_the_save(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps({CHIHIRO: [{"action": "move"}, {"back": True}]}), encoding="utf-8")
    save = tmp_path / "s.lore"
    assert main(["run", str(PAPER), "--answers", str(path), "--save", str(save)]) == 0
    assert '\\"back\\":true' in save.read_text(encoding="utf-8")
    rest = tmp_path / "r.json"
    rest.write_text(json.dumps({CHIHIRO: [{"action": "search"}]}), encoding="utf-8")
    out = tmp_path / "t.jsonl"
    assert main(["run", str(save), "--answers", str(rest), "--transcript", str(out)]) == 0
    assert {"action": "search"} in [r.get("values") for r in records_of(out)]
