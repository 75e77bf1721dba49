"""BCDice's own tests of its common commands: every case gives the exact text, the
flags, and consumes exactly the dice listed (same sides, same order)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lore.dice import Die, FixedSource, RandomSource, RollResult, evaluate
from tests.conformance.locate import shared_dir

FLAGS = ("secret", "success", "failure", "critical", "fumble")
EXPECTED_CASES = 327


# The system-independent commands ("DiceBot"); the data of the game systems beside them
# (Cthulhu, SwordWorld2.5, ...) is for those systems' dice bots, which Lore has not yet.
COMMON = "DiceBot"


def load_cases() -> list[tuple[str, int, dict[str, Any]]]:
    folder = shared_dir("conformance", "bcdice")
    cases = []
    for path in sorted(Path(folder).glob("*.toml")):
        with path.open("rb") as file:
            data = tomllib.load(file)
        for number, case in enumerate(data["test"], 1):
            if case.get("game_system", COMMON) == COMMON:
                cases.append((path.stem, number, case))
    return cases


def test_all_cases_are_there() -> None:
    assert len(load_cases()) == EXPECTED_CASES


def idfn(value: Any) -> str:
    return str(value) if not isinstance(value, dict) else value["input"][:30]


@pytest.fixture(scope="module")
def cases() -> list[tuple[str, int, dict[str, Any]]]:
    return load_cases()


Evaluate = Callable[[str, RandomSource], RollResult | None]


def check_case(case: dict[str, Any], roll: Evaluate = evaluate) -> list[str]:
    """What differs from BCDice in one case (nothing when it passes), rolled by ``roll``
    (a game system's own commands and the common ones, or the common ones alone)."""
    rands = [Die(rand["sides"], rand["value"]) for rand in case["rands"]]
    source = FixedSource(rands, zeros=True)
    result = roll(case["input"], source)
    problems = []
    if case["output"] == "":
        if result is not None:
            problems.append(f"expected no result, got {result.text!r}")
    elif result is None:
        problems.append(f"expected {case['output']!r}, got no result")
    else:
        if result.text != case["output"]:
            problems.append(f"text {result.text!r} != {case['output']!r}")
        for flag in FLAGS:
            if getattr(result, flag) != case.get(flag, False):
                problems.append(f"{flag} is {getattr(result, flag)}")
        if list(result.dice) != rands:
            problems.append(f"dice {result.dice} != {rands}")
    if source.left and case["output"] != "":  # a line that is no command may come with dice
        problems.append(f"{source.left} of the given dice not rolled")
    return problems


def test_bcdice_common_commands(cases: list[tuple[str, int, dict[str, Any]]]) -> None:
    failures = []
    for file, number, case in cases:
        try:
            problems = check_case(case)
        except Exception as error:  # a crash is a failure of that case, reported with it
            problems = [f"raised {type(error).__name__}: {error}"]
        if problems:
            failures.append(f"{file}#{number} {case['input']!r}: " + "; ".join(problems))
    assert not failures, f"{len(failures)} of {len(cases)} cases fail:\n" + "\n".join(failures)
