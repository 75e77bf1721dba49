"""Exact odds of the bundled rule systems' chat commands: ``lore odds --system orm ORM3+4>=12``.

The commands are written in Lore (``orm.lore``, ``ninja.lore``: their ``Command`` values);
here their rules are counted, as ``lore.dice.odds`` counts BCDice's commands. A command
is named by its value (``orm.checkCommand``) and the numbers its pattern read, so the line
is read by the system's own pattern:

- ``orm.checkCommand`` (``ORM3+4>=12``): ``max(n, 1)`` d6 plus the bonus; two or more 6s
  are a critical (+10), every die a 1 a fumble (a failure); with a 目標値 above 0 the
  check succeeds when the total reaches it and it is no fumble.
- ``orm.damageCommand``, ``orm.criticalDamageCommand`` (``ORD8``, ``ORDC8``): 2d6 plus the
  攻撃力, and 10 more after a critical hit.
- ``ninja.checkCommand`` (``NJ7@2``): d10s, each of 8 or more a success, each 10 rolled
  again (and counted); the check succeeds with as many successes as the 難易度, and at
  least one; a 10 is a タツジン！ (critical), no success with a 1 an ウカツ！ (fumble).
- ``ninja.opposedCommand`` (``NJ7VS5``): the active pool's successes against the
  passive's; the active side wins with a margin of 1 or more (a tie is the passive
  side's); its critical and fumble are the active side's.
- ``ninja.extendedCommand`` (``NJE7@5``): pools of 7, 5, 3, 1 dice (at least one roll),
  rolled while the sum of their successes is short of the goal; it succeeds when the sum
  reaches it.

Counts of successes have no upper bound (a 10 rolls again): they are counted up to a cap,
the last outcome meaning "that many or more" (still exact), and an opposed check leaves
undecided the chance that both pools pass the counted range (below 10^-15). The rules'
limits (a chat command rolls at most 10,000 dice, a die explodes for at most 100 rounds)
are not reached by the pools counted here, of at most ``MAX_POOL`` dice (``MAX_EXTENDED``
for an extended check's first pool).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import gcd

from lore.dice.chains import reroll_die
from lore.dice.distribution import Dist, OddsError, dice_sum
from lore.dice.odds import MAX_OPPOSED_CAP, UNDECIDED_BELOW, Odds, Opposed, compare_sides

MAX_POOL = 100  # dice of one check or pool counted
MAX_EXTENDED = 50  # dice of an extended check's first pool (its sums grow with each pool)

Key = tuple[int, bool, bool]  # a total, whether a critical, whether a fumble


def command_odds(label: str, numbers: Sequence[int], command: str) -> Odds | Opposed | None:
    """The exact odds of the bundled system's command ``label`` with the numbers its
    pattern read (``command``: the line, as the odds name it); None for a command whose
    rules are not counted here. Raises ``OddsError`` for a pool too large to count."""
    counted = MODELS.get(label)
    return None if counted is None else counted(list(numbers), command)


# -- ORM


def orm_check(numbers: list[int], command: str) -> Odds:
    """行為判定: the 達成値 of ``max(n, 1)`` d6 plus the bonus, +10 on a critical."""
    count, bonus, target = max(numbers[0], 1), numbers[1], numbers[2]
    check_pool(count)
    every = dice_sum(count, 6).weights  # (sum, ()): the ways of each sum
    no_six = shifted(dice_sum(count, 5).weights, 0)  # the faces 1 to 5
    one_six = shifted(dice_sum(count - 1, 5).weights, 6) if count > 1 else {6: 1}
    weights: dict[Key, int] = {}
    for (total, _), ways in every.items():
        plain = no_six.get(total, 0) + count * one_six.get(total, 0)
        fumble = 1 if total == count else 0  # (every die a 1: the one way to that sum)
        add(weights, (total + bonus, False, False), plain - fumble)
        add(weights, (total + bonus, False, True), fumble)
        add(weights, (total + bonus + 10, True, False), ways - plain)
    dist = Dist(weights, 6**count)
    success = None
    if target > 0:
        success = dist.chance(lambda key: key[0] >= target and not key[2])
    return Odds(
        command,
        "total",
        outcomes(dist),
        None,
        success,
        None if success is None else 1 - success,
        dist.chance(lambda key: key[1]),
        dist.chance(lambda key: key[2]),
    )


def orm_damage(bonus: int) -> Callable[[list[int], str], Odds]:
    """ダメージロール: 2d6 plus the 攻撃力, and ``bonus`` (10 after a critical hit)."""

    def damage(numbers: list[int], command: str) -> Odds:
        dist = Dist(shifted(dice_sum(2, 6).weights, numbers[0] + bonus), 36)
        return Odds(command, "total", tuple(sorted(dist.fractions().items())), None)

    return damage


def shifted(weights: dict[tuple[int, tuple[()]], int], by: int) -> dict[int, int]:
    return {total + by: ways for (total, _), ways in weights.items()}


def add(weights: dict[Key, int], key: Key, ways: int) -> None:
    if ways:
        weights[key] = weights.get(key, 0) + ways


def outcomes(dist: Dist) -> tuple[tuple[int, Fraction], ...]:
    return tuple(sorted(dist.map(lambda key: key[0]).fractions().items()))


# -- ninja


def pool(count: int, cap: int) -> Dist:
    """The 達成数 of ``count`` d10s as ninja's ``poolRoll`` rolls them, up to ``cap``."""
    check_pool(count)
    return more_dice(Dist.point(0), count, cap)


