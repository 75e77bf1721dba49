"""Exact odds, checked against every roll the command can make (brute force through the
roller itself) and against icepool."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.dice import Die, evaluate
from lore.dice.conditions import parse_condition
from lore.dice.distribution import OddsError
from lore.dice.odds import odds, opposed


class NeedMore(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class Prefix:
    """Rolls the given faces, then asks for more (so every roll can be walked)."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = faces
        self.used = 0

    def roll(self, sides: int) -> int:
        if self.used == len(self.faces):
            raise NeedMore(sides)
        self.used += 1
        return self.faces[self.used - 1]


def every_roll(command: str, max_dice: int = 12) -> tuple[dict[int, Fraction], Fraction]:
    """The chance of each total the roller gives, over every sequence of faces of at
    most ``max_dice`` dice, and the chance left in longer sequences."""
    found: dict[int, Fraction] = defaultdict(Fraction)
    unfinished = Fraction(0)
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        faces, chance = stack.pop()
        try:
            result = evaluate(command, Prefix(faces))
        except NeedMore as more:
            if len(faces) >= max_dice:
                unfinished += chance
                continue
            for face in range(1, more.sides + 1):
                stack.append(((*faces, face), chance / more.sides))
            continue
        assert result is not None and result.total is not None
        found[result.total] += chance
    return dict(found), unfinished


@pytest.mark.parametrize(
    "command",
    [
        "3D6",
        "4D6KH3",
        "4D6DL1-1",
        "5D4KL2",
        "2D6+1D4*2>=9",
        "(1D6+1)/2R",
        "1D6/-3U",
        "3B6>=4",
        "1B4+2B6>=3",
        "D66",
        "D66A",
        "2D6-1D6/2",
        "C(7/2)",
    ],
)
def test_odds_match_every_roll(command: str) -> None:
    expected, unfinished = every_roll(command)
    assert unfinished == 0
    assert dict(odds(command).outcomes) == expected


@pytest.mark.parametrize("command", ["2R4[4]>=3", "1R6+1R4[<2]>=2", "2U4[4]>=6", "2U6[6]+1"])
def test_odds_of_dice_that_roll_again_match_every_roll(command: str) -> None:
    expected, unfinished = every_roll(command, max_dice=9)
    found = odds(command)
    assert 0 < unfinished < Fraction(1, 100)
    for value, chance in found.outcomes:
        if found.tail is not None and value >= found.tail:
            continue
        assert expected.get(value, 0) <= chance <= expected.get(value, 0) + unfinished
    assert sum(chance for _, chance in found.outcomes) == 1


