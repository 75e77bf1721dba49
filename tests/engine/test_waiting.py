"""Participants who answer later: everyone is asked at once, the step waits, then goes on.

A handler waiting for an answer does not keep the other handlers of its step, nor the
other bodies of its `foreach`, from starting; when the answers come, the step runs again
from its start with them, asking and telling nothing twice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lore.engine.participants import PENDING, Participants, Pending, Replaying, ReplayLog
from lore.engine.queries import Query
from lore.engine.randomness import Stream
from lore.engine.saves import SaveData, read_stored, save_text
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_paths, check_text

PROGRAM = """
import "basic.lore":url;
section table {
 enum Move { strike; guard; }
 form Hero extends Actor {
  rule turn {
   answer = self.query("どうする？", { move = Move.input; });
   select (answer.move) {
    case (Move.strike) { ogre.hurt(3); self.message("一撃！"); }
    default { self.message("身構えた。"); }
   }
  }
 }
 form Ogre extends Actor {
  hp : integer;
  alter hurt(amounts : list<integer>) { self.hp := hp - amounts.sum; }
 }
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc; }:Hero;
 ren = { name = "Ren"; player = "ren@example.org":jid; location = "/[0]":loc; }:Hero;
 ogre = { name = "Oni"; location = "/[0]":loc; hp = 20; }:Ogre;
 start = { ticks = 0; priority = 0; handler = @{
  GM.message("戦闘開始");
  system.allPC.foreach(@(actor : Actor) {
   select (actor) { as (hero : Hero) { hero.turn; } default { } }
  });
 }; }:Event;
 after = { ticks = 1; priority = 0; handler = @{ GM.message("oni hp " + ogre.hp); }; }:Event;
}
"""


class Later:
    """A player at a browser: asked now, answers whenever (the test answers)."""

    def __init__(self) -> None:
        self.asked: list[Query] = []
        self.told: list[dict[str, Any]] = []

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | Pending | None:
        self.asked.append(query)
        return PENDING

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return False

    def tell(self, record: dict[str, Any]) -> None:
        self.told.append(record)


def new_session() -> tuple[Session, dict[str, Later]]:
    result = check_text(PROGRAM, "table.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    players = {"aki@example.org": Later(), "ren@example.org": Later(), "GM": Later()}
    return Session(compile_program(result), 0, Participants(dict(players))), players


def kinds(session: Session) -> list[tuple[Any, ...]]:
    return [
        (r["kind"], r.get("to") or r.get("from"), r.get("text") or r.get("reason") or "")
        for r in session.transcript.records
    ]


def test_everyone_is_asked_at_once_and_the_step_waits() -> None:
    session, _players = new_session()
    assert session.run() == "waiting"
    asked = [q.to for q in session.open_questions()]
    assert asked == ["aki@example.org", "ren@example.org"]  # both asked before any answer
    assert kinds(session) == [
        ("message", "GM", "戦闘開始"),
        ("query", "aki@example.org", ""),
        ("query", "ren@example.org", ""),
    ]
    assert session.ticks == 0 and session.ended is None


def test_answers_in_any_order_then_the_step_goes_on_once() -> None:
    session, players = new_session()
    session.run()
    aki, ren = session.open_questions()
    assert session.answer(ren.id, {"move": "strike"}) is None
    assert session.run() == "waiting"  # Aki has not answered yet
    assert session.answer(aki.id, {"move": "strike"}) is None
    assert session.run() == "no-events"
    assert kinds(session) == [
        ("message", "GM", "戦闘開始"),
        ("query", "aki@example.org", ""),
        ("query", "ren@example.org", ""),
        ("answer", "ren@example.org", ""),
        ("message", "ren@example.org", "一撃！"),
        ("answer", "aki@example.org", ""),
        ("message", "aki@example.org", "一撃！"),
        ("message", "GM", "oni hp 14"),  # both blows reached `hurt` in one step
        ("end", None, "no-events"),
    ]
    assert len(players["aki@example.org"].asked) == 1  # never asked twice


def test_a_wrong_answer_is_refused_and_the_question_stays_open() -> None:
    session, _ = new_session()
    session.run()
    aki, _ren = session.open_questions()
    assert (
        session.answer(aki.id, {"move": "dance"}) == "'move' is one of strike, guard, not 'dance'"
    )
    assert session.answer("nonsense", {}) == "there is no open question 'nonsense'"
    assert aki in session.open_questions()


def test_a_save_while_waiting_restores_the_same_session(tmp_path: Path) -> None:
    scenario = tmp_path / "table.lore"
    scenario.write_text(PROGRAM, encoding="utf-8")
    session, _ = new_session()
    session.run()
    _aki, ren = session.open_questions()
    session.answer(ren.id, {"move": "guard"})
    session.run()
    save = tmp_path / "save.lore"
    data = SaveData([scenario], 0, session.ticks, session.answers, [], session.snapshot(), 0, 0)
    save.write_text(save_text(data, save), encoding="utf-8")
    result = check_paths([save])
    assert result.ok, [d.render() for d in result.diagnostics]
    stored = read_stored(result.program.modules)
    assert [(a.seat, a.query, a.title) for a in stored.answers] == [
        ("ren@example.org", ren.id, "どうする？")
    ]
    assert stored.snapshot is not None
    program = compile_program(result)
    live = {who: Later() for who in ("aki@example.org", "ren@example.org", "GM")}
    restored = Session.restore(program, stored.snapshot, participants=Participants(dict(live)))
    assert restored.run() == "waiting"
    assert [q.to for q in restored.open_questions()] == ["aki@example.org"]
    assert restored.transcript.records == []  # nothing told or asked again

    # Replaying the saved answers from the start gives the same session.
    log = ReplayLog(stored.answers, "save.lore")
    replayed = Session(
        program, stored.seed, Participants({w: Replaying(log, w, p) for w, p in live.items()})
    )
    assert replayed.run() == "waiting"
    assert [q.id for q in replayed.open_questions()] == [q.id for q in session.open_questions()]
    assert json.dumps(kinds(replayed), ensure_ascii=False) == json.dumps(
        kinds(session), ensure_ascii=False
    )
