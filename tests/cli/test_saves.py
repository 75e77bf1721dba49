"""`lore run --save`: chains of saves, what a save may overwrite, damaged saves, saves of
files that changed since, and what a save holds."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.semantics.program import LIBRARY_DIR
from tests.cli.test_run_command import ASKING, answers_file, records_of, write

# Each round the hero is asked a number and rolls; the GM is told both.
ROUNDS = """\
import "basic.lore":url;

section rounds {
 form Hero extends Actor {
  rule turn {
   a = self.query("数", { n = integer.input; });
   GM.message("round " + schedule.current + ": " + a.n + " + " + 1D6.roll);
   schedule.add({
    ticks = schedule.current + 1[sec]; priority = 0; handler = @{ self.turn; };
   }:Event);
  }
 }
 hero = { name = "Hero"; player = "hero@example.org":jid; location = "/[0]":loc; }:Hero;
 first = { ticks = 0; priority = 0; handler = @{ hero.turn; }; }:Event;
}
"""
HERO = "hero@example.org"


def run(*argv: str) -> int:
    return main(["run", *argv])


def numbers(tmp_path: Path, values: list[int], name: str) -> Path:
    return answers_file(tmp_path, {HERO: [{"n": n} for n in values]}, name)


def messages(path: Path) -> list[str]:
    return [r["text"] for r in records_of(path) if r["kind"] == "message"]


def test_a_chain_of_saves_loads_and_goes_on_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = write(tmp_path / "rounds.lore", ROUNDS)
    whole = tmp_path / "whole.jsonl"
    everything = numbers(tmp_path, [1, 2, 3, 4, 5, 6, 7], "all.json")
    assert run(str(scenario), "--answers", str(everything), "--transcript", str(whole)) == 0
    runs = [(scenario, [1, 2]), (tmp_path / "s1.lore", [3, 4]), (tmp_path / "s2.lore", [5])]
    runs.append((tmp_path / "s3.lore", [6, 7]))
    told: list[str] = []
    for number, (entry, values) in enumerate(runs):
        out = tmp_path / f"t{number}.jsonl"
        argv = [str(entry), "--answers", str(numbers(tmp_path, values, f"a{number}.json"))]
        argv += ["--transcript", str(out), "--save", str(tmp_path / f"s{number + 1}.lore")]
        assert run(*argv) == 0, capsys.readouterr().err
        told += messages(out)
    assert told == messages(whole)
    # Each save imports the scenario itself, not the save it continued.
    assert 'import "rounds.lore":url;' in (tmp_path / "s3.lore").read_text(encoding="utf-8")
    assert "Traceback" not in capsys.readouterr().err


def test_saving_over_the_save_being_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = write(tmp_path / "rounds.lore", ROUNDS)
    save = tmp_path / "s.lore"
    for number, values in enumerate([[1], [2, 3], [4]]):
        entry = scenario if number == 0 else save
        answers = numbers(tmp_path, values, f"a{number}.json")
        assert run(str(entry), "--answers", str(answers), "--save", str(save)) == 0
    text = save.read_text(encoding="utf-8")
    assert "count = 4;" in text
    assert len(re.findall(r"^history\(", text, re.MULTILINE)) == 3  # one line per save
    out = tmp_path / "t.jsonl"
    assert (
        run(str(save), "--answers", str(numbers(tmp_path, [9], "b.json")), "--transcript", str(out))
        == 0
    )
    assert messages(out)[0].startswith("round 4[sec]: 9 + ")
    capsys.readouterr()


@pytest.mark.parametrize("output", ["--save", "--transcript"])
@pytest.mark.parametrize("target", ["scenario", "rules", "answers", "map"])
def test_no_output_overwrites_an_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str, target: str
) -> None:
    rules = write(tmp_path / "rules.lore", "section rules { limit = 3; }\n")
    write(tmp_path / "map.xml", '<geometry type="point"><point label="a" x="0" y="0"/></geometry>')
    scenario = write(
        tmp_path / "game.lore",
        ASKING.replace(
            'import "basic.lore":url;', 'import "basic.lore":url;\nimport "rules.lore":url;'
        ).replace("section asking {", 'section asking {\n map = ("map.xml":url).loadXML;'),
    )
    answers = answers_file(tmp_path, {HERO: [{"stance": "high", "step": 1}]})
    paths = {"scenario": scenario, "rules": rules, "answers": answers, "map": tmp_path / "map.xml"}
    before = {path: path.read_bytes() for path in paths.values()}
    status = run(str(scenario), "--answers", str(answers), output, str(paths[target]))
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"would overwrite {paths[target]}" in err and "nothing was run or written" in err
    assert {path: path.read_bytes() for path in paths.values()} == before
    assert list(tmp_path.glob(".*.tmp")) == []


@pytest.mark.parametrize("output", ["--save", "--transcript"])
def test_no_output_overwrites_lores_own_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    scenario = write(tmp_path / "rounds.lore", ROUNDS)
    library = LIBRARY_DIR / "basic.lore"
    before = library.read_bytes()
    answers = numbers(tmp_path, [1], "first.json")
    status = run(str(scenario), "--answers", str(answers), output, str(library))
    err = capsys.readouterr().err
    assert status == 2 and "Lore's own library" in err, err
    assert library.read_bytes() == before


def test_a_snapshot_that_cannot_be_restored_is_a_warning_and_the_answers_are_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = saved(tmp_path, capsys, [1, 2, 3])
    text = re.sub(r' check = "[^"]*";\n', "", save.read_text(encoding="utf-8"))  # (old save)
    damaged = base64.b64encode(b"not a snapshot").decode()
    save.write_text(re.sub(r'snapshot = "[^"]*"', f'snapshot = "{damaged}"', text), "utf-8")
    answers = numbers(tmp_path, [4], "more.json")
    assert run(str(save), "--answers", str(answers)) == 0
    err = capsys.readouterr().err
    assert "lore: warning: " in err and "replaying its answers instead" in err
    assert "error" not in err


def test_save_and_transcript_on_one_file_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = write(tmp_path / "rounds.lore", ROUNDS)
    same = tmp_path / "out"
    assert run(str(scenario), "--save", str(same), "--transcript", str(same)) == 2
    assert "--save and --transcript name the same file" in capsys.readouterr().err
    assert not same.exists()


def test_a_scenario_is_not_replaced_by_its_save(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = write(tmp_path / "rounds.lore", ROUNDS)
    assert run(str(scenario), "--save", str(scenario)) == 2
    assert "would overwrite" in capsys.readouterr().err
    assert scenario.read_text(encoding="utf-8") == ROUNDS


CHANGED = r"s\.lore:\d+: the save was changed after it was written"


def _other_letter(found: re.Match[str]) -> str:
    return found.group(1) + ("B" if found.group(2) == "A" else "A")


def test_a_save_without_a_check_is_read_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = saved(tmp_path, capsys, [1, 2, 3])
    text = save.read_text(encoding="utf-8")
    assert re.search(r' check = "sha256:[0-9a-f]{64}";', text)
    save.write_text(re.sub(r' check = "[^"]*";\n', "", text), encoding="utf-8")
    answers = numbers(tmp_path, [4], "more.json")
    assert run(str(save), "--answers", str(answers)) == 0


def saved(tmp_path: Path, capsys: pytest.CaptureFixture[str], values: list[int]) -> Path:
    scenario = write(tmp_path / "rounds.lore", ROUNDS)
    save = tmp_path / "s.lore"
    answers = numbers(tmp_path, values, "first.json")
    assert run(str(scenario), "--answers", str(answers), "--save", str(save)) == 0
    capsys.readouterr()
    return save


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (
            lambda t: t.replace('\\"n\\":2', '\\"n\\":NaN'),
            r"s\.lore:\d+: a stored answer is not"
            r" valid: NaN is not a number an answer can give",
        ),
        (lambda t: t[: t.index("section _auto_stored")], "without its section _auto_stored"),
        (lambda t: re.sub(r" seed = \d+;\n", "", t), r"s\.lore:\d+: the save has no 'seed'"),
        (lambda t: t.replace("count = 3;", "count = 4;"), "should hold 4 answers and holds 3"),
        (lambda t: re.sub(r'snapshot = "[^"]*"', 'snapshot = "@@"', t), "not base64"),
        # a byte of the snapshot or of an answer changed, still well-formed: its check says
        (lambda t: re.sub(r'(snapshot = "[^"]{20})(.)', _other_letter, t), CHANGED),
        (lambda t: t.replace('\\"n\\":2', '\\"n\\":5'), CHANGED),
        (lambda t: t.replace("records = ", "records = 1", 1), CHANGED),
        (lambda t: re.sub(r'check = "sha256:.', 'check = "sha256:x', t), CHANGED),
    ],
)
def test_a_damaged_save_is_an_error_and_nothing_is_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: object, problem: str
) -> None:
    save = saved(tmp_path, capsys, [1, 2, 3])
    assert callable(damage)
    damaged = damage(save.read_text(encoding="utf-8"))
    save.write_text(damaged, encoding="utf-8")
    answers = numbers(tmp_path, [4], "more.json")
    assert run(str(save), "--answers", str(answers), "--save", str(save)) == 1
    err = capsys.readouterr().err
    assert re.search(problem, err), err
    assert save.read_text(encoding="utf-8") == damaged  # not overwritten


def test_a_save_of_files_that_changed_is_refused_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = saved(tmp_path, capsys, [1, 2])
    scenario = tmp_path / "rounds.lore"
    write(scenario, ROUNDS.replace("1D6.roll", "1D8.roll"))
    before = save.read_text(encoding="utf-8")
    assert run(str(save), "--save", str(save)) == 1
    err = capsys.readouterr().err
    assert "was saved from files that changed since: rounds.lore (changed)" in err
    assert "--continue-anyway" in err
    assert save.read_text(encoding="utf-8") == before
    # Asked to, it goes on: the answers are given again, each checked.
    out = tmp_path / "t.jsonl"
    answers = numbers(tmp_path, [3], "more.json")
    assert (
        run(str(save), "--continue-anyway", "--answers", str(answers), "--transcript", str(out))
        == 0
    )
    assert [m.split(" + ")[0] for m in messages(out)] == [
        "round 0[sec]: 1",
        "round 1[sec]: 2",
        "round 2[sec]: 3",
    ]


def test_going_on_anyway_stops_at_the_first_answer_that_does_not_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = saved(tmp_path, capsys, [1, 2, 3])
    scenario = tmp_path / "rounds.lore"
    write(scenario, ROUNDS.replace('self.query("数"', 'self.query("数は？"'))
    out = tmp_path / "t.jsonl"
    status = run(str(save), "--continue-anyway", "--transcript", str(out), "--save", str(save))
    assert status == 1
    end = records_of(out)[-1]
    assert end["reason"] == "error"
    assert re.search(
        r"the answer at \S*s\.lore:\d+ is hero@example\.org's to '数' \(question 0//0\), but the"
        r" session now asks hero@example\.org '数は？' there",
        end["message"],
    ), end["message"]
    # The save written then still holds every answer.
    assert "count = 3;" in save.read_text(encoding="utf-8")
    capsys.readouterr()


SWAPPED = """\
import "basic.lore":url;
section duo {
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc; }:Actor;
 ren = { name = "Ren"; player = "ren@example.org":jid; location = "/[0]":loc; }:Actor;
 first = { ticks = 0; priority = 0; handler = @{
  a = aki.query("aki?", { n = integer.input; });
  r = ren.query("ren?", { n = integer.input; });
  GM.message("aki " + a.n + ", ren " + r.n);
 }; }:Event;
}
"""


def test_an_answer_is_never_given_to_another_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = write(tmp_path / "duo.lore", SWAPPED)
    save = tmp_path / "s.lore"
    answers = answers_file(tmp_path, {"aki@example.org": [{"n": 1}]})
    assert run(str(scenario), "--answers", str(answers), "--save", str(save)) == 0
    write(
        scenario,
        SWAPPED.replace("a = aki.query", "a = ren.query").replace("r = ren.query", "r = aki.query"),
    )
    out = tmp_path / "t.jsonl"
    assert run(str(save), "--continue-anyway", "--transcript", str(out)) == 1
    assert "is aki@example.org's to 'aki?'" in records_of(out)[-1]["message"]
    capsys.readouterr()


def test_a_save_holds_master_history_files_and_schedule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    save = saved(tmp_path, capsys, [1, 2])
    text = save.read_text(encoding="utf-8")
    assert 'history("2023-11-14T22:13:20+00:00":date) {\n    reviser = "lore run",' in text
    assert '\n    master = "GM";' in text
    assert re.search(r'"sha256:[0-9a-f]{64} rounds\.lore"', text)
    assert (
        "        // at 2[sec], priority 0 (the step in progress, waiting for answers): rule"
        " rounds.Hero.turn of rounds.hero"
    ) in text
    records = [
        json.loads(json.loads(line.strip().rstrip(",")))
        for line in text.splitlines()
        if line.startswith('        "{')
    ]
    assert records[0] == {"from": HERO, "query": "0//0", "title": "数", "values": {"n": 1}}


# A tally of the words the GM is asked: an object holding a dictionary.
TALLY = """\
import "basic.lore":url;
section t {
 form Tally {
  counts : dict<string, integer>;
  alter bump(keys : list<string>) {
   k = keys.get1st;
   self.counts := counts.put(k, counts.getOr(k, 0) + 1);
  }
 }
 tally = { counts = dict<string, integer>.empty; }:Tally;
 rule ask {
  a = GM.query("word", { w = string.input; });
  tally.bump(a.w);
  GM.message(schedule.current + ": " + tally.counts.put(a.w, tally.counts.getOr(a.w, 0) + 1));
  schedule.add({ ticks = schedule.current + 1[sec]; priority = 0; handler = @{ ask; }; }:Event);
 }
 go = { ticks = 0; priority = 0; handler = @{ ask; }; }:Event;
}
"""


def words(tmp_path: Path, values: list[str], name: str) -> Path:
    return answers_file(tmp_path, {"GM": [{"w": w} for w in values]}, name)


def test_an_object_holding_a_dictionary_is_saved_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A save of it said "cannot save LoreDict" (and exited 0); it held no snapshot.
    scenario = write(tmp_path / "tally.lore", TALLY)
    whole = tmp_path / "whole.jsonl"
    assert (
        run(
            str(scenario),
            "--answers",
            str(words(tmp_path, ["orc", "elf", "orc"], "w.json")),
            "--transcript",
            str(whole),
        )
        == 0
    )
    save, first, later = tmp_path / "s.lore", tmp_path / "t1.jsonl", tmp_path / "t2.jsonl"
    argv = [str(scenario), "--answers", str(words(tmp_path, ["orc", "elf"], "a.json"))]
    assert run(*argv, "--transcript", str(first), "--save", str(save)) == 0
    assert capsys.readouterr().err.count("error") == 0
    assert "snapshot" in save.read_text(encoding="utf-8")
    argv = [str(save), "--answers", str(words(tmp_path, ["orc"], "b.json"))]
    assert run(*argv, "--transcript", str(later)) == 0
    assert messages(first) + messages(later) == messages(whole)
    assert messages(later) == ["2[sec]: {orc: 2, elf: 1}"]
    assert all(r["tick"] >= 2 for r in records_of(later)), records_of(later)


def test_a_save_without_its_snapshot_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.engine.session import Session
    from lore.engine.snapshot import SnapshotError

    def refuse(self: Session) -> bytes:
        raise SnapshotError("object <t.Tally t.tally>: cannot save Thing")

    monkeypatch.setattr(Session, "snapshot", refuse)
    scenario = write(tmp_path / "tally.lore", TALLY)
    save = tmp_path / "s.lore"
    argv = [str(scenario), "--answers", str(words(tmp_path, ["orc"], "a.json"))]
    assert run(*argv, "--save", str(save)) == 1
    err = capsys.readouterr().err
    assert "lore: error: cannot save the session's state (object <t.Tally t.tally>: cannot" in err
    assert "holds only its answers" in err and save.exists()


def test_a_save_is_in_the_canonical_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = saved(tmp_path, capsys, [1, 2])
    assert main(["fmt", "--check", str(save)]) == 0
    capsys.readouterr()
