"""BCDice's game systems in Lore (``lore.dice.systems``): a few cases of each, with
BCDice's texts and flags, that need no data beside the checkout."""

from __future__ import annotations

import json

import pytest

from lore.dice import FixedSource
from lore.dice.systems import SYSTEMS, evaluate_in, find


def roll(system: str, line: str, *faces: int) -> tuple[str, list[str]]:
    source = FixedSource(faces)
    result = evaluate_in(system, line, source)
    assert result is not None, line
    assert source.left == 0
    flags = [
        f for f in ("secret", "success", "failure", "critical", "fumble") if getattr(result, f)
    ]
    return result.text, flags


CASES = [
    (
        "Cthulhu7th",
        "FAR(7,80,98)",
        (1, 10),
        "ボーナス・ペナルティダイス[0]\n1回目: ＞ 10 ＞ イクストリーム成功"
        "\u3000（4発が命中、3発が貫通）"
        "\n＞ 4発が通常命中、3発が貫通、残弾0発",
        [],
    ),
    ("Cthulhu7th", "FAR(0,0,98)", (), "弾薬は正の数です。", []),
    ("SwordWorld2.5", "K20+5", (5, 2), "KeyNo.20c[10]+5 ＞ 2D:[5,2]=7 ＞ 5+5 ＞ 10", []),
    (
        "SwordWorld2.5",
        "K20+5#1",
        (5, 4, 2, 2),
        "KeyNo.20c[10]a[+1]+5 ＞ 2D:[5,4 2,2]=10,5 ＞ 8,3+5 ＞ 1回転 ＞ 16",
        ["critical"],
    ),
    ("SwordWorld2.5", "hk10[9]+10", (2, 4), "KeyNo.10c[9]+10 ＞ 2D:[2,4]=6 ＞ (3+10)/2 ＞ 7", []),
    (
        "SwordWorld2.5",
        "SK20sz4",
        (1, 1),
        "KeyNo.20c[10]sz[4] ＞ 2D:[1,1]=2 ＞ ** ＞ 自動的失敗",
        ["secret", "fumble"],
    ),
    (
        "SwordWorld2.5",
        "2D6@10+16>=30",
        (6, 4, 5, 5, 1, 4),
        "(2D6@10+16>=30) ＞ 25[6,4][5,5][1,4]+16 ＞ 41 ＞ 超成功",
        ["success"],
    ),
    (
        "Cthulhu7th",
        "CC(-1)<=93",
        (9, 7, 2),
        "(1D100<=93) ボーナス・ペナルティダイス[-1] ＞ 92, 72 ＞ 92 ＞ レギュラー成功",
        ["success"],
    ),
    (
        "Cthulhu7th",
        "CC<=53h",
        (9, 6),
        "(1D100<=26) ボーナス・ペナルティダイス[0] ＞ 96 ＞ 96 ＞ ファンブル",
        ["failure", "fumble"],
    ),
    ("Cthulhu7th", "CC", (19,), "(1D100) ＞ 19", []),
    (
        "Cthulhu7th",
        "CBR(70,30)",
        (50,),
        "(1d100<=70,30) ＞ 50[レギュラー成功,失敗] ＞ 部分的成功",
        [],
    ),
    (
        "Cthulhu",
        "CC<=60",
        (1,),
        "(1D100<=60) ＞ 1 ＞ 決定的成功/スペシャル",
        ["success", "critical"],
    ),
    ("Cthulhu", "CCB<=50", (96,), "(1D100<=50) ＞ 96 ＞ 致命的失敗", ["failure", "fumble"]),
    ("Cthulhu", "CC(94)<=98", (97,), "(1D100<=98) 故障ナンバー[94] ＞ 97 ＞ 故障", ["failure"]),
    ("Cthulhu", "SRES(18-11)", (47,), "(1d100<=85) ＞ 47 ＞ 成功", ["secret", "success"]),
    ("Cthulhu", "RES(30-11)", (), "(1d100<=145) ＞ 自動成功", ["success"]),
    ("Cthulhu", "CBR(70,30)", (31,), "(1d100<=70,30) ＞ 31[成功,失敗] ＞ 部分的成功", ["success"]),
    (
        "Emoklore",
        "2DM<=5",
        (1, 6),
        "(2DM<=5) ＞ [1, 6] ＞ 2 ＞ 成功数2 ダブル",
        ["success", "critical"],
    ),
    (
        "Emoklore",
        "2DA3+1",
        (8, 5, 6),
        "(2DA3+1) ＞ (3DM<=5) ＞ [8, 5, 6] ＞ 1 ＞ 成功数1 成功",
        ["success"],
    ),
    (
        "Emoklore",
        "1DM<=5E-2",
        (),
        "(1DM<=5E-2) ＞ ダイス数が0以下 ＞ 確定失敗",
        ["failure", "fumble"],
    ),
    (
        "Emoklore",
        "S3DM<=3",
        (10, 10, 5),
        "(3DM<=3) ＞ [10, 10, 5] ＞ -2 ＞ 成功数-2 ファンブル",
        ["secret", "failure", "fumble"],
    ),
    (
        "DoubleCross",
        "3DX+1@5>=14",
        (1, 1, 1),
        "(3DX5+1>=14) ＞ 1[1,1,1]+1 ＞ 0 (ファンブル) ＞ 失敗",
        ["failure", "fumble"],
    ),
    (
        "DoubleCross",
        "3DX@5>=13",
        (2, 10, 9, 1, 3),
        "(3DX5>=13) ＞ 10[2,9,10]+3[1,3] ＞ 13 ＞ 成功",
        ["success", "critical"],
    ),
    ("DoubleCross", "4d+12", (9, 2, 3, 9), "(4D10+12) ＞ 23[9,2,3,9]+12 ＞ 35", []),
    (
        "DoubleCross",
        "1DX@1",
        (),
        "(1DX1) ＞ クリティカル値が低すぎます。2以上を指定してください。",
        [],
    ),
]


