"""Declared bounds of number inputs, and a step that goes wrong after its answers.

``unit[hour].input(min = 0)`` (``max``, ``default`` too, each by name) refuses an answer
out of its bounds before the rules see it: the question stays open, with the reason.
A rule error after answers never ends a session silently: the GM is told, and the step
runs again from its start, asking its questions again (a few times in a row at most)."""

from __future__ import annotations

from typing import Any

from lore.engine.participants import Participants, Scripted
from lore.engine.session import MAX_ASKED_AGAIN, Session
from lore.semantics.check import check_text
from lore.syntax.parser import parse_text
from lore.syntax.printer import format_module
from tests.engine.harness import compiled
from tests.engine.test_waiting import Later

SLEEP = """\
import "basic.lore":url;
section t {
 rule choose {
  period = GM.query("何時間寝ますか？", { hour = unit[hour].input(min = 0); });
  GM.message("sleeps " + period.hour);
  schedule.add({ ticks = schedule.current + period.hour; priority = 0;
   handler = @{ GM.message("wakes"); }; }:Event);
 }
 go = { ticks = 0; priority = 0; handler = @{ choose; }; }:Event;
}
"""
# The same without bounds: -3 hours is taken, and schedules an event in the past.
UNBOUNDED = SLEEP.replace("unit[hour].input(min = 0)", "unit[hour].input")


def told(session: Session) -> list[str]:
    return [
        str(r["text"]) if r["kind"] == "message" else f"error: {r['message']}"
        for r in session.transcript.records
        if r["kind"] in ("message", "error")
    ]


def test_an_answer_out_of_the_bounds_is_refused_and_asked_again() -> None:
    gm = Later()
    session = Session(compiled(SLEEP), 1, Participants({"GM": gm}))
    assert session.run() == "waiting"
    (question,) = session.open_questions()
    assert question.record()["inputs"][0]["range"] == "≥ 0[hour]"
    reason = session.answer(question.id, {"hour": -3})
    assert reason == "'hour' must be at least 0[hour], not -3[hour]"
    assert session.open_questions() == [question]  # still open: answer again
    assert session.answer(question.id, {"hour": 2}) is None
    assert session.run() == "no-events"
    assert told(session) == ["sleeps 2[hour]", "wakes"]


def test_both_bounds_and_a_default_by_name() -> None:
    text = SLEEP.replace("(min = 0)", "(min = 1, max = 12[hour], default = 8)")
    gm = Scripted([{}, {"hour": 13}])
    session = Session(compiled(text), 1, Participants({"GM": gm}))
    session.run()
    assert told(session) == ["sleeps 8[hour]", "wakes"]
    gm = Later()
    session = Session(compiled(text), 1, Participants({"GM": gm}))
    session.run()
    (question,) = session.open_questions()
    assert session.answer(question.id, {"hour": 13}) == (
        "'hour' must lie in 1[hour],...,12[hour], not 13[hour]"
    )


def test_named_arguments_are_checked() -> None:
    wrong = {
        "unit[hour].input(min = true)": "'min' of unit[hour].input is a number or a quantity",
        "unit[hour].input(min = 1[m])": "'min' of unit[hour].input is a number or a quantity",
        "integer.input(max = 2.5)": "'max' of integer.input is a number, not a real",
        "integer.input(low = 1)": "'low' cannot be given here",
        "integer.input(min = 1, min = 2)": "'min' cannot be given twice",
        "integer.input(1,...,3, max = 2)": "takes every argument by name",
        "Move.input(min = 1)": "",
    }
    for written, message in wrong.items():
        text = SLEEP.replace("unit[hour].input(min = 0)", written).replace(
            "section t {", "section t {\n enum Move { a; b; }"
        )
        result = check_text(text, "t.lore")
        errors = [d.message for d in result.diagnostics if d.code == "check.named-argument"]
        assert errors and message in errors[0], (written, errors)
    result = check_text(SLEEP.replace('GM.message("wakes")', 'GM.message(x = "wakes")'), "t.lore")
    assert any("only T.input takes" in d.message for d in result.diagnostics)


def test_named_arguments_keep_their_layout() -> None:
    formatted = format_module(parse_text(SLEEP))
    assert "unit[hour].input(min = 0)" in formatted
    assert format_module(parse_text(formatted)) == formatted


def test_a_rule_error_after_an_answer_asks_again() -> None:
    # -3 hours schedules an event in the past: the step went wrong and was dropped, the
    # session ended "no-events" with nothing asked again.
    gm = Scripted([{"hour": -3}, {"hour": 1}])
    session = Session(compiled(UNBOUNDED), 1, Participants({"GM": gm}))
    assert session.run() == "no-events"
    (before, error, *rest) = told(session)
    assert before == "sleeps -3[hour]"
    assert error.startswith("error: cannot schedule an event in the past")
    (record,) = [r for r in session.transcript.records if r["kind"] == "error"]
    assert record["again"] is True
    hint = session.errors[0].hint
    assert hint is not None and hint.endswith("the step runs again: its questions are asked again")
    assert rest == ["sleeps 1[hour]", "wakes"]
    queries = [r for r in session.transcript.records if r["kind"] == "query"]
    assert len(queries) == 2


def test_a_step_that_always_goes_wrong_is_dropped_after_a_few_tries() -> None:
    text = UNBOUNDED.replace('GM.message("sleeps " + period.hour);', "x = {1}.get(5);")
    answers: list[dict[str, Any]] = [{"hour": 1}] * 10
    gm = Scripted(answers)
    session = Session(compiled(text), 1, Participants({"GM": gm}))
    assert session.run() == "no-events"
    errors = [r for r in session.transcript.records if r["kind"] == "error"]
    assert len(errors) == MAX_ASKED_AGAIN + 1 and gm.used == MAX_ASKED_AGAIN + 1
    assert [e.get("again", False) for e in errors] == [True] * MAX_ASKED_AGAIN + [False]


def test_a_served_session_asks_again_after_a_rule_error() -> None:
    from lore.server.master import Master

    master = Master(compiled(UNBOUNDED), 1)
    master.start()
    (question,) = master.open_questions()
    assert master.answer(question.id, {"hour": -3}) is None
    (again,) = master.open_questions()
    assert again.title == "何時間寝ますか？"
    assert master.answer(again.id, {"hour": 2}) is None
    assert master.ended == "no-events"
    records = master.records(0)
    said = [r["text"] for r in records if r["kind"] == "message"]
    assert said == ["sleeps -3[hour]", "sleeps 2[hour]", "wakes"]
    assert any(r["kind"] == "error" and r.get("again") for r in records)
