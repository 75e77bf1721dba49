"""The update of a step whose alters are all plain and modify one member each (run by
``Session.plain_round``): each alter reads the state as the step began, the later of two
writes to one member stands, a failing alter leaves nothing written, an alter overridden
by one that is not plain is run as itself, and every program gives the transcript it gives
through the general ``Session.rounds``."""

from __future__ import annotations

import pytest

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text


def session_of(text: str) -> Session:
    result = check_text(text, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    return Session(compile_program(result), 3, Participants({"GM": Scripted([])}))


def messages(session: Session) -> list[str]:
    return [r["text"] for r in session.transcript.records if r["kind"] == "message"]


PROGRAM = """
import "basic.lore":url;
section t {
 form Box {
  x : integer;
  y : integer;
  items : list<integer>;
  alter setX(v : list<integer>) { self.x := y + v.sum; }
  alter setY(v : list<integer>) { self.y := x + v.sum; }
  alter zero(v : list<integer>) { self.x := 0; }
  alter take(v : list<integer>) { self.x := items.get1st; }
  alter roll(v : list<integer>) { self.y := 1D100.roll; }
 }
 form Odd extends Box {
  override alter setX(v : list<integer>) { self.x := 1000 + 1D6.roll; }
 }
 a = { x = 1; y = 2; items = {}; }:Box;
 b = { x = 10; y = 20; items = {7}; }:Box;
 c = { x = 100; y = 200; items = {}; }:Odd;
 start = { ticks = 0; priority = 0; handler = @{ FIRST }; }:Event;
 other = { ticks = 0; priority = 0; handler = @{ SECOND }; }:Event;
 after = { ticks = 1; priority = 0; handler = @{
  GM.message(a.x + "/" + a.y + " " + b.x + "/" + b.y + " " + c.x + "/" + c.y);
 }; }:Event;
}
"""

CASES = {
    # Both read the state as the step began: a swap through the old values.
    "swap": ("a.setX(0); a.setY(0);", "b.setX(1);"),
    # One member written by two alters: the one requested later stands.
    "later stands": ("a.setX(5); a.zero(0);", "a.setX(1);"),
    "earlier first": ("a.zero(0); a.setX(5);", "b.zero(0);"),
    # An alter that is not plain in the round: all run as rounds runs them.
    "mixed": ("a.setX(1); b.roll(0);", "a.setY(2);"),
    # An alter overridden by one that rolls: the override runs.
    "override": ("c.setX(1); a.setX(1);", "b.setY(3);"),
    # A plain alter that fails: the step is dropped, nothing of it written.
    "failing": ("b.zero(0); a.take(0);", "b.setY(1);"),
    "taking": ("b.take(0); a.setX(2);", "b.zero(1);"),
}


def program(case: str) -> str:
    first, second = CASES[case]
    return PROGRAM.replace("FIRST", first).replace("SECOND", second)


def run(case: str, plain: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    with monkeypatch.context() as patch:
        if not plain:
            patch.setattr(Session, "plain_round", lambda self, requests: False)
        session = session_of(program(case))
        session.run()
    return messages(session), [e.message for e in session.errors]


def test_alters_read_the_state_as_the_step_began(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run("swap", True, monkeypatch) == (["2/1 21/20 100/200"], [])


def test_the_later_write_of_one_member_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run("later stands", True, monkeypatch)[0] == ["0/2 10/20 100/200"]
    assert run("earlier first", True, monkeypatch)[0] == ["7/2 0/20 100/200"]


def test_a_failing_plain_alter_drops_the_whole_step(monkeypatch: pytest.MonkeyPatch) -> None:
    shown, errors = run("failing", True, monkeypatch)
    assert shown == ["1/2 10/20 100/200"]  # b.zero and b.setY were not written
    assert len(errors) == 1


def test_an_override_that_is_not_plain_runs_as_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    shown, errors = run("override", True, monkeypatch)
    assert not errors
    assert int(shown[0].split()[2].split("/")[0]) in range(1001, 1007)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_as_through_rounds(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run(case, True, monkeypatch) == run(case, False, monkeypatch)


def test_the_round_is_taken_by_plain_round(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []
    original = Session.plain_round

    def spy(self: Session, requests: dict[object, object]) -> bool:
        taken.append(original(self, requests))  # type: ignore[arg-type]
        return taken[-1]

    monkeypatch.setattr(Session, "plain_round", spy)
    session_of(program("swap")).run()
    assert taken == [True]
    taken.clear()
    session_of(program("mixed")).run()
    assert taken == [False]
