"""``self.message(...)``, ``self.query(...)`` and ``GM.message(...)`` go straight to the
engine's rule when nothing in the program can give an object a value or another rule of
that name, and look the member up on the object otherwise: either way each object runs
what it holds."""

from __future__ import annotations

from typing import Any

import pytest

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import NATIVE_NAMES, Compiler, compile_program
from lore.semantics.check import check_text
from tests.runtime.programs import gm_messages

PROGRAM = """
import "basic.lore":url;
section t {
 form Hero extends Actor {
  n : integer;
  FORM
  rule act {
   self.message("told " + n);
   GM.message("gm " + n);
  }
 }
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; n = 1; OBJECT }:Hero;
 go = { ticks = 0; priority = 0; handler = @{ aki.act; }; }:Event;
}
"""

OWN = 'message = @(text : string) { GM.message("own " + text); };'


def told(form: str = "", obj: str = "") -> tuple[list[str], list[str]]:
    """What the GM and Aki's player are told by ``PROGRAM`` with these members."""
    text = PROGRAM.replace("FORM", form).replace("OBJECT", obj)
    result = check_text(text, "test.lore")
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    gm, aki = Scripted([]), Scripted([])
    session = Session(compile_program(result), 0, Participants({"GM": gm, "aki@example.org": aki}))
    session.run()
    return [str(r["text"]) for r in gm.told], [str(r["text"]) for r in aki.told]


def looked_up(form: str = "", obj: str = "") -> list[tuple[str, str]]:
    """The members of objects ``PROGRAM``'s rules looked up to call them
    (``field_callee``)."""
    text = PROGRAM.replace("FORM", form).replace("OBJECT", obj)
    compiled = compile_program(check_text(text, "test.lore"))
    calls: list[tuple[str, str]] = []
    look_up = compiled.namespace["_field_callee"]

    def counted(target: Any, name: str) -> Any:
        calls.append((target.label, name))
        return look_up(target, name)

    compiled.namespace["_field_callee"] = counted
    Session(compiled, 0, Participants({"GM": Scripted([])})).run()
    return calls


def test_the_engines_message_runs_when_nothing_else_can() -> None:
    assert told() == (["gm 1"], ["told 1"])


@pytest.mark.parametrize(("form", "obj"), [("", OWN), (OWN, "")])
def test_a_message_an_object_or_its_form_gives_runs(form: str, obj: str) -> None:
    assert told(form, obj) == (["own told 1", "gm 1"], [])


def test_no_look_up_unless_something_can_answer_instead() -> None:
    assert looked_up() == []
    # Aki's message, the GM's in it and the GM's in the rule. (A form that gives the
    # member a value declares it anew: its rules read it as the form's own member.)
    gm = [("GM", "message"), ("GM", "message")]
    assert sorted(looked_up(obj=OWN)) == [*gm, ("t.aki", "message")]
    assert looked_up(OWN) == gm


def test_the_prelude_gives_none_of_them_a_value() -> None:
    # (What lets the compiler leave the prelude out when it looks for them.)
    result = check_text(PROGRAM.replace("FORM", "").replace("OBJECT", ""), "test.lore")
    compiler = Compiler(result)
    prelude = result.program.prelude
    assert prelude.is_prelude
    found = compiler.members_written(prelude.tree, declared=False)
    assert not found & NATIVE_NAMES
    assert compiler.written_names() == set()


def test_a_question_described_with_a_message_is_no_object_giving_one() -> None:
    result = check_text(
        'import "basic.lore":url;\nsection t { x = { message = "hi"; n = 1; }; }', "test.lore"
    )
    assert Compiler(result).written_names() == set()
    named = check_text(
        PROGRAM.replace("FORM", "").replace("OBJECT", "message = @(t : string) { };"),
        "test.lore",
    )
    assert Compiler(named).written_names() == {"message"}


def test_gm_messages_unchanged() -> None:
    text = (
        'import "basic.lore":url;\nsection t { go = { ticks = 0; priority = 0; handler = @{'
        ' GM.message("a"); GM.message("b"); }; }:Event; }'
    )
    assert gm_messages(text) == ["a", "b"]
