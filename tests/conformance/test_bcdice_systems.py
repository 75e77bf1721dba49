"""BCDice's own tests of five game systems (``Cthulhu``, ``Cthulhu7th``,
``SwordWorld2_5``, ``DoubleCross``, ``Emoklore``): every case gives the exact text, the
flags, and consumes exactly the dice listed, rolled as that system (its own commands,
then the common ones)."""

from __future__ import annotations

import re
import tomllib
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from lore.dice.systems import evaluate_in, find
from tests.conformance.locate import shared_dir
from tests.conformance.test_bcdice import check_case

EXPECTED = {
    "Cthulhu": 105,
    "Cthulhu7th": 151,
    "SwordWorld2_5": 144,
    "DoubleCross": 101,
    "Emoklore": 33,
}

# The commands Lore does not roll yet (none now: every table is rolled), and the systems not in
# ``SYSTEMS`` yet: their cases are left out, and must fail (so that the list is
# shortened when one is done).
NOT_YET: dict[str, frozenset[str]] = {}


def pending(system: str, case: dict[str, Any]) -> bool:
    """A case of a command (or of a whole system) Lore does not roll yet."""
    if find(system) is None:
        return True
    name = re.match(r"[A-Za-z]*", case["input"].lstrip())
    assert name is not None
    return name.group().upper() in NOT_YET.get(system, frozenset())


def load(file: str) -> list[dict[str, Any]]:
    path = Path(shared_dir("conformance", "bcdice")) / f"{file}.toml"
    with path.open("rb") as file:
        return list(tomllib.load(file)["test"])


@pytest.mark.parametrize("file", sorted(EXPECTED))
def test_bcdice_game_system(file: str) -> None:
    cases = load(file)
    assert len(cases) == EXPECTED[file]
    system = cases[0]["game_system"]  # BCDice's id: "SwordWorld2.5" in SwordWorld2_5.toml
    failures = []
    for number, case in enumerate(cases, 1):
        assert case["game_system"] == system
        try:
            problems = check_case(case, partial(evaluate_in, system))
        except Exception as error:  # a crash is a failure of that case, reported with it
            problems = [f"raised {type(error).__name__}: {error}"]
        if pending(system, case):
            if not problems:
                failures.append(f"{system}#{number} {case['input']!r} passes: drop it from NOT_YET")
        elif problems:
            failures.append(f"{system}#{number} {case['input']!r}: " + "; ".join(problems))
    assert not failures, f"{len(failures)} of {len(cases)} cases fail:\n" + "\n".join(failures)
