"""An alter's apply: the variant of a simple alter that writes what it modifies itself,
which the engine runs for a step's one alter. It must do exactly what the alter and the
update do: read before it writes, hand back its modifications when it requests an
alter, apply nothing when it goes wrong, and go with its alter when a form overrides it."""

from __future__ import annotations

from typing import Any

from lore.engine.session import Session
from lore.runtime.compiler import CompiledProgram
from tests.engine.harness import compiled, messages

HERO = """
import "basic.lore":url;
section t {
 form Hero extends Actor {
  a : integer;
  b : integer;
  ALTERS
 }
 form Knight extends Hero {
  KNIGHT
 }
 hero = { name = "Aki"; a = 1; b = 2; }:Hero;
 knight = { name = "Ben"; a = 1; b = 2; }:Knight;
 go = { ticks = 0; priority = 0; handler = @{ HANDLER }; }:Event;
 after = { ticks = 1; priority = 0; handler = @{
  GM.message("" + hero.a + " " + hero.b + " " + knight.a + " " + knight.b);
 }; }:Event;
}
"""
SWAP = "alter swap(xs : list<integer>) { self.a := b + xs.sum; self.b := a; }"
BUMP = "alter bump(xs : list<integer>) { self.b := b + 10; }"


def program(alters: str, handler: str, knight: str = "") -> CompiledProgram:
    text = HERO.replace("ALTERS", alters).replace("KNIGHT", knight)
    return compiled(text.replace("HANDLER", handler))


def form(compiled_program: CompiledProgram, name: str) -> Any:
    found = compiled_program.form_by_name[f"t.{name}"]
    found.resolve()
    return found


def run(compiled_program: CompiledProgram, applies: bool = True) -> Session:
    session = Session(compiled_program, 1)
    if not applies:  # the alters alone, as every step of several events runs them
        for info in compiled_program.form_by_name.values():
            info.resolve()
            info.apply_table = {}
            info.plain_table = {}
    session.run()
    return session


def test_a_simple_alter_reads_every_member_before_it_writes() -> None:
    compiled_program = program(SWAP, "hero.swap(5);")
    assert "swap" in form(compiled_program, "Hero").apply_table
    session = run(compiled_program)
    assert not session.errors
    assert messages(session) == ["7 1 1 2"]  # a = old b + 5, b = old a
    assert run(program(SWAP, "hero.swap(5);"), applies=False).transcript.records == (
        session.transcript.records
    )


def test_an_alter_that_modifies_under_a_condition_or_moves_has_none() -> None:
    maybe = "alter maybe(xs : list<integer>) { if (a > 0) { self.b := 9; } }"
    moves = 'alter move(xs : list<integer>) { self.location := "/[0]":loc; }'
    compiled_program = program(f"{maybe}\n{moves}\n{SWAP}", "hero.maybe(1);")
    table = form(compiled_program, "Hero").apply_table
    assert "maybe" not in table and "move" not in table and "swap" in table
    assert messages(run(compiled_program)) == ["1 9 1 2"]


def test_an_apply_that_requests_an_alter_runs_it_in_a_further_round() -> None:
    chain = "alter swap(xs : list<integer>) { self.a := b + xs.sum; self.bump(1); }"
    compiled_program = program(f"{chain}\n{BUMP}", "hero.swap(5);")
    assert "swap" in form(compiled_program, "Hero").apply_table
    session = run(compiled_program)
    assert not session.errors
    assert messages(session) == ["7 12 1 2"]


def test_an_apply_goes_with_its_alter_when_a_form_overrides_it() -> None:
    override = "override alter swap(xs : list<integer>) { if (a > 0) { self.a := 100; } }"
    compiled_program = program(SWAP, "hero.swap(5); knight.swap(5);", override)
    assert "swap" in form(compiled_program, "Hero").apply_table
    assert "swap" not in form(compiled_program, "Knight").apply_table
    assert "swap" not in form(compiled_program, "Knight").plain_table
    assert messages(run(compiled_program)) == ["7 1 100 2"]


