"""The exact odds of the bundled systems' chat commands (``lore.dice.bundled_odds``) are
those of the commands' own rules: checked against every way the dice can fall, rolled
through the commands' Lore handlers (``orm.lore``, ``ninja.lore``), and against many
seeded rolls of the larger pools."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import pytest

from lore.dice import FixedSource, RollResult, seeded
from lore.dice.bundled_odds import MAX_EXTENDED, MAX_POOL, command_odds
from lore.dice.distribution import OddsError
from lore.dice.odds import Odds, Opposed
from lore.engine.session import Session
from lore.engine.system_commands import chat_roll, match
from lore.runtime.errors import LimitExceeded
from tests.engine.harness import play

STARTED = ' go = { ticks = 0; priority = 0; handler = @{ GM.message("ready"); }; }:Event;\n}\n'
SESSIONS: dict[str, Session] = {}


def session_of(system: str) -> Session:
    if system not in SESSIONS:
        SESSIONS[system] = play(
            f'import "basic.lore":url;\nimport "{system}.lore":url;\nsection s {{\n' + STARTED
        )
    return SESSIONS[system]


def exact(system: str, command: str) -> Odds | Opposed:
    """The counted odds of a command, read by the system's own pattern."""
    found = match(session_of(system), command)
    assert found is not None, command
    counted = command_odds(found[0].label, found[1].numbers, found[1].command)
    assert counted is not None, command
    return counted


def every_roll(system: str, command: str, deepest: int) -> Iterator[tuple[RollResult, Fraction]]:
    """Every way the dice of a command can fall, rolled through its handler, each with
    its chance; sequences of more than ``deepest`` dice are left out (their chance is
    what the chances given fall short of 1)."""
    session = session_of(system)
    sides = 6 if system == "orm" else 10
    waiting = [[face] for face in range(1, sides + 1)]
    while waiting:
        faces = waiting.pop()
        try:
            result = chat_roll(session, command, "GM", FixedSource(faces))
        except LimitExceeded as error:  # (it rolls more dice than these)
            assert "more dice than" in str(error)
            if len(faces) < deepest:
                waiting += [[*faces, face] for face in range(1, sides + 1)]
            continue
        assert result is not None
        yield result, Fraction(1, sides ** len(faces))


# -- every way the dice fall


@pytest.mark.parametrize(
    "command",
    ["ORM1", "ORM1+2>=8", "ORM2+1>=9", "ORM3+4>=12", "ORM3-2>=14", "ORM0>=2", "ORM4+3>=30"],
)
def test_orm_checks_have_the_odds_of_every_way_their_dice_fall(command: str) -> None:
    counted = exact("orm", command)
    assert isinstance(counted, Odds)
    totals: Counter[int] = Counter()
    flags: Counter[str] = Counter()
    for result, chance in every_roll("orm", command, 4):
        assert result.total is not None
        totals[result.total] += chance
        for flag in ("success", "critical", "fumble"):
            if getattr(result, flag):
                flags[flag] += chance
    assert sum(totals.values()) == 1
    assert dict(counted.outcomes) == dict(totals)
    assert counted.critical == flags["critical"] and counted.fumble == flags["fumble"]
    if ">=" in command:
        assert counted.success == flags["success"] and counted.failure == 1 - flags["success"]
    else:
        assert counted.success is None


@pytest.mark.parametrize("command", ["ORD8", "ORDC8", "ORD0"])
def test_orm_damage_has_the_odds_of_every_way_its_dice_fall(command: str) -> None:
    counted = exact("orm", command)
    assert isinstance(counted, Odds)
    totals: Counter[int] = Counter()
    for result, chance in every_roll("orm", command, 2):
        assert result.total is not None
        totals[result.total] += chance
    assert dict(counted.outcomes) == dict(totals)
    assert counted.mean() == {"ORD8": 15, "ORDC8": 25, "ORD0": 7}[command]


def bounded(
    system: str, command: str, deepest: int, read: Callable[[RollResult], tuple[Any, ...]]
) -> tuple[Counter[tuple[Any, ...]], Fraction]:
    """The chance of each reading of a command's result over every way its dice fall
    (up to ``deepest`` dice), and the chance left out."""
    found: Counter[tuple[Any, ...]] = Counter()
    for result, chance in every_roll(system, command, deepest):
        found[read(result)] += chance
    left = 1 - sum(found.values(), Fraction(0))
    assert 0 <= left < Fraction(2, 100)
    return found, left


def within(counted: Fraction, enumerated: Fraction, left: Fraction) -> bool:
    """The counted chance lies where the enumeration puts it (what was left out may add
    to it)."""
    return enumerated <= counted <= enumerated + left


@pytest.mark.parametrize(
    ("command", "deepest"),
    [("NJ1", 6), ("NJ2@2", 6), ("NJ3", 5), ("NJ3@2", 5), ("NJ2@3", 6), ("NJ0", 1)],
)
def test_ninja_checks_have_the_odds_of_every_way_their_dice_fall(
    command: str, deepest: int
) -> None:
    counted = exact("ninja", command)
    assert isinstance(counted, Odds) and counted.tail is not None
    found, left = bounded(
        "ninja", command, deepest, lambda r: (r.total, r.success, r.critical, r.fumble)
    )
    for value, chance in counted.outcomes:
        if value < counted.tail:
            hits = sum((c for key, c in found.items() if key[0] == value), Fraction(0))
            assert within(chance, hits, left), value
    for index, name in ((1, "success"), (2, "critical"), (3, "fumble")):
        hits = sum((c for key, c in found.items() if key[index]), Fraction(0))
        assert within(getattr(counted, name), hits, left), name
    # The chances with no 10 among the dice are whole: the fumble's is exact.
    fumbles = sum((c for key, c in found.items() if key[3]), Fraction(0))
    assert counted.fumble == fumbles


