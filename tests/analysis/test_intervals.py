"""The Wilson interval and the two-proportion z test against published values."""

from __future__ import annotations

import pytest

from lore.analysis.intervals import two_proportions, wilson


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # Newcombe (1998), table I, method 3 (the score interval without correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (29, 29, 0.8830, 1.0),
        # The "won 26%" of 50 runs: 16% to 40%.
        (13, 50, 0.1587, 0.3955),
        (5, 10, 0.2366, 0.7634),
    ],
)
def test_wilson_matches_published_intervals(k: int, n: int, low: float, high: float) -> None:
    found = wilson(k, n)
    assert found.rate == k / n
    assert found.low == pytest.approx(low, abs=5e-5)
    assert found.high == pytest.approx(high, abs=5e-5)


def test_wilson_bounds_are_exact_at_the_ends_and_without_trials() -> None:
    assert wilson(0, 7).low == 0.0
    assert wilson(7, 7).high == 1.0
    none = wilson(0, 0)
    assert (none.rate, none.low, none.high) == (0.0, 0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_wilson_narrows_with_more_trials() -> None:
    widths = [wilson(n // 4, n).half_width for n in (40, 400, 4000)]
    assert widths[0] > widths[1] > widths[2]
    assert wilson(250, 1000).half_width == pytest.approx(0.0268, abs=1e-4)


def test_two_proportions() -> None:
    # 60 of 100 against 45 of 100 (pooled): z = 0.15 / sqrt(0.525 * 0.475 * 0.02) = 2.1240,
    # p = 0.0337.
    found = two_proportions(45, 100, 60, 100)
    assert found.difference == pytest.approx(0.15)
    assert found.z == pytest.approx(2.1240, abs=1e-4)
    assert found.p_value == pytest.approx(0.0337, abs=1e-4)
    same = two_proportions(0, 10, 0, 20)
    assert (same.z, same.p_value) == (0.0, 1.0)
