"""The engine's API for a program that drives sessions (a session server): questions
answered later by id and seat, open questions as plain data, snapshots and restores, and
the digest of the files a program was made from."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest

from lore.engine.participants import Participants
from lore.engine.session import Session
from lore.engine.snapshot import VERSION, SnapshotError
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_paths, check_text
from tests.engine.test_waiting import PROGRAM, Later, kinds, new_session

SEATS = ("aki@example.org", "ren@example.org", "GM")


def later_players() -> Participants:
    return Participants({who: Later() for who in SEATS})


def test_open_questions_are_plain_data() -> None:
    session, _ = new_session()
    assert session.run() == "waiting"
    records = [q.record() for q in session.open_questions()]
    assert json.loads(json.dumps(records)) == records
    assert records[0] == {
        "id": "0/0/0",
        "to": "aki@example.org",
        "title": "どうする？",
        "texts": [],
        "inputs": [
            {
                "name": "move",
                "type": "table.Move",
                "kind": "choice",
                "choices": [
                    {"id": "strike", "caption": "strike"},
                    {"id": "guard", "caption": "guard"},
                ],
            }
        ],
    }
    assert records[1]["id"] == "0/1/0" and records[1]["to"] == "ren@example.org"


def test_an_answer_from_another_seat_is_refused() -> None:
    session, _ = new_session()
    session.run()
    aki, ren = session.open_questions()
    refused = session.answer(aki.id, {"move": "strike"}, seat="ren@example.org")
    assert refused == "question '0/0/0' is asked of aki@example.org, not of ren@example.org"
    assert aki in session.open_questions()  # nothing changed
    assert session.run() == "waiting"
    assert session.answer(ren.id, {"move": "guard"}, seat="ren@example.org") is None
    assert [q.id for q in session.open_questions()] == [aki.id]


@pytest.mark.parametrize("answered", [0, 1, 2])
def test_a_snapshot_at_any_moment_goes_on_exactly(answered: int) -> None:
    """Snapshots while a step waits (no answer, one of two) and after it: the restored
    session makes the same transcript from there on as the session it was taken of."""
    session, _ = new_session()
    session.run()
    aki, ren = session.open_questions()
    moves = [(ren.id, "strike"), (aki.id, "guard")]
    for query_id, move in moves[:answered]:
        assert session.answer(query_id, {"move": move}) is None
        session.run()
    before = len(session.transcript.records)
    restored = Session.restore(session.program, session.snapshot(), participants=later_players())
    assert [q.record() for q in restored.open_questions()] == [
        q.record() for q in session.open_questions()
    ]
    for query_id, move in moves[answered:]:
        for each in (session, restored):
            assert each.answer(query_id, {"move": move}) is None
            each.run()
    assert kinds(restored) == kinds(session)[before:]
    assert restored.answers_before + len(restored.answers) == len(session.answers)


def test_a_seed_past_64_bits_is_kept() -> None:
    result = check_text(PROGRAM, "table.lore")
    session = Session(compile_program(result), 10**40 + 7, later_players())
    session.run()
    restored = Session.restore(session.program, session.snapshot(), participants=later_players())
    assert restored.seed == 10**40 + 7
    assert restored.snapshot() == session.snapshot()


def test_a_snapshot_is_the_same_bytes_again_after_a_restore() -> None:
    session, _ = new_session()
    session.run()
    data = session.snapshot()
    assert session.snapshot() == data  # taking one changes nothing
    restored = Session.restore(session.program, data, participants=later_players())
    assert restored.snapshot() == data


def test_a_value_a_snapshot_cannot_hold_is_named_with_the_object_holding_it() -> None:
    session, _ = new_session()
    session.run()
    session.snapshot()  # (the objects are reached by the first one)
    held = next(obj for obj in session.rt.g if type(obj).__name__ == "LoreObject")
    name = next(iter(held.values))
    held.values[name] = object()
    with pytest.raises(SnapshotError, match=rf"object {re.escape(repr(held))}: cannot save object"):
        session.snapshot()
    nested: list[object] = []
    for _ in range(500):
        nested = [nested]
    held.values[name] = nested
    with pytest.raises(SnapshotError, match="values nested more than 400 deep"):
        session.snapshot()


def test_restore_into_a_program_compiled_again() -> None:
    session, _ = new_session()
    session.run()
    again = compile_program(check_text(PROGRAM, "table.lore"))
    restored = Session.restore(again, session.snapshot(), participants=later_players())
    aki, ren = restored.open_questions()
    restored.answer(ren.id, {"move": "strike"})
    restored.answer(aki.id, {"move": "strike"})
    assert restored.run() == "no-events"
    assert ("message", "GM", "oni hp 14") in kinds(restored)


def test_a_snapshot_of_other_files_is_refused_naming_them() -> None:
    session, _ = new_session()
    session.run()
    edited = compile_program(check_text(PROGRAM.replace("hp = 20", "hp = 30"), "table.lore"))
    with pytest.raises(SnapshotError, match=r"made from other files: table\.lore \(changed\)"):
        Session.restore(edited, session.snapshot())


def test_unknown_versions_and_damaged_snapshots_are_refused() -> None:
    session, _ = new_session()
    session.run()
    decoded = msgspec.msgpack.decode(session.snapshot())
    program = session.program
    newer = msgspec.msgpack.encode({**decoded, "version": VERSION + 1})
    with pytest.raises(SnapshotError, match=f"format version {VERSION + 1}; this Lore reads"):
        Session.restore(program, newer)
    with pytest.raises(SnapshotError, match="not a Lore snapshot"):
        Session.restore(program, b"\x93\x01\x02")
    with pytest.raises(SnapshotError, match="not a Lore snapshot"):
        Session.restore(program, b"")
    renamed = {**decoded, "objects": [["table.Nothing", None, 1, {}, {}]]}
    with pytest.raises(SnapshotError, match=r"has no form 'table\.Nothing'"):
        Session.restore(program, msgspec.msgpack.encode(renamed))
    deep: object = 1
    for _ in range(600):
        deep = [1, deep]
    nested = {**decoded, "session": {**decoded["session"], "ticks": deep}}
    with pytest.raises(SnapshotError, match="damaged"):
        Session.restore(program, msgspec.msgpack.encode(nested))


def test_a_snapshot_is_refused_in_the_middle_of_a_run() -> None:
    session, _ = new_session()
    found: list[str] = []

    class Peeker(Later):
        def tell(self, record: dict[str, object]) -> None:
            try:
                session.snapshot()
            except SnapshotError as error:
                found.append(str(error))

    session.participants.members["GM"] = Peeker()
    session.run()
    assert found == ["a snapshot is taken between run() calls"]


def test_the_digest_names_the_files_a_program_was_made_from(tmp_path: Path) -> None:
    scenario = tmp_path / "game.lore"
    rules = tmp_path / "rules.lore"
    rules.write_text("section rules { limit = 3; }\n", encoding="utf-8")
    scenario.write_text(
        'import "basic.lore":url;\nimport "rules.lore":url;\nsection game { x = rules.limit; }\n',
        encoding="utf-8",
    )
    program = compile_program(check_paths([scenario]))
    names = [name for name, _ in program.files()]
    assert names == ["<lore>/prelude.lore", "game.lore", "<lore>/basic.lore", "rules.lore"]
    digest = program.digest()
    assert compile_program(check_paths([scenario])).digest() == digest
    rules.write_text("section rules { limit = 4; }\n", encoding="utf-8")
    assert compile_program(check_paths([scenario])).digest() != digest
    # Worked out once (every snapshot names them); a file read later still counts, and
    # what a caller does with the list it got changes nothing.
    files = program.files()
    files.clear()
    assert [name for name, _ in program.files()] == names and program.digest() == digest
    program.read_files[tmp_path / "map.xml"] = "<geometry/>"
    assert [name for name, _ in program.files()] == [*names, "map.xml"]
    assert program.digest() != digest


def test_a_session_that_keeps_no_answers_counts_them() -> None:
    """A server's sessions keep no answers (its log has them): they are counted, the
    snapshot says how many were given, and a restore keeping none goes on counting."""
    result = check_text(PROGRAM, "table.lore")
    session = Session(compile_program(result), 7, later_players(), keep_answers=False)
    session.run()
    aki, ren = session.open_questions()
    assert session.answer(ren.id, {"move": "strike"}) is None
    session.run()
    assert session.answers == [] and session.answer_count == 1
    data = session.snapshot()
    kept = Session.restore(session.program, data, participants=later_players())
    assert kept.keep_answers and kept.answers == [] and kept.answer_count == 1
    again = Session.restore(session.program, data, participants=later_players(), keep_answers=False)
    for each in (session, again):
        assert each.answer(aki.id, {"move": "guard"}) is None
        each.run()
        assert each.answers == [] and each.answer_count == 2
        assert len([r for r in each.transcript.records if r["kind"] == "answer"]) >= 1
    assert again.snapshot() == session.snapshot()
