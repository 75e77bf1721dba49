"""Going back: a seat takes back its last answer of the step while nothing followed from
it (``engine/withdrawal.py``). The session is then the one in which the other answer was
given at once, but for the records of the answer taken back and the ``back`` record; the
withdrawal is in the log, so that a snapshot, a save and an answers file replay it."""

from __future__ import annotations

from typing import Any

from lore.engine.participants import Participants, Replaying, ReplayLog, Scripted, Scripted1
from lore.engine.session import Session
from lore.engine.transcript import Transcript
from lore.runtime.compiler import CompiledProgram
from tests.engine.harness import compiled
from tests.engine.test_waiting import Later

AKI = "aki@x"
PROGRAM = """
import "basic.lore":url;
section t {
 enum Act { move { caption = "移動する"; } rest { caption = "休む"; } }
 form Hero extends Actor {
  rule turn {
   a = self.query("どうしますか？", { act = Act.input; });
   select(a.act) {
    case(Act.move) {
     b = self.query("どこへ？", { far = integer.input((1,...,9), 1); });
     self.message(name + " moves " + b.far);
     c = self.query("本当に？", { sure = boolean.input; });
     self.message(name + " sure " + c.sure);
    }
    default { self.message(name + " rests"); }
   }
  }
 }
 aki = { name = "Aki"; player = "aki@x":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 room = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 go = { ticks = 0; priority = 0; handler = @{ aki.turn; aki.turn; }; }:Event;
}
"""
BACK = Scripted1({}, None, "", back=True)
_PROGRAM: list[CompiledProgram] = []


def program() -> CompiledProgram:
    if not _PROGRAM:
        _PROGRAM.append(compiled(PROGRAM))
    return _PROGRAM[0]


def at_once(answers: list[Any]) -> Session:
    seats = {AKI: Scripted(list(answers)), "GM": Scripted([])}
    session = Session(program(), 3, Participants(seats))
    session.run()
    return session


def without_back(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with each withdrawn answer, what followed it and its back left out."""
    kept: list[dict[str, Any]] = []
    for record in records:
        if record["kind"] == "back":
            while kept[-1]["kind"] != "answer":
                kept.pop()
            kept.pop()
            continue
        kept.append(record)
    return kept


def test_going_back_then_answering_otherwise_is_answering_otherwise_at_once() -> None:
    direct = at_once([{"act": "rest"}, {"act": "rest"}])
    back = at_once([{"act": "move"}, BACK, {"act": "rest"}, {"act": "rest"}])
    assert back.ended == direct.ended == "no-events"
    records = back.transcript.records
    kinds = [r["kind"] for r in records]
    assert kinds[:4] == ["query", "answer", "query", "back"]
    assert records[3] == {"tick": 0, "kind": "back", "from": AKI, "title": "どうしますか？"}
    assert without_back(records) == direct.transcript.records
    assert [a.back for a in back.answers] == [False, True, False, False]
    assert back.answers[1].query == back.answers[0].query.replace("//0", "//1")


def test_going_back_and_giving_the_same_answer_asks_the_next_question_again() -> None:
    direct = at_once([{"act": "move"}, {"far": 2}, {"sure": True}, {"act": "rest"}])
    back = at_once([{"act": "move"}, BACK, {"act": "move"}, {"far": 2}, {"sure": True}])
    back_records = back.transcript.records
    assert [r["kind"] for r in back_records[:6]] == [
        "query",
        "answer",
        "query",
        "back",
        "answer",
        "query",
    ]
    assert without_back(back_records)[:6] == direct.transcript.records[:6]


def test_going_back_is_refused_once_something_followed() -> None:
    # After 「どこへ？」 the rule told a message: the answer to it cannot be taken back.
    session = at_once([{"act": "move"}, {"far": 2}, BACK])
    assert session.ended == "error"
    assert "cannot go back at '本当に？'" in session.detail
    assert "something followed" in session.detail
    assert not any(r["kind"] == "back" for r in session.transcript.records)


def test_going_back_at_the_first_question_is_refused() -> None:
    session = at_once([BACK])
    assert session.ended == "error"
    assert "no earlier answer" in session.detail


def later_session() -> Session:
    people = Participants({who: Later() for who in (AKI, "GM")})
    session = Session(program(), 3, people)
    assert session.run() == "waiting"
    return session


def only_question(session: Session) -> Any:
    (query,) = session.open_questions()
    return query


def test_an_answer_that_came_later_is_taken_back_by_its_open_question() -> None:
    session = later_session()
    first = only_question(session)
    assert session.back(first.id) is not None  # nothing to take back yet
    assert session.answer(first.id, {"act": "move"}) is None
    assert session.run() == "waiting"
    route = only_question(session)
    assert route.title == "どこへ？"
    assert session.back(route.id, seat="GM") is not None  # not the GM's question
    assert session.back(route.id) is None
    assert session.run() == "waiting"
    again = only_question(session)
    assert (again.id, again.title) == (first.id, first.title)
    assert session.answer(again.id, {"act": "rest"}) is None
    assert session.run() == "waiting"
    assert session.answer(only_question(session).id, {"act": "rest"}) is None
    assert session.run() == "no-events"
    direct = at_once([{"act": "rest"}, {"act": "rest"}])
    assert without_back(session.transcript.records) == direct.transcript.records


def test_a_refused_back_changes_nothing() -> None:
    session = later_session()
    assert session.answer(only_question(session).id, {"act": "move"}) is None
    session.run()
    assert session.answer(only_question(session).id, {"far": 3}) is None
    session.run()
    sure = only_question(session)
    before = session.snapshot()
    problem = session.back(sure.id)
    assert problem is not None and "something followed" in problem
    assert session.snapshot() == before


def test_a_back_replays_from_a_snapshot_and_from_the_log() -> None:
    session = later_session()
    assert session.answer(only_question(session).id, {"act": "move"}) is None
    session.run()
    assert session.back(only_question(session).id) is None
    session.run()
    data, transcript = session.snapshot(), Transcript(list(session.transcript.records))
    people = Participants({who: Later() for who in (AKI, "GM")})
    restored = Session.restore(program(), data, participants=people, transcript=transcript)
    for one in (session, restored):
        assert one.answer(only_question(one).id, {"act": "rest"}) is None
        one.run()
        assert one.answer(only_question(one).id, {"act": "rest"}) is None
        assert one.run() == "no-events"
    assert restored.transcript.records == session.transcript.records
    # The log (a save's answers) given again from the start makes the same session.
    log = ReplayLog(list(session.answers))
    replayed = Session(
        program(), 3, Participants(default=lambda who: Replaying(log, who, Scripted([])))
    )
    assert replayed.run() == "no-events"
    assert not log.replaying
    assert replayed.transcript.records == session.transcript.records