def test_an_alter_inherited_keeps_its_apply() -> None:
    compiled_program = program(SWAP, "knight.swap(5);")
    assert "swap" in form(compiled_program, "Knight").apply_table
    assert "swap" in form(compiled_program, "Knight").plain_table
    assert messages(run(compiled_program)) == ["1 2 7 1"]


def test_an_apply_that_goes_wrong_changes_nothing_and_names_its_place() -> None:
    broken = "alter swap(xs : list<integer>) { self.b := 0; self.a := a / (b - 2); }"
    compiled_program = program(broken, "hero.swap(5);")
    assert "swap" in form(compiled_program, "Hero").apply_table
    session = run(compiled_program)
    assert [error.message for error in session.errors] == ["division by zero"]
    where = session.errors[0].location()
    column = "  ".join(("", broken)).index("a / (b - 2)") + 1
    assert where == f"test.lore:7:{column}"  # the division, in the alter
    assert messages(session) == ["1 2 1 2"]  # b was not set to 0
    plain = run(program(broken, "hero.swap(5);"), applies=False)
    assert [error.location() for error in plain.errors] == [where]


def test_the_one_alter_of_a_step_of_several_events_runs_as_its_apply() -> None:
    both = "hero.swap(5); }; }:Event; more = { ticks = 0; priority = 0; handler = @{ hero.swap(1);"
    compiled_program = program(SWAP, both)
    session = run(compiled_program)
    assert not session.errors
    # One step of two events: swap runs once, with both values (5 + 1).
    assert messages(session) == ["8 1 1 2"]
    assert run(program(SWAP, both), applies=False).transcript.records == (
        session.transcript.records
    )


def test_an_alter_the_engine_replaces_leaves_its_apply_behind() -> None:
    # The prelude's addKnownSecret is simple, but the engine runs a native rule of its own
    # in its place (each key kept once): the prelude's apply must not run instead.
    compiled_program = program(SWAP, "hero.swap(5);")
    Session(compiled_program, 1)  # installs the native rules
    actor = compiled_program.form_by_name["Actor"]
    assert "addKnownSecret" in actor.vtable
    assert "addKnownSecret" not in actor.apply_table
    assert "addKnownSecret" not in actor.plain_table
    assert "addKnownSecret" not in form(compiled_program, "Hero").apply_table


def test_an_apply_that_uses_nothing_of_the_runtime_is_plain() -> None:
    # Plain: it needs no place in the step (no dice, calls, questions or requests), so the
    # engine runs it without one; the others run in the alter's place, as the alter does.
    dice = "alter toss(xs : list<integer>) { self.a := a + 1D6.roll + xs.sum; }"
    chain = "alter chain(xs : list<integer>) { self.b := b + 1; self.bump(1); }"
    compiled_program = program(f"{SWAP}\n{dice}\n{chain}\n{BUMP}", "hero.toss(1);")
    hero = form(compiled_program, "Hero")
    ours = {"swap", "toss", "chain", "bump"}
    assert ours <= set(hero.apply_table)
    assert ours & set(hero.plain_table) == {"swap", "bump"}
    for handler in ("hero.toss(1);", "hero.chain(1);", "hero.swap(2); knight.bump(3);"):
        session = run(program(f"{SWAP}\n{dice}\n{chain}\n{BUMP}", handler))
        assert not session.errors
        alone = run(program(f"{SWAP}\n{dice}\n{chain}\n{BUMP}", handler), applies=False)
        assert alone.transcript.records == session.transcript.records


def test_a_plain_apply_whose_body_only_reads_writes_nothing_else() -> None:
    reads = "alter look(xs : list<integer>) { n = a + xs.sum; }"
    compiled_program = program(f"{reads}\n{SWAP}", "hero.look(1);")
    assert "look" in form(compiled_program, "Hero").plain_table
    session = run(compiled_program)
    assert not session.errors
    assert messages(session) == ["1 2 1 2"]