def more_dice(dist: Dist, count: int, cap: int) -> Dist:
    """The 達成数 of ``dist`` and ``count`` more d10s (up to ``cap``): a die of 8 or more
    is a success, a 10 a success rolled again (a chain summed in closed form,
    ``lore.dice.chains``). The dice are added by squaring: capped sums add up the same in
    any order."""
    die = reroll_die(10, lambda face: face >= 8, lambda face: face == 10, cap, ())
    base = die.map(lambda key: key[0])
    result = dist
    while count:
        if count & 1:
            result = reduced(result.combine(base, lambda a, b: min(a + b, cap)))
        count >>= 1
        if count:
            base = reduced(base.combine(base, lambda a, b: min(a + b, cap)))
    return result


def reduced(dist: Dist) -> Dist:
    """The same chances over the smallest common denominator (the weights of a die
    rolled again share large factors, which would grow with every die added)."""
    common = gcd(dist.denominator, *dist.weights.values())
    return Dist(
        {key: weight // common for key, weight in dist.weights.items()}, dist.denominator // common
    )


def tatsujin(count: int) -> Fraction:
    """A 10 among the dice: one among the first faces (a die rolled again followed one)."""
    return 1 - Fraction(9, 10) ** count


def ukatsu(count: int) -> Fraction:
    """No success and a 1: every first face 1 to 7 (no success, no 10 to roll again),
    not every one 2 to 7."""
    return Fraction(7, 10) ** count - Fraction(6, 10) ** count


def pool_cap(count: int, needed: int) -> int:
    return max(count + 2, needed + 1)


def ninja_check(numbers: list[int], command: str) -> Odds:
    """通常判定: the 達成数 of the pool against the 難易度 (at least one success)."""
    count, needed = numbers[0], max(numbers[1], 1)
    cap = pool_cap(count, needed)
    dist = pool(count, cap)
    success = dist.chance(lambda total: total >= needed)
    return counted(command, dist, cap, success, tatsujin(count), ukatsu(count))


def counted(
    command: str,
    dist: Dist,
    cap: int,
    success: Fraction | None,
    critical: Fraction | None = None,
    fumble: Fraction | None = None,
) -> Odds:
    """The odds of counts of successes up to ``cap`` ("that many or more")."""
    failure = None if success is None else 1 - success
    outcomes = tuple(sorted(dist.fractions().items()))
    return Odds(command, "successes", outcomes, cap, success, failure, critical, fumble)


def ninja_opposed(numbers: list[int], command: str) -> Opposed:
    """対抗判定: the active pool against the passive one, counted further until less
    than 10^-15 is left undecided."""
    active, passive = numbers[0], numbers[1]
    cap = pool_cap(max(active, passive), 1)
    while True:
        match = compare_sides(side(active, cap), side(passive, cap))
        if match.undecided < UNDECIDED_BELOW or cap >= MAX_OPPOSED_CAP:
            return match
        cap *= 2


def side(count: int, cap: int) -> Odds:
    """One side of an opposed check: its successes, タツジン！ and ウカツ！."""
    return counted(f"NJ{count}", pool(count, cap), cap, None, tatsujin(count), ukatsu(count))


def ninja_extended(numbers: list[int], command: str) -> Odds:
    """継続判定: the sum of the pools' successes when the rolls stop, against the goal."""
    size, goal = numbers[0], numbers[1]
    check_pool(size, MAX_EXTENDED)
    cap = max(goal, 0) + max(size, 1) + 2  # (a sum decided below it is exact)
    sizes = [size - 2 * stage for stage in range(max((size + 1) // 2, 1))]
    pools = [pool(sizes[-1], cap)]  # the smallest first, then two dice more each
    for _ in sizes[1:]:
        pools.append(more_dice(pools[-1], 2, cap))
    sums = Dist.point(0)
    for stage, rolled in enumerate(reversed(pools)):
        going = {total: w for total, w in sums.weights.items() if stage == 0 or total < goal}
        weights = {
            total: w * rolled.denominator for total, w in sums.weights.items() if total not in going
        }
        for total, w in (
            Dist(going, 1).combine(rolled, lambda a, b: min(a + b, cap)).weights.items()
        ):
            weights[total] = weights.get(total, 0) + w
        sums = reduced(Dist(weights, sums.denominator * rolled.denominator))
    return counted(command, sums, cap, sums.chance(lambda total: total >= goal))


def check_pool(count: int, most: int = MAX_POOL) -> None:
    if count > most:
        raise OddsError(
            f"the odds of this command are counted for at most {most} dice, not {count}"
        )


MODELS: dict[str, Callable[[list[int], str], Odds | Opposed]] = {
    "orm.checkCommand": orm_check,
    "orm.damageCommand": orm_damage(0),
    "orm.criticalDamageCommand": orm_damage(10),
    "ninja.checkCommand": ninja_check,
    "ninja.opposedCommand": ninja_opposed,
    "ninja.extendedCommand": ninja_extended,
}
