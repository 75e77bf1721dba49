"""Exact odds of dice commands: ``odds("2D6+3>=10")``, ``odds("7R10[10]>=8")``,
``odds("3D6", critical="[6]>=2", fumble="[1]=all")``, ``opposed("2D6+4", "2D6+3")``.

Every probability is a ``Fraction``, worked out by counting (no sampling): sums by
convolution, kept dice (``4D6KH3``) by a walk over the sorted faces, dice that roll
again (``R``, ``U``) as Markov chains summed in closed form. The outcome of a command is
its total (sums, ``U`` without a target, ``D66``, ``C``) or its count of successes
(``B``, ``R``, ``U`` with a target). Outcomes without an upper bound are counted up to a
cap, the last outcome then meaning "that many or more" (still exact).

Criticals and fumbles are face conditions (``lore.dice.conditions``) on the dice rolled
(for ``R`` and ``U``, on the first face of each die), worked out jointly with the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

from lore.dice import add_dice, pools, reroll, small
from lore.dice.add_dice import AddDice, Node, Roll
from lore.dice.chains import reroll_die, upper_die
from lore.dice.conditions import Condition, parse_condition
from lore.dice.distribution import Dist, OddsError, dice_sum, keep_sum_pool
from lore.dice.lexer import compare, first_word
from lore.dice.source import MAX_SIDES, MAX_TIMES

Key = tuple[int, tuple[int, ...]]  # (the outcome, dice showing each condition's faces)


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact odds of one command."""

    command: str
    measure: str  # "total" or "successes"
    outcomes: tuple[tuple[int, Fraction], ...]  # increasing; each with its chance
    tail: int | None  # when set, the last outcome is "tail or more"
    success: Fraction | None = None  # a sum with a target meets it
    failure: Fraction | None = None
    critical: Fraction | None = None
    fumble: Fraction | None = None

    def at_least(self, count: int) -> Fraction:
        """The chance of an outcome of ``count`` or more."""
        if self.tail is not None and count > self.tail:
            raise OddsError(f"the odds were counted up to {self.tail} only")
        return sum((chance for value, chance in self.outcomes if value >= count), Fraction(0))

    def exactly(self, count: int) -> Fraction:
        if self.tail is not None and count >= self.tail:
            raise OddsError(f"the odds were counted up to {self.tail} only")
        return dict(self.outcomes).get(count, Fraction(0))

    def mean(self) -> Fraction | None:
        """The average outcome (None when the outcomes have no upper bound)."""
        if self.tail is not None:
            return None
        return sum((value * chance for value, chance in self.outcomes), Fraction(0))


@dataclass(frozen=True, slots=True)
class Opposed:
    """Two commands against each other: how often the active side's outcome is higher,
    equal, lower. ``undecided`` is the chance that both reached their cap (then which is
    higher was not counted); it is 0 unless both can roll again without bound."""

    active: Odds
    passive: Odds
    higher: Fraction
    equal: Fraction
    lower: Fraction
    undecided: Fraction
    margins: tuple[tuple[int, Fraction], ...]  # active minus passive (when all decided)


def odds(
    command: str,
    *,
    critical: str | Condition | None = None,
    fumble: str | Condition | None = None,
    cap: int | None = None,
) -> Odds:
    """The exact odds of ``command``; ``cap`` bounds outcomes that have none (at least
    that many are counted one by one). Raises ``OddsError`` for text that is not a
    command, a command with no odds (``choice``, tallies, repeats), or one with too many
    outcomes to count."""
    conditions = tuple(
        parse_condition(found) if isinstance(found, str) else found
        for found in (critical, fumble)
        if found is not None
    )
    face_sets = tuple(condition.faces for condition in conditions)
    try:
        dist, dice, measure, tail, test = outline(command, face_sets, cap)
    except OverflowError as error:
        raise OddsError("the command's numbers are too large to count with") from error
    outcomes = dist.map(lambda key: key[0]).fractions()
    chances = [
        dist.chance(partial(holds, condition, index, dice))
        for index, condition in enumerate(conditions)
    ]
    critical_chance = chances.pop(0) if critical is not None else None
    fumble_chance = chances.pop(0) if fumble is not None else None
    success = None if test is None else dist.chance(lambda key: test(key[0]))
    return Odds(
        first_word(command),
        measure,
        tuple(sorted(outcomes.items())),
        tail,
        success,
        None if success is None else 1 - success,
        critical_chance,
        fumble_chance,
    )


