"""`lore sim`: the summary (text and JSON), determinism, exit codes and usage errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lore.analysis.intervals import wilson
from lore.analysis.simulate import ENDS
from lore.cli.main import main
from lore.syntax.source import display_width

REPO = Path(__file__).resolve().parents[2]
HELLO = REPO / "examples" / "hello.lore"
TAVERN = REPO / "examples" / "tavern" / "scenario.lore"

# Divides by zero two minutes in (line 12); every session then ends with no events.
FAILING = """\
import "basic.lore":url;

section failing {
 start = {
  ticks = 0;
  priority = 0;
  handler = @{ count(2); };
 }:Event;

 rule count(n : integer) {
  if (n == 0) {
   GM.message("at zero: " + 10 / n);
  }
  schedule.add({
   ticks = schedule.current + 1[min];
   priority = 0;
   handler = @{ count(n - 1); };
  }:Event);
 }
}
"""


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def simulated(
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    name: str,
    runs: int,
    capsys: pytest.CaptureFixture[str],
) -> str:
    """The summary of ``lore sim`` on ``text`` written to ``name`` in ``folder``."""
    monkeypatch.chdir(folder)
    Path(name).write_text(text, encoding="utf-8")
    status, out, err = run(["sim", name, "--runs", str(runs)], capsys)
    assert (status, err) == (0, "")
    return out


def figures(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status, out, err = run([*args, "--json"], capsys)
    assert (status, err) == (0, "")
    found: dict[str, Any] = json.loads(out)
    return found


def test_hello_summary(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["sim", str(HELLO), "--runs", "4"], capsys)
    assert (status, err) == (0, "")
    assert out == (
        f"{HELLO}: 4 sessions with bots (seeds 0..3)\n"
        "ended:\n"
        "  ended by a rule               0    0.0%  (95% CI 0.0-49.0%)\n"
        "  no events left                4  100.0%  (95% CI 51.0-100.0%)\n"
        "  no answer                     0    0.0%  (95% CI 0.0-49.0%)\n"
        "  stopped at --max-ticks        0    0.0%  (95% CI 0.0-49.0%)\n"
        "  stopped at --max-steps        0    0.0%  (95% CI 0.0-49.0%)\n"
        "  error                         0    0.0%  (95% CI 0.0-49.0%)\n"
        "rule errors: none\n"
        "ticks:    min 0  mean 0.0  max 0\n"
        "steps:    min 1  mean 1.0  max 1\n"
        "messages: 4 in all, 1.0 per session\n"
        "queries:  0 in all, 0.0 per session\n"
    )


def test_hello_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert figures(["sim", str(HELLO), "--runs", "2", "--seed", "7"], capsys) == {
        "file": str(HELLO),
        "sessions": 2,
        "seeds": [7, 8],
        "limits": {"max_steps": 10_000, "max_ticks": None},
        "ends": {
            "ended": 0,
            "no-events": 2,
            "no-answer": 0,
            "max-ticks": 0,
            "max-steps": 0,
            "error": 0,
        },
        "end_rates": {end: wilson(2 if end == "no-events" else 0, 2).to_json() for end in ENDS},
        "errors": [],
        "ticks": {"min": 0, "mean": 0.0, "max": 0},
        "steps": {"min": 1, "mean": 1.0, "max": 1},
        "messages": {"total": 2, "per_session": 1.0},
        "queries": {"total": 0, "per_session": 0.0},
        "outcomes": {},
        "statistics": {},
        "seats": {},
        "sides": {},
        "histograms": {
            "steps": [{"low": 1, "high": 1, "sessions": 2}],
            "ticks": [{"low": 0, "high": 0, "sessions": 2}],
        },
        "checks": [],
        "dice": {},
    }


def test_tavern_stops_at_the_step_limit(capsys: pytest.CaptureFixture[str]) -> None:
    # (The inn closes after 5 steps or more with these seeds.)
    found = figures(["sim", str(TAVERN), "--runs", "3", "--max-steps", "4"], capsys)
    assert found["ends"]["max-steps"] == 3
    assert found["steps"] == {"min": 4, "mean": 4.0, "max": 4}
    assert found["errors"] == []
    assert found["queries"]["total"] >= 3 * 4
    assert found["messages"]["per_session"] >= 1


def test_tavern_stops_at_the_tick_limit(capsys: pytest.CaptureFixture[str]) -> None:
    found = figures(["sim", str(TAVERN), "--runs", "2", "--max-ticks", "3600"], capsys)
    assert found["ends"]["max-ticks"] == 2
    assert found["ticks"]["max"] <= 3600
    assert found["limits"] == {"max_steps": 10_000, "max_ticks": 3600}


def test_same_seed_same_summary_and_jobs_do_not_matter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["sim", str(TAVERN), "--runs", "4", "--seed", "3", "--max-steps", "80"]
    first = figures(args, capsys)
    assert figures(args, capsys) == first
    assert figures([*args, "--jobs", "2"], capsys) == first
    assert figures([*args[:-4], "--seed", "4", "--max-steps", "80"], capsys) != first


def test_rule_errors_are_grouped_by_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = simulated(tmp_path, monkeypatch, FAILING, "failing.lore", 3, capsys)
    assert "  no events left                3  100.0%  (95% CI 43.9-100.0%)\n" in out
    assert (
        "rule errors: 3 (1 kind)\n  failing.lore:12:29: division by zero  (3 times in 3 sessions: "
        "100.0%  (95% CI 43.9-100.0%))\n"
    ) in out
    found = figures(["sim", "failing.lore", "--runs", "3"], capsys)
    assert found["errors"] == [
        {
            "where": "failing.lore:12:29",
            "message": "division by zero",
            "count": 3,
            "sessions": 3,
            **wilson(3, 3).to_json(),
        }
    ]
    assert found["ticks"] == {"min": 120, "mean": 120.0, "max": 120}


# A clock that each second also schedules a flood: 10,000 rounds of a loop, each scheduling
# two events. Each flood stops at the 10,001st event, the first of the 5,001st round (line
# 14), and the clock goes on.
FLOODING = """\
import "basic.lore":url;

