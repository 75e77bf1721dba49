"""Exact probability distributions of dice outcomes, by counting.

A ``Dist`` maps outcomes (any hashable key) to whole-number weights over one common
denominator, so adding and multiplying probabilities is integer arithmetic; ``Fraction``
only appears in what is handed out. Outcomes that could go on for ever (dice that roll
again) are made finite by a cap: the outcome ``cap`` then stands for "``cap`` or more",
which is exact as a bucket.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction
from math import comb, lcm
from typing import Any

MAX_OUTCOMES = 1_000_000
MAX_PAIRS = 1_000_000  # pairs of outcomes one combination may walk


class OddsError(Exception):
    """The odds of a command cannot be worked out (not a command, not a kind of command
    that has odds, or too many outcomes to count exactly)."""


class Dist:
    """Outcomes with whole-number weights over a common denominator."""

    __slots__ = ("denominator", "weights")

    def __init__(self, weights: Mapping[Any, int], denominator: int) -> None:
        if len(weights) > MAX_OUTCOMES:
            raise OddsError(f"more than {MAX_OUTCOMES:,} outcomes to count: too many")
        self.weights = {key: weight for key, weight in weights.items() if weight}
        self.denominator = denominator

    @classmethod
    def point(cls, key: Hashable) -> Dist:
        return cls({key: 1}, 1)

    @classmethod
    def uniform(cls, keys: Iterable[Hashable]) -> Dist:
        weights: dict[Any, int] = defaultdict(int)
        count = 0
        for key in keys:
            weights[key] += 1
            count += 1
        return cls(weights, count)

    @classmethod
    def from_fractions(cls, chances: Mapping[Any, Fraction]) -> Dist:
        denominator = lcm(*(chance.denominator for chance in chances.values()))
        return cls({key: int(chance * denominator) for key, chance in chances.items()}, denominator)

    def map(self, fn: Callable[[Any], Hashable]) -> Dist:
        weights: dict[Any, int] = defaultdict(int)
        for key, weight in self.weights.items():
            weights[fn(key)] += weight
        return Dist(weights, self.denominator)

    def combine(self, other: Dist, fn: Callable[[Any, Any], Hashable]) -> Dist:
        """The outcomes ``fn(a, b)`` of this and ``other`` rolled independently."""
        if len(self.weights) * len(other.weights) > MAX_PAIRS:
            raise OddsError("too many combinations of outcomes to count")
        weights: dict[Any, int] = defaultdict(int)
        for key, weight in self.weights.items():
            for other_key, other_weight in other.weights.items():
                weights[fn(key, other_key)] += weight * other_weight
        return Dist(weights, self.denominator * other.denominator)

    def repeat(self, times: int, fn: Callable[[Any, Any], Hashable], start: Hashable) -> Dist:
        """``times`` independent copies folded with ``fn`` from ``start``."""
        result = Dist.point(start)
        for _ in range(times):
            result = result.combine(self, fn)
        return result

    def chance(self, test: Callable[[Any], bool]) -> Fraction:
        hits = sum(weight for key, weight in self.weights.items() if test(key))
        return Fraction(hits, self.denominator)

    def fractions(self) -> dict[Any, Fraction]:
        return {key: Fraction(weight, self.denominator) for key, weight in self.weights.items()}


def dice_sum(times: int, sides: int) -> Dist:
    """The totals of ``times`` dice of ``sides`` sides (keys ``(total, ())``): each die
    adds a sliding window of the counts so far, so 200D6 is a few thousand additions."""
    if times * (sides - 1) + 1 > MAX_OUTCOMES:
        raise OddsError(f"more than {MAX_OUTCOMES:,} totals to count: too many")
    ways = [1]
    for _ in range(times):
        running = [0]
        for count in ways:
            running.append(running[-1] + count)
        size = len(ways)
        ways = [
            running[min(index + 1, size)] - running[max(index + 1 - sides, 0)]
            for index in range(size + sides - 1)
        ]
    return Dist({(times + index, ()): count for index, count in enumerate(ways)}, sides**times)


def keep_sum_pool(
    times: int, sides: int, keep: tuple[int, int], face_sets: tuple[frozenset[int], ...]
) -> Dist:
    """``times`` dice of ``sides`` sides: the sum of the dice at places ``keep[0]`` to
    ``keep[1] - 1`` of the faces sorted upwards, and how many dice show a face of each
    set. Counted face by face over the sorted dice (a multiset walk), not die by die, so
    ``10D10KH3`` costs little."""
    low, high = keep
    states: dict[tuple[int, int, tuple[int, ...]], int] = {(0, 0, (0,) * len(face_sets)): 1}
    for face in range(1, sides + 1):
        grown: dict[tuple[int, int, tuple[int, ...]], int] = defaultdict(int)
        last = face == sides
        in_sets = [face in faces for faces in face_sets]
        for (placed, total, counts), weight in states.items():
            free = times - placed
            for count in (free,) if last else range(free + 1):
                kept = max(0, min(placed + count, high) - max(placed, low))
                new_counts = tuple(
                    c + count if inside else c for c, inside in zip(counts, in_sets, strict=True)
                )
                key = (placed + count, total + face * kept, new_counts)
                grown[key] += weight * comb(free, count)
        if len(grown) > MAX_OUTCOMES:
            raise OddsError(f"more than {MAX_OUTCOMES:,} outcomes to count: too many")
        states = grown
    return Dist(
        {(total, counts): weight for (_, total, counts), weight in states.items()},
        sides**times,
    )
