"""The table: the same log entries give the same streams, byte for byte (which is how a
restored session's clients go on), and catching up falls back to a snapshot."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from lore.runtime.compiler import compile_program
from lore.server import table as table_module
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table
from tests.server.serving import EXAMPLES

SEATS = [("aki@example.org", "Aki"), ("ren@example.org", "Ren"), ("sora@example.org", "Sora")]


def new_table(seed: int = 5) -> Table:
    program = compile_program(checked(EXAMPLES / "round", "scenario.lore"))
    return Table(Master(program, seed), SEATS, "digest")


def play(table: Table, turns: int) -> list[dict[str, bytes]]:
    frames = [table.start()]
    for turn in range(turns):
        question = table.master.open_questions()[0]
        move = "roll" if turn % 3 else "rest"
        data = {"seat": question.to, "id": question.id, "values": {"move": move}}
        outcome = table.apply(LogEntry(table.applied + 1, "answer", data))
        assert not isinstance(outcome, Refusal)
        frames.append(outcome)
        if turn == 4:
            roll: dict[str, Any] = {"from": "GM", "to": None, "secret": True}
            roll["text"] = "(2D6) > [1,1] > 2"
            outcome = table.apply(LogEntry(table.applied + 1, "roll", roll))
            assert not isinstance(outcome, Refusal)
            frames.append(outcome)
    return frames


def test_the_same_entries_give_the_same_streams() -> None:
    assert play(new_table(), 12) == play(new_table(), 12)
    assert play(new_table(5), 12) != play(new_table(6), 12)  # the dice differ


def test_a_secret_roll_reaches_the_gm_alone() -> None:
    table = new_table()
    frames = play(table, 6)
    roll = frames[6]
    gm = json.loads(roll["GM"])["messages"][0]
    aki = json.loads(roll["aki@example.org"])["messages"][0]
    assert gm["text"] == "(2D6) > [1,1] > 2" and gm["secret"] is True
    assert aki == {"kind": "roll", "tick": gm["tick"], "from": "GM", "secret": True}


def test_catching_up_gives_the_missed_updates_or_a_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = new_table()
    play(table, 9)
    stream = table.streams["aki@example.org"]
    last = stream.seq
    assert table.catch_up("aki@example.org", last) == []
    missed = table.catch_up("aki@example.org", last - 2)
    assert [json.loads(f)["seq"] for f in missed] == [last - 1, last]
    assert json.loads(table.catch_up("aki@example.org", None)[0])["type"] == "snapshot"
    assert json.loads(table.catch_up("aki@example.org", last + 5)[0])["type"] == "snapshot"
    monkeypatch.setattr(table_module, "HISTORY_BYTES", 1)
    play_more = table.master.open_questions()[0]
    table.apply(
        LogEntry(
            table.applied + 1,
            "answer",
            {"seat": play_more.to, "id": play_more.id, "values": {"move": "rest"}},
        )
    )
    (only,) = table.catch_up("aki@example.org", 1)  # no longer kept: a snapshot
    assert json.loads(only)["type"] == "snapshot"


def test_updates_kept_for_catching_up_are_the_newest_within_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Trimmed in batches, the updates kept still give a client what trimming each update
    at once would: those after its last within ``HISTORY_BYTES``, else a snapshot."""
    seat = "aki@example.org"
    monkeypatch.setattr(table_module, "HISTORY_BYTES", 1500)
    monkeypatch.setattr(table_module, "HISTORY_SLACK", 2000)
    trimmed = new_table()
    play(trimmed, 60)
    assert 0 < trimmed.streams[seat].history_bytes <= 1500 + 2000
    monkeypatch.setattr(table_module, "HISTORY_SLACK", 10**6)  # (none dropped)
    table = new_table()
    made = [frames[seat] for frames in play(table, 60) if seat in frames]
    assert len(table.streams[seat].history) == len(made)
    kept: list[tuple[int, bytes]] = []  # trimmed at once: the newest within the bound
    size = 0
    for frame in reversed(made):
        size += len(frame)
        if size > 1500 and kept:
            break
        kept.insert(0, (json.loads(frame)["seq"], frame))
    assert 1 < len(kept) < len(made) / 2
    for last in range(1, table.streams[seat].seq):
        found = table.catch_up(seat, last)
        missed = [frame for seq, frame in kept if seq > last]
        if kept[0][0] <= last + 1 and sum(map(len, missed)) < len(table.snapshot(seat)):
            assert found == missed
        else:
            assert [json.loads(f)["type"] for f in found] == ["snapshot"]