def test_an_opposed_check_has_the_odds_of_every_way_its_dice_fall() -> None:
    counted = exact("ninja", "NJ2VS1")
    assert isinstance(counted, Opposed)
    found, left = bounded(
        "ninja", "NJ2VS1", 5, lambda r: (r.total or 0, r.success, r.critical, r.fumble)
    )
    higher = sum((c for key, c in found.items() if key[0] > 0), Fraction(0))
    equal = sum((c for key, c in found.items() if key[0] == 0), Fraction(0))
    lower = sum((c for key, c in found.items() if key[0] < 0), Fraction(0))
    assert within(counted.higher, higher, left + counted.undecided)
    assert within(counted.equal, equal, left)
    assert within(counted.lower, lower, left + counted.undecided)
    success = sum((c for key, c in found.items() if key[1]), Fraction(0))
    assert within(counted.higher, success, left)  # (the active side wins with 1 or more)
    fumble = sum((c for key, c in found.items() if key[3]), Fraction(0))
    assert counted.active.fumble is not None and within(counted.active.fumble, fumble, left)


@pytest.mark.parametrize(("command", "deepest"), [("NJE3@1", 5), ("NJE2@1", 5), ("NJE1@1", 5)])
def test_an_extended_check_has_the_odds_of_every_way_its_dice_fall(
    command: str, deepest: int
) -> None:
    counted = exact("ninja", command)
    assert isinstance(counted, Odds) and counted.tail is not None
    found, left = bounded("ninja", command, deepest, lambda r: (r.total, r.success))
    success = sum((c for key, c in found.items() if key[1]), Fraction(0))
    assert counted.success is not None and within(counted.success, success, left)
    for value, chance in counted.outcomes:
        if value < counted.tail:
            hits = sum((c for key, c in found.items() if key[0] == value), Fraction(0))
            assert within(chance, hits, left), value


# -- many seeded rolls of larger pools


RUNS = 5_000


def agrees(chance: Fraction, hits: int) -> bool:
    """``hits`` in RUNS rolls is within 4.5 standard deviations of the chance."""
    p = float(chance)
    return abs(hits - RUNS * p) <= 4.5 * math.sqrt(RUNS * p * (1 - p)) + 1


@pytest.mark.parametrize(
    ("system", "command"),
    [("ninja", "NJ7@2"), ("ninja", "NJ9@4"), ("ninja", "NJE7@5"), ("orm", "ORM5+3>=20")],
)
def test_larger_pools_roll_as_their_odds_say(system: str, command: str) -> None:
    counted = exact(system, command)
    assert isinstance(counted, Odds)
    source = seeded(36)
    rolls = [chat_roll(session_of(system), command, "GM", source) for _ in range(RUNS)]
    assert all(roll is not None for roll in rolls)
    for name in ("success", "critical", "fumble"):
        chance = getattr(counted, name)
        if chance is not None:
            assert agrees(chance, sum(bool(getattr(roll, name)) for roll in rolls)), name
    totals = Counter(roll.total for roll in rolls if roll is not None)
    for value, chance in counted.outcomes:
        if counted.tail is None or value < counted.tail:
            assert agrees(chance, totals[value]), value


def test_an_opposed_check_of_larger_pools_rolls_as_its_odds_say() -> None:
    counted = exact("ninja", "NJ7VS5")
    assert isinstance(counted, Opposed)
    source = seeded(37)
    rolls = [chat_roll(session_of("ninja"), "NJ7VS5", "GM", source) for _ in range(RUNS)]
    assert agrees(counted.higher, sum(bool(roll and roll.success) for roll in rolls))
    assert agrees(counted.equal, sum(bool(roll and roll.total == 0) for roll in rolls))
    assert counted.active.critical is not None
    assert agrees(counted.active.critical, sum(bool(roll and roll.critical) for roll in rolls))


# -- the figures by hand, and the limits


def test_the_figures_of_the_rulebooks_checks() -> None:
    orm = exact("orm", "ORM3+4>=12")
    assert isinstance(orm, Odds)
    # Two or more 6s of three dice: 3 * 5 + 1 ways of 216; all 1s: one way.
    assert (orm.critical, orm.fumble, orm.success) == (
        Fraction(16, 216),
        Fraction(1, 216),
        Fraction(181, 216),
    )
    ninja = exact("ninja", "NJ7@2")
    assert isinstance(ninja, Odds)
    assert ninja.critical == 1 - Fraction(9, 10) ** 7
    assert ninja.fumble == Fraction(7, 10) ** 7 - Fraction(6, 10) ** 7
    assert ninja.exactly(0) == Fraction(7, 10) ** 7
    assert sum(chance for _, chance in ninja.outcomes) == 1
    opposed = exact("ninja", "NJ7VS5")
    assert isinstance(opposed, Opposed) and opposed.undecided < Fraction(1, 10**15)
    assert opposed.higher + opposed.equal + opposed.lower + opposed.undecided == 1


def test_pools_too_large_to_count_are_refused() -> None:
    with pytest.raises(OddsError, match=f"at most {MAX_POOL} dice"):
        exact("ninja", f"NJ{MAX_POOL + 1}")
    with pytest.raises(OddsError, match=f"at most {MAX_EXTENDED} dice"):
        exact("ninja", f"NJE{MAX_EXTENDED + 1}@3")
    big = exact("ninja", f"NJ{MAX_POOL}@20")
    assert isinstance(big, Odds) and big.success is not None and big.success > Fraction(99, 100)
    assert command_odds("t.other", [1], "X1") is None
    assert list(itertools.islice(every_roll("orm", "ORD1", 2), 1))  # (the enumeration runs)
