"""Objects that rules make with a location are on the map, as the program's values are:
``system.itemsAt`` finds them, the views show them (hidden ones only to who may know of
them), ``Item.input`` offers them, a snapshot keeps them, and ``system.remove`` takes
them off."""

from __future__ import annotations

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.engine.views import GM, view
from tests.engine.harness import compiled

DROPS = """
import "basic.lore":url;
section t {
 form Hero extends Actor { }
 room = { location = "/":loc; geometry = [=[<?xml version="1.0"?>
<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="1[m]" type="4">
<line><section terrain="floor"/><section terrain="floor"/></line>
</geometry>]=]:xml; }:Area;
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0,0]":loc;
  knownSecrets = list<string>.empty; }:Hero;
 rule say(what : string) {
  GM.message(what + ": " + system.itemsAt("/[1,0]":loc).map(@(i : Item) i.name));
 }
 drop = { ticks = 0; priority = 0; handler = @{
  coin = { name = "Coin"; location = "/[1,0]":loc; }:Item;
  ghost = { name = "Ghost"; location = "/[1,0]":loc;
   secrets = { { key = "dead"; mode = Secret.Mode.hide; }:Secret }; }:Item;
  say("made");
  schedule.add({ ticks = 1[sec]; priority = 0; handler = @{ say("later"); }; }:Event);
  schedule.add({ ticks = 2[sec]; priority = 0; handler = @{
   a = aki.query("pick", { item = Item.input; });
   GM.message("picked " + a.item.name);
   system.remove(a.item);
  }; }:Event);
  schedule.add({ ticks = 3[sec]; priority = 0; handler = @{ say("after"); }; }:Event);
 }; }:Event;
}
"""


def messages(session: Session) -> list[str]:
    return [str(r["text"]) for r in session.transcript.records if r["kind"] == "message"]


def test_an_item_a_rule_makes_is_on_the_map() -> None:
    program = compiled(DROPS)
    session = Session(
        program, 1, Participants({"GM": Scripted([]), "aki@example.org": Scripted([])})
    )
    session.run()  # (it waits for Aki's pick)
    # (The step that makes them sees none yet: they join the map with its update.)
    assert messages(session) == ["made: {}", "later: {Coin, Ghost}"]
    names = lambda seen: sorted(o["name"] for o in seen["objects"])  # noqa: E731
    assert names(view(session, GM, messages=False)) == ["Coin", "Ghost"]
    assert names(view(session, "aki@example.org", messages=False)) == ["Coin"]
    query = next(r for r in session.transcript.records if r["kind"] == "query")
    assert query["choices"] == {"item": ["Coin"]}  # (Ghost is hidden from Aki)
    data = session.snapshot()
    again = Session.restore(
        program,
        data,
        participants=Participants(
            {"GM": Scripted([]), "aki@example.org": Scripted([{"item": "Coin"}])}
        ),
    )
    again.reopen()
    again.run()
    assert messages(again) == ["picked Coin", "after: {Ghost}"]
