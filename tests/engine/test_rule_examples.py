"""The designer examples (seeds 001, 003, 004): what their transcripts say, worked out
again from the dice records, and what ``lore sim`` sums up from their outcomes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lore.analysis.simulate import load_program, simulate, summarize
from lore.engine.session import Limits
from tests.engine.test_examples import CASES, records_of, run_example, texts


def dice_of(records: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    return [r for r in records if r["kind"] == "dice"]


# The dice as BCDice writes a sum (their sum, then the faces), the modifiers, the total.
CHECK = re.compile(r"＞ ([0-9]+)\[([0-9,]+)\]((?:[+-][0-9]+)*) ＞ (-?[0-9]+)( ＞ クリティカル！)?")
DAMAGE = re.compile(
    r"＞ ([0-9]+)\[([0-9,]+)\]\+([0-9]+)(\+10)? ＞ ([0-9]+) - .+防御力 ([0-9]+) = .+ に ([0-9]+) 点"
)


def test_orm_checks_and_damage_follow_the_dice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = records_of(run_example("orm", tmp_path, capsys))
    rolls = [" ".join(map(str, r["faces"])) for r in dice_of(records)]
    checks = damages = 0
    for _, text in texts(records, "GM"):
        found = CHECK.search(text)
        if found and "ダメージロール" not in text:
            faces = [int(f) for f in found.group(2).split(",")]
            modifiers = [int(m) for m in re.findall(r"[+-][0-9]+", found.group(3))]
            total = int(found.group(4))
            critical = faces.count(6) >= 2
            # 達成値 = the faces + the 判定値 and modifiers, +10 on two or more 6s (shown).
            assert int(found.group(1)) == sum(faces), text
            assert total == sum(faces) + sum(modifiers), text
            assert 0 not in modifiers, text  # (no +0)
            assert not critical or modifiers[-1] == 10, text
            assert bool(found.group(5)) == critical, text
            assert ("ファンブル！" in text) == all(f == 1 for f in faces), text
            assert " ".join(map(str, faces)) in rolls, text
            checks += 1
        hit = DAMAGE.search(text)
        if hit:
            faces = [int(f) for f in hit.group(2).split(",")]
            assert int(hit.group(1)) == sum(faces), text
            rolled = sum(faces) + int(hit.group(3)) + (10 if hit.group(4) else 0)
            assert int(hit.group(5)) == rolled, text
            assert int(hit.group(7)) == max(0, rolled - int(hit.group(6))), text
            damages += 1
    assert checks >= 20 and damages >= 5
    assert records[-1] == {"tick": 50, "kind": "end", "reason": "ended", "outcome": "won"}
    # The attack menus offer only enemies; a move menu never offers a boulder's square.
    menus = [r for r in records if r["kind"] == "query" and r["title"] == "攻撃の対象"]
    assert menus and all(
        set(m["choices"]["target"]) <= {"屍鬼A", "屍鬼B", "骸骨弓兵"} for m in menus
    )
    moves = [r for r in records if r["kind"] == "query" and r["title"] == "move in /"]
    assert moves and all("/[2,2]" not in m["choices"]["goal"] for m in moves)
    said = [text for _, text in texts(records, "GM")]
    assert any("が援護" in text for text in said)
    assert any("戦利品ロール" in text for text in said)


# A pool's dice as BCDice writes a reroll: the pool, then each round of dice 10s rolled again.
POOL = re.compile(r"\(([0-9]+)d10\) ＞ ([0-9, +]*?) ＞ 達成数([0-9]+)")


def test_ninja_pools_explode_and_cost_karma(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = records_of(run_example("ninja", tmp_path, capsys))
    pools = 0
    for _, text in texts(records, "GM"):
        found = POOL.search(text)
        if not found:
            continue
        size = int(found.group(1))
        rounds = [[int(f) for f in part.split(",")] for part in found.group(2).split(" + ")]
        # A 10 counts and adds a die: each round holds as many dice as 10s the one before.
        widths = [size] + [group.count(10) for group in rounds]
        assert [len(group) for group in rounds] == widths[: len(rounds)], text
        assert widths[len(rounds)] == 0, text
        shown = [face for group in rounds for face in group]
        successes = sum(1 for f in shown if f >= 8)
        assert int(found.group(3)) == successes, text
        assert ("タツジン！" in text) == (10 in shown), text
        assert ("ウカツ！" in text) == (successes == 0 and 1 in shown), text
        assert ("ウカツ！ ＞ 失敗" in text) is False, text  # (a failure by itself)
        pools += 1
    assert pools >= 30
    said = [text for _, text in texts(records, "GM")]
    assert any("ウカツ！" in text for text in said) and any("タツジン！" in text for text in said)
    assert "通常シーン: ミドリ は完全ダイブ状態になった" in said
    assert records[-1]["outcome"] == "won"


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
        ("orm", {"won", "lost"}),
        ("ninja", {"won", "lost"}),
        ("blackpoker", {"アオイ wins", "レン wins", "draw"}),
    ],
)
def test_sim_sums_up_the_outcomes(name: str, outcomes: set[str]) -> None:
    entry = CASES[name].entry
    program, diagnostics = load_program([entry])
    assert program is not None, diagnostics
    limits = Limits(max_steps=10_000)
    summary = summarize(simulate(program, [entry], 50, 0, limits, 1), 0, limits)
    assert set(summary.outcomes) <= outcomes
    assert sum(summary.outcomes.values()) == summary.ends["ended"] == 50
    assert not summary.errors
