"""A rule that ends the session after an answer ends it online as ``lore run`` does: with
its outcome, and nothing asked after it (the end was lost: the session went on to later
events, or ended "no-events" with no outcome)."""

from __future__ import annotations

import time
from pathlib import Path

from lore.clients.seat import SeatClient, acknowledged
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from lore.server.master import Master
from tests.server.serving import ServerThread, links

DECIDES = """\
import "basic.lore":url;
section t {
 go = { ticks = 0; priority = 0; handler = @{
  a = GM.query("win?", { w = boolean.input; });
  if (a.w) { system.end("won"); }
 }; }:Event;
}
"""
LATER = (
    ' more = { ticks = 5; priority = 0; handler = @{ GM.query("more", { w = boolean.input; }); };'
    " }:Event;\n"
)


def master_of(text: str, resumable: bool) -> Master:
    result = check_text(text, "scenario.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    return Master(compile_program(result), 1, resumable=resumable)


def test_an_end_after_an_answer_ends_the_session_before_later_events() -> None:
    for resumable in (True, False):
        master = master_of(DECIDES[:-2] + LATER + "}\n", resumable)
        master.start()
        (question,) = master.open_questions()
        assert master.answer(question.id, {"w": True}) is None
        assert master.open_questions() == []
        end = master.records(0)[-1]
        assert end == {"tick": 0, "kind": "end", "reason": "ended", "outcome": "won"}, end


def test_an_end_after_an_answer_ends_the_session_online(tmp_path: Path) -> None:
    folder = tmp_path / "decides"
    folder.mkdir()
    (folder / "scenario.lore").write_text(DECIDES, encoding="utf-8")
    with ServerThread(tmp_path, examples=[folder]) as server:
        seats = links(server.create("decides"), server.base)
        gm = SeatClient(seats["GM"])
        gm.connect()
        deadline = time.monotonic() + 20
        while not gm.state.questions:
            gm.pump(0.02)
            assert time.monotonic() < deadline, "no question"
        (query_id,) = gm.state.questions
        assert acknowledged(gm.answer(query_id, {"w": True})) is not None
        while gm.state.status.get("ended") is None:
            gm.pump(0.02)
            assert time.monotonic() < deadline, "no end"
        assert gm.state.status["ended"] == "ended"