Outline = tuple[Dist, int, str, int | None, Callable[[int], bool] | None]


def outline(command: str, face_sets: tuple[frozenset[int], ...], cap: int | None) -> Outline:
    """The joint outcomes of a command, its number of dice, what its outcome measures,
    its cap (if it has one) and its success test (if it has one)."""
    parsed_sum = add_dice.parse(command)
    if parsed_sum is not None:
        return sum_outline(parsed_sum, face_sets)
    barabara = pools.parse_barabara(command)
    if barabara is not None:
        return barabara_outline(barabara, face_sets)
    rerolls = reroll.parse_reroll(command)
    if rerolls is not None:
        return reroll_outline(rerolls, face_sets, cap)
    upper = reroll.parse_upper(command)
    if upper is not None:
        return upper_outline(upper, face_sets, cap)
    d66 = small.parse_d66(command)
    if d66 is not None:
        pairs = [[a, b] for a in range(1, 7) for b in range(1, 7)]
        if d66.suffix in ("A", "S", "D"):
            pairs = [sorted(pair, reverse=d66.suffix == "D") for pair in pairs]
        values = pairs
        dist = Dist.uniform((v[0] * 10 + v[1], counts(v, face_sets)) for v in values)
        return dist, 2, "total", None, None
    calc = small.parse_calc(command)
    if calc is not None:
        try:
            return Dist.point((calc.expr.eval(), (0,) * len(face_sets))), 0, "total", None, None
        except ZeroDivisionError as error:
            raise OddsError("the calculation divides by zero") from error
    if pools.parse_tally(command) or small.parse_choice(command):
        raise OddsError("odds are worked out for sums and pools of dice, not choices or tallies")
    raise OddsError(f"{first_word(command)!r} is not a dice command")


def holds(condition: Condition, index: int, dice: int, key: Key) -> bool:
    return condition.holds(key[1][index], dice)


def counts(faces: list[int], face_sets: tuple[frozenset[int], ...]) -> tuple[int, ...]:
    return tuple(sum(face in found for face in faces) for found in face_sets)


