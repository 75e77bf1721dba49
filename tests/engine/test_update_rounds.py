"""The update phase and the queue: alters that request alters, two alters writing one
member, secrets learnt twice, one Event under two names, and a foreach whose answers
come later rolling the dice of the scripted run."""

from __future__ import annotations

from typing import Any

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from tests.engine.test_waiting import Later


def session_of(text: str, **participants: Any) -> Session:
    result = check_text(text, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    members = {"GM": Scripted([]), **participants}
    return Session(compile_program(result), 3, Participants(members))


def messages(session: Session) -> list[str]:
    return [r["text"] for r in session.transcript.records if r["kind"] == "message"]


ROUNDS = """
import "basic.lore":url;
section t {
 form Hero extends Actor {
  hp : integer;
  alter hurt(amounts : list<integer>) {
   self.hp := hp - amounts.sum;
   if (hp - amounts.sum <= 0) { self.fall(true); self.addKnownSecret("death"); }
  }
  alter fall(values : list<boolean>) { self.name := name + " (fallen)"; }
 }
 hero = { name = "Aki"; location = "/[0]":loc; hp = 3; knownSecrets = {"map"}; }:Hero;
 start = { ticks = 0; priority = 0; handler = @{ hero.hurt(2); hero.hurt(2); }; }:Event;
 after = { ticks = 1; priority = 0; handler = @{
  GM.message(hero.name + " " + hero.hp + " " + hero.knownSecrets.length);
 }; }:Event;
}
"""


def test_an_alter_requesting_alters_runs_them_in_a_further_round() -> None:
    session = session_of(ROUNDS)
    assert session.run() == "no-events"
    assert messages(session) == ["Aki (fallen) -1 2"]  # fell, and learnt "death"
    assert not session.errors


def test_alters_requesting_each_other_forever_are_stopped_and_undone() -> None:
    text = ROUNDS.replace(
        'alter fall(values : list<boolean>) { self.name := name + " (fallen)"; }',
        'alter fall(values : list<boolean>) { self.name := name + "!"; self.fall(true); }',
    )
    result = check_text(text, "t.lore")
    session = Session(
        compile_program(result),
        3,
        Participants({"GM": Scripted([])}),
        Limits(max_alter_rounds=5),
    )
    session.run()
    assert [e.message for e in session.errors] == [
        "alters kept requesting alters for more than 5 rounds of one update"
    ]
    # The whole step was dropped: the first rounds' changes too.
    assert messages(session) == ["Aki 3 1"]


TWO_WRITERS = """
import "basic.lore":url;
section t {
 form Box {
  n : integer;
  alter first(values : list<integer>) { self.n := 1; }
  alter second(values : list<integer>) { self.n := 2; }
 }
 box = { n = 0; }:Box;
 start = { ticks = 0; priority = 0; handler = @{
  box.second(0); box.first(0); box.second(0);
 }; }:Event;
 after = { ticks = 1; priority = 0; handler = @{ GM.message("n " + box.n); }; }:Event;
}
"""


def test_two_alters_writing_one_member_apply_in_the_order_of_their_first_request() -> None:
    session = session_of(TWO_WRITERS)
    session.run()
    assert messages(session) == ["n 1"]  # second was requested first, first later: it stands


SECRETS = """
import "basic.lore":url;
section t {
 hero = { name = "Aki"; location = "/[0]":loc; knownSecrets = {"map"}; }:Actor;
 start = { ticks = 0; priority = 0; handler = @{
  hero.addKnownSecret("door"); hero.addKnownSecret("map"); hero.addKnownSecret("door");
 }; }:Event;
 again = { ticks = 1; priority = 0; handler = @{ hero.addKnownSecret("door"); }; }:Event;
 after = { ticks = 2; priority = 0; handler = @{
  hero.knownSecrets.foreach(@(key : string) { GM.message(key); });
 }; }:Event;
}
"""


def test_a_secret_learnt_twice_is_known_once() -> None:
    session = session_of(SECRETS)
    session.run()
    assert messages(session) == ["map", "door"]


def test_one_event_under_two_names_runs_once() -> None:
    text = """
import "basic.lore":url;
section t {
 a = { ticks = 0; priority = 0; handler = @{ GM.message("once"); }; }:Event;
 b = a;
}
"""
    session = session_of(text)
    session.run()
    assert messages(session) == ["once"]


PAPER_SAVE = """
import "basic.lore":url;
section game {
 rule tick { GM.message("tick at " + schedule.current); }
}
section _auto_stored {
 schedule = {
  ticks = 100[sec];
  priority = 0;
  events = {
   { ticks = 50[sec]; priority = 0; handler = @{ GM.message("history"); }; }:Event,
   { ticks = 200[sec]; priority = 0; handler = @{
    GM.message("now " + schedule.current);
    schedule.add({
     ticks = schedule.current + 10[sec]; priority = 0; handler = @{ game.tick; };
    }:Event);
   }; }:Event
  };
 }:Schedule;
}
"""


def test_a_stored_schedule_does_not_shadow_the_live_clock() -> None:
    session = session_of(PAPER_SAVE)
    assert session.run() == "no-events"
    assert not session.errors, [e.message for e in session.errors]
    assert messages(session) == ["now 200[sec]", "tick at 210[sec]"]


FOREACH = """
import "basic.lore":url;
section t {
 form Hero extends Actor {
  rule turn {
   before = 1D100.roll;
   a = self.query("構え", { n = integer.input; });
   self.message(name + " " + before + " " + 1D100.roll + " " + a.n);
  }
 }
 aki = { name = "Aki"; player = "aki@x.org":jid; location = "/[0]":loc; }:Hero;
 ren = { name = "Ren"; player = "ren@x.org":jid; location = "/[0]":loc; }:Hero;
 start = { ticks = 0; priority = 0; handler = @{
  GM.message("first " + 1D100.roll);
  system.allPC.foreach(@(actor : Actor) {
   select (actor) { as (h : Hero) { h.turn; } default {} }
  });
  GM.message("last " + 1D100.roll);
 }; }:Event;
}
"""


def test_a_foreach_whose_answers_come_later_rolls_the_scripted_dice() -> None:
    scripted = session_of(
        FOREACH, **{"aki@x.org": Scripted([{"n": 1}]), "ren@x.org": Scripted([{"n": 2}])}
    )
    scripted.run()
    later = session_of(FOREACH, **{"aki@x.org": Later(), "ren@x.org": Later()})
    assert later.run() == "waiting"
    aki, ren = later.open_questions()
    later.answer(ren.id, {"n": 2})  # in the other order
    later.run()
    later.answer(aki.id, {"n": 1})
    later.run()
    assert sorted(messages(later)) == sorted(messages(scripted))
    assert messages(later)[0] == messages(scripted)[0]
    assert messages(later)[-1] == messages(scripted)[-1]  # the handler's stream is its own


ORDER = """
import "basic.lore":url;
section t {
 form Box {
  v : integer;
  ma : integer;
  mb : integer;
  rule poke(other : Box) {
   self.setA(1);
   other.setB(2);
   self.setB(5);
   self.setA(3);
  }
  alter setA(xs : list<integer>) { self.v := 10 + xs.sum; self.ma := xs.length; }
  alter setB(xs : list<integer>) { self.v := 20 + xs.sum; self.mb := xs.length; }
 }
 a = { v = 0; ma = 0; mb = 0; }:Box;
 b = { v = 0; ma = 0; mb = 0; }:Box;
 one = { ticks = 0; priority = 0; handler = @{ a.poke(b); }; }:Event;
 SECOND
 after = { ticks = 1; priority = 0; handler = @{
  GM.message(a.v + "/" + a.ma + "/" + a.mb + " " + b.v + "/" + b.ma + "/" + b.mb);
 }; }:Event;
}
"""


def test_requests_group_by_alter_in_the_order_of_their_first_request() -> None:
    # A step of one event: its first request waits alone, then joins the others' map.
    # setA (first requested) runs with [1, 3], then setB with [5]: setB's v stands.
    session = session_of(ORDER.replace("SECOND", ""))
    assert session.run() == "no-events"
    assert messages(session) == ["25/2/1 22/0/1"]
    assert not session.errors


def test_a_step_of_two_events_groups_their_requests_alike() -> None:
    # The second handler's requests join the first's groups: a gets [1, 3, 1, 3] and
    # [5, 5], b gets [2, 2]; the order of first requests is a.setA, b.setB, a.setB.
    second = "two = { ticks = 0; priority = 0; handler = @{ a.poke(b); }; }:Event;"
    session = session_of(ORDER.replace("SECOND", second))
    assert session.run() == "no-events"
    assert messages(session) == ["30/4/2 24/0/2"]
    assert not session.errors
