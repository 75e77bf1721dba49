"""for loops, typed locals, conditional expressions and dictionaries, as rules run them."""

from __future__ import annotations

from lore.engine.session import Limits
from tests.runtime.programs import gm_messages

PROGRAM = """\
import "basic.lore":url;
section t {
 form Hero {
  name : string;
  hp : integer;
  alter hurt(n : list<integer>) { self.hp := hp - n.sum; }
 }
 aki = { name = "Aki"; hp = 7; }:Hero;
 function asked(h : Hero) : integer {
  GM.message("asked " + h.name);
  result = 1;
 }
 go = { ticks = 0; priority = 0; handler = @{
  total = 0;
  for (i in 1,...,4) { total = total + i; }
  for (i in 0,...<0) { total = 1000; }
  GM.message("total " + total);
  wait : unit[min] = 90[sec];
  GM.message("wait " + wait);
  (1,...,2).foreach(@(i : integer) { GM.message("each " + i); });
  chosen = if (total > 5) aki.name else "n" + asked(aki);
  GM.message("chosen " + chosen);
  other = if (total > 50) asked(aki) else 0;
  GM.message("other " + other);
  scores = dict<string, integer>.empty.put("b", 2).put("a", 1).put("b", 3);
  GM.message("scores " + scores + " " + scores.keys + " " + scores.values);
  GM.message("has " + scores.has("a") + " " + scores.has("z") + " " + scores.getOr("z", -1));
  fewer = scores.remove("b");
  GM.message("fewer " + fewer + " " + fewer.length + " " + scores.length);
  for (e in scores.entries) { GM.message(e.key + "=" + e.value); }
  byHero = dict<Hero, integer>.empty.put(aki, 5);
  GM.message("hero " + byHero.get(aki));
  aki.hurt(if (total > 5) 2 else 1);
 }; }:Event;
 later = { ticks = 1; priority = 0; handler = @{
  GM.message("hp " + aki.hp);
  GM.message("missing " + dict<string, integer>.empty.get("x"));
 }; }:Event;
}
"""


def test_loops_locals_conditionals_and_dictionaries() -> None:
    assert gm_messages(PROGRAM) == [
        "total 10",
        "wait 2[min]",
        "each 1",
        "each 2",
        "chosen Aki",  # the branch not chosen (which asks) does not run
        "other 0",
        "scores {b: 3, a: 1} {b, a} {3, 1}",
        "has true false -1",
        "fewer {a: 1} 1 2",
        "b=3",
        "a=1",
        "hero 5",
        "hp 5",
        "error: the dictionary has no value for x",
    ]


ENDLESS = """\
import "basic.lore":url;
section t {
 go = { ticks = 0; priority = 0; handler = @{
  n = 0;
  for (i in 1,...,1000000000) { n = n + 1; }
  GM.message("n " + n);
 }; }:Event;
}
"""


def test_each_step_of_a_loop_counts_against_the_operations_limit() -> None:
    assert gm_messages(ENDLESS, Limits(max_ops=5_000)) == [
        "error: one handler ran more than 5000 rule calls, list steps and dice"
    ]
