"""The table on the wire: a sheet's lines reach only the seats that may read them (the
owner's lines the owner and the GM, the GM's the GM alone), an actor hidden from a seat
has no sheet there and no place in its tracker's order, and the sheets follow the
alters as answers apply them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lore.clients.seat import SeatClient, acknowledged
from lore.engine.views import GM
from lore.runtime.compiler import compile_program
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table
from tests.server.serving import ServerThread, links

AKI, BEN = "aki@example.org", "ben@example.org"

SCENARIO = """
import "basic.lore":url;
section t {
 form Hero extends Actor {
  secrets : list<Secret>;
  hp : integer; maxHp : integer; plan : string; plot : string = "PLOTgmonly";
  rule turn(n : integer) {
   self.query("hurt?", { ok = boolean.input; });
   self.hurt(1);
   fight.setCurrent({self});
   if (n < 3) {
    schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;
     handler = @{ self.turn(n + 1); }; }:Event);
   }
  }
  alter hurt(amounts : list<integer>) { self.hp := hp - amounts.sum; }
 }
 aki = { name = "Aki"; player = "aki@example.org":jid; hp = 8; maxHp = 8;
  plan = "PLANakiown"; }:Hero;
 ben = { name = "Ben"; player = "ben@example.org":jid; hp = 6; maxHp = 6;
  plan = "PLANbenown"; }:Hero;
 ghost = { name = "GHOSTname"; hp = 1; maxHp = 1; plan = "PLANghost";
  secrets = { { key = "never"; mode = Secret.Mode.hide; }:Secret }; }:Hero;
 sheet = { of = "Hero"; sections = { { label = "Hero"; entries = {
  { member = "hp"; label = "HP"; max = "maxHp"; shown = SheetEntry.Shown.everyone; }:SheetEntry,
  { member = "plan"; label = "Plan"; }:SheetEntry,
  { member = "plot"; label = "Plot"; shown = SheetEntry.Shown.gm; }:SheetEntry
 }; }:SheetSection }; }:Sheet;
 fight = { label = "Fight"; }:Tracker;
 start = { ticks = 0; priority = 0; handler = @{
  fight.setRound(1); fight.setOrder({ghost, aki, ben});
  aki.turn(1); ben.turn(1);
 }; }:Event;
}
"""


def tables(raw: list[str]) -> list[dict[str, Any]]:
    """The seat's table after each frame that changed it, in order (an update sends the
    parts that changed)."""
    found: list[dict[str, Any]] = []
    for frame in map(json.loads, raw):
        view = frame.get("view") or {}
        if "table" in view:
            found.append({**(found[-1] if found else {}), **view["table"]})
    return found


def hp_of(table: dict[str, Any], actor: str) -> int:
    (sheet,) = [s for s in table["sheets"] if s["id"] == actor]
    (entry,) = [e for s in sheet["sections"] for e in s["entries"] if e["member"] == "hp"]
    value: int = entry["value"]
    return value


def test_a_sheet_line_reaches_only_the_seats_that_may_read_it(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "scenario.lore").write_text(SCENARIO, encoding="utf-8")
    with ServerThread(tmp_path, examples=[folder]) as server:
        seats = links(server.create("t"), server.base)
        gm = SeatClient(seats.pop("GM"))
        gm.connect()
        clients = {seat: SeatClient(link) for seat, link in seats.items()}
        for client in clients.values():
            client.connect()
        answered = 0
        while answered < 6:
            for client in clients.values():
                client.pump(0.02)
                for query_id in list(client.state.questions):
                    assert acknowledged(client.answer(query_id, {"ok": True})) is not None
                    answered += 1
        for client in [*clients.values(), gm]:
            client.pump(0.1)
        for seat, client in clients.items():
            text = "\n".join(client.raw)
            own, other = (
                ("PLANakiown", "PLANbenown") if seat == AKI else ("PLANbenown", "PLANakiown")
            )
            assert own in text  # (the check below is not vacuous)
            for secret in (other, "PLOTgmonly", "GHOSTname", "PLANghost", "t.ghost"):
                assert secret not in text, f"{seat} was sent {secret}"
            sent = tables(client.raw)
            assert len(sent) >= 3  # the first table, then one as each hurt applied
            last = sent[-1]
            assert [a["id"] for a in last["trackers"][0]["order"]] == ["t.aki", "t.ben"]
            assert hp_of(last, "t.aki") == 5 and hp_of(last, "t.ben") == 3
            assert hp_of(sent[0], "t.aki") == 8
        gm_text = "\n".join(gm.raw)
        assert all(m in gm_text for m in ("PLOTgmonly", "GHOSTname", "PLANakiown", "PLANbenown"))


PLANS = """
section t {
 form Hero extends Actor {
  hp : integer; plan : string = "none"; steps : integer = 0;
  alter planned(plans : list<string>) { self.plan := plans.get1st; }
  alter walk(by : list<integer>) { self.steps := steps + by.sum; }
 }
 aki = { name = "Aki"; player = "aki@example.org":jid; hp = 8; }:Hero;
 ben = { name = "Ben"; player = "ben@example.org":jid; hp = 6; }:Hero;
 sheet = { of = "Hero"; sections = { { label = "Hero"; entries = {
  { member = "hp"; label = "HP"; shown = SheetEntry.Shown.everyone; }:SheetEntry,
  { member = "plan"; label = "Plan"; }:SheetEntry
 }; }:SheetSection }; }:Sheet;
 rule turn {
  picked = aki.query("what?", { move = integer.input; });
  if (picked.move == 1) { aki.planned("hide"); } else { aki.walk(1); }
  schedule.then(@{ turn; });
 }
 start = { ticks = 0; priority = 0; handler = @{ turn; }; }:Event;
}
"""


def test_only_the_seats_whose_table_changed_are_sent_it(tmp_path: Path) -> None:
    """Aki's plan (a line for its owner and the GM) changes: Aki's seat and the GM's are
    sent the sheets, Ben's nothing; Aki's steps (on no sheet) change: no seat is sent a
    table, and the table's key stays the same."""
    (tmp_path / "scenario.lore").write_text(PLANS, encoding="utf-8")
    program = compile_program(checked(tmp_path, "scenario.lore"))
    table = Table(Master(program, 1), [(AKI, "Aki"), (BEN, "Ben")], "digest")
    table.start()

    def answer(move: int) -> dict[str, Any]:
        question = table.master.open_questions()[0]
        data = {"seat": AKI, "id": question.id, "values": {"move": move}}
        outcome = table.apply(LogEntry(table.applied + 1, "answer", data))
        assert not isinstance(outcome, Refusal), outcome
        return {seat: json.loads(frame) for seat, frame in outcome.items()}

    planned = answer(1)
    assert BEN not in planned
    for seat in (AKI, GM):
        (mine,) = [s for s in planned[seat]["view"]["table"]["sheets"] if s["id"] == "t.aki"]
        assert mine["sections"][0]["entries"][1]["value"] == "hide"
    key = table.master.table_key()
    walked = answer(2)
    assert BEN not in walked and table.master.table_key() == key
    assert all("table" not in frame.get("view", {}) for frame in walked.values())
