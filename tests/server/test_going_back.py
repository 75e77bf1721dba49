"""Going back on the server: a ``back`` log entry takes back the seat's answer before an
open question (the paper's 移動する, from the route question), is refused as ``no_back``
when it cannot be, replays from the log, is kept in a save; the session log reads answers
by their questions' titles and the captions chosen."""

from __future__ import annotations

import json
from typing import Any

from lore.engine.saves import Answer
from lore.runtime.compiler import compile_program
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.protocol import Code
from lore.server.saving import logged_answer
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table
from tests.server.serving import PAPER

CHIHIRO = "Chihiro_Shiiji@xmpp.xgmtk.org"
SEATS = [(CHIHIRO, "Chihiro")]


def new_table() -> Table:
    program = compile_program(checked(PAPER, "scenario.lore"))
    return Table(Master(program, 0), SEATS, "digest")


def apply(table: Table, kind: str, data: dict[str, Any]) -> Refusal | dict[str, bytes]:
    return table.apply(LogEntry(table.applied + 1, kind, data))


def only(table: Table) -> Any:
    (question,) = table.master.open_questions()
    return question


def frames_of(outcome: Refusal | dict[str, bytes], seat: str) -> dict[str, Any]:
    assert not isinstance(outcome, Refusal), outcome
    return json.loads(outcome[seat])


def test_a_seat_goes_back_from_the_route_to_what_to_do() -> None:
    table = new_table()
    table.start()
    first = only(table)
    spec = table.streams[CHIHIRO].open[first.id]
    assert "back" not in spec  # the step's first question: nothing to go back to
    refused = apply(table, "back", {"seat": CHIHIRO, "id": first.id})
    assert isinstance(refused, Refusal) and refused.code is Code.NO_BACK
    assert "no earlier answer" in refused.message
    apply(table, "answer", {"seat": CHIHIRO, "id": first.id, "values": {"action": "move"}})
    route = only(table)
    assert route.purpose == "route"
    assert table.streams[CHIHIRO].open[route.id]["back"] is True
    update = frames_of(apply(table, "back", {"seat": CHIHIRO, "id": route.id}), CHIHIRO)
    assert update["closed"] == [route.id]
    assert [q["id"] for q in update["opened"]] == [first.id]
    assert update["messages"] == [
        {"kind": "back", "tick": 0, "from": CHIHIRO, "title": "どうしますか？"}
    ]
    again = only(table)
    assert (again.id, again.title) == (first.id, "どうしますか？")
    apply(table, "answer", {"seat": CHIHIRO, "id": again.id, "values": {"action": "search"}})
    assert only(table).title == "どうしますか？"
    # The session log: the answers by their titles and captions, the back between them.
    records = table.master.transcript.records
    answers = [(r.get("title"), r.get("shown")) for r in records if r["kind"] == "answer"]
    assert answers == [
        ("どうしますか？", [{"caption": None, "value": "移動する"}]),
        ("どうしますか？", [{"caption": None, "value": "探す"}]),
    ]
    assert [r["kind"] for r in records].count("back") == 1


def test_a_back_is_a_log_entry_replayed_and_saved() -> None:
    entries: list[LogEntry] = []
    table = new_table()
    table.start()

    def give(kind: str, data: dict[str, Any]) -> None:
        entry = LogEntry(table.applied + 1, kind, data)
        assert not isinstance(table.apply(entry), Refusal)
        entries.append(entry)

    give("answer", {"seat": CHIHIRO, "id": only(table).id, "values": {"action": "move"}})
    give("back", {"seat": CHIHIRO, "id": only(table).id})
    give("answer", {"seat": CHIHIRO, "id": only(table).id, "values": {"action": "sleep"}})
    again = new_table()
    again.start()
    for entry in entries:
        replayed = LogEntry(entry.index, entry.kind, dict(entry.data))
        assert not isinstance(again.apply(replayed), Refusal)
    assert again.master.transcript.records == table.master.transcript.records
    assert again.snapshot(CHIHIRO) == table.snapshot(CHIHIRO)
    saved = [logged_answer(entry) for entry in entries]
    assert saved[1] == Answer(CHIHIRO, {}, saved[1].query, "route in region", back=True)


def test_a_player_goes_back_only_at_its_own_questions_and_not_while_paused() -> None:
    table = new_table()
    table.start()
    apply(table, "answer", {"seat": CHIHIRO, "id": only(table).id, "values": {"action": "sleep"}})
    hours = only(table)
    assert hours.title == "何時間寝ますか？"
    apply(table, "pause", {"from": "GM"})
    paused = apply(table, "back", {"seat": CHIHIRO, "id": hours.id})
    assert isinstance(paused, Refusal) and paused.code is Code.PAUSED
    apply(table, "resume", {"from": "GM"})
    other = apply(table, "back", {"seat": "someone@example.org", "id": hours.id})
    assert isinstance(other, Refusal) and other.code is Code.NO_BACK
    # The GM may, for the player.
    assert not isinstance(apply(table, "back", {"seat": "GM", "id": hours.id}), Refusal)
    assert only(table).title == "どうしますか？"
