"""The simulation report (``lore sim --report``): its figures are ``--json``'s, its texts
come from one catalogue in both languages, its runs replay with ``lore run``, and
``--compare`` and ``--until-ci`` give what they say."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from lore.analysis.report_texts import TEXTS
from lore.cli.main import main

REPO = Path(__file__).resolve().parents[2]
ORM = REPO / "examples" / "orm" / "scenario.lore"
BLACKPOKER = REPO / "examples" / "blackpoker" / "scenario.lore"


def lore(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    status = main(args)
    out, err = capsys.readouterr()
    assert (status, err) == (0, ""), err
    return out


class Rows(HTMLParser):
    """The data attributes of the page's rows (``data-key`` and the figures)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, dict[str, str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if "data-key" in found:
            self.rows[found["data-key"]] = found


def embedded(page: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="figures">(.*?)</script>', page, re.S)
    assert match is not None
    found: dict[str, Any] = json.loads(match.group(1).replace("<\\/", "</"))
    return found


def test_the_reports_figures_are_the_json_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "orm.html"
    args = ["sim", str(ORM), "--runs", "30", "--seed", "5"]
    figures = json.loads(lore([*args, "--json"], capsys))
    lore([*args, "--report", str(report)], capsys)
    page = report.read_text("utf-8")
    assert embedded(page) == figures
    rows = Rows()
    rows.feed(page)
    for end, count in figures["ends"].items():
        row = rows.rows[f"ends/{end}"]
        assert int(row["data-sessions"]) == count
        rate = figures["end_rates"][end]
        assert [float(row[f"data-{k}"]) for k in ("rate", "low", "high")] == [
            rate["rate"],
            rate["low"],
            rate["high"],
        ]
    for outcome, entry in figures["outcomes"].items():
        row = rows.rows[f"outcomes/{outcome}"]
        assert int(row["data-sessions"]) == entry["sessions"]
        assert float(row["data-rate"]) == entry["rate"]
    for seat, entry in figures["seats"].items():
        assert int(rows.rows[f"seats/{seat}"]["data-sessions"]) == entry["wins"]
    assert list(figures["sides"]) == ["GM", "rin@example.org + goro@example.org"]
    for side, entry in figures["sides"].items():
        assert float(rows.rows[f"sides/{side}"]["data-rate"]) == entry["rate"]
    assert "<script src" not in page and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )


def test_the_saved_runs_replay_with_lore_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "bp.html"
    lore(["sim", str(BLACKPOKER), "--runs", "6", "--report", str(report)], capsys)
    saved = sorted((tmp_path / "bp-runs").glob("*.answers.json"))
    assert [path.name.split("-seed-")[0] for path in saved] == ["oddest", "slowest"]
    page = report.read_text("utf-8")
    for path in saved:
        seed = path.name.split("-seed-")[1].split(".")[0]
        assert f"--seed {seed} --answers {path}" in page
        transcript = tmp_path / f"{seed}.jsonl"
        command = ["run", str(BLACKPOKER), "--seed", seed, "--answers", str(path)]
        assert main([*command, "--transcript", str(transcript)]) == 0
        capsys.readouterr()
        end = json.loads(transcript.read_text("utf-8").splitlines()[-1])
        assert end["reason"] == "ended"


def test_the_report_in_japanese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "orm.html"
    lore(["sim", str(ORM), "--runs", "3", "--report", str(report), "--lang", "ja"], capsys)
    page = report.read_text("utf-8")
    assert '<html lang="ja">' in page
    assert TEXTS.text("ends", "ja") in page and TEXTS.text("ends", "en") not in page


def test_the_catalogue_has_both_languages() -> None:
    assert TEXTS.problems() == []


def test_compare_tests_each_rate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same ORM fight with the players' greedy bots: won far more often.
    figures = json.loads(
        lore(
            [
                "sim",
                str(ORM),
                "--runs",
                "8",
                "--compare",
                str(ORM),
                "--policy",
                "GM=greedy",
                "--json",
            ],
            capsys,
        )
    )
    compared = figures["compare"]
    assert compared["file"] == str(ORM) and compared["sessions"] == 8
    same = compared["rates"]["outcomes/won"]
    assert (same["difference"], same["p"]) == (0.0, 1.0)  # (the same file, the same seeds)