@pytest.mark.parametrize(("system", "line", "faces", "text", "flags"), CASES)
def test_system_commands(
    system: str, line: str, faces: tuple[int, ...], text: str, flags: list[str]
) -> None:
    assert roll(system, line, *faces) == (text, flags)


@pytest.mark.parametrize("line", ["10DX@1XXX", "10DX10@10", "CCさくら", "DM", "hello"])
def test_not_commands(line: str) -> None:
    for system in SYSTEMS:
        assert evaluate_in(system, line, FixedSource([])) is None or line == "DM"


def test_ids_are_bcdice_s() -> None:
    assert find("doublecross") is SYSTEMS["DoubleCross"]
    assert find("Nope") is None
    with pytest.raises(KeyError):
        evaluate_in("Nope", "2D6", FixedSource([]))


def test_odds_agree_with_every_roll_of_few_dice() -> None:
    """The exact odds of small checks, against rolling every combination of faces."""
    from collections import Counter
    from fractions import Fraction
    from itertools import product

    from lore.dice.systems.odds import system_odds

    for system, line, dice in (("Emoklore", "2DM<=4", 2), ("Cthulhu7th", "CC(-1)<=40", 3)):
        counted: Counter[int] = Counter()
        successes = 0
        for faces in product(range(1, 11), repeat=dice):
            result = evaluate_in(system, line, FixedSource(faces))
            assert result is not None and result.total is not None
            counted[result.total] += 1
            successes += result.success
        found = system_odds(system, line)
        assert found is not None
        total = 10**dice
        assert dict(found.outcomes) == {value: Fraction(n, total) for value, n in counted.items()}
        assert found.success == Fraction(successes, total)
    one = system_odds("DoubleCross", "1DX")
    assert one is not None
    chances = dict(one.outcomes)
    assert chances[0] == chances[5] == Fraction(1, 10)  # a 1 is a fumble: 0
    assert chances[19] == Fraction(1, 100) and chances[29] == Fraction(1, 1000)


def test_a_chat_line_rolls_as_the_game_system_given() -> None:
    from lore.server.chat import chat_line_roll

    found = chat_line_roll("CCB<=50 目星", FixedSource([5]), game="Cthulhu")
    assert found is not None
    assert (found.result.text, found.comment) == (
        "(1D100<=50) ＞ 5 ＞ 決定的成功/スペシャル",
        "目星",
    )
    plain = chat_line_roll("CCB<=50", FixedSource([5]))
    assert plain is None  # without the system, CCB is no command


def test_rate_table_odds_agree_with_every_roll() -> None:
    from collections import Counter
    from fractions import Fraction
    from itertools import product

    from lore.dice.systems.odds import system_odds

    for line in ("HK10+3", "K30@13#1sz5"):
        counted: Counter[int] = Counter()
        for faces in product(range(1, 7), repeat=2):
            result = evaluate_in("SwordWorld2.5", line, FixedSource(faces))
            assert result is not None and result.total is not None
            counted[result.total] += 1
        found = system_odds("SwordWorld2.5", line)
        assert found is not None
        assert dict(found.outcomes) == {value: Fraction(n, 36) for value, n in counted.items()}
    again = system_odds("SwordWorld2.5", "K20")
    assert again is not None and again.critical == Fraction(1, 6)
    # a first 10 (power 20: 8) then a 7 (5): 13 is reached so, among other ways
    assert dict(again.outcomes)[13] > Fraction(3, 36) * Fraction(6, 36)


@pytest.mark.parametrize(
    ("system", "line", "dice", "text"),
    [
        (
            "DoubleCross",
            "ET",
            "69,7,2",
            "感情表(69-7) ＞ 信頼(しんらい) - ○脅威(きょうい)",
        ),
        (
            "Cthulhu7th",
            "BMS",
            "7,7",
            "狂気の発作（サマリー）(7) ＞ 収容：探索者は精神療養施設あるいは警察の留置所で"
            "意識を取り戻す。探索者は徐々にそこにいたった出来事を思い出すかもしれない。"
            "(1D10＞7時間)",
        ),
        (
            "SwordWorld2.5",
            "ABT",
            "2,5,4,5",
            "アビスカース表(25) ＞ 「過敏な」　装備時　特定の属性から受ける物理ダメージ、"
            "魔法ダメージが2点上昇する。属性は「属性決定表」で無作為に決定する。\n"
            "アビスカース属性決定表(45) ＞ 呪い",
        ),
    ],
)
def test_a_systems_table_rolls_from_the_command_line(
    system: str, line: str, dice: str, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.cli.main import main

    assert main(["roll", line, "--system", system, "--dice", dice, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["text"] == text
    assert len(found["dice"]) == len(dice.split(","))  # every die given, and no more
    assert not any(found[flag] for flag in ("success", "failure", "critical", "fumble"))
