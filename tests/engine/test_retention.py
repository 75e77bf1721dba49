"""A session keeps nothing it no longer needs: altered objects nothing holds are freed."""

from __future__ import annotations

import gc

from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.runtime.values import LoreObject
from lore.semantics.check import check_text
from lore.syntax.diagnostics import has_errors

PROGRAM = """\
import "basic.lore":url;
section churn {
 form Thing {
  hp : integer;
  alter hurt(amounts : list<integer>) { self.hp := hp - amounts.sum; }
 }
 kept = { hp = 100; }:Thing;
 rule tick {
  thing = { hp = 10; }:Thing;
  thing.hurt(1);
  kept.hurt(1);
  schedule.add({ ticks = schedule.current + 1[sec]; priority = 0; handler = @{ tick; }; }:Event);
 }
 start = { ticks = 0; priority = 0; handler = @{ tick; }; }:Event;
}
"""


def live_things() -> int:
    gc.collect()
    return sum(
        1
        for obj in gc.get_objects()
        if isinstance(obj, LoreObject) and obj.form is not None and obj.form.name == "churn.Thing"
    )


def test_objects_altered_then_dropped_are_freed() -> None:
    result = check_text(PROGRAM, "churn.lore")
    assert not has_errors(result.diagnostics)
    before = live_things()
    session = Session(compile_program(result), 0, limits=Limits(max_steps=300))
    assert session.run() == "stopped"
    assert session.steps == 300
    # `kept`, and the last step's thing if the runtime still holds it: not 300 things.
    assert live_things() - before <= 2
    # What a save shows of the changed objects: the one still held, with its members.
    changed = session.changed()
    kept = next(obj for obj, _ in changed if obj.label == "churn.kept")
    assert dict(changed)[kept] == {"hp": 100 - 300}