def test_seven_d10_counting_8_or_more_with_10s_again() -> None:
    expected = Fraction(207877533, 500000000)
    assert odds("7R10[10]>=8", cap=3).at_least(3) == expected
    # icepool: a 10 counts 1000 and explodes; successes = thousands + ones
    die = icepool.d10.map(lambda f: 1000 if f == 10 else int(f >= 8)).explode([1000], depth=12)
    pool = (7 @ die).map(lambda total: total // 1000 + total % 1000)
    assert pool.probability(">=", 3) == expected


def test_seed_003_critical_and_fumble_of_3d6() -> None:
    found = odds("3D6", critical="[6]>=2", fumble="[1]=all")
    assert (found.critical, found.fumble) == (Fraction(2, 27), Fraction(1, 216))
    faces = list(product(range(1, 7), repeat=3))
    assert found.critical == Fraction(sum(f.count(6) >= 2 for f in faces), len(faces))
    assert found.fumble == Fraction(sum(f == (1, 1, 1) for f in faces), len(faces))


def test_a_check_with_criticals_against_icepool() -> None:
    found = odds("2D6+3>=10", critical="[6]=2", fumble="[1]=all")
    assert found.success == (2 @ icepool.d6 + 3).probability(">=", 10) == Fraction(7, 12)
    assert found.failure == Fraction(5, 12)
    assert (found.critical, found.fumble) == (Fraction(1, 36), Fraction(1, 36))


def test_kept_dice_against_icepool() -> None:
    for command, die in [
        ("4D6KH3", icepool.d6.highest(4, 3)),
        ("5D10KL2", icepool.d10.lowest(5, 2)),
        ("6D8DH2", icepool.d8.lowest(6, 4)),
    ]:
        expected = {outcome: die.probability(outcome) for outcome in die.outcomes()}
        assert dict(odds(command).outcomes) == expected


def test_upper_dice_against_icepool() -> None:
    chain = icepool.d6.explode([6], depth=8)
    expected = 4 @ chain.map(lambda total: int(total >= 10))
    found = odds("4U6[6]>=10")
    assert dict(found.outcomes) == {k: expected.probability(k) for k in expected.outcomes()}


def test_opposed_checks() -> None:
    match = opposed("2D6+4", "2D6+3")
    active, passive = 2 @ icepool.d6 + 4, 2 @ icepool.d6 + 3
    assert match.higher == (active > passive).probability(True)
    assert match.equal == (active == passive).probability(True)
    assert match.higher + match.equal + match.lower == 1 and match.undecided == 0
    pools = opposed("5B10>=8", "4B10>=8")
    assert pools.higher + pools.equal + pools.lower == 1
    chains = opposed("7R10[10]>=8", "5R10[10]>=8")
    assert 0 < chains.undecided < Fraction(1, 10**15)
    assert chains.higher + chains.equal + chains.lower + chains.undecided == 1


def test_outcomes_add_up_to_one() -> None:
    for command in ["3D6", "7R10[10]>=8", "4U6[6]", "5B10>=8", "2D6*1D6", "4U6[6]+2"]:
        assert sum(chance for _, chance in odds(command).outcomes) == 1


def test_at_least_beyond_the_cap_is_refused() -> None:
    found = odds("2R6[6]>=5")
    assert found.tail is not None
    with pytest.raises(OddsError, match="counted up to"):
        found.at_least(found.tail + 1)
    assert odds("2R6[6]>=5", cap=10).at_least(10) > 0


def test_conditions() -> None:
    assert str(parse_condition("[6]>=2")) == "[6]>=2"
    assert str(parse_condition(" [1-3, 6] == all ")) == "[1,2,3,6]=all"
    for bad in ["6>=2", "[6]", "[6]>=x", "[3-1]=1", "[6]>=2 extra", "[]=1", "[6]!2"]:
        with pytest.raises(OddsError):
            parse_condition(bad)


@pytest.mark.parametrize(
    "command",
    [
        "hello",
        "choice[A,B]",
        "10TY6",
        "x3 2D6",
        "5B6",
        "2R6",
        "2U6[1]",
        "C(1/0)",
        "200D10000",
        "50D100*50D100",
    ],
)
def test_commands_without_odds_say_why(command: str) -> None:
    with pytest.raises(OddsError):
        odds(command)


def test_the_dice_record_is_what_odds_count() -> None:
    result = evaluate("1D66", Prefix((3, 5)))
    assert result is not None and result.dice == (Die(6, 3), Die(6, 5))


@st.composite
def small_sums(draw: st.DrawFn) -> str:
    """A sum of at most four small dice, with arithmetic, kept dice and a target."""
    parts, dice = [], 0
    for _ in range(draw(st.integers(1, 3))):
        times = draw(st.integers(1, 4 - dice)) if dice < 4 else 0
        if times:
            dice += times
            sides = draw(st.sampled_from([2, 3, 4, 6]))
            keep = draw(st.sampled_from(["", "", f"KH{draw(st.integers(0, times))}", "DL1"]))
            parts.append(f"{times}D{sides}{keep}")
        else:
            parts.append(str(draw(st.integers(0, 5))))
    ops = [draw(st.sampled_from(["+", "-", "*", "/", "/U", "/R"])) for _ in parts[1:]]
    text = parts[0]
    for op, part in zip(ops, parts[1:], strict=True):
        text = f"{text}{op[0]}{part}{op[1:]}" if "/" in op else f"{text}{op}{part}"
    if draw(st.booleans()):
        text += draw(st.sampled_from([">=", "<", "=", "<>"])) + str(draw(st.integers(0, 12)))
    return text


@settings(max_examples=40, deadline=None)
@given(small_sums())
def test_odds_of_any_small_sum_match_every_roll(command: str) -> None:
    if evaluate(command, Prefix((1,) * 12)) is None:
        return  # not a command (no dice left after the arithmetic, say)
    expected, unfinished = every_roll(command)
    assert unfinished == 0
    found = odds(command)
    assert dict(found.outcomes) == expected


@pytest.mark.parametrize(
    ("command", "cap"),
    [("7R10[10]>=8", 10**9), ("4U6[2]>=1000000", None), ("2U1000[2]", None)],
)
def test_questions_too_slow_to_count_are_refused(command: str, cap: int | None) -> None:
    with pytest.raises(OddsError, match="too many to count"):
        odds(command, cap=cap)
