"""The examples under ``examples/`` run with ``lore run`` and their answers files.

Each transcript is pinned beside its answers file, ``examples/<name>/transcript.jsonl``,
where ``lore test`` compares it (``lore test --bless`` or ``pytest --update-golden``
rewrites them; ``hello``'s, without answers, is ``golden/hello.jsonl``). The goldens were
read by eye and their numbers worked out by hand; the tests below them say the same
numbers again in Python, so a golden is never the only witness.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from tests.conftest import Golden

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
GOLDEN = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class Example:
    entry: Path
    answers: Path | None
    seed: int = 0


CASES = {
    "hello": Example(EXAMPLES / "hello.lore", None),
    "tavern": Example(EXAMPLES / "tavern" / "scenario.lore", EXAMPLES / "tavern" / "answers.json"),
    "tokaido": Example(
        EXAMPLES / "tokaido" / "scenario.lore", EXAMPLES / "tokaido" / "answers.json"
    ),
    # Seed 73: both heroes land a blow in every round, so the oni's wound alter gets two.
    "duel": Example(EXAMPLES / "duel" / "scenario.lore", EXAMPLES / "duel" / "answers.json", 73),
    # Seed 003 on the ORM library, seed 5: a fight on a square map won in turn 5, with
    # cover, enemy identification, loot rolls and the after-play's growth.
    "orm": Example(EXAMPLES / "orm" / "scenario.lore", EXAMPLES / "orm" / "answers.json", 5),
    # Seed 004 on the ninja library, seed 34: タツジン！ and ウカツ！, an opposed check, a
    # fight in the street and in the IRC Kotodama (a full dive), an extended check.
    "ninja": Example(EXAMPLES / "ninja" / "scenario.lore", EXAMPLES / "ninja" / "answers.json", 34),
    # Seed 001's core flow: a counter countered, then a game won by アオイ.
    "blackpoker": Example(
        EXAMPLES / "blackpoker" / "scenario.lore", EXAMPLES / "blackpoker" / "answers.json"
    ),
    # Seed 002's Klondike on the cards library: the triangle dealt, aces to the foundations.
    "klondike": Example(
        EXAMPLES / "klondike" / "scenario.lore", EXAMPLES / "klondike" / "answers.json"
    ),
}

Records = list[dict[str, Any]]


def blessed(name: str) -> Path:
    """The transcript pinned for an example: beside its answers file, where ``lore test``
    compares it (``hello`` has no answers: its own is here)."""
    answers = CASES[name].answers
    if answers is None:
        return GOLDEN / f"{name}.jsonl"
    return answers.with_name("transcript.jsonl")


def run_example(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    example = CASES[name]
    transcript = tmp_path / f"{name}.jsonl"
    argv = ["run", str(example.entry), "--seed", str(example.seed)]
    argv += ["--transcript", str(transcript)]
    if example.answers is not None:
        argv += ["--answers", str(example.answers)]
    status = main(argv)
    output = capsys.readouterr()
    assert status == 0, output.err
    assert "Traceback" not in output.out + output.err
    return transcript.read_text(encoding="utf-8")


def records_of(text: str) -> Records:
    return [json.loads(line) for line in text.splitlines()]


def texts(records: Records, to: str | None = None) -> list[tuple[int, str]]:
    """The rules' messages (to a seat) and the texts of the roll cards (it is shown)."""
    return [
        (r["tick"], r["text"])
        for r in records
        if (r["kind"] == "message" and (to is None or r["to"] == to))
        or (r["kind"] == "roll" and (to is None or to in r["to"]))
    ]


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_checks_clean(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(CASES[name].entry)]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_transcript_is_pinned(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], golden: Golden
) -> None:
    text = run_example(name, tmp_path, capsys)
    golden(text, blessed(name))
    records = records_of(text)
    assert all(r["kind"] != "error" for r in records)
    assert records[-1]["kind"] == "end"


def test_examples_have_answers_next_to_them() -> None:
    for folder in sorted(path for path in EXAMPLES.iterdir() if path.is_dir()):
        assert (folder / "answers.json").is_file(), folder.name


# ------------------------------------------------------------ hello


def test_hello_greets_the_gm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = records_of(run_example("hello", tmp_path, capsys))
    assert records == [
        {
            "tick": 0,
            "kind": "message",
            "to": "GM",
            "text": "Welcome to Lore! / Loreへようこそ！",
            "format": "text",
        },
        {"tick": 0, "kind": "end", "reason": "no-events"},
    ]


# ------------------------------------------------------------ tavern


