"""`lore run`: messages, transcripts, answers files, exit codes, the interactive terminal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main

REPO = Path(__file__).resolve().parents[2]
TOKAIDO = REPO / "examples" / "tokaido" / "scenario.lore"
TOKAIDO_GOLDEN = REPO / "examples" / "tokaido" / "transcript.jsonl"

HELLO = """\
docinfo{encoding="UTF-8", version="http://xgmtk.org/lore/1.0":url}
import "basic.lore":url;

section greeting {
 first = {
  ticks = 0;
  priority = 0;
  handler = @{ say; };
 }:Event;

 rule say {
  GM.message("こんにちは、世界！");
 }
}
"""

# One player is asked for a stance and a distance, then the GM for a yes or no.
ASKING = """\
import "basic.lore":url;

section asking {
 enum Stance { high{ caption = "上段"; } low{ caption = "下段"; } }

 hero = {
  name = "Hero";
  player = "hero@example.org":jid;
  location = "/[0]":loc;
  features = list<Feature>.empty;
  items = list<Item>.empty;
  knownSecrets = list<string>.empty;
 }:Actor;

 first = {
  ticks = 0;
  priority = 0;
  handler = @{
   a = hero.query("構え", { stance = Stance.input; step = unit[m].input; });
   hero.message("stance " + a.stance.caption + ", " + a.step);
   b = GM.query("続けますか？", { go = boolean.input; });
   GM.message("go " + b.go);
  };
 }:Event;
}
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def answers_file(tmp_path: Path, data: Any, name: str = "answers.json") -> Path:
    return write(tmp_path / name, json.dumps(data, ensure_ascii=False))


def records_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run(*argv: str) -> int:
    return main(["run", *argv])


# ------------------------------------------------------------ a plain run


def test_hello_prints_the_message_and_writes_the_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path / "hello.lore", HELLO)
    transcript = tmp_path / "t.jsonl"
    assert run(str(program), "--transcript", str(transcript)) == 0
    output = capsys.readouterr()
    assert output.out == "[Day 1, 00:00] GM: こんにちは、世界！\n"
    assert output.err == "[Day 1, 00:00] session ended: no-events\n"
    assert transcript.read_text(encoding="utf-8") == (
        '{"tick":0,"kind":"message","to":"GM","text":"こんにちは、世界！","format":"text"}\n'
        '{"tick":0,"kind":"end","reason":"no-events"}\n'
    )


def test_scripted_answers_fill_the_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path / "asking.lore", ASKING)
    answers = answers_file(
        tmp_path, {"hero@example.org": [{"stance": "low", "step": 1.5}], "GM": [{"go": True}]}
    )
    transcript = tmp_path / "t.jsonl"
    assert run(str(program), "--answers", str(answers), "--transcript", str(transcript)) == 0
    assert capsys.readouterr().out == (
        "[Day 1, 00:00] Hero: stance 下段, 1.5[m]\n[Day 1, 00:00] GM: go true\n"
    )
    assert records_of(transcript) == [
        {
            "tick": 0,
            "kind": "query",
            "to": "hero@example.org",
            "title": "構え",
            "choices": {"stance": ["high", "low"]},
        },
        {
            "tick": 0,
            "kind": "answer",
            "from": "hero@example.org",
            "values": {"stance": "low", "step": 1.5},
        },
        {
            "tick": 0,
            "kind": "message",
            "to": "hero@example.org",
            "text": "stance 下段, 1.5[m]",
            "format": "text",
        },
        {"tick": 0, "kind": "query", "to": "GM", "title": "続けますか？"},
        {"tick": 0, "kind": "answer", "from": "GM", "values": {"go": True}},
        {"tick": 0, "kind": "message", "to": "GM", "text": "go true", "format": "text"},
        {"tick": 0, "kind": "end", "reason": "no-events"},
    ]


def test_a_participant_without_answers_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path / "asking.lore", ASKING)
    answers = answers_file(tmp_path, {"hero@example.org": [{"stance": "high", "step": 2}]})
    transcript = tmp_path / "t.jsonl"
    assert run(str(program), "--answers", str(answers), "--transcript", str(transcript)) == 0
    assert records_of(transcript)[-2:] == [
        {"tick": 0, "kind": "query", "to": "GM", "title": "続けますか？"},
        {"tick": 0, "kind": "end", "reason": "no-answer"},
    ]
    assert capsys.readouterr().err == "[Day 1, 00:00] session ended: no-answer\n"


