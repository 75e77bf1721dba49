"""Bot policies of ``lore sim``: random, greedy and Monte Carlo on the rules' SimBot score.

The ORM sample declares a score per side (the share of HP left, less the other side's):
its players, playing greedily, win beyond the Wilson intervals of random players; the
policies are parsed and bounded with clear errors; a planning run is deterministic.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.analysis.intervals import wilson
from lore.analysis.policies import Policies
from lore.analysis.simulate import SimulationError, load_program, simulate, summarize
from lore.engine.session import Limits
from lore.runtime.compiler import CompiledProgram

REPO = Path(__file__).resolve().parents[2]
ORM = REPO / "examples" / "orm" / "scenario.lore"
PLAYERS = ("rin@example.org", "goro@example.org")


def load(path: Path) -> CompiledProgram:
    program, diagnostics = load_program([path])
    assert program is not None, diagnostics
    return program


@pytest.fixture(scope="module")
def orm() -> CompiledProgram:
    return load(ORM)


def won(program: CompiledProgram, runs: int, policies: Policies | None) -> int:
    results = simulate(program, [ORM], runs, seed=100, policies=policies)
    summary = summarize(results, 100, Limits(max_steps=10_000))
    assert summary.ends["ended"] == runs
    return summary.outcomes.get("won", 0)


def test_greedy_players_beat_random_players_beyond_the_intervals(orm: CompiledProgram) -> None:
    # (Random players win about 30% of the fights; greedy ones nearly all.)
    greedy = Policies.parse([f"{seat}=greedy" for seat in PLAYERS])
    by_greedy = wilson(won(orm, 10, greedy), 10)
    by_random = wilson(won(orm, 40, None), 40)
    assert by_greedy.low > by_random.high, (by_greedy, by_random)


def test_the_same_seeds_give_the_same_planned_runs(orm: CompiledProgram) -> None:
    policies = Policies.parse(["GM=greedy"])
    first = simulate(orm, [ORM], 2, seed=3, policies=policies)
    assert simulate(orm, [ORM], 2, seed=3, policies=policies) == first
    assert simulate(orm, [ORM], 2, seed=3, jobs=2, policies=policies) == first
    assert simulate(orm, [ORM], 2, seed=3) != first  # (the GM plays another way)


def test_montecarlo_runs_within_its_bounds(orm: CompiledProgram) -> None:
    policies = Policies.parse(["rin@example.org=montecarlo"], playouts=2, horizon=5)
    (result,) = simulate(orm, [ORM], 1, seed=1, policies=policies)
    assert result.end == "ended"


def test_policy_random_everywhere_is_the_plain_simulation(orm: CompiledProgram) -> None:
    assert simulate(orm, [ORM], 2, policies=Policies.parse(["random"])) == simulate(orm, [ORM], 2)


NO_SCORE = """\
import "basic.lore":url;

section quiz {
 start = { ticks = 0; priority = 0; handler = @{
  answer = GM.query("Pick", { n = integer.input((1,...,3), 1); });
  GM.message("got " + answer.n);
 }; }:Event;
}
"""


def test_a_planning_seat_without_a_score_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "quiz.lore"
    path.write_text(NO_SCORE, encoding="utf-8")
    with pytest.raises(SimulationError, match="seat GM is to play greedy, but the rules"):
        simulate(load(path), [path], 1, policies=Policies.parse(["greedy"]))


SCORED = """\
import "basic.lore":url;

section quiz {
 picked = { n = 0; }:Box;
 form Box { n : integer; alter set(ns : list<integer>) { self.n := ns.get1st; } }
 bot = { policy = SimBot.Policy.greedy; score = @ -> real picked.n.toReal; }:SimBot;
 start = { ticks = 0; priority = 0; handler = @{
  answer = GM.query("Pick", { n = integer.input((1,...,9), 1); });
  picked.set(answer.n);
 }; }:Event;
 finish = { ticks = 1; priority = 0; handler = @{ system.record("n", picked.n); }; }:Event;
}
"""


def test_the_rules_choose_the_policy_and_greedy_picks_the_best(tmp_path: Path) -> None:
    path = tmp_path / "quiz.lore"
    path.write_text(SCORED, encoding="utf-8")
    program = load(path)
    (greedy,) = simulate(program, [path], 1)
    assert greedy.stats == (("n", "value", 9),)
    randomly = simulate(program, [path], 8, policies=Policies.parse(["random"]))
    assert {result.stats[0][2] for result in randomly} != {9}


@pytest.mark.parametrize(
    ("texts", "bounds", "message"),
    [
        (["clever"], {}, "no policy 'clever'"),
        (["=greedy"], {}, "no seat before '='"),
        (["greedy"], {"candidates": 0}, "--candidates must be from 1 to 256"),
        (["greedy"], {"playouts": 65}, "--playouts must be from 1 to 64"),
    ],
)
def test_bad_policies(texts: list[str], bounds: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Policies.parse(texts, **bounds)


def test_policies_by_seat() -> None:
    found = Policies.parse(["greedy", "GM=random", "rin@example.org=montecarlo"])
    assert found.default == "greedy"
    assert found.seats == (("GM", "random"), ("rin@example.org", "montecarlo"))
    assert not found.all_random
    assert Policies.parse(["random", "GM=random"]).all_random


FAILING_SCORE = """\
import "basic.lore":url;

section quiz {
 zero = 0;
 bot = { policy = SimBot.Policy.greedy; score = @ -> real 1.0 / zero.toReal; }:SimBot;
 start = { ticks = 0; priority = 0; handler = @{
  answer = GM.query("Pick", { n = integer.input((1,...,3), 1); });
 }; }:Event;
}
"""


def test_a_failing_score_is_an_error_at_its_place(tmp_path: Path) -> None:
    path = tmp_path / "quiz.lore"
    path.write_text(FAILING_SCORE, encoding="utf-8")
    with pytest.raises(SimulationError) as found:
        simulate(load(path), [path], 1)
    assert str(found.value) == f"{path}:5:59: the score of seat GM failed: division by zero"
