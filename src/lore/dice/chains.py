"""Exact odds of dice that roll again, whose outcomes have no upper bound.

- A reroll die (``R``): each face meeting the reroll condition brings one more die, and
  every face meeting the target is a success. Past the first roll this is a Markov
  chain on the count of successes; a reroll without a success only delays it, so its
  geometric series is summed in closed form.
- An upper die (``U``): a face of the threshold or more adds one more die to the sum.

Both are counted up to a cap: the outcome ``cap`` stands for "``cap`` or more". The first
face of each die is kept apart, because criticals and fumbles look at it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction

from lore.dice.distribution import Dist, OddsError

Key = tuple[int, tuple[int, ...]]
MAX_WORK = 2_000_000  # steps of chains one die may take to count (bounds slow questions)


def check_work(work: int) -> None:
    if work > MAX_WORK:
        raise OddsError("the outcomes of these dice are too many to count exactly up to there")


def first_faces(
    sides: int, face_sets: tuple[frozenset[int], ...]
) -> list[tuple[int, tuple[int, ...]]]:
    return [
        (face, tuple(int(face in faces) for faces in face_sets)) for face in range(1, sides + 1)
    ]


def reroll_die(
    sides: int,
    succeeds: Callable[[int], bool],
    again: Callable[[int], bool],
    cap: int,
    face_sets: tuple[frozenset[int], ...],
) -> Dist:
    """One die of a reroll pool: (successes up to ``cap``, counts of its first face)."""
    check_work(cap * sides)
    chance = Fraction(1, sides)
    kinds = [(again(face), succeeds(face)) for face in range(1, sides + 1)]
    stay = sum((chance for rerolls, hit in kinds if rerolls and not hit), Fraction(0))
    if stay >= 1:
        raise OddsError("the reroll condition never lets a die stop")
    keep_on = sum((chance for rerolls, hit in kinds if rerolls and hit), Fraction(0)) / (1 - stay)
    stop_hit = sum((chance for rerolls, hit in kinds if not rerolls and hit), Fraction(0))
    stop_miss = sum((chance for rerolls, hit in kinds if not (rerolls or hit)), Fraction(0))
    stop_hit, stop_miss = stop_hit / (1 - stay), stop_miss / (1 - stay)

    def from_rolling(successes: int) -> dict[int, Fraction]:
        """Where a die still rolling with ``successes`` ends (capped)."""
        ends: dict[int, Fraction] = defaultdict(Fraction)
        mass = Fraction(1)
        while successes < cap and mass:
            ends[successes] += mass * stop_miss
            ends[min(successes + 1, cap)] += mass * stop_hit
            mass *= keep_on
            successes += 1
        ends[cap] += mass
        return ends

    chances: dict[Key, Fraction] = defaultdict(Fraction)
    for face, counts in first_faces(sides, face_sets):
        successes = min(int(succeeds(face)), cap)
        if again(face):
            for end, part in from_rolling(successes).items():
                chances[(end, counts)] += chance * part
        else:
            chances[(successes, counts)] += chance
    return Dist.from_fractions(chances)


def upper_die(sides: int, threshold: int, cap: int, face_sets: tuple[frozenset[int], ...]) -> Dist:
    """One die of an upper roll: (its sum up to ``cap``, counts of its first face)."""
    if threshold <= 1:
        raise OddsError("an upper roll needs a threshold of 2 or more")
    steps = cap // threshold + 1
    check_work(steps * steps * sides * max(sides - threshold + 1, 1))
    chance = Fraction(1, sides)
    chances: dict[Key, Fraction] = defaultdict(Fraction)
    for face, counts in first_faces(sides, face_sets):
        rolling: dict[int, Fraction] = {face: chance}
        done = face < threshold
        while rolling:
            grown: dict[int, Fraction] = defaultdict(Fraction)
            for total, mass in rolling.items():
                if total >= cap or done:
                    chances[(min(total, cap), counts)] += mass
                    continue
                for more in range(1, sides + 1):
                    if more >= threshold and total + more < cap:
                        grown[total + more] += mass * chance
                    else:
                        chances[(min(total + more, cap), counts)] += mass * chance
            rolling, done = grown, False
    return Dist.from_fractions(chances)
