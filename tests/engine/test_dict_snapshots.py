"""A snapshot holds the language's dictionaries, keyed by objects too: restored, the
session goes on with the same dictionary (the same objects as keys, in their order)."""

from __future__ import annotations

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from tests.engine.harness import compiled

HEROES = """
import "basic.lore":url;
section t {
 form Hero { name : string; marks : dict<Hero, integer>; }
 cat = { name = "Cat"; marks = dict<Hero, integer>.empty; }:Hero;
 aki = { name = "Aki"; marks = dict<Hero, integer>.empty; }:Hero;
 ben = { name = "Ben"; marks = dict<Hero, integer>.empty.put(cat, 1).put(aki, 3); }:Hero;
 go = { ticks = 0; priority = 0; handler = @{
  a = GM.query("w", { w = string.input; });
  GM.message(a.w + " " + ben.marks.get(aki) + " " + ben.marks.keys.map(@(h : Hero) h.name));
 }; }:Event;
}
"""


def test_a_dictionary_keyed_by_objects_is_restored() -> None:
    program = compiled(HEROES)
    session = Session(program, 1, Participants({"GM": Scripted([])}))
    session.run()
    data = session.snapshot()
    restored = Session.restore(program, data, participants=Participants({"GM": Scripted([])}))
    assert restored.snapshot() == data
    answering = Session.restore(
        program, data, participants=Participants({"GM": Scripted([{"w": "x"}])})
    )
    answering.reopen()
    answering.run()
    told = [r["text"] for r in answering.transcript.records if r["kind"] == "message"]
    assert told == ["x 3 {Cat, Aki}"]