# One player plays two actors; the time goes past a day.
TWO_ACTORS = """\
import "basic.lore":url;

section later {
 aki = {
  name = "Aki";
  player = "p1@example.org":jid;
  location = "/[0]":loc;
  features = list<Feature>.empty;
  items = list<Item>.empty;
  knownSecrets = list<string>.empty;
 }:Actor;
 ren = {
  name = "Ren";
  player = "p1@example.org":jid;
  location = "/[0]":loc;
  features = list<Feature>.empty;
  items = list<Item>.empty;
  knownSecrets = list<string>.empty;
 }:Actor;

 first = {
  ticks = 90061;
  priority = 0;
  handler = @{
   a = aki.query("進む？", { go = boolean.input; });
   aki.message("go " + a.go);
  };
 }:Event;
}
"""


def test_the_terminal_shows_game_time_and_names_as_the_web_client_does(
    tmp_path: Path,
) -> None:
    program = write(tmp_path / "later.lore", TWO_ACTORS)
    transcript = tmp_path / "t.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "lore", "run", str(program), "--transcript", str(transcript)],
        input="y\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    # The seat's label, as the session server makes it: its actors' names.
    assert "\n== Aki, Ren: 進む？\n" in done.stdout
    assert done.stdout.endswith("[Day 2, 01:01] Aki, Ren: go true\n")
    assert done.stderr == "[Day 2, 01:01] session ended: no-events\n"
    assert "p1@example.org" not in done.stdout + done.stderr
    # The transcript keeps the ticks and the ids.
    assert [(r["tick"], r.get("to") or r.get("from")) for r in records_of(transcript)] == [
        (90061, "p1@example.org"),
        (90061, "p1@example.org"),
        (90061, "p1@example.org"),
        (90061, None),
    ]


# ------------------------------------------------------------ bad answers files


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"GM": [{"go": true}\n,]}', "2:2: Expecting value"),
        ('{"GM": [{"go": true}],\n "hero": [}', "2:11: Expecting value"),
        ("{'GM': []}", "1:2: Expecting property name enclosed in double quotes"),
        ("", "1:1: Expecting value"),
    ],
)
def test_a_malformed_answers_file_is_named_with_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    program = write(tmp_path / "asking.lore", ASKING)
    answers = write(tmp_path / "bad.json", text)
    assert run(str(program), "--answers", str(answers)) == 2
    output = capsys.readouterr()
    assert output.out == ""
    assert output.err == f"lore: error: {answers}:{problem}\n"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([{"go": True}], 'expected an object like {"GM": [{...}, ...]}'),
        (
            {"GM": {"go": True}},
            "the answers of 'GM' must be a list of objects (input name to value), "
            'like [{"action": "move"}]',
        ),
        (
            {"GM": ["yes"]},
            "the answers of 'GM' must be a list of objects (input name to value), "
            'like [{"action": "move"}]',
        ),
    ],
)
def test_an_answers_file_of_the_wrong_shape_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any, problem: str
) -> None:
    program = write(tmp_path / "asking.lore", ASKING)
    answers = answers_file(tmp_path, data)
    assert run(str(program), "--answers", str(answers)) == 2
    output = capsys.readouterr()
    assert output.err == f"lore: error: {answers}: {problem}\n"
    assert "Traceback" not in output.out + output.err


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (
            {"stance": "middle", "step": 1},
            "'stance' is one of high, low, not 'middle'",
        ),
        ({"stance": "high"}, "the answer to '構え' lacks 'step'"),
        ({"stance": "high", "step": "far"}, "'step' is a number of [m], not 'far'"),
        (
            {"stance": "high", "step": 1, "speed": 3},
            "'構え' has no input 'speed' (it asks for stance, step)",
        ),
    ],
)
def test_an_answer_that_does_not_fit_ends_the_run_with_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], answer: Any, problem: str
) -> None:
    program = write(tmp_path / "asking.lore", ASKING)
    answers = answers_file(tmp_path, {"hero@example.org": [answer], "GM": [{"go": True}]})
    transcript = tmp_path / "t.jsonl"
    status = run(str(program), "--answers", str(answers), "--transcript", str(transcript))
    assert status == 1
    message = f"answers.json: answer 1 of 'hero@example.org', to '構え': {problem}"
    assert records_of(transcript) == [
        {
            "tick": 0,
            "kind": "query",
            "to": "hero@example.org",
            "title": "構え",
            "choices": {"stance": ["high", "low"]},
        },
        {"tick": 0, "kind": "end", "reason": "error", "message": message},
    ]
    output = capsys.readouterr()
    assert output.err == f"[Day 1, 00:00] session ended: error: {message}\n"
    assert "Traceback" not in output.out


# ------------------------------------------------------------ files and programs


def test_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.lore"
    assert run(str(missing)) == 2
    assert capsys.readouterr().err == f"lore: error: no such file: {missing}\n"


