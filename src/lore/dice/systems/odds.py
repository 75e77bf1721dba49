"""Exact odds of the game systems' checks: ``system_odds("Cthulhu", "CCB<=50")``.

Worked out by counting, as ``lore.dice.odds`` does for the common commands, with each
outcome's flags (success, failure, critical, fumble) as the system's roll sets them:

- ``Cthulhu``: ``CC``, ``CCB`` (with a malfunction number too), ``RES``, ``RESB``,
  ``CBR``, ``CBRB``: the chance of each roll of 1D100 and of each flag.
- ``Cthulhu7th``: ``CC`` with bonus or penalty dice and a difficulty: the chance of each
  result kept; ``CBR``.
- ``DoubleCross``: ``DX``: the chance of each total (totals past a cap counted as one
  "that or more" outcome, exactly), of a critical (a reroll), a fumble and a success.
- ``Emoklore``: ``DM``, ``DA``: the chance of each count of successes.
- ``SwordWorld2.5``: the rate tables (``K20+5@10`` with their options): the chance of
  each damage (past a cap counted as one "that or more" outcome), of a critical and of
  an automatic failure.

Other commands of a system have no odds here; the common commands are left to
``lore.dice.odds``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from fractions import Fraction
from math import comb

from lore.dice.distribution import OddsError
from lore.dice.lexer import first_word
from lore.dice.odds import Odds
from lore.dice.systems import cthulhu, cthulhu7th, doublecross, emoklore, swordworld2_5
from lore.dice.systems.base import STEP
from lore.dice.systems.sw25_rates import MAX_POWER, RATES

Row = tuple[int, Fraction, bool, bool, bool, bool]  # value, chance, and the four flags
MAX_DX_DICE = 60
DX_CAP = 60  # totals counted one by one at least up to this


def gather(command: str, measure: str, rows: Iterable[Row], tail: int | None = None) -> Odds:
    outcomes: dict[int, Fraction] = defaultdict(Fraction)
    flags = [Fraction(0)] * 4
    for value, chance, *marks in rows:
        outcomes[value] += chance
        for index, mark in enumerate(marks):
            if mark:
                flags[index] += chance
    success, failure, critical, fumble = flags
    return Odds(
        command,
        measure,
        tuple(sorted((value, chance) for value, chance in outcomes.items() if chance)),
        tail,
        success,
        failure,
        critical,
        fumble,
    )


def uniform_rows(judge: Callable[[int], tuple[bool, bool, bool, bool]]) -> list[Row]:
    return [(roll, Fraction(1, 100), *judge(roll)) for roll in range(1, 101)]


def cthulhu_odds(word: str) -> Odds | None:
    command = cthulhu.parse(word)
    if command is None:
        return None
    if isinstance(command, cthulhu.Check):
        check = command
        if check.target is None:
            raise OddsError(f"{word} has no value to roll under: write it like CC<=60")
        target = check.target

        def judge_check(roll: int) -> tuple[bool, bool, bool, bool]:
            found = cthulhu.judge(roll, target, check.rule, check.broken)
            return found.success, not found.success, found.critical and found.success, found.fumble

        return gather(word, "total", uniform_rows(judge_check))
    if isinstance(command, cthulhu.Resistance):
        resistance = command
        target = 50 + 5 * resistance.difference
        if target >= 100 or target <= 0:
            sure = target >= 100
            return gather(word, "total", [(target, Fraction(1), sure, not sure, False, False)])

        def judge_resistance(roll: int) -> tuple[bool, bool, bool, bool]:
            found = cthulhu.judge(roll, target, resistance.rule)
            return found.success, not found.success, found.critical and found.success, found.fumble

        return gather(word, "total", uniform_rows(judge_resistance))
    combined = command

    def judge_combined(roll: int) -> tuple[bool, bool, bool, bool]:
        found = [cthulhu.judge(roll, target, combined.rule) for target in combined.targets]
        success = any(one.success for one in found)
        return (
            success,
            not success,
            any(one.critical for one in found),
            any(one.fumble for one in found),
        )

    return gather(word, "total", uniform_rows(judge_combined))


def kept_results(bonus: int) -> dict[int, Fraction]:
    """The chance of each result a percentile roll with ``bonus`` dice keeps."""
    chances: dict[int, Fraction] = defaultdict(Fraction)
    count = abs(bonus) + 1
    for units in range(10):
        values = sorted(ten * 10 + units or 100 for ten in range(10))
        for place, value in enumerate(values, 1):
            if bonus >= 0:  # the lowest of count: P(min >= v_j) - P(min >= v_j+1)
                share = Fraction(11 - place, 10) ** count - Fraction(10 - place, 10) ** count
            else:
                share = Fraction(place, 10) ** count - Fraction(place - 1, 10) ** count
            chances[value] += share / 10
    return chances


def cthulhu7th_odds(word: str) -> Odds | None:
    command = cthulhu7th.parse(word)
    if command is None:
        return None
    if isinstance(command, cthulhu7th.Combined):
        rows = []
        for roll in range(1, 101):
            levels = [cthulhu7th.level(roll, target) for target in command.targets]
            succeeded = sum(one == "クリティカル" or one.endswith("成功") for one in levels)
            rows.append((roll, Fraction(1, 100), succeeded == 2, succeeded == 0, False, False))
        return gather(word, "total", rows)
    if not -cthulhu7th.BONUS_LIMIT <= command.bonus <= cthulhu7th.BONUS_LIMIT:
        raise OddsError("bonus or penalty dice go from -100 to 100")
    if command.target == 0:
        raise OddsError(f"{word} has no value to roll under: write it like CC<=50")
    target = command.target
    if command.difficulty:
        divisor = cthulhu7th.DIFFICULTY[command.difficulty]
        target = target // divisor if divisor else 0
    rows = []
    for roll, chance in kept_results(command.bonus).items():
        found = cthulhu7th.level(roll, target)
        success = found == "クリティカル" or (found.endswith("成功") and roll <= target)
        rows.append(
            (roll, chance, success, not success, found == "クリティカル", found == "ファンブル")
        )
    return gather(word, "total", rows)


def dx_sums(dice: int, critical: int, cap: int) -> list[list[Fraction]]:
    """For 0..dice dice: the chance of each sum of the rounds (index = the sum, the last
    index meaning ``cap`` or more; every check ends, so that is what the others leave).
    Each sum below the cap is its first round's: the highest die when none rolls
    again, else 10 and the sum of the k dice rolled again (worked out before, or, for
    all of them again, 10 lower in this same list)."""
    again = Fraction(11 - critical, 10)
    stays = Fraction(critical - 1, 10)
    sums: list[list[Fraction]] = [[Fraction(0)] * (cap + 1)]
    for count in range(1, dice + 1):
        weights = [comb(count, k) * again**k * stays ** (count - k) for k in range(count + 1)]
        found = [Fraction(0)] * (cap + 1)
        for top in range(1, critical):  # no die rolls again: the highest counts
            found[top] += Fraction(top, 10) ** count - Fraction(top - 1, 10) ** count
        for total in range(10, cap):
            for k in range(1, count + 1):
                source = sums[k] if k < count else found
                found[total] += weights[k] * source[total - 10]
        found[cap] = 1 - sum(found[:cap], Fraction(0))
        sums.append(found)
    return sums


def doublecross_odds(word: str) -> Odds | None:
    check = doublecross.parse(word)
    if check is None:
        return None
    if check.critical <= 1:
        raise OddsError("the critical value must be 2 or more")
    if not 1 <= check.dice <= MAX_DX_DICE:
        raise OddsError(f"odds of DX are worked out for 1 to {MAX_DX_DICE} dice")
    cap = max(DX_CAP, (check.target or 0) - check.modifier + 1)
    sums = dx_sums(check.dice, check.critical, cap)[check.dice]
    fumble = Fraction(1, 10) ** check.dice
    rerolls = 1 - Fraction(check.critical - 1, 10) ** check.dice
    rows: list[Row] = [(0, fumble, False, check.target is not None, False, True)]
    for total, chance in enumerate(sums):
        if total == 1:
            chance -= fumble  # all 1s is the fumble, total 0
        if not chance:
            continue
        value = total + check.modifier
        success = check.target is not None and value >= check.target
        fails = check.target is not None and not success
        rows.append((value, chance, success, fails, False, False))
    found = gather(word, "total", rows, cap + check.modifier)
    return Odds(
        found.command,
        found.measure,
        found.outcomes,
        found.tail,
        found.success if check.target is not None else None,
        found.failure if check.target is not None else None,
        rerolls,
        fumble,
    )


def emoklore_odds(word: str) -> Odds | None:
    check = emoklore.parse(word)
    if check is None:
        return None
    if check.dice <= 0:
        return gather(word, "successes", [(0, Fraction(1), False, True, False, True)])
    if check.dice > 200:
        raise OddsError("a throw rolls at most 200 dice")
    per_die: dict[int, Fraction] = defaultdict(Fraction)
    for face in range(1, 11):
        per_die[emoklore.successes(face, check.target)] += Fraction(1, 10)
    counts = {0: Fraction(1)}
    for _ in range(check.dice):
        step: dict[int, Fraction] = defaultdict(Fraction)
        for have, chance in counts.items():
            for more, share in per_die.items():
                step[have + more] += chance * share
        counts = step
    rows = [
        (count, chance, count > 0, count <= 0, count >= 2, count < 0)
        for count, chance in counts.items()
    ]
    return gather(word, "successes", rows)


ODDS: dict[str, Callable[[str], Odds | None]] = {
    "Cthulhu": cthulhu_odds,
    "Cthulhu7th": cthulhu7th_odds,
    "DoubleCross": doublecross_odds,
    "Emoklore": emoklore_odds,
}


def system_odds(system_id: str, command: str) -> Odds | None:
    """The exact odds of ``command`` as the system rolls it; None when it is none of the
    system's checks (then it may be a common command). Raises ``OddsError`` for a check
    without odds here."""
    found = ODDS.get(system_id)
    if found is None:
        return None
    word = first_word(command).upper()
    secret = word.startswith("S") and found(word) is None
    return found(word[1:] if secret else word)


__all__ = ["STEP", "system_odds"]


SW_CAP = 150  # damage counted one by one at least up to this


def sw_rounds(rate: swordworld2_5.Rate, first: bool) -> list[tuple[Fraction, bool, int]]:
    """The outcomes of one roll of the rate table: chance, a natural 2, the modified roll."""
    if rate.great:
        pairs = [((face, face), Fraction(1, 6)) for face in range(1, 7)]
    else:
        fixed = rate.fixed if rate.fixed is not None else (rate.first_fixed if first else None)
        if fixed is not None:
            pairs = [((face, min(fixed, 6)), Fraction(1, 6)) for face in range(1, 7)]
        else:
            pairs = [((a, b), Fraction(1, 36)) for a in range(1, 7) for b in range(1, 7)]
    return [
        (chance, a + b == 2, swordworld2_5.modified(a + b, rate, first)) for (a, b), chance in pairs
    ]


def sw_value(rate: swordworld2_5.Rate, power: int, total: int) -> int:
    if rate.zero is not None and total <= rate.zero:
        return 0
    return RATES[power][min(max(total, 3), 12) - 3]


def sw_damage(rate: swordworld2_5.Rate, critical: int, cap: int) -> tuple[list[Fraction], Fraction]:
    """The chance of each damage before modifiers (the last index: ``cap`` or more), and
    the chance of a fumble (a first natural 2)."""

    def power(round_number: int) -> int:
        rise = (rate.rise or 0) * round_number
        return min(max(rate.power + rise, 0), MAX_POWER)

    steady = 1
    while steady < 200 and power(steady) != power(steady + 1):
        steady += 1
    later = sw_rounds(rate, first=False)
    extra = rate.extra or 0
    # the rounds from ``steady`` on repeat themselves: solved in increasing damage
    base = [Fraction(0)] * (cap + 1)
    again: list[tuple[Fraction, int]] = []
    loop = Fraction(0)
    for chance, natural, total in later:
        if natural:
            base[0] += chance
        elif total >= critical:
            value = sw_value(rate, power(steady), total) + extra
            if value == 0:
                loop += chance
            else:
                again.append((chance, value))
        else:
            base[min(sw_value(rate, power(steady), total), cap)] += chance
    if loop + sum((chance for chance, _ in again), Fraction(0)) >= 1:
        raise OddsError("every roll of this rate table rolls again: it never ends")
    tail = [Fraction(0)] * (cap + 1)
    for damage in range(cap):
        found = base[damage] + sum(
            (chance * tail[damage - value] for chance, value in again if value <= damage),
            Fraction(0),
        )
        tail[damage] = found / (1 - loop)
    tail[cap] = 1 - sum(tail[:cap], Fraction(0))
    following = tail
    fumble = Fraction(0)
    for round_number in range(steady - 1, -1, -1):
        first = round_number == 0
        made = [Fraction(0)] * (cap + 1)
        for chance, natural, total in sw_rounds(rate, first):
            if natural:
                made[0] += chance
                fumble += chance if first else 0
                continue
            value = sw_value(rate, power(round_number), total)
            if total < critical:
                made[min(value, cap)] += chance
                continue
            for damage, share in enumerate(following):
                made[min(damage + value + extra, cap)] += chance * share
        following = made
    return following, fumble


def swordworld_odds(word: str) -> Odds | None:
    rate = swordworld2_5.parse_rate(word)
    if rate is None:
        return None
    critical = rate.critical if rate.critical is not None else rate.limit
    if critical < swordworld2_5.lowest_critical(rate):
        raise OddsError(f"the critical value of {word} is too low")
    damage, fumble = sw_damage(rate, critical, SW_CAP)
    first = sw_rounds(rate, first=True)
    rerolls = sum(
        (c for c, natural, total in first if not natural and total >= critical), Fraction(0)
    )

    def final(base: int) -> int:
        value = base + rate.inner
        if rate.half == "H":
            value = -(-value // 2)
        elif rate.half == "OH":
            value = -(-value * 3 // 2)
        elif rate.half == "DB":
            value *= 2
        return value + rate.outer

    rows: list[Row] = [(0, fumble, False, False, False, True)]
    for base, chance in enumerate(damage):
        if base == 0:
            chance -= fumble  # a first natural 2 deals nothing: told apart
        if chance:
            rows.append((final(base), chance, False, False, False, False))
    found = gather(word, "total", rows, final(SW_CAP))
    return Odds(found.command, "total", found.outcomes, found.tail, None, None, rerolls, fumble)


ODDS["SwordWorld2.5"] = swordworld_odds
