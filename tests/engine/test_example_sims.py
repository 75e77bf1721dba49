"""Every example simulates to an end with bots: a rule ends it, or no event is left, well
within a second a run (nothing ended the paper's scenario, whose searches at the dungeon's
doors each add another chain of choices, so lore sim never ended; the tavern and the
expedition went on until the step limit)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lore.analysis.simulate import load_program, simulate
from lore.engine.session import Limits

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = sorted([EXAMPLES / "hello.lore", *EXAMPLES.glob("*/scenario.lore")])
RUNS = 5
SECONDS_A_RUN = 0.5  # of CPU time (runs take a few hundredths of a second today)


def test_every_example_is_simulated() -> None:
    names = {path.parent.name for path in SCENARIOS}
    assert {"paper", "tavern", "expedition", "ninja", "orm", "blackpoker"} <= names


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.parent.name for p in SCENARIOS])
def test_an_example_simulates_to_an_end(path: Path) -> None:
    program, diagnostics = load_program([path])
    assert program is not None, diagnostics
    started = time.process_time()
    results = simulate(program, [path], runs=RUNS, limits=Limits(max_steps=2_000))
    spent = time.process_time() - started
    assert [r.end for r in results if r.end not in ("ended", "no-events")] == [], results
    assert spent / RUNS < SECONDS_A_RUN, f"{spent / RUNS:.2f} s a run"
