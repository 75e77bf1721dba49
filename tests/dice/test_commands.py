"""The dice commands on their own (BCDice's conformance cases are in tests/conformance):
fixed dice in, exact text, total, dice and flags out."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.analysis.simulate import load_program
from lore.dice import DiceError, Die, FixedSource, RollResult, TooManyDice, evaluate, seeded
from lore.engine.session import Session


def roll(command: str, *faces: int) -> RollResult:
    source = FixedSource(faces)
    result = evaluate(command, source)
    assert result is not None, command
    assert source.left == 0, f"{command}: {source.left} faces not rolled"
    return result


@pytest.mark.parametrize(
    ("command", "faces", "text", "total"),
    [
        ("2D6+3>=10", (6, 3), "(2D6+3>=10) ＞ 9[6,3]+3 ＞ 12 ＞ 成功", 12),
        ("2D6+3>=10", (1, 3), "(2D6+3>=10) ＞ 4[1,3]+3 ＞ 7 ＞ 失敗", 7),
        ("1d20", (17,), "(1D20) ＞ 17", 17),
        ("3D", (1, 2, 3), "(3D6) ＞ 6[1,2,3] ＞ 6", 6),
        ("4D6KH3", (3, 1, 6, 4), "(4D6KH3) ＞ 13[1,3,4,6] ＞ 13", 13),
        ("4D6DL1+1", (3, 1, 6, 4), "(4D6DL1+1) ＞ 13[1,3,4,6]+1 ＞ 14", 14),
        ("2D20MIN", (15, 4), "(2D20KL1) ＞ 4[4,15] ＞ 4", 4),
        ("(1+1)D(3*2)-1--2", (2, 5), "(2D6-1+2) ＞ 7[2,5]-1+2 ＞ 8", 8),
        ("3D6/2R", (1, 2, 2), "(3D6/2R) ＞ 5[1,2,2]/2R ＞ 3", 3),
        ("2D6>=?", (3, 4), "(2D6>=?) ＞ 7[3,4] ＞ 7", 7),
        ("1D66", (3, 5), "(1D66) ＞ 35", 35),
        ("5B6>=4", (5, 2, 4, 6, 1), "(5B6>=4) ＞ 5,2,4,6,1 ＞ 成功数3", 3),
        ("2B6+1B4", (6, 6, 3), "(2B6+1B4) ＞ 6,6,3", None),
        ("3R6[6]>=5", (6, 2, 5, 6, 1), "(3R6[6]>=5) ＞ 6,2,5 + 6 + 1 ＞ 成功数3", 3),
        ("2R6>=5@>5", (6, 5, 6, 1), "(2R6[>5]>=5) ＞ 6,5 + 6 + 1 ＞ 成功数3", 3),
        ("4U6[6]", (6, 3, 2, 1, 5), "(4U6[6]) ＞ 9[6,3],2,1,5 ＞ 9/17(最大/合計)", 17),
        ("2U10[10]-2>=8", (10, 4, 9), "(2U10[10]-2>=8) ＞ 14[10,4],9-2 ＞ 成功数1", 1),
        ("D66", (6, 2), "(D66) ＞ 62", 62),
        ("D66A", (6, 2), "(D66A) ＞ 26", 26),
        ("C(10/3R)", (), "c(10/3R) ＞ 3", 3),
        ("c2*(3+4)", (), "c(2*(3+4)) ＞ 14", 14),
        ("choice[走る,隠れる,戦う]", (2,), "(choice[走る,隠れる,戦う]) ＞ 隠れる", None),
        ("6TZ3", (1, 1, 3, 1, 3, 3), "(6TZ3) ＞ 1,1,3,1,3,3 ＞ [1]×3, [2]×0, [3]×3", None),
    ],
)
def test_commands(command: str, faces: tuple[int, ...], text: str, total: int | None) -> None:
    result = roll(command, *faces)
    assert (result.text, result.total) == (text, total)
    assert [die.value for die in result.dice] == list(faces)


def test_dice_keep_their_sides_in_order() -> None:
    result = roll("1D4+1D20+1D66", 2, 19, 1, 6)
    assert result.dice == (Die(4, 2), Die(20, 19), Die(6, 1), Die(6, 6))


def test_flags() -> None:
    hit = roll("S2D6>=7", 3, 4)
    assert (hit.secret, hit.success, hit.failure, hit.critical, hit.fumble) == (
        True,
        True,
        False,
        False,
        False,
    )
    miss = roll("2D6<>7", 3, 4)
    assert (miss.secret, miss.success, miss.failure) == (False, False, True)
    assert not roll("5B6>=4", 5, 2, 4, 6, 1).success  # pools count, they do not succeed


def test_a_secret_repeat_and_a_repeat_of_secrets() -> None:
    assert roll("Sx2 1D6", 1, 2).secret
    assert roll("x2 S1D6", 1, 2).secret
    assert roll("x2 1D6", 1, 2).text == "#1\n(1D6) ＞ 1\n\n#2\n(1D6) ＞ 2"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "hello",
        "134",
        "1+2",
        "2D6>",
        "2D6+",
        "D66+1",
        "2D6>=1D6",
        "(1D6)D6",
        "3D6MAX2",
        "2R6[4]@4",
        "choice[only]",
        "choice3[a,b]",
        "x3",
        "0TY6",
        "2D6　全角空白の後",  # a full-width space is not a word break (as in BCDice)
    ],
)
def test_not_commands_roll_nothing(text: str) -> None:
    source = FixedSource([])
    assert evaluate(text, source) is None


def test_a_comment_after_the_command_is_ignored() -> None:
    assert roll("2D6 攻撃！ 2D6", 1, 1).text == "(2D6) ＞ 2[1,1] ＞ 2"


def test_bcdice_limits() -> None:
    assert roll("201D6").text == "(201D6) ＞ 0"
    assert roll("200D1", *[1] * 200).total == 200
    assert roll("2D10001").text == "(2D10001) ＞ 0[0,0] ＞ 0"
    assert roll("choice[1-101]").text == "項目数は100以下としてください"
    assert roll("rep101 1D6").text == "繰り返し回数は1以上、100以下としてください"
    with pytest.raises(TooManyDice):
        evaluate("x100 200D6", seeded(1))


def test_repeats_do_not_nest() -> None:
    assert roll("x2 x2 1D6").text == "Repeatコマンドの重複はできません"
    assert roll("x2 X2 1D6").text == "繰り返し対象のコマンドが実行できませんでした (X2 1D6)"


def test_reroll_and_upper_conditions_that_never_end_are_refused() -> None:
    assert roll("3R6[1]>=4").text.endswith("のように振り足し目標値を指定してください。")
    assert roll("2U6[1]").text == "(2U6[1]) ＞ 無限ロールの条件がまちがっています"


def test_division_by_zero() -> None:
    assert roll("C(1/(2-2))").text == "c(1/(2-2)) ＞ ゼロ除算が発生したため計算できませんでした"
    assert roll("1D6/0", 4).total == 1  # BCDice's sum gives 1
    assert evaluate("(1/0)B6", FixedSource([])) is None


def test_fixed_dice_that_do_not_fit() -> None:
    with pytest.raises(DiceError, match="more dice"):
        evaluate("2D6", FixedSource([3]))
    with pytest.raises(DiceError, match="d6"):
        evaluate("1D6", FixedSource([Die(8, 3)]))
    with pytest.raises(DiceError, match="given as 9"):
        evaluate("1D6", FixedSource([9]))


def test_hostile_text_is_not_a_command() -> None:
    deep = "(" * 5000 + "1" + ")" * 5000 + "D6"
    assert evaluate(deep, FixedSource([])) is None
    assert evaluate("-" * 5000 + "1D6", FixedSource([])) is None
    assert evaluate("9" * 5000 + "D6", FixedSource([])) is None
    assert evaluate("C" + "9" * 900 + ("*" + "9" * 900) * 3, FixedSource([])) is None


class Ones:
    """A source of 1s that counts its dice (so no reroll runs for ever)."""

    def __init__(self) -> None:
        self.rolled = 0

    def roll(self, sides: int) -> int:
        assert 1 <= sides <= 10_000
        self.rolled += 1
        return 1 if self.rolled % 7 else sides


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"0123456789DdBRUKHLMAXINSCTYZ+-*/()[]<>=!?@, x", "rep", "choice"]),
        max_size=16,
    ).map("".join)
)
def test_any_text_rolls_or_is_not_a_command(text: str) -> None:
    source = Ones()
    try:
        result = evaluate(text, source)
    except TooManyDice:
        return
    if result is None:
        return
    assert result.text
    assert len(result.dice) == source.rolled


def test_the_same_seed_rolls_the_same() -> None:
    first, second = evaluate("10D6", seeded(7)), evaluate("10D6", seeded(7))
    assert first is not None and second is not None
    assert first.dice == second.dice


def test_the_engine_stream_of_a_handler_is_a_random_source() -> None:
    path = Path(__file__).resolve().parents[2] / "examples" / "tavern" / "scenario.lore"
    program, _ = load_program([path])
    assert program is not None

    def handler_roll(seed: int) -> RollResult:
        runtime = Session(program, seed).rt
        runtime.reset(seq=0, index=2)  # the third handler of a step
        result = evaluate("S3D6+1D20>=15", runtime)
        assert result is not None
        return result

    first = handler_roll(5)
    assert first == handler_roll(5)
    assert first.secret and len(first.dice) == 4
    assert [die.sides for die in first.dice] == [6, 6, 6, 20]
