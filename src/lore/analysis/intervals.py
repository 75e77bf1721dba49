"""Intervals and tests for the rates a simulation measures.

A rate of ``k`` sessions in ``n`` is an estimate: the Wilson score interval says how far
the true rate may be from it (95% by default). Unlike the plain "rate ± 1.96 standard
errors", it stays inside 0..1 and is right for small counts and rates near 0 or 1 (0 of
10 sessions gives 0%-27.8%, not 0%-0%). Two rates of two simulations are compared by the
two-proportion z test (pooled).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # the standard normal's 97.5% point


@dataclass(frozen=True, slots=True)
class Interval:
    """A rate and its interval: ``low <= rate <= high``, all in 0..1."""

    rate: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def to_json(self) -> dict[str, float]:
        return {"rate": self.rate, "low": self.low, "high": self.high}


def wilson(successes: int, trials: int, z: float = Z95) -> Interval:
    """The Wilson score interval of ``successes`` in ``trials`` (no trials: 0..1)."""
    if trials <= 0:
        return Interval(0.0, 0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes in {trials} trials")
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # (At 0 and at n the bound is exact: rounding must not leave it a hair off.)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(p, low, high)


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two rates compared: their difference (second minus first), the z statistic and
    the two-sided p-value of the pooled two-proportion z test."""

    first: Interval
    second: Interval
    difference: float
    z: float
    p_value: float

    def to_json(self) -> dict[str, object]:
        return {
            "a": self.first.to_json(),
            "b": self.second.to_json(),
            "difference": self.difference,
            "z": self.z,
            "p": self.p_value,
        }


def two_proportions(k1: int, n1: int, k2: int, n2: int) -> Comparison:
    """The pooled two-proportion z test of ``k1`` in ``n1`` against ``k2`` in ``n2``."""
    first, second = wilson(k1, n1), wilson(k2, n2)
    difference = second.rate - first.rate
    if n1 <= 0 or n2 <= 0:
        return Comparison(first, second, difference, 0.0, 1.0)
    pooled = (k1 + k2) / (n1 + n2)
    error = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if error == 0:  # both 0% or both 100%: no difference to see
        return Comparison(first, second, difference, 0.0, 1.0)
    z = difference / error
    return Comparison(first, second, difference, z, math.erfc(abs(z) / math.sqrt(2)))
