"""What each seat's log is told: a message the rules send to several seats reaches the
GM once, an answer the GM gave for a seat says so, the seats an actor moves between are
told, a roll keeps its comment, and the whole log comes back after a reload, a page at a
time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lore.clients.seat import SeatClient, acknowledged
from lore.runtime.compiler import compile_program
from lore.server import table as table_module
from lore.server.bundles import checked
from lore.server.connection import Limits
from lore.server.master import Master
from lore.server.protocol import encode
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table
from tests.server.serving import ServerThread, links

AKI, REN = "aki@example.org", "ren@example.org"
SCENARIO = """import "basic.lore":url;
section s {
 enum Move {
  go { caption = "進む"; }
  stay { caption = "待つ"; }
 }
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Actor;
 ren = { name = "Ren"; player = "ren@example.org":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Actor;
 place = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 go = { ticks = 0; priority = 0; handler = @{
  GM.message("戦闘開始");
  system.messagePlayers("戦闘開始");
  aki.message("待て");
  aki.message("待て");
  ren.message("待て");
  answer = aki.query("どうする？", { move = Move.input; });
  aki.message("決まった");
 }; }:Event;
}
"""


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    folder = tmp_path / "told"
    folder.mkdir()
    (folder / "scenario.lore").write_text(SCENARIO, encoding="utf-8")
    return folder


def new_table(folder: Path) -> Table:
    program = compile_program(checked(folder, "scenario.lore"))
    return Table(Master(program, 1), [(AKI, "Aki"), (REN, "Ren")], "digest")


def messages(frame: bytes) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(frame).get("messages", [])
    return found


def apply(table: Table, kind: str, data: dict[str, Any]) -> dict[str, bytes]:
    outcome = table.apply(LogEntry(table.applied + 1, kind, data))
    assert not isinstance(outcome, Refusal), outcome
    return outcome


def test_a_message_to_every_seat_reaches_the_gm_once(scenario: Path) -> None:
    """The rules' broadcast (the GM and each player's seat told the same line) is one
    line of the GM's, naming the other seats; a line told the same seat twice stays two."""
    started = new_table(scenario).start()
    gm = [(m["to"], m.get("also"), m["text"]) for m in messages(started["GM"])]
    assert gm == [
        ("GM", [AKI, REN], "戦闘開始"),
        (AKI, None, "待て"),
        (AKI, [REN], "待て"),
    ]
    aki = [(m["to"], m["text"]) for m in messages(started[AKI])]
    assert aki == [(AKI, "戦闘開始"), (AKI, "待て"), (AKI, "待て")]
    assert all("also" not in m for m in messages(started[AKI]) + messages(started[REN]))


def test_an_answer_the_gm_gave_for_a_seat_says_so(scenario: Path) -> None:
    table = new_table(scenario)
    table.start()
    question = table.master.open_questions()[0]
    frames = apply(table, "answer", {"seat": "GM", "id": question.id, "values": {"move": "go"}})
    answered = {
        "kind": "answer",
        "tick": 0,
        "from": AKI,
        "values": {"move": "go"},
        "shown": [{"caption": None, "value": "進む"}],
        "by": "GM",
        "question": "どうする？",  # (the question answered, for the log and its export)
    }
    for seat in ("GM", AKI):
        [answer, _] = messages(frames[seat])
        assert answer == answered


def test_an_answer_a_seat_gave_itself_is_not_by_the_gm(scenario: Path) -> None:
    table = new_table(scenario)
    table.start()
    question = table.master.open_questions()[0]
    frames = apply(table, "answer", {"seat": AKI, "id": question.id, "values": {"move": "go"}})
    assert "by" not in messages(frames[AKI])[0] and "by" not in messages(frames["GM"])[0]


def test_the_seats_an_actor_moves_between_are_told(scenario: Path) -> None:
    table = new_table(scenario)
    table.start()
    frames = apply(table, "assign", {"from": "GM", "actor": "s.aki", "seat": REN})
    told = {"kind": "assign", "tick": 0, "actor": "s.aki", "name": "Aki", "from": AKI, "to": REN}
    for seat in ("GM", AKI, REN):
        assert messages(frames[seat]) == [told]