def test_refused_entries_change_nothing() -> None:
    table = new_table()
    table.start()
    question = table.master.open_questions()[0]
    before = (table.applied, {s: t.seq for s, t in table.streams.items()})
    wrong = [
        {"seat": "ren@example.org", "id": question.id, "values": {"move": "roll"}},
        {"seat": question.to, "id": "9/9/9", "values": {}},
        {"seat": question.to, "id": question.id, "values": {"move": "fly"}},
    ]
    codes = [table.apply(LogEntry(1, "answer", data)) for data in wrong]
    assert [c.code.value for c in codes if isinstance(c, Refusal)] == [
        "unknown_question",
        "unknown_question",
        "bad_answer",
    ]
    assert (table.applied, {s: t.seq for s, t in table.streams.items()}) == before


def test_seats_nobody_listens_to_keep_their_numbers_but_get_no_updates() -> None:
    everyone, some = new_table(), new_table()
    everyone.start()
    some.start()
    some.listening = {"aki@example.org"}
    heard = {"aki@example.org"}
    for turn in range(6):
        made = []
        for table in (everyone, some):
            question = table.master.open_questions()[0]
            data = {"seat": question.to, "id": question.id, "values": {"move": "roll"}}
            outcome = table.apply(LogEntry(table.applied + 1, "answer", data))
            assert not isinstance(outcome, Refusal)
            made.append(outcome)
        assert made[1] == {s: f for s, f in made[0].items() if s in heard}
        if turn == 2:
            heard.add("GM")
            some.listen("GM")  # a client came: the GM's updates are made from now on
            assert json.loads(some.catch_up("GM", 1)[0])["type"] == "snapshot"
    assert {s: t.seq for s, t in some.streams.items()} == {
        s: t.seq for s, t in everyone.streams.items()
    }
    # The GM's updates made since it was listened to are there to catch up with.
    seq = some.streams["GM"].seq
    assert some.catch_up("GM", seq - 3) == everyone.catch_up("GM", seq - 3)
    assert some.snapshot("ren@example.org") == everyone.snapshot("ren@example.org")


def test_a_resumable_session_gives_the_streams_of_one_that_runs_steps_again() -> None:
    """The server's sessions keep a step waiting where it asked; the frames are those of a
    session that runs the step again with its answers, also when the GM reassigns an
    actor while a step waits (which drops the kept step: it runs again)."""
    program = compile_program(checked(EXAMPLES / "round", "scenario.lore"))
    streams = []
    for resumable in (True, False):
        table = Table(Master(program, 7, resumable=resumable), SEATS, "digest")
        frames = [table.start()]
        session = table.master.session
        for turn in range(9):
            if turn in (3, 6):
                kept = session.worker is not None and session.worker.kept is not None
                assert kept == resumable
                label = table.master.actors()[turn % 3].label
                seat = "GM" if turn == 3 else "ren@example.org"
                assign = {"from": "GM", "actor": label, "seat": seat}
                outcome = table.apply(LogEntry(table.applied + 1, "assign", assign))
                assert not isinstance(outcome, Refusal), outcome
                frames.append(outcome)
                assert session.worker is None or session.worker.kept is None
            question = table.master.open_questions()[0]
            data = {"seat": question.to, "id": question.id, "values": {"move": "roll"}}
            outcome = table.apply(LogEntry(table.applied + 1, "answer", data))
            assert not isinstance(outcome, Refusal), outcome
            frames.append(outcome)
        frames.append({"snapshot": table.master.snapshot()})
        streams.append(frames)
    resumed, again = streams
    assert resumed == again


