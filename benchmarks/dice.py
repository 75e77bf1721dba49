"""Dice benchmark: BCDice commands rolled beside the d20 library, and exact odds beside
icepool.

Run from the project root::

    .venv/bin/python benchmarks/dice.py [--rolls N] [--repeat R] [--seed S] [--json]

In the same run:

- rolls: ``lore.dice.evaluate`` rolls a mix of commands N times in all (from a seeded
  ``random.Random``), beside ``d20.roll`` rolling the closest d20 expression of each
  (d20 has no BCDice results: no success counts, no rounding letters, so its expressions
  are a little simpler). Lore is measured twice: as sessions use it (recent commands'
  parses are kept) and parsing every command anew. Rolls/s are the best of R runs.
- odds: ``lore.dice.odds`` answers a set of questions exactly (a check with a target,
  kept dice, a pool, 10s that roll again, upper dice, criticals and fumbles, an opposed
  check), beside icepool answering the same ones; both answers must be equal. Times are
  the best of R runs (icepool keeps caches between runs, which helps it). Each round
  runs Lore and its baseline one after the other, so a busy machine slows both alike.

It prints each figure with its baseline and the ratio, and PASS when Lore is not slower
(FAIL otherwise), or the figures as JSON. Exit status 0 (it is a report); 1 when an
answer differs from icepool's.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import d20
import icepool

from lore.dice import PythonSource, evaluate
from lore.dice.commands import plan
from lore.dice.odds import odds, opposed

# BCDice command -> the closest d20 expression
MIX = [
    ("2D6+3>=10", "2d6+3"),
    ("1D20+5", "1d20+5"),
    ("4D6KH3", "4d6kh3"),
    ("(2D6+1D4)*2", "(2d6+1d4)*2"),
    ("10D10KL3", "10d10kl3"),
    ("5B6>=4", "5d6"),
    ("3R6[6]>=5", "3d6e6"),
    ("3D6/2", "3d6/2"),
]


def roll_rates(rolls: int, repeat: int, seed: int) -> dict[str, float]:
    rounds = max(1, rolls // len(MIX))
    commands = [command for command, _ in MIX] * rounds
    expressions = [expression for _, expression in MIX] * rounds

    def lore() -> None:
        source = PythonSource(random.Random(seed))
        for command in commands:
            evaluate(command, source)

    def lore_parsing() -> None:
        source = PythonSource(random.Random(seed))
        for command in commands:
            plan.cache_clear()
            evaluate(command, source)

    def d20_rolls() -> None:
        random.seed(seed)
        for expression in expressions:
            d20.roll(expression)

    count = len(commands)
    lore_s, parsing_s, d20_s = best_of_each(repeat, [lore, lore_parsing, d20_rolls])
    return {
        "lore_rolls_per_s": count / lore_s,
        "lore_parsing_each_rolls_per_s": count / parsing_s,
        "d20_rolls_per_s": count / d20_s,
    }


def reroll_die() -> Any:
    """A d10 whose 10 counts one success and rolls again, 8 and 9 one success."""
    die = icepool.d10.map(lambda face: 1000 if face == 10 else int(face >= 8))
    return die.explode([1000], depth=12)


def lore_questions() -> list[Fraction]:
    check = odds("2D6+3>=10")
    kept = odds("4D6KH3")
    pool = odds("5B10>=8")
    exploding = odds("7R10[10]>=8", cap=3)
    upper = odds("4U6[6]>=10")
    seed003 = odds("3D6", critical="[6]>=2", fumble="[1]=all")
    match = opposed("2D6+4", "2D6+3")
    assert check.success is not None
    assert seed003.critical is not None and seed003.fumble is not None
    return [
        check.success,
        kept.exactly(18),
        pool.at_least(2),
        exploding.at_least(3),
        upper.at_least(1),
        seed003.critical,
        seed003.fumble,
        match.higher,
    ]


def icepool_questions() -> list[Fraction]:
    d6, d10 = icepool.d6, icepool.d10
    pool = 7 @ reroll_die()
    chain = d6.explode([6], depth=8)
    return [
        (2 @ d6 + 3).probability(">=", 10),
        d6.highest(4, 3).probability(18),
        (5 @ d10.map(lambda face: int(face >= 8))).probability(">=", 2),
        pool.map(lambda total: total // 1000 + total % 1000).probability(">=", 3),
        (4 @ chain.map(lambda total: int(total >= 10))).probability(">=", 1),
        (3 @ d6.map(lambda face: int(face == 6))).probability(">=", 2),
        (3 @ d6.map(lambda face: int(face == 1))).probability(3),
        ((2 @ d6 + 4) > (2 @ d6 + 3)).probability(True),
    ]


def best_of_each(repeat: int, runs: list[Callable[[], object]]) -> list[float]:
    """The best time of each run over ``repeat`` rounds; each round runs them all, one
    after the other, so that a busy machine slows them alike."""
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            best[index] = min(best[index], time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rolls", type=int, default=40_000, help="rolls of the mix in all")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each (the best counts)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    rates = roll_rates(args.rolls, args.repeat, args.seed)
    lore_answers, icepool_answers = lore_questions(), icepool_questions()
    same = lore_answers == icepool_answers
    lore_s, icepool_s = best_of_each(args.repeat, [lore_questions, icepool_questions])
    figures: dict[str, Any] = {
        **rates,
        "roll_ratio": rates["lore_rolls_per_s"] / rates["d20_rolls_per_s"],
        "roll_ratio_parsing_each": rates["lore_parsing_each_rolls_per_s"]
        / rates["d20_rolls_per_s"],
        "lore_odds_s": lore_s,
        "icepool_odds_s": icepool_s,
        "odds_ratio": icepool_s / lore_s,
        "same_answers": same,
    }
    figures["passed"] = same and figures["roll_ratio"] >= 1 and figures["odds_ratio"] >= 1
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"rolls ({len(MIX)} commands, {args.rolls:,} rolls, best of {args.repeat}):")
        print(f"  lore.dice             {rates['lore_rolls_per_s']:>12,.0f} rolls/s")
        print(f"  lore.dice, new parses {rates['lore_parsing_each_rolls_per_s']:>12,.0f} rolls/s")
        print(f"  d20 (baseline)        {rates['d20_rolls_per_s']:>12,.0f} rolls/s")
        print(
            f"  ratio                 {figures['roll_ratio']:>12.2f}x "
            f"({figures['roll_ratio_parsing_each']:.2f}x parsing each)"
        )
        print(f"odds ({len(lore_answers)} questions, best of {args.repeat}):")
        print(f"  lore.dice.odds        {lore_s * 1000:>12.2f} ms")
        print(f"  icepool (baseline)    {icepool_s * 1000:>12.2f} ms")
        print(f"  ratio                 {figures['odds_ratio']:>12.2f}x")
        print(f"  same answers          {same}")
        print("PASS" if figures["passed"] else "FAIL")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