def test_a_missing_answers_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path / "hello.lore", HELLO)
    missing = tmp_path / "none.json"
    assert run(str(program), "--answers", str(missing)) == 2
    assert capsys.readouterr().err == f"lore: error: no such file: {missing}\n"


def test_a_program_with_errors_is_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path / "broken.lore", HELLO.replace("GM.message", "GM.mesage"))
    transcript = tmp_path / "t.jsonl"
    assert run(str(program), "--transcript", str(transcript)) == 1
    output = capsys.readouterr()
    assert output.out.startswith(f"{program}:12:6: error: ")
    assert "mesage" in output.out
    assert "session ended" not in output.err
    assert not transcript.exists()


# ------------------------------------------------------------ the terminal


def test_interactive_menus_by_number_ask_again_after_a_bad_entry(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    # はな: 3 (急ぎ足); 鉄: "x" and "7" are refused, then 2 (ふつう); the GM: "abc" is
    # refused, then 3 hours.
    typed = "3\nx\n7\n2\nabc\n3\n"
    done = subprocess.run(
        [sys.executable, "-m", "lore", "run", str(TOKAIDO), "--transcript", str(transcript)],
        input=typed,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.count("== はな: はな: どの速さで歩きますか？") == 1
    assert (
        "   1. のんびり (leisurely)\n   2. ふつう (steady)\n   3. 急ぎ足 (brisk)\n" in done.stdout
    )
    assert done.stdout.count("   type a number from 1 to 3; please answer again\n") == 2
    assert done.stdout.count("   type a unit[hour]; please answer again\n") == 1
    assert "[Day 1, 10:34] GM: 旅は終わりました (true)。" in done.stdout
    assert done.stderr.endswith("[Day 1, 10:34] session ended: no-events\n")
    # The same answers as examples/tokaido/answers.json: the same transcript.
    assert transcript.read_text(encoding="utf-8") == TOKAIDO_GOLDEN.read_text(encoding="utf-8")


def test_end_of_input_at_the_terminal_is_no_answer(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lore", "run", str(TOKAIDO)],
        input="1\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0
    assert done.stderr.endswith("[Day 1, 00:00] session ended: no-answer\n")
    assert "Traceback" not in done.stdout + done.stderr


def test_a_save_keeps_its_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = write(tmp_path / "asking.lore", ASKING)
    save = tmp_path / "save.lore"
    answers = answers_file(tmp_path, {"hero@example.org": [{"stance": "high", "step": 2}]})
    assert run(str(program), "--seed", "5", "--answers", str(answers), "--save", str(save)) == 0
    capsys.readouterr()
    assert run(str(save), "--seed", "6") == 2
    assert capsys.readouterr().err == (
        f"lore: error: {save} is a saved session with seed 5; it keeps its seed\n"
    )


def test_a_save_shows_what_the_alters_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tavern = REPO / "examples" / "tavern"
    save = tmp_path / "save.lore"
    argv = [str(tavern / "scenario.lore"), "--answers", str(tavern / "answers.json")]
    assert run(*argv, "--save", str(save)) == 0
    capsys.readouterr()
    text = save.read_text(encoding="utf-8")
    state = text[text.index("    section state {") :].splitlines()
    # Aki: 6, drinks (-1), rests (+2); Ren: 5, rests (+2). Nothing else was altered.
    assert state[1:3] == [
        "        tavern_scenario_aki = { stamina = 7; };",
        "        tavern_scenario_ren = { stamina = 7; };",
    ]
    schedule = "        // at 4200[sec], priority 1 (the step in progress"
    assert state[3].startswith(schedule)
    assert state[-2:] == ["    }", "}"]


def test_a_save_that_cannot_be_written_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = Path(__file__).resolve().parents[2] / "examples" / "hello.lore"
    status = main(["run", str(hello), "--save", str(tmp_path / "missing" / "s.lore")])
    captured = capsys.readouterr()
    assert status == 2
    assert "cannot write --save" in captured.err and "the folder" in captured.err
    assert captured.out == ""  # the session did not run
    assert main(["run", str(hello), "--save", str(tmp_path)]) == 2  # a folder


def test_a_file_without_events_says_that_nothing_happened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "quiet.lore"
    program.write_text('import "basic.lore":url;\nsection quiet { x = 1; }\n', encoding="utf-8")
    assert main(["run", str(program)]) == 0
    output = capsys.readouterr()
    assert f"lore: nothing happened: {program} has no events to run" in output.err
    assert "start = { ticks = 0; priority = 0;" in output.err
    assert main(["sim", str(program), "--runs", "2"]) == 0
    assert "has no events to run" in capsys.readouterr().err
