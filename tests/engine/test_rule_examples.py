"""The designer examples (seeds 001, 003, 004): what their transcripts say, worked out
again from the dice records, and what ``lore sim`` sums up from their outcomes."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.analysis.simulate import load_program, simulate, summarize
from lore.engine.session import Limits
from tests.engine.test_examples import CASES, records_of, run_example, texts


def dice_of(records: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    return [r for r in records if r["kind"] == "dice"]


def test_orm_checks_follow_the_dice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = records_of(run_example("orm", tmp_path, capsys))
    rolls = dice_of(records)
    checks = [(t, text) for t, text in texts(records, "GM") if "判定" in text or "回避" in text]
    # Every check message shows the faces of a roll of its own, in order, and its total
    # is the faces' sum plus the bonus (plus 10 on a critical: two or more 6s).
    assert len(checks) >= 8
    for _, text in checks:
        faces = text[text.index("[") + 1 : text.index("]")]
        assert any(" ".join(map(str, r["faces"])) == faces for r in rolls), text
    assert records[-1] == {"tick": 50, "kind": "end", "reason": "ended", "outcome": "won"}
    # The attack menus offer only the enemies next to the attacker.
    menus = [r for r in records if r["kind"] == "query" and "targets" in r.get("choices", {})]
    assert menus and all(set(m["choices"]["targets"]) <= {"屍鬼A", "屍鬼B"} for m in menus)
    # A move menu never offers a square an enemy or a boulder stands on.
    moves = [r for r in records if r["kind"] == "query" and r["title"] == "move in /"]
    assert all("/[2,2]" not in m["choices"]["goal"] for m in moves)


def test_ninja_pool_explodes_and_costs_karma(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = records_of(run_example("ninja", tmp_path, capsys))
    rolls = dice_of(records)
    explodes = [r for r in rolls if r["how"] == "explode"]
    assert explodes
    for explode in explodes:
        # Every 10 adds one die (which may show 10 again), after the pool's own dice.
        pool = int(explode["dice"].split("D")[0])
        assert len(explode["faces"]) - pool == explode["faces"].count(10)
        assert explode["total"] == sum(explode["faces"])
    messages = [text for _, text in texts(records, "GM")]
    assert any("ウカツ！" in text for text in messages)
    assert any("タツジン！" in text for text in messages)
    # Shown as on the dice: a 10 reads 0.
    assert any("[0 " in text for text in messages)
    assert records[-1]["outcome"] == "hacked"


def test_blackpoker_stage_is_last_in_first_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = records_of(run_example("blackpoker", tmp_path, capsys))
    messages = [text for _, text in texts(records, "GM")]
    # アオイ's counter (requested last) resolves first and negates レン's counter.
    assert messages.index("解決: アオイ の カウンター (打ち消し)") < messages.index(
        "解決: アオイ の アタック (2 ダメージ)"
    )
    assert "カウンター (打ち消し) は打ち消された" in messages
    # The menu offers only what is legal: on an empty stage no counter, and with a
    # request on the stage no main action for the other player.
    first, second = [r for r in records if r["kind"] == "query"][:2]
    assert first["choices"]["request"] == ["attack", "throwing", "end", "pass"]
    assert second["choices"]["request"] == ["counter", "pass"]
    assert records[-1]["outcome"] == "アオイ wins"


@pytest.mark.parametrize(
    ("name", "outcomes"),
    [
        ("orm", {"won", "lost", "draw"}),
        ("ninja", {"hacked", "failed", "gave up", "spotted"}),
        ("blackpoker", {"アオイ wins", "レン wins", "draw"}),
    ],
)
def test_sim_sums_up_the_outcomes(name: str, outcomes: set[str]) -> None:
    entry = CASES[name].entry
    program, diagnostics = load_program([entry])
    assert program is not None, diagnostics
    limits = Limits(max_steps=10_000)
    summary = summarize(simulate(program, [entry], 30, 0, limits, 1), 0, limits)
    assert set(summary.outcomes) <= outcomes
    assert sum(summary.outcomes.values()) == summary.ends["ended"] == 30
    assert not summary.errors
