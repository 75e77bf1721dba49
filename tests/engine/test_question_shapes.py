"""Questions of one shape (the same member names) reuse the inputs and choices made the
first time (``queries.Shape``), only when their markers are the same: a spec with the same
names but another input's type, a shown member in an asked one's place, or a run-time list
of choices is made anew. The session is the same as one that makes every question anew.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lore.engine import natives
from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text

PROGRAM = """
import "basic.lore":url;
section t {
 enum Move { strike { caption = "打つ"; } guard { caption = "守る"; } }
 form Hero extends Actor {
  rule turn(round : integer) {
   a = self.query("一 " + round, { x = Move.input; y = "見せる"; });
   b = self.query("二 " + round, { x = boolean.input; y = "見せる"; });
   c = self.query("三 " + round, { x = "見せるだけ"; y = Move.input; });
   e = self.query("四 " + round, { x = integer.choices({round, round + 1}, 1, 1); y = "-"; });
   self.message(a.x + " " + b.x + " " + c.y + " " + e.x.sum);
  }
 }
 aki = { name = "Aki"; player = "aki@x":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 room = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 go = { ticks = 0; priority = 0; handler = @{
  {1, 2, 3}.foreach(@(round : integer) { aki.turn(round); });
 }; }:Event;
}
"""

ANSWERS: list[dict[str, Any]] = [
    {"x": "strike"},
    {"x": True},
    {"y": "guard"},
    {"x": [2]},
    {"x": "guard"},
    {"x": False},
    {"y": "strike"},
    {"x": [3]},
    {"x": "strike"},
    {"x": True},
    {"y": "guard"},
    {"x": [4]},
]


def played() -> tuple[str, list[Any]]:
    result = check_text(PROGRAM, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    program = compile_program(result)
    session = Session(program, 0, Participants({"aki@x": Scripted(list(ANSWERS))}))
    session.run()
    assert not session.errors, [e.message for e in session.errors]
    records = list(session.transcript.records)
    return json.dumps(records, ensure_ascii=False, sort_keys=True, default=str), records


def test_questions_of_one_shape_are_as_made_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    cached, records = played()
    messages = [r["text"] for r in records if r.get("kind") == "message"]
    assert messages == ["strike true guard 2", "guard false strike 3", "strike true guard 4"]
    # Each question offers its own choices, whatever shape came before it.
    offered = [r.get("choices", {}) for r in records if r.get("kind") == "query"]
    assert offered[0] == {"x": ["strike", "guard"]} and offered[1] == {}  # (a yes or no)
    assert offered[2] == {"y": ["strike", "guard"]}
    assert offered[3]["x"] == ["1", "2"] and offered[7]["x"] == ["2", "3"]
    monkeypatch.setattr(natives, "MAX_CACHED_SHAPES", 0)  # every question made anew
    anew, _ = played()
    assert cached == anew
