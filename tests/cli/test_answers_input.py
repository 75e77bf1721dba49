"""Answers from a file, a save or the terminal, refused where they come from: numbers
that are not finite or too long, JSON nested too deeply, places that do not exist,
answers for another question, participants the session does not have."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lore.cli.terminal import Terminal, parse_typed
from lore.engine.queries import Input
from lore.runtime.values import RuntimeType
from tests.cli.test_run_command import ASKING, answers_file, records_of, run, write
from tests.world.helpers import POINT

HERO = "hero@example.org"


def run_asking(tmp_path: Path, text: str, name: str = "answers.json") -> tuple[int, Path]:
    program = write(tmp_path / "asking.lore", ASKING)
    answers = write(tmp_path / name, text)
    transcript = tmp_path / "t.jsonl"
    status = run(str(program), "--answers", str(answers), "--transcript", str(transcript))
    return status, transcript


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '{"hero@example.org": [{"stance": "high", "step": NaN}]}',
            "answers.json:1:50: NaN is not a number an answer can give",
        ),
        (
            '{"hero@example.org": [{"stance": "high", "step": Infinity}]}',
            "answers.json:1:50: Infinity is not a number an answer can give",
        ),
        (
            '{"hero@example.org":\n [{"stance": "high", "step": 1e400}]}',
            "answers.json:2:30: 1e400 is too large a number for an answer",
        ),
        (
            '{"hero@example.org": [{"stance": "high", "step": ' + "7" * 4300 + "}]}",
            "answers.json:1:50: a number of 4300 digits is too long for an answer",
        ),
        (
            '{"hero@example.org": ' + "[" * 3000 + "]" * 3000 + "}",
            "answers.json: arrays and objects are nested 101 deep",
        ),
    ],
    ids=["nan", "infinity", "1e400", "4300-digits", "nested"],
)
def test_numbers_and_nesting_that_no_answer_has_are_refused_in_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    status, transcript = run_asking(tmp_path, text)
    err = capsys.readouterr().err
    assert status == 2
    assert problem in err, err
    assert "set_int_max_str_digits" not in err and "Traceback" not in err
    assert not transcript.exists()


def test_a_byte_order_mark_is_fine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = {HERO: [{"stance": "high", "step": 1}], "GM": [{"go": True}]}
    status, transcript = run_asking(tmp_path, "\ufeff" + json.dumps(data))
    assert status == 0, capsys.readouterr().err
    assert records_of(transcript)[-1]["reason"] == "no-events"


@pytest.mark.parametrize("step", [1e300 * 10, 10**301, -(10**301)])
def test_huge_numbers_are_refused_as_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], step: Any
) -> None:
    text = json.dumps({HERO: [{"stance": "high", "step": step}]})
    status, transcript = run_asking(tmp_path, text)
    capsys.readouterr()
    if step == float("inf"):
        assert status == 2  # refused when the file is read
        return
    assert status == 1
    message = records_of(transcript)[-1]["message"]
    assert message.startswith("answers.json: answer 1 of 'hero@example.org', to '構え': 'step'")
    assert message.endswith("digits" if isinstance(step, int) else "not 1e+301")


def test_a_participant_the_session_does_not_have_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = json.dumps({"hero@exmaple.org": [{"stance": "high", "step": 1}]})
    status, transcript = run_asking(tmp_path, text)
    err = capsys.readouterr().err
    assert status == 2
    assert (
        "the answers file names 'hero@exmaple.org', who does not take part in the session"
        " (its participants: 'GM', 'hero@example.org')"
    ) in err
    assert not transcript.exists()


def test_answers_that_name_their_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {
        HERO: [{"query": "構え", "values": {"stance": "low", "step": 2}}],
        "GM": [{"query": "0//1", "values": {"go": False}}],
    }
    status, transcript = run_asking(tmp_path, json.dumps(good, ensure_ascii=False))
    assert status == 0, capsys.readouterr().err
    assert [r["values"] for r in records_of(transcript) if r["kind"] == "answer"] == [
        {"stance": "low", "step": 2.0},
        {"go": False},
    ]
    wrong = {HERO: [{"query": "速さ", "values": {"stance": "low", "step": 2}}]}
    status, transcript = run_asking(tmp_path, json.dumps(wrong, ensure_ascii=False), "w.json")
    assert status == 1
    assert records_of(transcript)[-1]["message"] == (
        "w.json: answer 1 of 'hero@example.org' is for the question '速さ', but "
        "hero@example.org is asked '構え' (question 0//0)"
    )
    never = {
        HERO: [{"stance": "low", "step": 2}],
        "GM": [{"go": True}, {"query": "もう一度？", "values": {"go": True}}],
    }
    status, _ = run_asking(tmp_path, json.dumps(never, ensure_ascii=False), "n.json")
    assert status == 1
    assert (
        "n.json: answer 2 of 'GM' is for the question 'もう一度？', never asked"
        in capsys.readouterr().err
    )


PLACES = """\
import "basic.lore":url;
section places {
 root = { label = "root"; location = "/":loc; geometry = ("hall.xml":url).loadXML; }:Area;
 hero = { name = "Hero"; player = "hero@example.org":jid; location = "/[gate]":loc; }:Actor;
 first = { ticks = 0; priority = 0; handler = @{
  a = hero.query("どこへ？", { goal = loc.input; });
  GM.message("to " + a.goal);
 }; }:Event;
}
"""
HALL = f'<geometry xmlns="{POINT}"><point label="gate"/><point label="hall"/></geometry>'


def test_a_place_that_does_not_exist_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path / "places.lore", PLACES)
    write(tmp_path / "hall.xml", HALL)
    for goal, status_wanted in (("/[hall]", 0), ("/[cellar]", 1), ("/attic[1]", 1)):
        answers = answers_file(tmp_path, {HERO: [{"goal": goal}]})
        transcript = tmp_path / "t.jsonl"
        status = run(str(program), "--answers", str(answers), "--transcript", str(transcript))
        capsys.readouterr()
        assert status == status_wanted
        last = records_of(transcript)[-1]
        if status_wanted:
            assert last["message"].startswith(
                f"answers.json: answer 1 of 'hero@example.org', to 'どこへ？': 'goal': "
                f"'{goal}' is no place of the session"
            )
        else:
            assert [r["text"] for r in records_of(transcript) if r["kind"] == "message"] == [
                "to /[hall]"
            ]


def number_input(name: str) -> Input:
    return Input("n", RuntimeType("prim", name))


@pytest.mark.parametrize("typed", ["nan", "NaN", "inf", "-inf", "1e400", "²", "1" * 400])
def test_the_terminal_refuses_numbers_no_answer_has(typed: str) -> None:
    assert parse_typed(number_input("real"), typed) is None
    assert parse_typed(number_input("integer"), typed) is None


def test_the_terminal_asks_again_after_a_typo_at_a_menu() -> None:
    typed = iter(["²", "１", "9", "2"])
    out: list[str] = []

    class Out:
        def write(self, text: str) -> None:
            out.append(text)

        def flush(self) -> None:
            pass

    terminal = Terminal("GM", read=lambda prompt: next(typed), out=Out())  # type: ignore[arg-type]
    choice = Input("c", RuntimeType("prim", "string"), ("a", "b"))
    assert terminal.choose(choice) == "b"
    assert "".join(out).count("type a number from 1 to 2") == 3


def _said_by_both(item: Input, typed: list[str]) -> tuple[list[str], list[str]]:
    """What ``lore run``'s terminal and ``lore join``'s asker print for the same input
    and the same typed lines (their prompts and what they say between them)."""
    import io

    from lore.clients.join import Asker

    lines = iter(typed)
    out = io.StringIO()

    def read(prompt: str) -> str:
        out.write(prompt + "\n")
        return next(lines)

    Terminal("GM", read=read, out=out).ask_input(item)
    joined = io.StringIO()
    spec = {"title": "t", "texts": [], "inputs": [item.describe()]}
    asker = Asker(spec, joined)
    asker.start("")
    for line in typed:
        asker.feed(line)
    return out.getvalue().splitlines(), joined.getvalue().splitlines()[2:]  # (not the title)


@pytest.mark.parametrize(
    ("item", "typed", "said"),
    [
        (
            Input("c", RuntimeType("prim", "string"), ("a", "b")),
            ["9", "2"],
            "   type a number from 1 to 2; please answer again",
        ),
        (
            Input("c", RuntimeType("prim", "string"), ("a", "b", "c"), least=1, most=2),
            ["x", "1 3"],
            "   type numbers from 1 to 3, separated by spaces; please answer again",
        ),
        (number_input("integer"), ["x", "4"], "   type an integer; please answer again"),
        (number_input("boolean"), ["maybe", "y"], "   type y or n; please answer again"),
        (
            Input("d", RuntimeType("unit", "unit", unit="m")),
            ["far", "3"],
            "   type a unit[m]; please answer again",
        ),
    ],
)
def test_lore_run_and_lore_join_ask_again_in_the_same_words(
    item: Input, typed: list[str], said: str
) -> None:
    run_says, join_says = _said_by_both(item, typed)
    assert said in run_says
    assert run_says == join_says


def test_both_terminals_prompt_an_input_by_its_caption() -> None:
    import io

    from lore.clients.join import Asker
    from lore.engine.queries import Query

    use = Input("use", RuntimeType("prim", "boolean"))
    art = Input("art", RuntimeType("prim", "string"), ("breath", "kick"), ("チャドー呼吸", "ジツ"))
    captions = (("use", "アーツを使う"), ("art", "アーツ"))
    query = Query("GM", "アーツ", (), (use, art), "1//0", captions=captions)
    prompts: list[str] = []
    typed = iter(["yes", "1"])

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(typed)

    answer = Terminal("GM", read=read, out=io.StringIO()).ask(query, None)  # type: ignore[arg-type]
    assert answer == {"use": True, "art": "breath"}
    assert prompts == ["アーツを使う (boolean)> ", "アーツ [1-2]> "]
    joined = io.StringIO()
    spec = {**query.record(), "captions": dict(captions)}
    asker = Asker(spec, joined)
    asker.start("")
    asker.feed("yes")
    said = joined.getvalue()
    assert "アーツを使う (boolean)> " in said and "アーツ [1-2]> " in said
    assert "use (" not in said and "art [" not in said
