"""The GM's rulings on rolls (``lore.engine.roll_rulings``): ``approvedByGM`` asks the GM,
who accepts the roll, sets its faces (each within its sides), its total or its outcome,
or has it made again; ``ruled`` asks only while the table rules on every roll, a change
of that setting counting from the next step. The ruling is an answer: it replays from a
snapshot and makes the same transcript."""

from __future__ import annotations

from typing import Any

import pytest

from lore.engine.participants import Participants, Scripted
from lore.engine.roll_rulings import set_rule_rolls
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from tests.engine.test_update_rounds import messages
from tests.engine.test_waiting import Later

PROGRAM = """
section t {
 form Hero extends Actor {
  skill : integer;
 }
 aki = { name = "Aki"; player = "aki@example.org":jid; skill = 3; }:Hero;
 climb = { ticks = 0; priority = 0; handler = @{
  r = aki.roll(2d6).titled("Climb").plus(aki.skill).withTarget(10).approvedByGM;
  r.show;
  GM.message("climb " + r.total + " " + r.ruling + " " + r.faces.length);
 }; }:Event;
 jump = { ticks = 1; priority = 0; handler = @{
  r = aki.roll(1d6).ruled;
  GM.message("jump " + r.total + " " + r.ruling);
  aki.query("Go on?", { ok = integer.input; });
 }; }:Event;
 later = { ticks = 2; priority = 0; handler = @{
  r = aki.roll(1d6).ruled;
  GM.message("later " + r.total + " " + r.ruling);
 }; }:Event;
}
"""
AKI = "aki@example.org"


def session(gm: list[dict[str, Any]], aki: Any = None) -> Session:
    result = check_text(PROGRAM, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    members = {"GM": Scripted(gm), AKI: aki if aki is not None else Scripted([{"ok": 1}])}
    return Session(compile_program(result), 1, Participants(members))


def cards(s: Session) -> list[dict[str, Any]]:
    return [r for r in s.transcript.records if r["kind"] == "roll"]


def test_the_gm_sets_the_faces() -> None:
    s = session([{"ruling": "faces", "die1": 6, "die2": 5}])
    s.run()
    (card,) = cards(s)
    assert [d["face"] for d in card["dice"]] == [6, 5] and card["total"] == 14
    assert card["ruling"] == "faces" and card["outcome"] == "success"
    assert "climb 14 faces 2" in messages(s)
    query = next(r for r in s.transcript.records if r["kind"] == "query")
    assert query["to"] == "GM" and query["purpose"] == "ruling"


def test_a_face_past_its_sides_is_refused() -> None:
    s = session([{"ruling": "faces", "die1": 7, "die2": 1}])
    assert s.run() == "error"
    assert "'die1' must lie in" in s.detail
    assert cards(s) == []


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ({"ruling": "total", "total": 2}, "climb 2 total"),
        ({"ruling": "failure"}, "climb 11 failure"),
        ({"ruling": "accept"}, "climb 11  2"),
    ],
)
def test_the_gm_sets_the_total_or_the_outcome_or_accepts(answer: dict[str, Any], said: str) -> None:
    s = session([answer])
    s.run()
    assert any(m.startswith(said) for m in messages(s)), messages(s)
    if answer["ruling"] == "failure":
        assert cards(s)[0]["outcome"] == "failure"


def test_a_roll_made_again_is_asked_about_again() -> None:
    s = session([{"ruling": "again"}, {"ruling": "again"}, {"ruling": "accept"}])
    s.run()
    asked = [r for r in s.transcript.records if r["kind"] == "query" and r["to"] == "GM"]
    assert len(asked) == 3
    dice = [r for r in s.transcript.records if r["kind"] == "dice" and r["by"] == "Aki"]
    assert len(dice) >= 3  # (the first roll, and twice again)
    (card,) = cards(s)
    assert card["ruling"] == "again"
    assert [d["face"] for d in card["dice"]] == dice[2]["faces"]
    # The same seed and answers roll the same again.
    again = session([{"ruling": "again"}, {"ruling": "again"}, {"ruling": "accept"}])
    again.run()
    assert again.transcript.records == s.transcript.records


def test_ruled_asks_only_while_the_table_rules_on_every_roll() -> None:
    s = session([{"ruling": "accept"}])
    s.run()
    assert any(m.startswith("jump") and m.endswith(" ") for m in messages(s))
    assert len([r for r in s.transcript.records if r["kind"] == "query"]) == 2  # climb, Go on?
    on = session(
        [{"ruling": "accept"}, {"ruling": "total", "total": 9}, {"ruling": "total", "total": 4}]
    )
    set_rule_rolls(on, True)
    on.run()
    assert "jump 9 total" in messages(on) and "later 4 total" in messages(on)


def test_a_change_of_the_setting_counts_from_the_next_step() -> None:
    player = Later()
    s = session([{"ruling": "accept"}, {"ruling": "total", "total": 5}], aki=player)
    assert s.run() == "waiting"  # at "Go on?", in the jump's step
    set_rule_rolls(s, True)
    (query,) = s.open_questions()
    assert s.answer(query.id, {"ok": 1}) is None
    s.run()
    said = messages(s)
    jumps = [m for m in said if m.startswith("jump")]
    assert len(jumps) == 1 and jumps[0].endswith(" ")  # (its step began before the change)
    assert "later 5 total" in said  # (the next step: ruled on)


def test_a_ruling_waiting_for_the_gm_survives_a_snapshot() -> None:
    gm = Later()
    s = session([], aki=Scripted([{"ok": 1}]))
    s.participants.members["GM"] = gm
    assert s.run() == "waiting"
    (query,) = s.open_questions()
    assert query.to == "GM" and query.purpose == "ruling"
    restored = Session.restore(s.program, s.snapshot(), participants=s.participants)
    restored.reopen()
    restored.run()
    (again,) = restored.open_questions()
    assert restored.answer(again.id, {"ruling": "faces", "die1": 1, "die2": 1}) is None
    restored.run()
    assert any(m.startswith("climb 5 faces") for m in messages(restored))
