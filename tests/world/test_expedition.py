"""The expedition example end to end: `lore run` with its answers, pinned as a transcript.

The ticks and lengths below are worked out by hand from the maps (see the comments), so
the golden file is not the only thing that says what the session must do.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from tests.conftest import Golden

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "expedition"
AOI, REN = "aoi@example.org", "ren@example.org"


def run_example(tmp_path: Path) -> tuple[list[dict[str, Any]], str]:
    transcript = tmp_path / "expedition.jsonl"
    status = main(
        [
            "run",
            str(EXAMPLE / "scenario.lore"),
            "--answers",
            str(EXAMPLE / "answers.json"),
            "--transcript",
            str(transcript),
        ]
    )
    assert status == 0
    text = transcript.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()], text


def messages(records: list[dict[str, Any]], to: str) -> list[tuple[int, str]]:
    return [(r["tick"], r["text"]) for r in records if r["kind"] == "message" and r["to"] == to]


def test_check_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(str(path) for path in EXAMPLE.glob("*.lore"))
    assert main(["check", *files]) == 0
    assert capsys.readouterr().out == ""


def test_walks_and_triggers_happen_when_worked_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records, _ = run_example(tmp_path)
    capsys.readouterr()
    assert not [r for r in records if r["kind"] == "error"]
    assert records[-1] == {"tick": 8280, "kind": "end", "reason": "no-answer"}

    # A turn is 120 ticks; a walk takes ceil(toInt(metres / 1.2) / 120) turns.
    def walk_ticks(metres: float) -> int:
        return math.ceil(math.floor(metres / 1.2 + 0.5) / 120) * 120  # toInt: half up

    # Aoi: inn -> pass (3) -> castle (2) = 5 km (the other way, by the ford and the moor,
    # is 2 + 1 + 4 = 7 km): 4166.7 s, 35 turns, 4200 ticks.
    assert walk_ticks(5000) == 4200
    # In the castle, from the gate [1,1] to the storehouse [6,1]: the wall at x = 4 (lines
    # 1 and 2) sends the way through [4,3] without cutting the wall's corner:
    # [1,1] -d- [2,2] -d- [3,3] -o- [4,3] -o- [5,3] -d- [6,2] -o- [6,1], 3 orthogonal and
    # 3 diagonal steps of 20 m (a straight line would be 5 steps, 100 m).
    castle = (3 + 3 * math.sqrt(2)) * 20
    assert walk_ticks(castle) == 240 and walk_ticks(100) == 120
    # Ren: inn -> ford (2) -> moor (the link without distance: 1) = 3 km, 2520 ticks; then
    # on the moor from [0,2] to [5,2]: hex distance 5, but the pond makes it 7 hexes of
    # 100 m. Each is tall grass, which costs 1.5 times its length: 1050 m of walking,
    # 875 s, 8 turns, 960 ticks.
    assert walk_ticks(3000) == 2520 and walk_ticks(700 * 1.5) == 960

    assert messages(records, AOI) == [
        (0, "道のり 5000[m]"),
        # The search at the castle's place on the highway (action trigger castleGate).
        (4200, "崩れた大手門をくぐり、城跡に入ります。"),
        (4320, f"道のり {castle!r}[m]"),
        # The search in the storehouse (action trigger storehouse) 240 ticks later.
        (
            4560,
            "<html>\n <body>\n  <p><big>蔵の瓦礫の下から巻物が出てきた！</big></p>\n"
            " </body>\n</html>\n",
        ),
    ]
    assert messages(records, REN) == [
        (0, "道のり 3000[m]"),
        # Arriving at the moor (automatic trigger moorEdge) leads into the hex map.
        (2520, "すすきを掻き分けて野に入ります。"),
        (2520, "道のり 700[m]"),
        (2520, "足場が悪く、歩く手間は 1050[m] 分"),
        # Arriving one hex from the shrine (automatic trigger kitsunebi, range < 150 m).
        (3480, "青白い狐火が揺れ、すすきの陰に小さな祠が見えた。"),
        # Searching there (action trigger prayer).
        (3480, "祠に手を合わせ、旅の無事を祈りました。"),
    ]
    queries = [(r["tick"], r["to"], r["title"]) for r in records if r["kind"] == "query"]
    # Both are asked at the start (foreach asks everyone together).
    assert queries[:2] == [(0, AOI, "何をしますか？"), (0, AOI, "route in kaido")]
    assert (0, REN, "何をしますか？") in queries
    assert (2520, REN, "route in susuki") in queries
    assert (4320, AOI, "route in shiro") in queries
    # Aoi rests 1 hour from 4680 and is asked again at 8280, with no answer left.
    assert queries[-1] == (8280, AOI, "何をしますか？")


def test_transcript_is_pinned(
    tmp_path: Path, golden: Golden, capsys: pytest.CaptureFixture[str]
) -> None:
    _, text = run_example(tmp_path)
    capsys.readouterr()
    golden(text, EXAMPLE / "transcript.jsonl")  # (where ``lore test`` compares it)
