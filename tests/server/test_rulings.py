"""The GM's value rulings at the table: a member of a sheet set over the rules, checked as
an answer is (refused with the reason, and nothing changed, when it does not fit), told as
a ruling to the seats that may read the line (or to the GM alone when secret), applied
while a question waits, and replayed from the log exactly."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lore.runtime.compiler import compile_program
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.protocol import Code
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table
from tests.server.serving import EXAMPLES

RIN, GORO = "rin@example.org", "goro@example.org"
SEATS = [(RIN, "リン"), (GORO, "ゴロウ")]
GHOUL = "orm.clearing.ghoulA"


def orm_table(seed: int = 1) -> Table:
    program = compile_program(checked(EXAMPLES / "orm", "scenario.lore"))
    table = Table(Master(program, seed), SEATS, "digest")
    table.start()
    return table


def ruling(
    table: Table, obj: str, member: str, value: Any, secret: bool = False
) -> Refusal | dict[str, bytes]:
    data = {"from": "GM", "object": obj, "member": member, "value": value, "secret": secret}
    return table.apply(LogEntry(table.applied + 1, "ruling", data))


def sheet_line(table: Table, seat: str, obj: str, member: str) -> Any:
    view = json.loads(table.snapshot(seat))["view"]
    for sheet in view["table"]["sheets"]:
        if sheet["id"] == obj:
            for section in sheet["sections"]:
                for entry in section["entries"]:
                    if entry["member"] == member:
                        return entry["value"]
    return None


def rulings_told(frames: dict[str, bytes], seat: str) -> list[dict[str, Any]]:
    frame = frames.get(seat)
    if frame is None:
        return []
    return [m for m in json.loads(frame).get("messages", ()) if m.get("kind") == "ruling"]


def test_the_gm_lowers_an_enemys_hp_and_the_table_is_told() -> None:
    table = orm_table()
    asked = [q.id for q in table.master.open_questions()]
    frames = ruling(table, GHOUL, "hp", 5)
    assert not isinstance(frames, Refusal), frames
    assert sheet_line(table, "GM", GHOUL, "hp") == 5
    (told,) = rulings_told(frames, "GM")
    assert told["object"] == GHOUL and told["before"] == 12 and told["after"] == 5
    assert told["from"] == "GM" and told["label"] == "HP"
    # The question that waited still waits, for the same seat.
    assert [q.id for q in table.master.open_questions()] == asked


def test_a_secret_ruling_reaches_the_gm_alone() -> None:
    table = orm_table()
    frames = ruling(table, "orm.clearing.rin", "mp", 3, secret=True)
    assert not isinstance(frames, Refusal), frames
    assert rulings_told(frames, "GM") and not rulings_told(frames, RIN)
    assert b'"ruling"' not in frames.get(RIN, b"") and b'"ruling"' not in frames.get(GORO, b"")
    # (Rin's own sheet still shows the new value: the ruling is secret, her MP is not.)
    assert sheet_line(table, RIN, "orm.clearing.rin", "mp") == 3


def test_an_open_ruling_on_a_pc_reaches_its_player() -> None:
    table = orm_table()
    frames = ruling(table, "orm.clearing.rin", "mp", 4)
    assert not isinstance(frames, Refusal), frames
    (told,) = rulings_told(frames, RIN)
    assert told["after"] == 4 and told["name"] == "リン"


@pytest.mark.parametrize(
    ("obj", "member", "value", "said"),
    [
        (GHOUL, "hp", "five", "'hp' is an integer, not 'five'"),
        (GHOUL, "hp", 99, "at most 12, not 99"),
        (GHOUL, "hp", 2.5, "'hp' is an integer, not 2.5"),
        ("orm.clearing.nobody", "hp", 1, "no object with a sheet is 'orm.clearing.nobody'"),
        (GHOUL, "gold", 1, "shows no 'gold'"),
    ],
)
def test_a_ruling_that_does_not_fit_is_refused_and_changes_nothing(
    obj: str, member: str, value: Any, said: str
) -> None:
    table = orm_table()
    before = table.master.snapshot()
    applied = table.applied
    refused = ruling(table, obj, member, value)
    assert isinstance(refused, Refusal) and refused.code == Code.BAD_RULING
    assert said in refused.message
    assert table.master.snapshot() == before and table.applied == applied


def test_rulings_replay_from_the_log_and_from_a_snapshot() -> None:
    table = orm_table()
    entries = []

    def apply(kind: str, data: dict[str, Any]) -> None:
        entry = LogEntry(table.applied + 1, kind, data)
        assert not isinstance(table.apply(entry), Refusal)
        entries.append(entry)

    apply("ruling", {"from": "GM", "object": GHOUL, "member": "hp", "value": 4, "secret": False})
    question = table.master.open_questions()[0]
    values = {i.name: i.default_answer() or (i.choices or ("",))[0] for i in question.inputs}
    apply("answer", {"seat": question.to, "id": question.id, "values": values})
    snapshot = table.master.snapshot()
    again = orm_table()
    for entry in entries:
        copy = LogEntry(entry.index, entry.kind, dict(entry.data))
        assert not isinstance(again.apply(copy), Refusal)
    assert again.master.snapshot() == snapshot
    restored = Master.restore(table.master.program, snapshot, None, (0, 0))
    assert restored.snapshot() == snapshot
    ghoul = restored.session.changed()
    assert any(obj.label == GHOUL and values.get("hp") == 4 for obj, values in ghoul)


def test_with_every_roll_ruled_the_gm_sets_a_checks_faces_and_the_player_sees_it() -> None:
    table = orm_table(5)  # (the seed the sample's answers are for)
    answers = json.loads((EXAMPLES / "orm" / "answers.json").read_text(encoding="utf-8"))
    setting = {"from": "GM", "every": True}
    frames = table.apply(LogEntry(table.applied + 1, "rule_rolls", setting))
    assert not isinstance(frames, Refusal)
    assert json.loads(table.snapshot("GM"))["status"].get("ruleRolls") is True
    # The players answer until a check's dice come to the GM to rule on.
    for _ in range(40):
        questions = table.master.open_questions()
        ruling_asked = [q for q in questions if q.purpose == "ruling"]
        if ruling_asked:
            break
        question = questions[0]
        values = answers[question.to].pop(0)
        data = {"seat": question.to, "id": question.id, "values": values}
        assert not isinstance(table.apply(LogEntry(table.applied + 1, "answer", data)), Refusal)
    else:
        raise AssertionError("no check was ruled on")
    asked = ruling_asked[0]
    assert asked.to == "GM"
    dice = [i for i in asked.inputs if i.name.startswith("die")]
    values: dict[str, Any] = {"ruling": "faces", **{d.name: 6 for d in dice}}
    data = {"seat": "GM", "id": asked.id, "values": values}
    frames = table.apply(LogEntry(table.applied + 1, "answer", data))
    assert not isinstance(frames, Refusal), frames
    cards = [
        m
        for seat in (RIN, GORO)
        for m in json.loads(frames.get(seat, b"{}")).get("messages", ())
        if m.get("kind") == "roll" and m.get("ruling") == "faces"
    ]
    assert cards and all(d["face"] == 6 for d in cards[0]["dice"])
