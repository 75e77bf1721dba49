"""``lore run`` ends by itself: a rule that reschedules itself for ever stops at a default
number of steps, and ``--max-steps`` means the same as for ``lore sim`` (0: no limit)."""

from __future__ import annotations

import subprocess
import sys
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


CHATTY = """\
section s {
 rule tick {
  GM.message("a line of text for the game master, sent again and again");
  schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;
                 handler = @{ s.tick; }; }:Event);
 }
 start = { ticks = 0; priority = 0; handler = @{ s.tick; }; }:Event;
}
"""

PEAK = """\
import resource, sys
from lore.cli.main import main
status = main(["run", sys.argv[1], "--max-steps", sys.argv[2], "--transcript", sys.argv[3]])
print(status, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def peak_of_run(program: Path, steps: int, transcript: Path) -> int:
    """The peak memory (KiB) of a child process running ``program`` for ``steps``."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK, str(program), str(steps), str(transcript)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    status, peak = done.stderr.splitlines()[-1].split()
    assert status == "0", done.stderr
    return int(peak)


def test_a_long_run_that_sends_messages_keeps_none_of_them(tmp_path: Path) -> None:
    # Each message is written out (the terminal, the transcript file) as it is made: a
    # run of 200,000 messages peaks where one of 10,000 does (it grew by ~230 bytes a
    # message, 44 MB here, when the transcript's records were kept to the end).
    program = tmp_path / "chatty.lore"
    program.write_text(CHATTY, encoding="utf-8")
    short = peak_of_run(program, 10_000, tmp_path / "short.jsonl")
    long = peak_of_run(program, 200_000, tmp_path / "long.jsonl")
    assert long - short < 6 * 1024, (short, long)
    lines = (tmp_path / "long.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 200_001 and lines[-1].startswith('{"tick"')
