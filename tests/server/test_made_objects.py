"""An object a rule makes with a location reaches the views a served session sends: the
master's view key (what tells the table to send views again) changes with it."""

from __future__ import annotations

from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from lore.server.master import Master

DROPS = """\
import "basic.lore":url;
section t {
 room = { location = "/":loc; geometry = [=[<?xml version="1.0"?>
<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="1[m]" type="4">
<line><section terrain="floor"/><section terrain="floor"/></line>
</geometry>]=]:xml; }:Area;
 go = { ticks = 0; priority = 0; handler = @{
  GM.query("drop?", { w = boolean.input; });
  coin = { name = "Coin"; location = "/[1,0]":loc; }:Item;
  schedule.add({ ticks = 1[sec]; priority = 0; handler = @{
   GM.query("again?", { w = boolean.input; });
  }; }:Event);
 }; }:Event;
}
"""


def test_a_made_item_changes_the_view_key_and_is_in_the_view() -> None:
    result = check_text(DROPS, "scenario.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    master = Master(compile_program(result), 1)
    master.start()
    before = master.view_key()
    assert [o["name"] for o in master.view("GM")["objects"]] == []
    (question,) = master.open_questions()
    assert master.answer(question.id, {"w": True}) is None
    assert [q.title for q in master.open_questions()] == ["again?"]
    assert master.view_key() != before
    assert [o["name"] for o in master.view("GM")["objects"]] == ["Coin"]