def add_counts(left: tuple[int, ...], right: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(a + b for a, b in zip(left, right, strict=True))


# -- sums


def sum_outline(command: AddDice, face_sets: tuple[frozenset[int], ...]) -> Outline:
    dist, dice = node_dist(command.left, face_sets)
    test = None
    if command.op is not None and not isinstance(command.target, str):
        assert command.target is not None
        target, op = add_dice.value(command.target), command.op
        test = lambda total: compare(total, op, target)  # noqa: E731
    return dist, dice, "total", None, test


def node_dist(node: Node, face_sets: tuple[frozenset[int], ...]) -> tuple[Dist, int]:
    """The joint outcomes (value, face counts) of a part of a sum, and its dice."""
    none = (0,) * len(face_sets)
    if isinstance(node, add_dice.Num):
        return Dist.point((node.value, none)), 0
    if isinstance(node, add_dice.Paren):
        return node_dist(node.body, face_sets)
    if isinstance(node, add_dice.Neg):
        body, dice = node_dist(node.body, face_sets)
        return body.map(lambda key: (-key[0], key[1])), dice
    if isinstance(node, Roll):
        return roll_dist(node, face_sets)
    left, left_dice = node_dist(node.left, face_sets)
    right, right_dice = node_dist(node.right, face_sets)
    operate = add_dice.operation(node)
    joined = left.combine(right, lambda a, b: (operate(a[0], b[0]), add_counts(a[1], b[1])))
    return joined, left_dice + right_dice


def roll_dist(node: Roll, face_sets: tuple[frozenset[int], ...]) -> tuple[Dist, int]:
    times, sides = add_dice.value(node.times), add_dice.sides_of(node)
    none = (0,) * len(face_sets)
    if times <= 0 or (sides != 66 and times > MAX_TIMES):
        return Dist.point((0, none)), 0
    if sides != 66 and not 0 < sides <= MAX_SIDES:
        return Dist.point((0, counts([0] * times, face_sets))), times
    if node.filter is not None:
        assert node.count is not None
        return kept_dist(times, sides, node.filter, add_dice.value(node.count), face_sets), times
    if sides != 66 and not face_sets:
        return dice_sum(times, sides), times
    faces = [a * 10 + b for a in range(1, 7) for b in range(1, 7)] if sides == 66 else None
    die = Dist.uniform((face, counts([face], face_sets)) for face in faces or range(1, sides + 1))
    fold = lambda a, b: (a[0] + b[0], add_counts(a[1], b[1]))  # noqa: E731
    return die.repeat(times, fold, (0, none)), times


def kept_dist(
    times: int, sides: int, name: str, count: int, face_sets: tuple[frozenset[int], ...]
) -> Dist:
    if sides == 66:
        raise OddsError("odds of kept d66 dice are not worked out")
    count = min(max(count, 0), times)
    keep = {
        "KH": (times - count, times),
        "KL": (0, count),
        "DH": (0, times - count),
        "DL": (count, times),
    }[name]
    return keep_sum_pool(times, sides, keep, face_sets)


# -- pools


def pool_sizes(pairs: tuple[tuple[object, object], ...]) -> list[tuple[int, int]]:
    sizes = []
    for times, sides in pairs:
        sizes.append((times.eval(), sides.eval()))  # type: ignore[attr-defined]
    return sizes


def barabara_outline(command: pools.Barabara, face_sets: tuple[frozenset[int], ...]) -> Outline:
    if command.op is None or command.target is None:
        raise OddsError("give the pool a target (5B6>=4) to count its successes")
    op, target = command.op, command.target.eval()
    total = Dist.point((0, (0,) * len(face_sets)))
    dice = 0
    for times, sides in pool_sizes(command.pools):
        if not 0 < times <= MAX_TIMES:
            continue
        check_sides(sides)
        die = Dist.uniform(
            (int(compare(face, op, target)), counts([face], face_sets))
            for face in range(1, sides + 1)
        )
        total = total.combine(
            die.repeat(times, fold_counts(None), start(face_sets)), fold_counts(None)
        )
        dice += times
    return total, dice, "successes", None, None


def check_sides(sides: int) -> None:
    if not 0 < sides <= MAX_SIDES:
        raise OddsError(f"dice of {sides} sides roll nothing")


def start(face_sets: tuple[frozenset[int], ...]) -> Key:
    return (0, (0,) * len(face_sets))


def fold_counts(cap: int | None) -> Callable[[Key, Key], Key]:
    """Add two outcomes (capped) and their face counts."""

    def fold(a: Key, b: Key) -> Key:
        value = a[0] + b[0]
        return (value if cap is None else min(value, cap), add_counts(a[1], b[1]))

    return fold


def reroll_outline(
    command: reroll.Reroll, face_sets: tuple[frozenset[int], ...], cap: int | None
) -> Outline:
    sizes = pool_sizes(command.pools)
    op = command.op
    target = command.target.eval() if command.target is not None else None
    again_op = command.reroll_op or op or ">="
    threshold = command.threshold.eval() if command.threshold is not None else target
    if threshold is None or not all(reroll.can_end(again_op, threshold, s) for _, s in sizes):
        raise OddsError("the reroll condition is missing or would roll for ever")
    dice = sum(times for times, _ in sizes if 0 < times <= MAX_TIMES)
    limit = max(cap or 0, dice + 2)

    def succeeds(face: int) -> bool:
        return op is not None and target is not None and compare(face, op, target)

    def again(face: int) -> bool:
        return compare(face, again_op, threshold)

    total = Dist.point(start(face_sets))
    for times, sides in sizes:
        if not 0 < times <= MAX_TIMES:
            continue
        check_sides(sides)
        die = reroll_die(sides, succeeds, again, limit, face_sets)
        total = total.combine(
            die.repeat(times, fold_counts(limit), start(face_sets)), fold_counts(limit)
        )
    return total, dice, "successes", limit, None


def upper_outline(
    command: reroll.Upper, face_sets: tuple[frozenset[int], ...], cap: int | None
) -> Outline:
    sizes = pool_sizes(command.pools)
    if any(times < 0 for times, _ in sizes):
        raise OddsError("a negative number of dice")
    threshold = command.threshold.eval() if command.threshold is not None else 0
    modifier = command.modifier.eval()
    dice = sum(times for times, _ in sizes)
    if command.op is not None and command.target is not None:
        op, target = command.op, command.target.eval()
        total = Dist.point(start(face_sets))
        for times, sides in sizes:
            check_sides(sides)
            die = upper_die(sides, threshold, max(target - modifier + 1, 1), face_sets)
            hits = die.map(lambda key: (int(compare(key[0] + modifier, op, target)), key[1]))
            total = total.combine(
                hits.repeat(times, fold_counts(None), start(face_sets)), fold_counts(None)
            )
        return total, dice, "successes", None, None
    limit = max(cap or 0, sum(times * sides for times, sides in sizes) + max(s for _, s in sizes))
    total = Dist.point(start(face_sets))
    for times, sides in sizes:
        check_sides(sides)
        die = upper_die(sides, threshold, limit, face_sets)
        total = total.combine(
            die.repeat(times, fold_counts(limit), start(face_sets)), fold_counts(limit)
        )
    shifted = total.map(lambda key: (key[0] + modifier, key[1]))
    return shifted, dice, "total", limit + modifier, None


# -- opposed


UNDECIDED_BELOW = Fraction(1, 10**15)
MAX_OPPOSED_CAP = 1000


def opposed(active: str, passive: str, *, cap: int | None = None) -> Opposed:
    """The odds of ``active`` against ``passive``: each side's outcome (total or
    successes) compared. Which side wins a tie is the rule's to say. Outcomes without an
    upper bound are counted further until less than 10^-15 is left undecided."""
    first, second = odds(active, cap=cap), odds(passive, cap=cap)
    while True:
        match = compare_sides(first, second)
        if match.undecided < UNDECIDED_BELOW or (first.tail or 0) >= MAX_OPPOSED_CAP:
            return match
        top = 2 * max(value for value, _ in first.outcomes + second.outcomes) + 2
        first, second = odds(active, cap=top), odds(passive, cap=top)


def compare_sides(first: Odds, second: Odds) -> Opposed:
    higher = equal = lower = undecided = Fraction(0)
    margins: dict[int, Fraction] = {}
    for a, a_chance in first.outcomes:
        a_open = first.tail is not None and a >= first.tail
        for b, b_chance in second.outcomes:
            b_open = second.tail is not None and b >= second.tail
            chance = a_chance * b_chance
            if (a_open and b_open) or (a_open and b > a) or (b_open and a > b):
                undecided += chance
                continue
            if a_open or b_open:
                higher, lower = (higher + chance, lower) if a_open else (higher, lower + chance)
                continue
            margins[a - b] = margins.get(a - b, Fraction(0)) + chance
            if a > b:
                higher += chance
            elif a == b:
                equal += chance
            else:
                lower += chance
    shown = tuple(sorted(margins.items())) if not undecided else ()
    return Opposed(first, second, higher, equal, lower, undecided, shown)
