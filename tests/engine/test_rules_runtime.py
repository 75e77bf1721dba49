"""The rules runtime: rolls with faces, menus from computed options, ``schedule.then``,
hooks, outcomes and statistics, seats, map queries, and libraries vs scenarios."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lore.engine.participants import Participants, Scripted
from lore.engine.queries import AnswerError, choice_input, fill
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.runtime.values import RuntimeType
from lore.semantics.check import check_paths, check_text

GRID = """<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="2[m]" type="4">
 <line><section /><section /><section /><section /></line>
 <line><section /><section prohibited="true" /><section /><section /></line>
 <line><section /><section /><section /><section /></line>
</geometry>"""

HEAD = (
    """import "basic.lore":url;
section t {
 field = { location = "/":loc; geometry = [=[
"""
    + GRID
    + """
]=]:xml; }:Area;
 form Hero extends Actor { hp : integer = 10;
  alter hurt(n : list<integer>) { self.hp := hp - n.sum; } }
 aki = { name = "Aki"; player = "aki@x":jid; location = "/[0,0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 orc = { name = "Orc"; location = "/[2,0]":loc; features = list<Feature>.empty;
  items = list<Item>.empty; knownSecrets = list<string>.empty; }:Hero;
 orc2 = { name = "Orc"; location = "/[3,2]":loc; features = list<Feature>.empty;
  items = list<Item>.empty; knownSecrets = list<string>.empty; }:Hero;
"""
)


def session_of(body: str, answers: dict[str, list[dict[str, Any]]] | None = None) -> Session:
    result = check_text(HEAD + body + "}\n", "t.lore")
    errors = [d.render() for d in result.diagnostics if d.is_error]
    assert not errors, errors
    seats = {who: Scripted(list(given)) for who, given in (answers or {}).items()}
    seats.setdefault("GM", Scripted([]))
    session = Session(compile_program(result), 3, Participants(seats))
    session.run()
    return session


def go(handler: str) -> str:
    return f" go = {{ ticks = 0; priority = 0; handler = @{{ {handler} }}; }}:Event;\n"


def said(session: Session) -> list[str]:
    return [r["text"] for r in session.transcript.records if r["kind"] == "message"]


def errors(session: Session) -> list[str]:
    return [e.message for e in session.errors]


# ------------------------------------------------------------ rolls


def test_a_roll_keeps_its_faces_and_is_recorded_once() -> None:
    session = session_of(
        go(
            'r = aki.roll(4d6 + 2); GM.message(r.text + " " + r.total + " " + r.faces.length);'
            " k = r.keepHighest(2); dl = r.dropLowest(1);"
            ' GM.message(k.text + " " + k.total + " " + dl.text'
            ' + " " + r.highest + " " + r.lowest);'
        )
    )
    [record] = [r for r in session.transcript.records if r["kind"] == "dice"]
    faces = record["faces"]
    assert record["by"] == "Aki" and record["seat"] == "aki@x" and record["dice"] == "4D6+2"
    assert record["total"] == sum(faces) + 2
    first, second = said(session)
    assert first == f"[{' '.join(map(str, faces))}] {sum(faces) + 2} 4"
    top = sorted(range(4), key=lambda i: (-faces[i], i))[:2]
    kept = [faces[i] for i in sorted(top)]
    low = sorted(range(4), key=lambda i: (faces[i], i))[0]
    dropped = [f for i, f in enumerate(faces) if i != low]
    assert second == (
        f"[{' '.join(map(str, kept))}] {sum(kept) + 2} [{' '.join(map(str, dropped))}]"
        f" {max(faces)} {min(faces)}"
    )


def test_counting_rerolling_and_remapping_faces() -> None:
    session = session_of(
        go(
            "r = GM.roll(8d10);"
            ' GM.message("" + r.atLeast(8) + " " + r.atMost(2) + " " + r.countOf(10) + " "'
            " + r.count(@(f : integer) : boolean { result = f % 2 == 0; }));"
            " m = r.remap(@(f : integer) : integer { result = f % 10; });"
            " GM.message(m.text);"
            " again = r.reroll(@(f : integer) : boolean { result = f <= 5; });"
            " GM.message(again.text);"
        )
    )
    rolls = [r for r in session.transcript.records if r["kind"] == "dice"]
    faces = rolls[0]["faces"]
    counts, mapped, rerolled = said(session)
    assert counts == (
        f"{sum(f >= 8 for f in faces)} {sum(f <= 2 for f in faces)} {faces.count(10)}"
        f" {sum(f % 2 == 0 for f in faces)}"
    )
    assert mapped == "[" + " ".join(str(f % 10) for f in faces) + "]"
    new = [int(x) for x in rerolled.strip("[]").split()]
    assert [n for n, f in zip(new, faces, strict=True) if f > 5] == [f for f in faces if f > 5]
    if any(f <= 5 for f in faces):
        assert rolls[1]["how"] == "reroll" and rolls[1]["faces"] == new


def test_explode_adds_a_die_for_every_matching_face() -> None:
    session = session_of(
        go(
            "r = GM.roll(30d6).explode(@(f : integer) : boolean { result = f == 6; });"
            ' GM.message("" + r.faces.length);'
        )
    )
    record = [r for r in session.transcript.records if r["kind"] == "dice"][-1]
    assert record["how"] == "explode"
    assert len(record["faces"]) == 30 + record["faces"].count(6)


def test_dice_that_always_explode_are_stopped() -> None:
    session = session_of(
        go("r = GM.roll(1d1).explode(@(f : integer) : boolean { result = true; });")
    )
    assert errors(session) == ["dice kept exploding for 100 rounds"]


@pytest.mark.parametrize("count", ["(0 - 2)", "(1 - 3)"])
def test_a_negative_number_of_dice_is_an_error(count: str) -> None:
    session = session_of(go(f'n = {count}d6; GM.message("" + n.roll);'))
    assert errors(session) == [f"cannot roll {eval(count.replace('(', '').replace(')', ''))} dice"]


# ------------------------------------------------------------ menus


def test_choices_are_named_and_checked() -> None:
    body = go(
        'a = aki.query("pick", { foe = Hero.choice({orc, orc2});'
        " n = integer.choices({1, 2, 3}, 1, 2); });"
        ' GM.message(a.foe.location + " " + a.n.sum);'
    )
    session = session_of(body, {"aki@x": [{"foe": "orc2", "n": [3, 1]}]})
    assert said(session) == ["/[3,2] 4"]
    query = next(r for r in session.transcript.records if r["kind"] == "query")
    # Two options share the name Orc: each is named by its label instead.
    assert query["choices"] == {"foe": ["orc", "orc2"], "n": ["1", "2", "3"]}


def test_a_form_input_offers_the_objects_the_participant_may_see() -> None:
    session = session_of(
        go('a = aki.query("who", { h = Hero.input; }); GM.message(a.h.name);'),
        {"aki@x": [{"h": "Aki"}]},
    )
    query = next(r for r in session.transcript.records if r["kind"] == "query")
    assert query["choices"] == {"h": ["Aki", "orc", "orc2"]}
    assert said(session) == ["Aki"]


def test_bad_picks_are_refused_with_the_reason() -> None:
    item = choice_input("n", RuntimeType("prim", "integer"), (1, 2, 3))
    several = choice_input("n", RuntimeType("prim", "integer"), (1, 2, 3))
    several = type(several)(**{**several.__dict__, "least": 1, "most": 2})
    from lore.engine.queries import Query

    for input_, raw, problem in (
        (item, 4, "'n' is one of 1, 2, 3, not 4"),
        (several, [1, 1], "'n' names a choice twice"),
        (several, [1, 2, 3], "'n' takes from 1 to 2 choices, not 3"),
        (several, 2, "'n' is a list of choices, not 2"),
    ):
        with pytest.raises(AnswerError, match=problem.replace("(", r"\(").replace(")", r"\)")):
            fill(Query("GM", "q", (), (input_,)), None, {"n": raw})
    assert several.describe()["kind"] == "choices"
    assert item.describe()["choices"][0] == {"id": "1", "caption": "1"}


# ------------------------------------------------------------ then, hooks, outcomes


def test_then_runs_after_the_update_at_the_same_time() -> None:
    session = session_of(
        go(
            'orc.hurt(3); GM.message("" + orc.hp);'
            ' schedule.then(@{ GM.message("" + orc.hp + " at " + schedule.current); });'
        )
    )
    assert said(session) == ["10", "7 at 0[sec]"]


def test_signals_and_alter_hooks() -> None:
    session = session_of(
        go(
            ' system.on("boom", @(x : any) { GM.message("heard " + x); });'
            ' system.onAlter("hurt", @(x : any) { select (x) {'
            ' as (h : Hero) { GM.message(h.name + " hp " + h.hp); } default {} } });'
            ' schedule.then(@{ system.signal("boom", 5); orc.hurt(4); });'
        )
    )
    assert said(session) == ["heard 5", "Orc hp 6"]


def test_outcome_and_statistics_go_with_a_failed_step() -> None:
    session = session_of(
        go(
            ' system.count("n", 2); system.record("v", 1.5); system.count("n", 1);'
            ' schedule.then(@{ system.count("n", 100); system.end("lost"); x = 1 / {0}.get(0); });'
            ' schedule.add({ ticks = 5; priority = 0; handler = @{ system.end("won"); }; }:Event);'
        )
    )
    assert session.outcome == (3, "won")
    assert [(kind, name, value) for _, kind, name, value in session.stats] == [
        ("count", "n", 2),
        ("value", "v", 1.5),
        ("count", "n", 1),
    ]
    assert session.transcript.records[-1]["outcome"] == "won"


# ------------------------------------------------------------ seats


def test_hand_to_the_gm_and_message_every_player_once() -> None:
    session = session_of(
        go(
            ' system.messagePlayers("hi"); aki.handTo(system.gmSeat);'
            ' schedule.then(@{ aki.message("yours now"); system.messagePlayers("again"); });'
        )
    )
    sent = [(r["to"], r["text"]) for r in session.transcript.records if r["kind"] == "message"]
    assert sent == [("aki@x", "hi"), ("GM", "yours now")]


def test_message_everyone_tells_the_gm_and_each_player_seat_once() -> None:
    session = session_of(go(' system.messageEveryone("開戦");'))
    sent = [(r["to"], r["text"]) for r in session.transcript.records if r["kind"] == "message"]
    assert sent == [("GM", "開戦"), ("aki@x", "開戦")]


# ------------------------------------------------------------ the map


def test_map_queries() -> None:
    session = session_of(
        go(
            ' GM.message("" + system.distance(aki, orc) + " " + system.steps(aki, orc2)'
            ' + " " + system.coordinates(orc2).sum + " " + field.at(1, 2));'
            ' GM.message("" + system.neighbours("/[1,0]":loc).length + " "'
            ' + system.actorsAt("/[2,0]":loc).length + " " + system.actorsWithin(aki, 2).length);'
            ' r = field.route(aki.location, "/[0,2]":loc, @(l : loc) : boolean { result = true; });'
            ' GM.message("" + r.path.length + " " + r.distance);'
        )
    )
    assert said(session) == ["4[m] 5 5 /[1,2]", "2 1 1", "3 4[m]"]


def test_moves_are_bounded_and_blocked_by_the_rule_given() -> None:
    body = go(
        " noOrc = @(l : loc) : boolean { result = l != orc.location; };"
        " free = @(l : loc) : boolean {"
        " result = system.actorsAt(l).length == 0 | l == aki.location; };"
        ' GM.message("" + field.reachable(aki, 2, noOrc, free));'
        " r = field.choiceMove(aki, 3, noOrc, free); aki.relocate(r.goal);"
        ' schedule.then(@{ GM.message("" + aki.location + " " + r.cost); });'
    )
    session = session_of(body, {"aki@x": [{"goal": "/[1,2]"}]})
    reach, moved = said(session)
    assert reach == "{/[0,0], /[1,0], /[0,1], /[0,2]}"
    query = next(r for r in session.transcript.records if r["kind"] == "query")
    assert "/[2,0]" not in query["choices"]["goal"] and "/[3,0]" not in query["choices"]["goal"]
    assert moved == "/[1,2] 6[m]"


# ------------------------------------------------------------ libraries


def test_an_imported_game_schedules_nothing_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "game.lore").write_text(
        'import "basic.lore":url;\nsection game {\n'
        ' start = { ticks = 0; priority = 0; handler = @{ GM.message("game starts"); }; }:Event;\n'
        ' rule play { system.count("plays", 1); system.end("played"); }\n}\n',
        encoding="utf-8",
    )
    harness = tmp_path / "stats.lore"
    harness.write_text(
        'import "game.lore":url;\nsection stats {\n'
        " run = { ticks = 0; priority = 0; handler = @{ game.play; }; }:Event;\n}\n",
        encoding="utf-8",
    )
    result = check_paths([harness])
    session = Session(compile_program(result), 0, Participants({"GM": Scripted([])}))
    assert session.run() == "ended"
    assert said(session) == []
    assert session.outcome is not None and session.outcome[1] == "played"
    game = Session(compile_program(check_paths([tmp_path / "game.lore"])), 0)
    game.run()
    assert said(game) == ["game starts"]
