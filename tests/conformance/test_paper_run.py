"""`lore run` on the Lore paper's scenario with the conformance README's nine answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.cli.main import main
from tests.conformance.locate import shared_dir

PLAYER = "Chihiro_Shiiji@xmpp.xgmtk.org"
ANSWERS = [
    {"action": "move"},
    {"goal": "/region[dungeon]"},
    {"action": "search"},
    {"action": "move"},
    {"goal": "/region/dungeon[1,2]"},
    {"action": "sleep"},
    {"hour": 1},
    {"action": "search"},
]
# (tick, title) of each query, as the conformance README lists them.
QUERIES = [
    (0, "どうしますか？"),
    (0, "route in region"),
    (2700, "どうしますか？"),
    (3000, "どうしますか？"),
    (3000, "route in dungeon"),
    (3000, "どうしますか？"),
    (3000, "何時間寝ますか？"),
    (3300, "どうしますか？"),
    (3600, "どうしますか？"),
]


def run_scenario(tmp_path: Path, *extra: str) -> list[dict[str, object]]:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({PLAYER: ANSWERS}, ensure_ascii=False), encoding="utf-8")
    transcript = tmp_path / "t.jsonl"
    scenario = shared_dir("conformance", "paper", "corrected") / "scenario.lore"
    status = main(
        ["run", str(scenario), "--answers", str(answers), "--transcript", str(transcript), *extra]
    )
    assert status == 0
    return [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]


def test_queries_messages_and_end(tmp_path: Path) -> None:
    records = run_scenario(tmp_path)
    queries = [(r["tick"], r["title"]) for r in records if r["kind"] == "query"]
    assert queries == QUERIES
    messages = [(r["tick"], r["to"], r["format"]) for r in records if r["kind"] == "message"]
    assert messages == [(2700, PLAYER, "text"), (3300, PLAYER, "html")]
    texts = [r["text"] for r in records if r["kind"] == "message"]
    assert texts[0] == "ダンジョンに入ります。"
    assert "宝物が見つかりました！" in str(texts[1])
    assert records[-1] == {"tick": 3600, "kind": "end", "reason": "no-answer"}
    assert not [r for r in records if r["kind"] == "error"]


def test_transcript_is_pinned(tmp_path: Path, golden: object) -> None:
    run_scenario(tmp_path)
    text = (tmp_path / "t.jsonl").read_text(encoding="utf-8")
    assert callable(golden)
    golden(text, Path(__file__).parent / "golden" / "paper_scenario.jsonl")


def test_save_then_continue(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "s.lore"
    uninterrupted = run_scenario(tmp_path, "--save", str(save))
    capsys.readouterr()
    # The save holds the eight answers; the ninth query is open and nobody answers it.
    none_left = tmp_path / "none.json"
    none_left.write_text("{}", encoding="utf-8")
    transcript = tmp_path / "resumed.jsonl"
    status = main(["run", str(save), "--answers", str(none_left), "--transcript", str(transcript)])
    assert status == 0
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing shown twice
    # The resumed session shows where the actor stands and what it knows.
    assert "Chihiro: at /region/dungeon[1,2], knows secret0" in captured.err
    text = save.read_text(encoding="utf-8")
    assert 'location = "/region/dungeon[1,2]":loc;' in text
    assert 'knownSecrets = {"secret0"};' in text
    resumed = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    # It goes on from the save: the ninth query stays open, nobody answers it.
    assert resumed == [uninterrupted[-1]] == [{"tick": 3600, "kind": "end", "reason": "no-answer"}]
