"""Properties of sessions, over seeds and bot-made answer logs.

- Replay: the files, the seed and the answers of a bot run, answered back by scripted
  participants, give the same transcript.
- The same seed gives the same transcript.
- A session saved at any query (the run stops with the query open) and continued with
  ``lore run SAVE.lore`` gives the rest of the transcript of the uninterrupted run.
- Different seeds roll different dice (at least sometimes).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore.cli.main import main
from lore.engine.participants import Bot, Participant, Participants, Scripted
from lore.engine.session import Limits, Session
from lore.engine.transcript import Record, Transcript
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import check_paths

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# The entry file of each example with queries, and a bound on its steps (the tavern
# never ends by itself: its adventurers are asked again and again).
ENTRIES = {
    "tavern": EXAMPLES / "tavern" / "scenario.lore",
    "tokaido": EXAMPLES / "tokaido" / "scenario.lore",
    "duel": EXAMPLES / "duel" / "scenario.lore",
}
MAX_STEPS = 60

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
seeds = st.integers(min_value=0, max_value=2**32)
examples = st.sampled_from(sorted(ENTRIES))

Answers = list[tuple[str, dict[str, Any]]]


@functools.cache
def checked(name: str) -> Any:
    result = check_paths([ENTRIES[name]])
    assert not [d for d in result.diagnostics if d.severity.name == "ERROR"]
    return result


def program(name: str) -> CompiledProgram:
    return compile_program(checked(name))  # a fresh program: sessions change its objects


def run(name: str, seed: int, make: Any) -> tuple[list[Record], Answers, str]:
    transcript = Transcript()
    session = Session(
        program(name), seed, Participants(default=make), Limits(max_steps=MAX_STEPS), transcript
    )
    reason = session.run()
    return transcript.records, [(a.seat, a.values) for a in session.answers], reason


def bots(who: str) -> Participant:
    return Bot()


def by_participant(answers: Answers) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for who, values in answers:
        grouped.setdefault(who, []).append(values)
    return grouped


@SETTINGS
@given(name=examples, seed=seeds)
def test_replaying_a_bot_log_reproduces_the_transcript(name: str, seed: int) -> None:
    live, answers, reason = run(name, seed, bots)
    assert reason in ("no-events", "stopped", "ended")
    assert answers, "the bots were asked nothing"
    logged = by_participant(answers)
    replayed, again, _ = run(name, seed, lambda who: Scripted(list(logged.get(who, []))))
    assert replayed == live
    assert again == answers


@SETTINGS
@given(name=examples, seed=seeds)
def test_the_same_seed_gives_the_same_transcript(name: str, seed: int) -> None:
    assert run(name, seed, bots)[0] == run(name, seed, bots)[0]


def test_different_seeds_roll_different_dice() -> None:
    # The duel with its own answers: only the dice change with the seed.
    answers = json.loads((EXAMPLES / "duel" / "answers.json").read_text(encoding="utf-8"))

    def strikes(seed: int) -> list[str]:
        records, _, _ = run("duel", seed, lambda who: Scripted(list(answers.get(who, []))))
        return [r["text"] for r in records if r["kind"] == "message" and "3D6=" in r["text"]]

    outcomes = [strikes(seed) for seed in (0, 1, 2, 3, 1234567)]
    assert all(outcomes)
    assert len({tuple(outcome) for outcome in outcomes}) > 1


@SETTINGS
@given(seeds=st.lists(seeds, min_size=2, max_size=4, unique=True))
def test_the_dice_change_with_the_seed(seeds: list[int]) -> None:
    def dice(seed: int) -> list[str]:
        records = run("duel", seed, bots)[0]
        return [r["text"] for r in records if r["kind"] == "message" and "3D6=" in r["text"]]

    assert len({tuple(dice(seed)) for seed in seeds}) > 1


# ------------------------------------------------------------ saves, through the CLI


def write_answers(path: Path, answers: Answers) -> Path:
    path.write_text(json.dumps(by_participant(answers), ensure_ascii=False), encoding="utf-8")
    return path


def cli_run(*argv: str) -> int:
    return main(["run", *argv, "--max-steps", str(MAX_STEPS)])


@SETTINGS
@given(name=examples, seed=seeds, data=st.data())
def test_a_session_saved_at_any_query_continues_exactly(
    name: str,
    seed: int,
    data: st.DataObject,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, answers, _ = run(name, seed, bots)
    cut = data.draw(st.integers(min_value=0, max_value=len(answers) - 1), label="cut")
    folder = tmp_path_factory.mktemp(name)
    entry = str(ENTRIES[name])
    whole = folder / "whole.jsonl"
    all_answers = write_answers(folder / "all.json", answers)
    status = cli_run(
        entry, "--seed", str(seed), "--answers", str(all_answers), "--transcript", str(whole)
    )
    assert status == 0
    shown_whole = capsys.readouterr()

    # Stop with query number `cut` open: its participant has no answer left.
    save, first = folder / "save.lore", folder / "first.jsonl"
    prefix = write_answers(folder / "prefix.json", answers[:cut])
    status = cli_run(
        entry,
        "--seed",
        str(seed),
        "--answers",
        str(prefix),
        "--transcript",
        str(first),
        "--save",
        str(save),
    )
    assert status == 0
    stopped = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert stopped[-1]["reason"] == "no-answer"
    assert sum(1 for r in stopped if r["kind"] == "answer") == cut
    shown_first = capsys.readouterr()

    resumed = folder / "resumed.jsonl"
    rest = write_answers(folder / "rest.json", answers[cut:])
    status = cli_run(str(save), "--answers", str(rest), "--transcript", str(resumed))
    assert status == 0
    # The resumed run's transcript goes on from the save: the two make the whole one.
    before = first.read_text(encoding="utf-8").splitlines()[:-1]  # less its end record
    assert before + resumed.read_text(encoding="utf-8").splitlines() == (
        whole.read_text(encoding="utf-8").splitlines()
    )
    # What the two runs showed is what the uninterrupted run showed: nothing twice.
    shown_then = capsys.readouterr()
    assert shown_first.out + shown_then.out == shown_whole.out
    for output in (shown_whole, shown_first, shown_then):
        assert "Traceback" not in output.out + output.err