def test_until_ci_runs_until_every_interval_is_narrow_enough(
    capsys: pytest.CaptureFixture[str],
) -> None:
    hello = REPO / "examples" / "hello.lore"
    figures = json.loads(
        lore(["sim", str(hello), "--runs", "10", "--until-ci", "0.05", "--json"], capsys)
    )
    assert figures["until_ci"] == {"width": 0.05, "reached": True}
    # 0 of n has the interval 0..z^2/(n + z^2): within 2 x 0.05 from n = 35 on (10, 20, 40).
    assert figures["sessions"] == 40
    for rate in figures["end_rates"].values():
        assert (rate["high"] - rate["low"]) / 2 <= 0.05


def test_a_report_that_would_replace_the_rules_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "hello.lore"
    rules.write_text((REPO / "examples" / "hello.lore").read_text("utf-8"), encoding="utf-8")
    assert main(["sim", str(rules), "--runs", "1", "--report", str(rules)]) == 2
    assert f"--report {rules} would overwrite {rules}" in capsys.readouterr().err
    missing = tmp_path / "no" / "r.html"
    assert main(["sim", str(rules), "--runs", "1", "--report", str(missing)]) == 2
    assert "does not exist" in capsys.readouterr().err


# A check by a dice command in a function, a check by a roll's card, and plain dice.
CHECKS = """\
import "basic.lore":url;

section checks {
 hero = { name = "Aki"; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Actor;
 place = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 function attack() : boolean {
  result = roll("1D100<=50").success;
 }
 start = {
  ticks = 0;
  priority = 0;
  handler = @{
   GM.roll("2D6");
   attack();
   hero.roll(2d6).withTarget(8).show;
  };
 }:Event;
}
"""


def test_checks_per_rule_and_dice_outcomes_are_the_json_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "checks.lore"
    rules.write_text(CHECKS, "utf-8")
    report = tmp_path / "checks.html"
    args = ["sim", str(rules), "--runs", "40", "--seed", "3"]
    figures = json.loads(lore([*args, "--json"], capsys))
    text = lore(args, capsys)
    lore([*args, "--report", str(report)], capsys)
    page = report.read_text("utf-8")
    assert embedded(page) == figures
    checks = figures["checks"]
    assert [(c["where"].rsplit(":", 2)[-2], c.get("via"), c["checks"]) for c in checks] == [
        ("17", "function checks.attack", 40),
        ("18", None, 40),
    ]
    rows = Rows()
    rows.feed(page)
    for check in checks:
        row = rows.rows[f"checks/{check['rule']} @ {check['where']}"]
        assert int(row["data-checks"]) == check["checks"]
        assert int(row["data-successes"]) == check["successes"]
        assert [float(row[f"data-{k}"]) for k in ("rate", "low", "high")] == [
            check["rate"],
            check["low"],
            check["high"],
        ]
        assert f"{check['successes']} of {check['checks']} succeeded" in text
    dice = figures["dice"]
    assert list(dice) == ["2D6", "1D100<=50"]
    assert dice["2D6"]["rolls"] == 80  # GM.roll("2D6") and hero.roll(2d6) in each session
    assert dice["2D6"]["exact"]["outcomes"]["7"] == 1 / 6
    assert dice["1D100<=50"]["exact"]["success"] == 0.5
    for command, entry in dice.items():
        exact = entry["exact"]["outcomes"]
        for total in range(int(min(exact)), int(max(exact)) + 1):
            bar = rows.rows[f"dice/{command}/{total}"]
            assert int(bar["data-rolls"]) == entry["totals"].get(str(total), 0)
            assert float(bar["data-exact"]) == exact[str(total)]
        assert f"{command}: {entry['rolls']} rolls" in text
