"""A handler ``@{ self.rule; }`` names the compiled rule directly when no form extending
the rule's form overrides it, and looks the rule up on the object's form when one does:
each object runs its own form's rule either way."""

from __future__ import annotations

from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from tests.runtime.programs import gm_messages

PROGRAM = """
import "basic.lore":url;
section t {
 form Base {
  n : integer;
  alter bump(v : list<integer>) { self.n := n + v.length; }
  rule act {
   GM.message("base " + n);
   self.bump(1);
   schedule.add({ ticks = schedule.current + 1[sec]; handler = @{ self.kept; }; }:Event);
  }
  rule kept { GM.message("kept " + n); }
 }
 form Mid extends Base { }
 form Leaf extends Mid { OVERRIDE }
 b = { n = 0; }:Base;
 m = { n = 0; }:Mid;
 l = { n = 0; }:Leaf;
 go = { ticks = 0; priority = 0; handler = @{ b.act; m.act; l.act; }; }:Event;
}
"""


OVERRIDE = 'override rule kept { GM.message("leaf kept " + n); }'


def program(override: str) -> str:
    return PROGRAM.replace("OVERRIDE", override)


def test_an_overridden_rule_runs_the_objects_own() -> None:
    # Base's act schedules self.kept: a Leaf object runs Leaf's kept.
    assert gm_messages(program(OVERRIDE)) == [
        "base 0", "base 0", "base 0", "kept 1", "kept 1", "leaf kept 1",
    ]  # fmt: skip


def test_a_rule_no_form_overrides_is_named_directly() -> None:
    text = program("")
    assert gm_messages(text) == ["base 0", "base 0", "base 0", "kept 1", "kept 1", "kept 1"]
    result = check_text(text, "test.lore")
    compiled = compile_program(result)
    kept = compiled.form_by_name["t.Base"].methods["kept"]
    aliases = [name for name, value in compiled.namespace.items() if name.startswith("_fixed_rule")]
    assert [compiled.namespace[name] for name in aliases] == [kept]


def test_an_override_two_forms_down_keeps_the_look_up() -> None:
    text = program(OVERRIDE)
    compiled = compile_program(check_text(text, "test.lore"))
    assert not any(name.startswith("_fixed_rule") for name in compiled.namespace)