section busy {
 rule clock {
  schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;
                 handler = @{ busy.clock; }; }:Event);
  schedule.add({ ticks = schedule.current + 1[sec]; priority = 1;
                 handler = @{ busy.flood; }; }:Event);
 }
 rule flood {
  tens = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  tens.foreach(@(a : integer) { tens.foreach(@(b : integer) { tens.foreach(@(c : integer) {
   tens.foreach(@(e : integer) {
    schedule.add({ ticks = schedule.current + 1[min]; priority = 0;
                   handler = @{ busy.idle; }; }:Event);
    schedule.add({ ticks = schedule.current + 1[min]; priority = 0;
                   handler = @{ busy.idle; }; }:Event);
   });
  }); }); });
 }
 rule idle { }
 start = { ticks = 0; priority = 0; handler = @{ busy.clock; }; }:Event;
}
"""


def test_a_flood_of_events_is_a_rule_error_and_the_sessions_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("flooding.lore").write_text(FLOODING, encoding="utf-8")
    # Steps: the clock at 0, then the clock and the flood at each second.
    found = figures(["sim", "flooding.lore", "--runs", "2", "--max-steps", "9"], capsys)
    assert found["ends"]["max-steps"] == 2
    assert found["steps"] == {"min": 9, "mean": 9.0, "max": 9}
    assert found["errors"] == [
        {
            "where": "flooding.lore:14:5",
            "message": "one handler scheduled more than 10000 events",
            "count": 8,
            "sessions": 2,
            **wilson(2, 2).to_json(),
        }
    ]
    assert found["ticks"]["max"] == 4


def test_check_errors_are_printed_and_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.lore").write_text('section s {\n rule r {\n  GM.mesage("hi");\n }\n}\n')
    status, out, err = run(["sim", "bad.lore", "--runs", "2"], capsys)
    assert status == 1
    assert out.startswith("bad.lore:3:6: error: form 'Participant' has no member 'mesage'\n")
    assert "Traceback" not in out + err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.lore", "--runs", "2"], "lore: error: no such file: missing.lore\n"),
        ([str(HELLO), "--runs", "0"], "lore: error: --runs must be at least 1 (got 0)\n"),
        ([str(HELLO), "--runs", "-3"], "lore: error: --runs must be at least 1 (got -3)\n"),
        ([str(HELLO), "--runs", "2", "--jobs", "0"], "lore: error: --jobs must be at least 1"),
        ([str(HELLO), "--runs", "2", "--max-steps", "-1"], "lore: error: --max-steps must be"),
        ([str(HELLO), "--runs", "2", "--max-ticks", "-1"], "lore: error: --max-ticks must be"),
    ],
)
def test_bad_usage_exits_2_with_a_message(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(["sim", *args], capsys)
    assert status == 2
    assert out == ""
    assert err.startswith(message)
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [[str(HELLO)], [str(HELLO), "--runs", "many"], ["--runs", "2"]],
    ids=["no --runs", "--runs not a number", "no file"],
)
def test_bad_arguments_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["sim", *args])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "usage: lore sim" in err
    assert "Traceback" not in err


def test_help_tells_the_default_step_limit(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["sim", "--help"])
    assert "default 10,000; 0 for no limit" in capsys.readouterr().out


# Ends with a Japanese outcome or an English one, by the first die.
OUTCOMES = """\
import "basic.lore":url;

section ends {
 start = {
  ticks = 0;
  priority = 0;
  handler = @{
   system.end(if (1d2.roll == 1) "勝利" else "draw");
  };
 }:Event;
}
"""


def test_outcomes_line_up_by_the_columns_a_terminal_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = simulated(tmp_path, monkeypatch, OUTCOMES, "ends.lore", 20, capsys)
    lines = out[out.index("outcomes:\n") :].splitlines()[1:3]
    assert sorted(line.split()[0] for line in lines) == ["draw", "勝利"]
    # "勝利" is four columns wide, like "draw": the counts end in one column.
    columns = [display_width(line[: line.index("%")]) for line in lines]
    assert columns[0] == columns[1] == len("  draw  ") + 7 + 2 + 5, lines