def test_tavern_rounds_and_rests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = records_of(run_example("tavern", tmp_path, capsys))
    asked = [
        (r["tick"], r["to"].split("@")[0], r["title"]) for r in records if r["kind"] == "query"
    ]
    # A round is 10 minutes (600 ticks). Drinking or talking: the next turn a round later.
    # Resting h hours: ceil(h hours / 1 round) rounds later, from the step of the answer.
    assert asked == [
        (0, "aki", "どうしますか？"),  # talk: asked again a round later
        (0, "ren", "どうしますか？"),  # rest ...
        (0, "ren", "何時間休みますか？"),  # ... 1 hour = 6 rounds
        (600, "aki", "どうしますか？"),  # drink: a round later
        (1200, "aki", "どうしますか？"),  # rest ...
        (1200, "aki", "何時間休みますか？"),  # ... 2 hours: asked again at 1200 + 7200
        (3600, "ren", "どうしますか？"),  # talk: a round later
        (4200, "ren", "どうしますか？"),  # no answer left
    ]
    assert records[-1] == {"tick": 4200, "kind": "end", "reason": "no-answer"}


# ------------------------------------------------------------ tokaido

RI = Fraction(3900)  # metres
STEADY = Fraction(14, 10)  # m/sec: the slower of brisk (1.6) and steady (1.4)
KOKU = 7200  # ticks


def half_up(value: Fraction) -> int:
    return floor(value + Fraction(1, 2))


def walk(ri: Fraction) -> int:
    """``(distance.toReal / speed.toReal).toInt[sec]``: toInt rounds half up."""
    return half_up(ri * RI / STEADY)


def test_tokaido_times_and_purse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = records_of(run_example("tokaido", tmp_path, capsys))
    gm = texts(records, "GM")
    legs = [walk(Fraction(2)), walk(Fraction(5, 2)), walk(Fraction(5, 2)), walk(Fraction(3, 2))]
    assert legs == [5571, 6964, 6964, 4179]  # 5571.43, 6964.29, 6964.29, 4178.57
    rest = 2 * KOKU  # the GM answers 3 hours: 1.5 koku, rounded half up to 2 koku
    arrivals = [legs[0], legs[0] + legs[1]]
    arrivals.append(arrivals[1] + rest + legs[2])
    arrivals.append(arrivals[2] + legs[3])
    assert arrivals == [5571, 12535, 33899, 38078]
    reports = [(tick, text) for tick, text in gm if "に着きました" in text]
    assert [tick for tick, _ in reports] == arrivals
    # 5 kan = 5000 mon; two snacks (30 + 45) at every post town; the ferry's 1500 mon are
    # 1.5 kan, paid as 2 kan (half up) = 2000 mon, in the same step as the snacks.
    assert [text.split("。")[1:3] for _, text in reports] == [
        ["支払い 2 件、計 75[mon]", "残り 4925[mon]"],
        ["支払い 3 件、計 2075[mon]", "残り 2850[mon]"],
        ["支払い 2 件、計 75[mon]", "残り 2775[mon]"],
        ["支払い 2 件、計 75[mon]", "残り 2700[mon]"],
    ]
    assert (12535, "六郷の渡し: 渡し賃 1500[mon] を 2[kan] で払います。") in gm
    assert (12535, "休み 3[hour] は 2[koku] です。") in gm
    # The snacks of one step both see the purse as it was when the step began.
    hana, tetsu = texts(records, "hana@example.org"), texts(records, "tetsu@example.org")
    purses_seen = [5000, 4925, 2850, 2775]
    assert [(t, text.split("財布には ")[1]) for t, text in hana[1:]] == [
        (tick, f"{purse}[mon]。") for tick, purse in zip(arrivals, purses_seen, strict=True)
    ]
    assert [t for t, _ in tetsu[1:]] == arrivals
    # The epilogue is a later step of the same time and priority: it sees `done`.
    hours = half_up(Fraction(38078, 3600))
    assert gm[-1] == (
        38078,
        f"旅は終わりました (true)。日本橋を出て 38078 秒、{hours}[hour]、"
        f"{ceil(38078 / KOKU)}[koku]以内。",
    )
    assert (hours, ceil(38078 / KOKU)) == (11, 6)


def test_tokaido_plan_uses_the_list_builtins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gm = [text for _, text in texts(records_of(run_example("tokaido", tmp_path, capsys)), "GM")]
    assert gm[:5] == [
        "日本橋から4宿、8.5[ri] (33.15[km])。",  # 2 + 2.5 + 2.5 + 1.5 ri, x 3.9 km
        "一番長いのは川崎 2.5[ri]、短いのは保土ヶ谷 1.5[ri]。",  # a stable sort: 川崎 first
        "渡しは川崎の手前、1か所。どの宿も 3 里より近い: true。2 里を超える宿がある: true。",
        "戸塚まで行けば 10.5[ri]。",
        "一行はふつう (1.4[m/sec]) で歩きます。",  # brisk and steady were asked: the slower
    ]
    assert gm[5] == "品川まで 2[ri]、5571[sec] (1[koku]以内)。"