@pytest.mark.parametrize("resumable", [True, False])
def test_every_seat_is_sent_exactly_its_open_questions_and_the_others_nothing(
    resumable: bool,
) -> None:
    """Only the seats something happened to get an update; what each seat was sent adds
    up to its open questions (all of them for the GM), through answers, actors handed to
    other seats (an added one too: a question keeps its id when its step is not kept
    waiting), chat and restores."""
    program = compile_program(checked(EXAMPLES / "round", "scenario.lore"))
    table = Table(Master(program, 3, resumable=resumable), SEATS, "digest")
    sent: dict[str, set[str]] = {}

    def take(frames: dict[str, bytes]) -> None:
        for seat, frame in frames.items():
            update = json.loads(frame)
            shown = sent.setdefault(seat, set())
            shown.difference_update(update.get("closed", ()))
            shown.update(spec["id"] for spec in update.get("opened", ()))

    def check() -> None:
        questions = table.master.open_questions()
        for seat in table.streams:
            mine = {q.id for q in questions if seat == "GM" or q.to == seat}
            assert sent.get(seat, set()) == mine, seat

    take(table.start())
    check()
    rng = random.Random(11)
    labels = [actor.label for actor in table.master.actors()]
    for turn in range(60):
        kind = rng.choice(["answer"] * 4 + ["assign", "chat", "seat", "restore"])
        data: dict[str, Any]
        if kind == "restore":
            program_state = table.snapshot_state()
            table.master.session.settle()
            table = Table.restore(program_state, program, "digest")
            continue
        if kind == "answer":
            question = rng.choice(table.master.open_questions())
            data = {"seat": question.to, "id": question.id, "values": {"move": "roll"}}
        elif kind == "assign":
            asked = table.master.open_questions()[0].actor  # (its question moves)
            data = {"from": "GM", "actor": rng.choice([*labels, asked, asked])}
            data["seat"] = rng.choice(list(table.streams))
        elif kind == "seat":
            data = {"from": "GM", "seat": f"seat-{turn}", "label": "Guest"}
        else:
            data = {"from": "GM", "to": rng.choice(list(table.streams)), "text": "hello"}
        before = {seat: stream.seq for seat, stream in table.streams.items()}
        outcome = table.apply(LogEntry(table.applied + 1, kind, data))
        assert not isinstance(outcome, Refusal), outcome
        take(outcome)
        check()
        if kind == "chat":  # the sender, the seat it is for and the GM; nobody else
            told = {"GM", data["to"]}
            assert set(outcome) == told
            assert all(table.streams[s].seq == before[s] for s in before if s not in told)
    table.master.session.settle()


@pytest.mark.parametrize(("example", "seed"), [("round", 1), ("tavern", 2), ("orm", 3)])
def test_questions_found_in_one_pass_are_those_of_every_seat_compared(
    example: str, seed: int
) -> None:
    """The questions opened and closed for each seat, found from the GM's stream in one
    pass, give the same frames and table snapshots as each seat's questions compared with
    its stream (as after a restore): through answers (the GM's too), actors handed to
    other seats, seats added, chat and restores."""
    from lore.engine.participants import Bot
    from lore.engine.randomness import Stream

    program = compile_program(checked(EXAMPLES / example, "scenario.lore"))
    tables = [Table(Master(program, seed), SEATS, "digest") for _ in range(2)]
    for table in tables:
        table.listening = None
    first, second = tables
    assert first.start() == second.start()
    rng = random.Random(seed)
    moved = 0
    for turn in range(80):
        questions = first.master.open_questions()
        if not questions or first.master.ended:
            break
        roll = rng.random()
        data: dict[str, Any]
        if roll < 0.1:
            kind = "assign"
            actor = rng.choice([q.actor for q in questions if q.actor] or [""])
            data = {"from": "GM", "actor": actor, "seat": rng.choice(list(first.streams))}
            moved += actor != ""
        elif roll < 0.15:
            kind, data = "seat", {"from": "GM", "seat": f"seat-{turn}", "label": "Guest"}
        elif roll < 0.2:
            kind, data = "chat", {"from": "GM", "to": None, "text": f"hello {turn}"}
        elif roll < 0.25:
            state = first.snapshot_state()
            assert state == second.snapshot_state()
            for table in tables:
                table.master.session.settle()
            first, second = tables = [Table.restore(state, program, "digest") for _ in range(2)]
            for table in tables:
                table.listening = None
            continue
        else:
            kind = "answer"
            question = rng.choice(questions)
            values = Bot().ask(question, Stream(rng.getrandbits(60), turn))
            seat = question.to if rng.random() < 0.8 else "GM"
            data = {"seat": seat, "id": question.id, "values": values}
        second.recheck = True  # (every seat compared, as after a restore)
        outcomes = [table.apply(LogEntry(table.applied + 1, kind, dict(data))) for table in tables]
        assert outcomes[0] == outcomes[1], (turn, kind)
    assert first.snapshot_state() == second.snapshot_state()
    for table in tables:
        table.master.session.settle()
    assert example != "round" or moved


