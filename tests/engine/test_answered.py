"""A question answered later: when its step runs again, the question is not described
again, only named (the same id) and filled in with the answer it has. The session is the
same as one whose answers came at once: the same ids, transcript and values in the rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lore.engine.participants import Participants, Scripted
from lore.engine.queries import fill, fill_answered, make_query
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.runtime.values import InputMarker, LoreObject, Range, RuntimeType
from lore.semantics.check import check_text
from tests.conftest import Golden
from tests.engine.test_waiting import Later

GOLDEN = Path(__file__).parent / "golden"
PROGRAM = """
import "basic.lore":url;
section t {
 enum Move { strike { caption = "打つ"; } guard { caption = "守る"; } }
 form Hero extends Actor {
  rule turn(round : integer) {
   a = self.query("どうする？ " + round, {
    note = name + " の番";
    move = Move.input;
    foe = Hero.choice({orc, orc2});
    n = integer.choices({1, 2, 3}, 1, 2);
    h = Hero.input;
    dist = unit[m].input((1[m],...,9[m]), 3);
    k = integer.input((1,...,120), 20);
   });
   self.message(a.note + " " + a.move + " " + a.foe.location + " " + a.n.sum + " "
    + a.h.name + " " + a.dist + " " + a.k);
   b = self.query("もう一つ " + round, { sure = boolean.input; });
   if (b.sure) { self.message(name + " sure " + round); }
  }
 }
 aki = { name = "Aki"; player = "aki@x":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 ren = { name = "Ren"; player = "ren@x":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 orc = { name = "Orc"; location = "/[0]":loc; features = list<Feature>.empty;
  items = list<Item>.empty; knownSecrets = list<string>.empty; }:Hero;
 orc2 = { name = "Orc"; location = "/[0]":loc; features = list<Feature>.empty;
  items = list<Item>.empty; knownSecrets = list<string>.empty; }:Hero;
 room = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 go = { ticks = 0; priority = 0; handler = @{
  {1, 2}.foreach(@(round : integer) { aki.turn(round); ren.turn(round); });
 }; }:Event;
}
"""

FIRST = {"move": "strike", "foe": "orc2", "n": [3, 1], "h": "Aki", "dist": 7}
REN = {"move": "guard", "foe": "orc", "n": [2], "h": "Ren"}
# Each question's answer, by whom it asks and its title.
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("aki@x", "どうする？ 1"): FIRST,
    ("aki@x", "もう一つ 1"): {"sure": True},
    ("ren@x", "どうする？ 1"): REN,
    ("ren@x", "もう一つ 1"): {"sure": True},
    ("aki@x", "どうする？ 2"): {**FIRST, "move": "guard", "k": 99},
    ("aki@x", "もう一つ 2"): {"sure": False},
    ("ren@x", "どうする？ 2"): REN,
    ("ren@x", "もう一つ 2"): {"sure": True},
}


def program_of() -> Any:
    result = check_text(PROGRAM, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    return compile_program(result)


def at_once() -> Session:
    seats = {
        who: Scripted([values for (to, _), values in ANSWERS.items() if to == who])
        for who in ("aki@x", "ren@x")
    }
    session = Session(program_of(), 7, Participants({**seats, "GM": Scripted([])}))
    assert session.run() == "no-events"
    return session


def later(restored: bool = False) -> Session:
    """The same session, each answer given after its step waits (the step runs again
    from its start for each answer, the questions answered before filled in again);
    ``restored``: each time from a snapshot of the session with the answer."""
    program = program_of()

    def people() -> Participants:
        return Participants({who: Later() for who in ("aki@x", "ren@x", "GM")})

    session = Session(program, 7, people())
    left = dict(ANSWERS)
    while session.run() == "waiting":
        query = session.open_questions()[-1]  # the last asked first: any order goes
        assert session.answer(query.id, left.pop((query.to, query.title))) is None
        if restored:
            data, transcript = session.snapshot(), session.transcript
            session = Session.restore(program, data, participants=people(), transcript=transcript)
            assert not session.step_filled  # the answers are filled in again
        elif query.title.startswith("もう一つ"):
            assert session.step_filled  # plain values: kept as the answer made them
    assert not left
    return session


def test_answers_that_come_later_make_the_same_session(golden: Golden) -> None:
    now, then = at_once(), later()
    # Asked at once, the two heroes' questions are asked before either answers: the same
    # records, in another order.
    records = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in then.transcript.records]
    assert sorted(records) == sorted(
        json.dumps(r, ensure_ascii=False, sort_keys=True) for r in now.transcript.records
    )
    golden("".join(f"{line}\n" for line in records), GOLDEN / "answered_later.jsonl")
    assert sorted((a.query, a.seat, a.title) for a in then.answers) == sorted(
        (a.query, a.seat, a.title) for a in now.answers
    )
    texts = [r["text"] for r in now.transcript.records if r["kind"] == "message"]
    assert "Aki の番 strike /[0] 4 Aki 7[m] 20" in texts  # the values the rule was given
    assert "Aki の番 guard /[0] 4 Aki 7[m] 99" in texts
    assert "Ren sure 2" in texts


def test_a_session_restored_at_each_answer_is_the_same() -> None:
    assert later(restored=True).transcript.records == later().transcript.records


def test_an_answered_question_is_filled_as_the_described_one_would_be() -> None:
    hero = program_of().form_by_name["t.Hero"]
    orc, orc2 = LoreObject(hero, {"name": "Orc"}, 1, "t.orc"), LoreObject(hero, {}, 2, "t.b")
    integer = RuntimeType("prim", "integer")
    spec = LoreObject(
        None,
        {
            "note": "x",
            "foe": InputMarker(RuntimeType("form", "Hero", form=hero)),
            "n": InputMarker(integer, (None,), (1, 2, 3), 1, 2),
            "k": InputMarker(integer, (Range(1, 120), 20)),
            "s": InputMarker(RuntimeType("prim", "string")),
        },
        0,
    )

    def objects(rtype: RuntimeType) -> tuple[Any, ...]:
        assert rtype.form is hero
        return (orc, orc2)

    query = make_query("aki@x", "t", spec, objects)
    assert query.texts == (("note", "x"),)
    for answer in ({"foe": "b", "n": [3, 1], "s": "y"}, {"foe": "Orc", "n": [2], "k": 5, "s": ""}):
        described = fill(query, spec, answer)
        answered = fill_answered("t", spec, answer, objects)
        assert answered.values == described.values
        assert answered.values["foe"] is described.values["foe"]
    assert fill_answered("t", spec, {"foe": "b", "n": [1], "s": "y"}, objects).values["k"] == 20
