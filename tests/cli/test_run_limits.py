"""``lore run`` ends by itself: a rule that reschedules itself for ever stops at a default
number of steps, and ``--max-steps`` means the same as for ``lore sim`` (0: no limit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.cli import run_command
from lore.cli.main import main

ENDLESS = """\
section s {
 rule tick {
  schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;
                 handler = @{ s.tick; }; }:Event);
 }
 start = { ticks = 0; priority = 0; handler = @{ s.tick; }; }:Event;
}
"""


@pytest.fixture
def endless(tmp_path: Path) -> Path:
    path = tmp_path / "endless.lore"
    path.write_text(ENDLESS, encoding="utf-8")
    return path


def test_an_endless_run_stops_at_the_default_number_of_steps(
    endless: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(run_command, "DEFAULT_MAX_STEPS", 500)
    assert main(["run", str(endless)]) == 0
    err = capsys.readouterr().err
    assert err == (
        "[Day 1, 00:08] session ended: stopped\n"
        "lore: stopped after 500 steps (--max-steps; 0 for no limit)\n"
    )


def test_max_steps_counts_steps_and_zero_means_no_limit(
    endless: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(endless), "--max-steps", "30"]) == 0
    assert "stopped after 30 steps" in capsys.readouterr().err
    # No step limit: the game time stops it.
    assert main(["run", str(endless), "--max-steps", "0", "--max-ticks", "2000"]) == 0
    assert capsys.readouterr().err == "[Day 1, 00:33] session ended: stopped\n"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--max-steps", "--max-steps must be 0 (no limit) or more (got -1)"),
        ("--max-ticks", "--max-ticks must be 0 or more (got -1)"),
    ],
)
def test_negative_limits_are_usage_errors(
    option: str, message: str, endless: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(endless), option, "-1"]) == 2
    assert capsys.readouterr().err == f"lore: error: {message}\n"
