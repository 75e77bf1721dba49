"""A compiled program is a value shared by any number of sessions.

Sessions made from one program run apart: nothing one does is seen by another, and
nothing any of them does changes the program (its forms' rules and tables stay as they
were once the program was prepared for its first session).
"""

from __future__ import annotations

import threading
from typing import Any

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Limits, Session
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.runtime.values import EnumValue, LoreObject
from lore.semantics.check import check_text
from lore.syntax.diagnostics import has_errors

PROGRAM = """\
import "basic.lore":url;
section arena {
 form Fighter extends Actor {
  hp : integer;
  foe : Fighter;
  rule act {
   roll = 1D6.roll;
   self.hurt(roll);
   GM.message(name + " has " + hp);
   schedule.add({
    ticks = schedule.current + 1[min]; priority = 0; handler = @{ self.act; };
   }:Event);
  }
  alter hurt(amounts : list<integer>) {
   self.hp := hp - amounts.sum;
  }
 }
 ann = { name = "Ann"; hp = 30; }:Fighter;
 bob = { name = "Bob"; hp = 20; foe = ann; }:Fighter;
 go = { ticks = 0; priority = 0; handler = @{ ann.act; bob.act; }; }:Event;
}
"""


def program() -> CompiledProgram:
    result = check_text(PROGRAM, "arena.lore")
    assert not has_errors(result.diagnostics), [d.render() for d in result.diagnostics]
    return compile_program(result)


def session(compiled: CompiledProgram, seed: int, steps: int) -> Session:
    made = Session(compiled, seed, Participants({"GM": Scripted([])}), Limits(max_steps=steps))
    made.run()
    assert not made.errors
    return made


def shape(compiled: CompiledProgram) -> dict[str, Any]:
    """What sessions must not change: each form's rules and rule table (by identity)."""
    return {
        form.name: (
            {name: id(fn) for name, fn in form.methods.items()},
            {name: id(fn) for name, fn in form.vtable.items()},
            dict(form.alters),
        )
        for form in compiled.forms.values()
    }


def reachable(root: Any) -> set[int]:
    """The ids of the mutable things reachable from ``root`` (objects, lists, dicts)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, EnumValue):
            continue  # a program's enum values are shared, and never change
        if isinstance(item, LoreObject):
            if id(item) in seen:
                continue
            seen.add(id(item))
            seen.add(id(item.values))
            stack.extend(item.values.values())
        elif isinstance(item, list | dict):
            if id(item) in seen:
                continue
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
        elif isinstance(item, tuple):
            stack.extend(item)
    return seen


def state_of(made: Session) -> set[int]:
    rt = made.rt
    return reachable([rt.g, rt.GM, rt.schedule, rt.system])


def named(made: Session, label: str) -> LoreObject:
    return next(v for v in made.rt.g if isinstance(v, LoreObject) and v.label == label)


def test_sessions_of_one_program_share_no_mutable_state() -> None:
    compiled = program()
    first = session(compiled, 1, 5)
    prepared = compiled.engine
    before = shape(compiled)
    second = session(compiled, 2, 0)  # started: values made, first event waiting
    third = session(compiled, 3, 5)
    assert compiled.engine is prepared
    assert shape(compiled) == before
    assert not state_of(first) & state_of(second)
    assert not state_of(first) & state_of(third)
    assert named(second, "arena.ann").values["hp"] == 30  # the others' alters did not reach it
    assert named(first, "arena.ann").values["hp"] < 30
    # A session's object is never another's: bob's foe is its own session's ann.
    assert named(first, "arena.bob").values["foe"] is named(first, "arena.ann")


def test_same_seed_same_run_whatever_ran_before() -> None:
    compiled = program()
    alone = session(program(), 4, 6).transcript.lines()
    session(compiled, 9, 6)
    assert session(compiled, 4, 6).transcript.lines() == alone


def test_a_program_is_prepared_once_when_sessions_start_at_once() -> None:
    compiled = program()
    found: list[object] = []
    errors: list[BaseException] = []

    def make() -> None:
        try:
            made = Session(compiled, 0)
            found.append(made.program.engine)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len({id(engine) for engine in found}) == 1