def test_the_view_key_changes_with_a_member_the_views_read() -> None:
    """``Master.view_key`` reads each placed object's members by one getter: a member
    changed, removed (a removed object loses its location) or added is seen, and the key
    stays the same while nothing changes."""
    master = new_table().master
    master.start()
    key = master.view_key()
    assert master.view_key() == key
    actor = master.actor("round.aki")
    assert actor is not None
    values = actor.values
    location = values["location"]
    values["location"] = "elsewhere"
    moved = master.view_key()
    assert moved != key
    del values["location"]
    gone = master.view_key()
    assert gone != moved
    values["location"] = location
    back = master.view_key()
    assert back != gone
    assert master.view_key() == back
    area = master.areas()[0].obj.values
    missing = next(name for name in ("name", "environment", "player") if name not in area)
    area[missing] = "added"
    added = master.view_key()
    assert added != back
    area[missing] = "changed"  # (the same size: read by the getter made when it came)
    assert master.view_key() != added


@pytest.mark.parametrize("example", ["round", "paper", "orm"])
def test_a_questions_bytes_are_its_spec_encoded(example: str) -> None:
    """``query_specs`` gives a question's spec and the same spec encoded, also when its
    menu's and actor's bytes were made for an earlier question, and after the actor's
    name changed."""
    from lore.engine.participants import Bot
    from lore.engine.randomness import Stream
    from lore.server.protocol import encode
    from lore.server.wireview import query_spec, query_specs

    program = compile_program(checked(EXAMPLES / example, "scenario.lore"))
    table = Table(Master(program, 3), SEATS, "digest")
    table.start()
    master = table.master
    rng = random.Random(3)
    seen = 0
    for turn in range(60):
        questions = master.open_questions()
        if not questions or master.ended:
            break
        for question in questions:
            for _ in range(2):
                spec, sent = query_specs(question, master)
                assert bytes(sent) == encode(spec) == encode(query_spec(question, master))
                seen += 1
            actor = master.actor(question.actor) if question.actor else None
            if actor is not None and turn == 10:
                actor.values["name"] = "Someone else"
                spec, sent = query_specs(question, master)
                assert spec["actor"]["name"] == "Someone else"
                assert bytes(sent) == encode(spec)
        question = rng.choice(questions)
        values = Bot().ask(question, Stream(rng.getrandbits(60), turn))
        data = {"seat": question.to, "id": question.id, "values": values}
        table.apply(LogEntry(table.applied + 1, "answer", data))
    master.session.settle()
    assert seen > 10


def test_after_either_end_chat_and_rolls_go_on_and_nothing_else() -> None:
    """Ended by the GM as by its rules, a session still takes chat lines and rolls
    (the table talks the game over); answers and the GM's commands are refused."""
    table = new_table()
    table.start()
    question = table.master.open_questions()[0]
    assert not isinstance(table.apply(LogEntry(1, "end", {"from": "GM"})), Refusal)
    line = {"from": "aki@example.org", "to": None, "text": "お疲れさまでした"}
    told = table.apply(LogEntry(2, "chat", line))
    assert not isinstance(told, Refusal)
    assert json.loads(told["ren@example.org"])["messages"][0]["text"] == "お疲れさまでした"
    roll = {"from": "aki@example.org", "to": None, "text": "(2D6) > 7", "secret": False}
    assert not isinstance(table.apply(LogEntry(3, "roll", roll)), Refusal)
    answer = {"seat": question.to, "id": question.id, "values": {"move": "rest"}}
    refused = [
        table.apply(LogEntry(4, "answer", answer)),
        table.apply(LogEntry(4, "pause", {"from": "GM"})),
        table.apply(LogEntry(4, "seat", {"from": "GM", "seat": "seat-9", "label": "X"})),
    ]
    assert [r.code.value for r in refused if isinstance(r, Refusal)] == ["ended"] * 3