def test_a_rolls_comment_goes_with_it_but_not_to_those_a_secret_roll_is_hidden_from(
    scenario: Path,
) -> None:
    table = new_table(scenario)
    table.start()
    roll = {"from": AKI, "to": None, "text": "(1D100<=50) ＞ 42 ＞ 成功", "comment": "鍵開け"}
    frames = apply(table, "roll", roll)
    assert all(messages(frames[seat])[0]["comment"] == "鍵開け" for seat in ("GM", AKI, REN))
    frames = apply(table, "roll", roll | {"secret": True})
    assert messages(frames["GM"])[0]["comment"] == "鍵開け"
    assert "comment" not in messages(frames[REN])[0]


def test_the_whole_log_comes_back_a_page_at_a_time(
    scenario: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot holds the last ``KEPT_MESSAGES`` messages and numbers its first; the
    earlier ones come in pages of at most ``HISTORY_PAGE`` bytes, and the snapshot of a
    restored table numbers them the same."""
    monkeypatch.setattr(table_module, "HISTORY_PAGE", 2000)
    table = new_table(scenario)
    told = messages(table.start()[REN])
    for n in range(400):
        frames = apply(table, "chat", {"from": "GM", "to": None, "text": f"line {n}"})
        told.extend(messages(frames[REN]))
    snapshot = json.loads(table.snapshot(REN))
    first = snapshot["first"]
    assert first == len(told) - table_module.KEPT_MESSAGES and snapshot["messages"] == told[first:]
    pages = []
    while first > 0:
        page = json.loads(table.history(REN, first, 7))
        assert page["type"] == "history" and page["ref"] == 7 and page["first"] < first
        sizes = [
            len(json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode())
            for m in page["messages"]
        ]
        assert sum(sizes) <= 2000
        assert page["first"] == 0 or sum(sizes) + 100 > 2000  # (full: each is under 100)
        pages.insert(0, page["messages"])
        first = page["first"]
    assert len(pages) > 2
    assert [m for page in pages for m in page] + snapshot["messages"] == told
    restored = Table.restore(table.snapshot_state(), table.master.program, "digest")
    assert json.loads(restored.snapshot(REN)) == snapshot
    assert restored.history(REN, 50) == table.history(REN, 50)


def test_a_reloaded_page_asks_for_the_earlier_lines_over_the_socket(scenario: Path) -> None:
    """The history request: answered with the seat's own messages (a whisper to another
    seat is not among them), and refused when it is not a number."""
    fast = Limits(rate=10_000, burst=10_000)
    with ServerThread(scenario.parent, examples=[scenario], limits=fast) as server:
        seats = links(server.create("told"), server.base)
        gm, ren = SeatClient(seats["GM"]), SeatClient(seats[REN])
        gm.connect()
        ren.connect()
        for n in range(table_module.KEPT_MESSAGES + 5):
            to = AKI if n == 2 else None
            assert acknowledged(gm.request({"type": "chat", "text": f"line {n}", "to": to}))
        ren.close()
        ren = SeatClient(seats[REN])
        ren.connect()
        snapshot = ren.wait_for(lambda frame: frame["type"] == "snapshot")
        assert snapshot["first"] == 6  # its two rule messages, and four lines before
        page = ren.request({"type": "history", "before": snapshot["first"]})
        assert page["first"] == 0
        assert [m["text"] for m in page["messages"]] == [
            "戦闘開始",
            "待て",
            "line 0",
            "line 1",
            "line 3",
            "line 4",
        ]
        ren.send({"type": "history", "before": "x"})
        refused = ren.wait_for(lambda frame: frame["type"] == "error")
        assert refused["type"] == "error" and refused["code"] == "malformed"


def test_a_snapshot_holds_each_message_once(scenario: Path) -> None:
    """A chat line told every seat is one message in the table's snapshot, and the
    restored streams share it again."""
    table = new_table(scenario)
    table.start()
    for n in range(50):
        apply(table, "chat", {"from": "GM", "to": None, "text": f"line {n}"})
    state = table.snapshot_state()
    assert state.count(b"line 7") == 1
    restored = Table.restore(state, table.master.program, "digest")
    for seat, stream in table.streams.items():
        assert encode(restored.streams[seat].messages) == encode(stream.messages)
    assert restored.streams[AKI].messages[-1] is restored.streams["GM"].messages[-1]
