"""`lore roll` and `lore odds`: output, JSON and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.cli.main import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_roll_with_given_dice(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["roll", "2D6+3>=10", "--dice", "6,3"], capsys) == (
        0,
        "(2D6+3>=10) ＞ 9[6,3]+3 ＞ 12 ＞ 成功\n",
        "",
    )


def test_roll_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["roll", "S3R6[6]>=5", "--dice", "6, 2, 5, 6, 1", "--json"], capsys)
    assert status == 0
    assert json.loads(out) == {
        "text": "(3R6[6]>=5) ＞ 6,2,5 + 6 + 1 ＞ 成功数3",
        "total": 3,
        "dice": [{"sides": 6, "value": value} for value in (6, 2, 5, 6, 1)],
        "secret": True,
        "success": False,
        "failure": False,
        "critical": False,
        "fumble": False,
    }


def test_roll_with_a_seed_is_repeatable(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(["roll", "10D6", "--seed", "42"], capsys)
    assert first[0] == 0 and first[1].startswith("(10D6) ＞ ")
    assert run(["roll", "10D6", "--seed", "42"], capsys) == first


def test_roll_a_bundled_rule_systems_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["roll", "ORM3+4>=12", "--system", "orm", "--dice", "6,6,2"], capsys) == (
        0,
        "(ORM3+4>=12) ＞ 14[6,6,2]+4+10 ＞ 28 ＞ クリティカル！ ＞ 成功\n",
        "",
    )
    status, out, _ = run(
        ["roll", "NJ3@2", "--system", "ninja", "--dice", "8,10,1,9", "--json"], capsys
    )
    assert status == 0
    found = json.loads(out)
    assert found["text"] == "(NJ3@2) ＞ 8,10,1 + 9 ＞ 達成数3 ＞ タツジン！ ＞ 成功"
    assert (found["total"], found["critical"], len(found["dice"])) == (3, True, 4)
    # BCDice's commands still roll beside the system's.
    assert (
        run(["roll", "2D6", "--system", "orm", "--dice", "3,4"], capsys)[1]
        == "(2D6) ＞ 7[3,4] ＞ 7\n"
    )


def test_roll_a_rule_systems_command_in_the_tables_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = ["roll", "NJ3@2", "--system", "ninja", "--dice", "8,10,1,9", "--lang", "en"]
    assert run(line, capsys)[1] == "(NJ3@2) ＞ 8,10,1 + 9 ＞ 3 successes ＞ Tatsujin! ＞ Success\n"
    line = ["roll", "ORM2", "--system", "orm", "--dice", "1,1", "--lang", "ja"]
    assert run(line, capsys)[1] == "(ORM2) ＞ 2[1,1] ＞ 2 ＞ ファンブル！\n"
    # BCDice's own commands keep their Japanese.
    line = ["roll", "2D6>=7", "--system", "orm", "--dice", "3,4", "--lang", "en"]
    assert run(line, capsys)[1] == "(2D6>=7) ＞ 7[3,4] ＞ 7 ＞ 成功\n"
    with pytest.raises(SystemExit) as stopped:
        main(["roll", "ORM2", "--system", "orm", "--lang", "fr"])
    assert stopped.value.code == 2


@pytest.mark.parametrize(
    ("command", "given", "meant"),
    [("NJ7@2", None, "ninja"), ("ORM3+4>=12", None, "orm"), ("NJ7@2", "orm", "ninja")],
)
def test_a_bundled_systems_command_without_its_system_names_the_option(
    command: str, given: str | None, meant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["roll", command] + (["--system", given] if given else [])
    status, out, err = run(argv, capsys)
    here = f"the rule system {given}" if given else "BCDice"
    assert (status, out) == (1, "")
    assert err == (
        f"lore: error: '{command}' is not a dice command of {here} but of a bundled rule"
        f" system: did you mean --system {meant}?\n"
    )


def test_a_line_no_system_knows_gets_no_system_hint(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(["roll", "XYZ7"], capsys)
    assert status == 1 and "did you mean" not in err
    assert err.startswith("lore: error: 'XYZ7' is not a dice command (for example 2D6")


def system_file(path: Path, body: str) -> Path:
    """A rule system of one section with ``body`` in it, written to ``path``."""
    path.write_text(f'import "basic.lore":url;\nsection s {{\n{body}}}\n', encoding="utf-8")
    return path


def test_roll_the_commands_of_a_lore_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = system_file(
        tmp_path / "pools.lore",
        ' check = {\n  pattern = "P{n}";\n  help = "P5: five d10s, 8 or more";\n'
        "  handler = @(n : list<integer>) : Roll {\n   r = GM.roll((n.get(0))d10);\n"
        '   result = r.withTotal(r.atLeast(8)).withText(r.text + " by " + r.seat);\n  };\n'
        " }:Command;\n",
    )
    assert run(["roll", "P3", "--system", str(rules), "--dice", "8,2,9"], capsys) == (
        0,
        "[8 2 9] by GM\n",
        "",
    )
    status, _, err = run(["roll", "Q3", "--system", str(rules)], capsys)
    assert status == 1 and "'Q3' is not a dice command (the system's P{n}; for example 2D6" in err


def test_a_rule_systems_broken_command_or_file_is_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = system_file(
        tmp_path / "broken.lore",
        ' c = { pattern = "B{n}"; help = "";\n'
        '  handler = @(n : list<integer>) : Roll { GM.message("no"); result = GM.roll(1d6); };\n'
        " }:Command;\n",
    )
    status, out, err = run(["roll", "B1", "--system", str(broken), "--seed", "1"], capsys)
    assert (status, out) == (1, "")
    assert "broken.lore:4:" in err and "only rolls dice" in err and "Traceback" not in err
    bad = tmp_path / "bad.lore"
    bad.write_text("section b { x = ; }\n", encoding="utf-8")
    status, out, _ = run(["roll", "B1", "--system", str(bad)], capsys)
    assert status == 1 and "bad.lore:1:" in out


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["roll", "2D6", "--system", "nosuch"], 2, "no rule system 'nosuch' (bundled: ninja, orm"),
        (["roll", "2d6もけけ"], 1, "'2d6もけけ' is not a dice command (for example 2D6+3>=10"),
        (["roll", "2D6", "--dice", "6"], 1, "the command rolls more dice than the 1 faces given"),
        (["roll", "2D6", "--dice", "6,9"], 1, "die 2 is given as 9, but a d6 is rolled"),
        (["roll", "2D6", "--dice", "6,3,1"], 1, "--dice gave 3 faces, but the command rolled 2"),
        (["roll", "2D6", "--dice", "six"], 2, "--dice takes faces separated by commas"),
        (["roll", "2D6", "--dice", "6", "--seed", "1"], 2, "give --dice or --seed, not both"),
        (["roll", "x100 200D6", "--seed", "1"], 1, "a command rolls at most 10,000 dice"),
        (["odds", "hello"], 1, "'hello' is not a dice command"),
        (["odds", "choice[A,B]"], 1, "not choices or tallies"),
        (["odds", "2D6", "--successes", "3"], 2, "2D6 gives a total, not successes"),
        (["odds", "3D6", "--critical", "6>=2"], 1, "write it like [6]>=2"),
        (["odds", "2D6", "--against", "2D6", "--fumble", "[1]=all"], 2, "--against compares"),
    ],
)
def test_bad_input_says_what_is_wrong(
    args: list[str], status: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    found, out, err = run(args, capsys)
    assert (found, out) == (status, "")
    assert err.startswith("lore: error: ") and message in err
    assert "Traceback" not in err


def test_odds_table_and_at_least(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["odds", "7R10[10]>=8", "--successes", "3"], capsys)
    assert status == 0
    assert out.splitlines()[0] == "7R10[10]>=8: the chance of each count of successes"
    assert "3 or more successes: 207877533/500000000 = 0.415755066 (41.58%)" in out
    assert "        0                 823543/10000000    8.24%  █████████\n" in out
    assert "       9+   350093861931/1000000000000000    0.04%  \n" in out


def test_odds_of_a_check_with_criticals(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["odds", "3D6", "--critical", "[6]>=2", "--fumble", "[1]=all"], capsys)
    assert status == 0
    assert out.splitlines()[1:3] == ["total  chance        %", "    3   1/216    0.46%  █"]
    assert "critical: 2/27 = 0.0740740741 (7.41%)" in out
    assert "fumble: 1/216 = 0.00462962963 (0.46%)" in out
    assert out.endswith("average total: 10.5\n")


def test_odds_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["odds", "2D6+3>=10", "--json"], capsys)
    data = json.loads(out)
    assert status == 0 and data["measure"] == "total"
    assert data["success"] == {"fraction": "7/12", "decimal": 7 / 12}
    assert data["outcomes"][0] == {
        "value": 5,
        "or_more": False,
        "fraction": "1/36",
        "decimal": 1 / 36,
    }


def test_opposed_odds(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["odds", "2D6+4", "--against", "2D6+3"], capsys)
    assert status == 0
    assert "2D6+4 higher: 721/1296 = 0.55632716 (55.63%)" in out
    assert "equal: 35/324 = 0.108024691 (10.80%)" in out
    status, out, _ = run(["odds", "2D6+4", "--against", "2D6+3", "--json"], capsys)
    assert json.loads(out)["lower"]["fraction"] == "145/432"


def test_roll_a_bcdice_game_systems_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["roll", "CC(1)<=53", "--system", "Cthulhu7th", "--dice", "9,5,2"], capsys)
    assert (code, out.strip()) == (
        0,
        "(1D100<=53) ボーナス・ペナルティダイス[1] ＞ 92, 52 ＞ 52 ＞ レギュラー成功",
    )
    code, out, _ = run(["roll", "8D", "--system", "doublecross", "--dice", "1,2", "--json"], capsys)
    assert code == 1  # 8D rolls eight d10 there: two faces are too few
    code, out, _ = run(
        ["roll", "2DM<=5", "--system", "Emoklore", "--dice", "1,6", "--json"], capsys
    )
    found = json.loads(out)
    assert found["text"] == "(2DM<=5) ＞ [1, 6] ＞ 2 ＞ 成功数2 ダブル"
    assert (found["success"], found["critical"]) == (True, True)
    code, _, err = run(["roll", "CCB<=50"], capsys)
    assert code == 1 and "did you mean --system Cthulhu?" in err
    code, _, err = run(["roll", "XYZ", "--system", "Cthulhu"], capsys)
    assert code == 1 and "not a dice command of Cthulhu" in err and "Traceback" not in err


def test_odds_of_a_bcdice_game_systems_checks(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["odds", "CCB<=50", "--system", "Cthulhu"], capsys)
    assert code == 0 and "critical: 1/20" in out and "fumble: 1/20" in out
    code, out, _ = run(["odds", "CC(1)<=50", "--system", "Cthulhu7th", "--json"], capsys)
    found = json.loads(out)
    assert found["success"]["fraction"] == "3/4"  # one of two tens dice under 5
    assert found["critical"]["fraction"] == "19/1000"
    code, out, _ = run(["odds", "3DX+2@8>=12", "--system", "DoubleCross", "--json"], capsys)
    assert json.loads(out)["success"]["fraction"] == "657/1000"  # only a critical reaches 12
    code, _, err = run(["odds", "2D6", "--system", "Nope"], capsys)
    assert code == 2 and "Cthulhu7th" in err


def test_odds_of_a_bundled_rule_systems_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["odds", "ORM3+4>=12", "--system", "orm"], capsys)
    assert code == 0 and out.startswith("ORM3+4>=12: the chance of each total\n")
    assert "success: 181/216" in out and "critical: 2/27" in out and "fumble: 1/216" in out
    code, out, _ = run(["odds", "NJ7@2", "--system", "ninja", "--json"], capsys)
    found = json.loads(out)
    assert (found["command"], found["measure"]) == ("NJ7@2", "successes")
    assert found["success"]["fraction"] == "69528909/100000000"
    assert found["outcomes"][-1] == found["outcomes"][-1] | {"value": 9, "or_more": True}
    code, out, _ = run(["odds", "NJ7VS5", "--system", "ninja"], capsys)
    assert code == 0 and "the active side (NJ7) against the passive side (NJ5)" in out
    assert "success (the active side wins): " in out and "undecided" in out
    code, out, _ = run(["odds", "NJ2VS2", "--system", "ninja", "--json"], capsys)
    assert set(json.loads(out)) >= {"higher", "equal", "lower", "success", "critical"}
    code, out, _ = run(["odds", "NJE7@5", "--system", "ninja", "--successes", "5"], capsys)
    assert code == 0 and "5 or more successes: " in out
    # A line that is none of the system's commands has the common command's odds.
    code, out, _ = run(["odds", "2D6>=7", "--system", "orm"], capsys)
    assert code == 0 and "success: 7/12" in out


def test_odds_of_a_rule_systems_commands_that_cannot_be_counted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(["odds", "NJ7@2", "--system", "ninja", "--against", "NJ5"], capsys)
    assert code == 2 and "says its own critical and fumble" in err
    code, _, err = run(["odds", "NJ101", "--system", "ninja"], capsys)
    assert code == 1 and "at most 100 dice" in err and "Traceback" not in err
    code, _, err = run(["odds", "NJ7VS5", "--system", "ninja", "--successes", "2"], capsys)
    assert code == 2 and "compares two pools" in err
    own = tmp_path / "own.lore"
    own.write_text(
        'import "basic.lore":url;\nsection own {\n check = { pattern = "CHK"; help = "";'
        " handler = @(n : list<integer>) : Roll { result = GM.roll(2d6); }; }:Command;\n}\n",
        encoding="utf-8",
    )
    code, _, err = run(["odds", "CHK", "--system", str(own)], capsys)
    assert code == 1 and "no odds are counted for the command own.check (CHK)" in err
    code, _, err = run(["odds", "2D6", "--system", "nope"], capsys)
    assert code == 2 and "bundled: ninja, orm" in err
