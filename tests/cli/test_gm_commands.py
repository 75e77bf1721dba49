"""The GM's rulings at ``lore run``'s terminal: a line beginning with ``/`` at any prompt
sets a member a sheet shows, rolls the rules' improvised check, ends a scene or sets the
table to rule on every check; a ruling that does not fit is refused with the reason, and
the question is asked again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cli.test_run_back import records_of
from tests.cli.test_run_back import run_typed as typed_run

REPO = Path(__file__).resolve().parents[2]
ORM = REPO / "examples" / "orm" / "scenario.lore"


def run_typed(tmp_path: Path, typed: str) -> tuple[str, list[dict[str, Any]]]:
    done, transcript = typed_run(tmp_path, typed, ORM, "--seed", "5")
    return done.stdout, records_of(transcript)


def test_rulings_typed_at_a_prompt_are_made_and_the_question_asked_again(tmp_path: Path) -> None:
    typed = (
        "/set orm.clearing.ghoulA hp 3\n"
        "/set orm.clearing.ghoulA hp three\n"
        "/check orm.clearing.rin 感覚 1 10\n"
        "/end won\n"
    )
    out, records = run_typed(tmp_path, typed)
    rulings = [r for r in records if r["kind"] == "ruling"]
    assert [r["ruling"] for r in rulings] == ["value", "end"]
    assert rulings[0]["before"] == 12 and rulings[0]["after"] == 3
    assert "ruling refused: 'hp' is an integer, not 'three'" in out
    (check,) = [r for r in records if r["kind"] == "roll" and r.get("ruling") == "check"]
    assert check["title"] == "GM の判定 (感覚)" and check["target"] == 10
    texts = [r.get("text") for r in records if r["kind"] == "message"]
    assert "戦闘終了 (勝利)" in texts
    assert out.count("== リン: リン のシンプルフェイズ") >= 3  # (asked again after each)


def test_help_and_a_line_that_is_no_ruling(tmp_path: Path) -> None:
    out, _ = run_typed(tmp_path, "/help\n/frobnicate\n/rolls on\n/undo\n")
    assert "/set OBJECT MEMBER VALUE" in out
    assert "not a ruling: /frobnicate" in out
    assert "every check is ruled on from the next step: on" in out
    assert "ruling refused: there is no ruling to take back" in out


def test_a_ruling_taken_back_at_once(tmp_path: Path) -> None:
    _, records = run_typed(tmp_path, "/set orm.clearing.ghoulA hp 3\n/undo\n/undo\n")
    rulings = [r for r in records if r["kind"] == "ruling"]
    assert [(r["ruling"], r["before"], r["after"]) for r in rulings] == [
        ("value", 12, 3),
        ("back", 3, 12),
    ]


def test_the_gm_brings_an_enemy_in_at_the_terminal(tmp_path: Path) -> None:
    out, records = run_typed(tmp_path, "/add 竜\n/add 屍鬼\n3\n3\n")
    assert "ruling refused: '竜' is none of 屍鬼" in out
    (arrival,) = [r for r in records if r["kind"] == "ruling"]
    assert arrival["ruling"] == "arrival" and arrival["arrival"] == "屍鬼"
    assert "⚖ GM ruling: Enemy joins: 屍鬼" in out
    texts = [str(r.get("text")) for r in records if r["kind"] == "message"]
    assert any(t.startswith("屍鬼C が戦闘に加わった") for t in texts)
