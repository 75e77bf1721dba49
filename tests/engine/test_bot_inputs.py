"""Bots answer every kind of input a participant can answer (loc.input included), within
the allowed ranges; an input that no one could answer is refused before any session."""

from __future__ import annotations

from lore.engine.participants import Bot, Participant, Participants
from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from tests.runtime.programs import gm_messages

EVERY_INPUT = """\
import "basic.lore":url;
section asked {
 [R] = 5[min];
 enum Stance { attack; defend; }
 place = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 start = { ticks = 0; priority = 0; handler = @{ ask; }; }:Event;
 rule ask {
  a = GM.query("everything", {
   whole = integer.input;
   few = integer.input(1<...<4);
   fraction = real.input(0.25,...,0.5);
   either = number.input;
   yes = boolean.input;
   text = string.input;
   where = loc.input;
   link = url.input;
   who = jid.input;
   when = date.input;
   page = html.input;
   doc = xml.input;
   far = unit[km].input((1[km],...,3[km]), 2);
   long = unit[R].input;
   stance = Stance.input;
   one = integer.choice({3, 5, 7});
   some = string.choices({"a", "b", "c"}, 1, 2);
  });
  ok = a.few > 1 & a.few < 4 & a.fraction >= 0.25 & a.fraction <= 0.5
   & a.far >= 1[km] & a.far <= 3[km] & {3, 5, 7}.contains(a.one) & a.some.length >= 1;
  GM.message("answered " + ok + " " + a.where + " " + a.stance);
  schedule.add({ ticks = schedule.current + 1[R]; priority = 0; handler = @{ ask; }; }:Event);
 }
}
"""


def _bot(who: str) -> Participant:
    return Bot()


def test_bots_answer_every_kind_of_input_within_its_range() -> None:
    result = check_text(EVERY_INPUT, "asked.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    program = compile_program(result)
    for seed in range(20):
        session = Session(program, seed, Participants(default=_bot), Limits(max_steps=5))
        assert session.run() == "stopped", session.errors
        assert session.errors == []
        told = [r["text"] for r in session.transcript.records if r["kind"] == "message"]
        assert len(told) == 5
        assert all(text.startswith("answered true / ") for text in told), told


def test_a_computed_empty_range_is_refused_when_asked() -> None:
    program = """\
import "basic.lore":url;
section t {
 rule ask(top : integer) {
  a = GM.query("q", { n = integer.input(1,...,top); });
 }
 go = { ticks = 0; priority = 0; handler = @{ ask(0); }; }:Event;
}
"""
    assert gm_messages(program) == [
        "error: the allowed range 1,...,0 holds no value: nothing could be answered"
    ]