# ------------------------------------------------------------ duel

STRIKE = re.compile(
    r"(?P<who>\S+)の(?P<weapon>\S+): (?P<dice>\d+)D6=(?P<natural>\d+)\+(?P<attack>\d+)"
    r" 対 (?P<defence>\d+) → (?P<grade>[^、。]+)(?:、(?P<target>\S+)に (?P<blow>\d+) の傷)?。"
)
ATTACK = {"jodan": 3, "chudan": 1, "gedan": 0}
GUARD = {"jodan": 0, "chudan": 1, "gedan": 3}
DAMAGE = {"刀": (2, 12), "槍": (4, 9), "金棒": (4, 14)}  # 2D6, D6+3, 2D6+2


def grade(natural: int, margin: int, dice: int) -> tuple[str, int]:
    if natural == dice:  # every die shows 1: the pool's minimum
        return "大失敗", 0
    if 0 <= margin < 5:
        return "命中", 1
    if 5 <= margin <= 6 * dice:
        return "痛打", 2
    return "外れ", 0


def test_duel_blows_follow_the_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = records_of(run_example("duel", tmp_path, capsys))
    answers = json.loads((EXAMPLES / "duel" / "answers.json").read_text(encoding="utf-8"))
    stances = {
        "さくら": answers["sakura@example.org"],
        "海斗": answers["kaito@example.org"],
        "赤鬼": answers["GM"],
    }
    hp = {"さくら": 14, "海斗": 12, "赤鬼": 40}
    rounds: dict[int, list[re.Match[str]]] = {}
    tallies: dict[int, str] = {}
    for tick, text in texts(records, "GM"):
        found = STRIKE.fullmatch(text)
        if found is not None:
            rounds.setdefault(tick, []).append(found)
        elif text.startswith("第"):
            tallies[tick] = text
    assert sorted(rounds) == sorted(tallies) == [0, 6, 12]  # a round is 6 seconds
    for number, tick in enumerate(sorted(rounds)):
        blows: dict[str, list[int]] = {}
        for strike in rounds[tick]:
            who = strike["who"]
            target = strike["target"] or ("赤鬼" if who != "赤鬼" else None)
            stance = stances[who][number]["stance"]
            assert int(strike["dice"]) == 3  # skill 3, or a samurai's skill 2 plus one die
            assert int(strike["attack"]) == ATTACK[stance]
            natural = int(strike["natural"])
            margin = natural + ATTACK[stance] - int(strike["defence"])
            caption, times = grade(natural, margin, 3)
            assert strike["grade"] == caption
            if target is not None:
                guard = GUARD[stances[target][number]["stance"]]
                assert int(strike["defence"]) == (9 if target == "赤鬼" else 8) + guard
            if strike["blow"] is not None:
                assert target is not None
                low, high = DAMAGE[strike["weapon"]]
                blow = int(strike["blow"])
                assert times > 0 and low * times <= blow <= high * times
                assert blow % times == 0
                blows.setdefault(target, []).append(blow)
        # Both heroes strike the oni in one step: its wound alter gets both blows at once.
        oni_blows = blows.get("赤鬼", [])
        assert len(oni_blows) == 2
        for name, taken in blows.items():
            hp[name] -= sum(taken)
        assert tallies[tick] == (
            f"第{number + 1}合 ({tick}[sec]): 赤鬼 {hp['赤鬼']} "
            f"(受けた傷 {len(oni_blows)} 回、計 {sum(oni_blows)})"
        )
    assert hp["赤鬼"] <= 0
    assert texts(records, "GM")[-1] == (12, "赤鬼は倒れた。")
    # The oni's last blow and the heroes' last blows land in the same step: 海斗 still
    # strikes in the round he falls in.
    assert hp["海斗"] <= 0
    assert texts(records, "kaito@example.org")[-1] == (12, f"海斗: 体力 {hp['海斗']} (倒れた)")


def test_duel_asks_everyone_in_one_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = records_of(run_example("duel", tmp_path, capsys))
    queries = [(r["tick"], r["to"]) for r in records if r["kind"] == "query"]
    everyone = ["sakura@example.org", "kaito@example.org", "GM"]
    assert queries == [(tick, who) for tick in (0, 6, 12) for who in everyone]
    # The weapons' dice, told at the start: min, max and mean of each.
    assert [text for _, text in texts(records, "GM")[1:4]] == [
        "刀 2D6: 2〜12、平均 7.0",
        "槍 1D6+3: 4〜9、平均 6.5",
        "金棒 2D6+2: 4〜14、平均 9.0",
    ]


def test_lore_test_plays_every_example_to_its_blessed_transcript(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["test", str(EXAMPLES)]) == 0
    out = capsys.readouterr().out
    folders = sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir())
    assert out.splitlines()[-1] in (f"{len(folders)} ok", f"OK {len(folders)}")
