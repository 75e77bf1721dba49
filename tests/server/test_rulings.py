"""The GM's value rulings at the table: a member of a sheet set over the rules, checked as
an answer is (refused with the reason, and nothing changed, when it does not fit), told as
a ruling to the seats that may read the line (or to the GM alone when secret), applied
while a question waits, and replayed from the log exactly."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lore.clients.seat import SeatClient, acknowledged
from lore.dice.source import FixedSource
from lore.engine.gm_checks import CheckError, gm_checks, improvised_check
from lore.engine.roll_rulings import set_rule_rolls
from lore.engine.rulings import scenes
from lore.runtime.compiler import compile_program
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.protocol import Code
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table
from tests.server.serving import (
    EXAMPLES,
    ServeProcess,
    ServerThread,
    create_session,
    links,
    reconnect,
)

RIN, GORO = "rin@example.org", "goro@example.org"
SEATS = [(RIN, "リン"), (GORO, "ゴロウ")]
GHOUL = "orm.clearing.ghoulA"


def example_table(name: str, seats: list[tuple[str, str]], seed: int) -> Table:
    """A started table of the example ``name`` with ``seats`` (jid, label) and ``seed``."""
    program = compile_program(checked(EXAMPLES / name, "scenario.lore"))
    table = Table(Master(program, seed), seats, "digest")
    table.start()
    return table


def orm_table(seed: int = 1) -> Table:
    return example_table("orm", SEATS, seed)


def play_until(table: Table, found: Callable[[], Any], most: int = 80) -> Any:
    """Answer the open questions (the sample's answers for the players, the defaults for
    the GM) until ``found()`` gives something; that."""
    answers = json.loads((EXAMPLES / "orm" / "answers.json").read_text(encoding="utf-8"))
    for _ in range(most):
        result = found()
        if result:
            return result
        questions = table.master.open_questions()
        assert questions, "the session waits for nothing"
        question = questions[0]
        left = answers.get(question.to)
        if question.to == "GM" or not left:
            values = {i.name: i.default_answer() for i in question.inputs}
        else:
            values = left.pop(0)
        data = {"seat": question.to, "id": question.id, "values": values}
        assert not isinstance(table.apply(LogEntry(table.applied + 1, "answer", data)), Refusal)
    raise AssertionError(f"not found in {most} answers")


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
    rin = "orm.clearing.rin"
    apply(
        "ruling",
        {"from": "GM", "object": rin, "member": "weapon", "value": "戦斧", "secret": False},
    )
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


def test_orm_rules_hp_and_weapons_through_its_own_alters() -> None:
    table = orm_table()
    frames = ruling(table, GHOUL, "hp", -40)  # (past -(筋力 x 3): dead, as by wounds)
    assert not isinstance(frames, Refusal), frames
    (told,) = rulings_told(frames, "GM")
    assert told["alter"] == "ruleHp" and told["after"] == -40
    ghoul = next(o for o in table.master.actor_objects() if o.label == GHOUL)
    assert ghoul.values["dead"] is True
    frames = ruling(table, "orm.clearing.rin", "weapon", "戦斧")
    assert not isinstance(frames, Refusal), frames
    assert sheet_line(table, RIN, "orm.clearing.rin", "weapon") == "戦斧"
    refused = ruling(table, "orm.clearing.rin", "weapon", "光線銃")
    assert isinstance(refused, Refusal)
    assert "'weapon' is one of 短弓, 戦斧, not '光線銃'" in refused.message


def test_with_every_roll_ruled_the_gm_sets_a_checks_faces_and_the_player_sees_it() -> None:
    table = orm_table(5)  # (the seed the sample's answers are for)
    setting = {"from": "GM", "every": True}
    frames = table.apply(LogEntry(table.applied + 1, "rule_rolls", setting))
    assert not isinstance(frames, Refusal)
    assert json.loads(table.snapshot("GM"))["status"].get("ruleRolls") is True
    # The players answer until a check's dice come to the GM to rule on.
    ruling_asked = play_until(
        table, lambda: [q for q in table.master.open_questions() if q.purpose == "ruling"]
    )
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


def test_an_improvised_check_is_the_rules_own_and_goes_to_those_who_see_the_actor() -> None:
    table = orm_table()
    session = table.master.session
    set_rule_rolls(session, True)  # (the GM's own check is not asked about again)
    (check,) = gm_checks(session)
    assert check.describe()["labelJa"] == "行為判定" and "感覚" in check.abilities
    card = improvised_check(
        session, check.id, "orm.clearing.rin", "感覚", 2, 12, FixedSource([6, 6, 1])
    )
    assert card["ruling"] == "check" and card["by"] == "リン"
    assert card["title"] == "GM の判定 (感覚)" and card["target"] == 12
    assert [d["face"] for d in card["dice"]][:2] == [6, 6] and card["critical"] is True
    assert RIN in card["to"] and "GM" in card["to"]
    frames = table.apply(LogEntry(table.applied + 1, "check", {"from": "GM", "card": card}))
    assert not isinstance(frames, Refusal)
    for seat in card["to"]:
        (told,) = [m for m in json.loads(frames[seat])["messages"] if m["kind"] == "roll"]
        assert told["ruling"] == "check" and told["total"] == card["total"]
    secret = improvised_check(
        session, check.id, "orm.clearing.rin", "感覚", 0, 0, FixedSource([2, 2, 2]), secret=True
    )
    assert secret["to"] == ["GM"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("orm.nothing", "orm.clearing.rin", "感覚", 0, 0), "declare no check 'orm.nothing'"),
        (("orm.improvisedCheck", "orm.clearing.nobody", "感覚", 0, 0), "no actor"),
        (("orm.improvisedCheck", "orm.clearing.rin", "運", 0, 0), "'運' is none of"),
        (("orm.improvisedCheck", "orm.clearing.rin", "感覚", 5000, 0), "the modifier is from"),
    ],
)
def test_an_improvised_check_that_cannot_be_made_says_why(args: tuple[Any, ...], said: str) -> None:
    table = orm_table()
    with pytest.raises(CheckError, match=said):
        improvised_check(table.master.session, *args, FixedSource([1, 1, 1]))


def test_the_gm_ends_the_fight_by_ruling_and_the_rules_end_it_with_that_outcome() -> None:
    table = orm_table(5)
    data = {"from": "GM", "scene": "orm.fightEnd", "outcome": "won"}
    frames = table.apply(LogEntry(table.applied + 1, "scene", data))
    assert not isinstance(frames, Refusal), frames
    for seat in ("GM", RIN, GORO):
        (told,) = rulings_told(frames, seat)
        assert told["ruling"] == "end" and told["outcome"] == "won" and told["labelJa"] == "戦闘"
    play_until(
        table,
        lambda: "戦闘終了 (勝利)" in [r.get("text") for r in table.master.transcript.records],
    )
    # The ruling was cleared with the fight it ended.
    scene = dict(scenes(table.master.session))["orm.fightEnd"]
    assert scene.values["ruled"] == ""
    refused = table.apply(
        LogEntry(
            table.applied + 1, "scene", {"from": "GM", "scene": "orm.fightEnd", "outcome": "x"}
        )
    )
    assert (
        isinstance(refused, Refusal) and "'x' is none of won, lost, broken off" in refused.message
    )


def test_an_acknowledged_ruling_survives_a_kill_9_of_the_server(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "lore.db", [EXAMPLES / "orm"]) as server:
        server.start()
        link = links(create_session(server.base, "orm"), server.base)["GM"]
        gm = SeatClient(link)
        gm.connect()
        ruled = {"type": "rule", "object": GHOUL, "member": "hp", "value": 4, "secret": False}
        assert acknowledged(gm.request(ruled))  # (stored before it is acknowledged)
        refused = gm.request({**ruled, "value": "four"})
        assert refused["type"] == "error" and refused["code"] == "bad_ruling"
        # (each kind of ruling: an enemy brought in, the table's setting, a scene ended)
        arrival = {"type": "arrive", "arrival": "orm.clearing.reinforcements", "kind": "屍鬼"}
        assert acknowledged(gm.request(arrival))
        assert acknowledged(gm.request({"type": "rule_rolls", "every": True}))
        ended = {"type": "end_scene", "scene": "orm.fightEnd", "outcome": "won"}
        assert acknowledged(gm.request(ended))
        gm.close()
        server.kill()  # SIGKILL
        server.start()
        again = SeatClient(link)
        reconnect(again)
        if again.state.seq is None:  # (the snapshot may come after the welcome)
            again.wait_for(lambda f: f.get("type") == "snapshot")
        told = [m for m in again.state.messages if m.get("kind") == "ruling"]
        assert [m["ruling"] for m in told] == ["value", "arrival", "end"]
        assert (told[0]["before"], told[0]["after"]) == (12, 4)
        assert again.state.status.get("ruleRolls") is True
        # The value the ruling set is the session's after the restart.
        frame = again.request({**ruled, "value": 2})
        assert acknowledged(frame)
        (last,) = [m for m in frame.get("messages", ()) if m.get("kind") == "ruling"]
        assert (last["before"], last["after"]) == (4, 2)
        again.close()


def test_the_last_ruling_is_taken_back_while_nothing_followed_from_it() -> None:
    table = orm_table(5)
    answers = json.loads((EXAMPLES / "orm" / "answers.json").read_text(encoding="utf-8"))

    def entry(kind: str, **data: Any) -> Refusal | dict[str, bytes]:
        return table.apply(LogEntry(table.applied + 1, kind, {"from": "GM", **data}))

    refused = entry("take_back")
    assert isinstance(refused, Refusal) and "no ruling to take back" in refused.message
    assert not isinstance(ruling(table, GHOUL, "hp", 5), Refusal)
    snapshot = Master.restore(table.master.program, table.master.snapshot(), None, (0, 0))
    assert snapshot.session.last_ruling is not None  # (kept in snapshots too)
    frames = entry("take_back")
    assert not isinstance(frames, Refusal), frames
    assert sheet_line(table, "GM", GHOUL, "hp") == 12
    (told,) = rulings_told(frames, RIN)
    assert told["ruling"] == "back" and (told["before"], told["after"]) == (5, 12)
    # Once an answer came after it, a ruling stands (no rewinding).
    assert not isinstance(ruling(table, GHOUL, "hp", 6), Refusal)
    question = table.master.open_questions()[0]
    answered = {"seat": question.to, "id": question.id, "values": answers[question.to][0]}
    assert not isinstance(table.apply(LogEntry(table.applied + 1, "answer", answered)), Refusal)
    refused = entry("take_back")
    assert isinstance(refused, Refusal) and "not rewound" in refused.message
    assert sheet_line(table, "GM", GHOUL, "hp") == 6


def test_the_gm_takes_an_enemys_turns_and_awards_experience_by_ruling() -> None:
    table = orm_table(5)
    assert not isinstance(ruling(table, "orm.clearing.ghoulB", "gmPlays", True), Refusal)
    assert not isinstance(ruling(table, "orm.clearing.rin", "experience", 3), Refusal)
    assert sheet_line(table, RIN, "orm.clearing.rin", "experience") == 3
    assert sheet_line(table, RIN, "orm.clearing.ghoulB", "gmPlays") is None  # (the GM's line)
    title = "屍鬼B のシンプルフェイズ"
    mine = play_until(table, lambda: [q for q in table.master.open_questions() if q.title == title])
    assert mine[0].to == "GM"


def arrive(table: Table, kind: str, secret: bool = False) -> Refusal | dict[str, bytes]:
    data = {"from": "GM", "arrival": "orm.clearing.reinforcements", "kind": kind}
    data["secret"] = secret
    return table.apply(LogEntry(table.applied + 1, "arrival", data))


def test_the_gm_brings_an_enemy_into_the_fight_and_it_fights() -> None:
    table = orm_table(5)
    frames = arrive(table, "屍鬼")
    assert not isinstance(frames, Refusal), frames
    for seat in ("GM", RIN, GORO):
        (told,) = rulings_told(frames, seat)
        assert told["ruling"] == "arrival" and told["arrival"] == "屍鬼"
    # It comes once the question that waited is answered: on the map, with a sheet.
    joined = "屍鬼C が戦闘に加わった"
    play_until(
        table,
        lambda: any(joined in str(r.get("text")) for r in table.master.transcript.records),
    )
    view = json.loads(table.snapshot(RIN))["view"]
    assert "屍鬼C" in [s["name"] for s in view["table"]["sheets"]]
    session = table.master.session
    battle = session.rt.g[next(i for s, i, _ in session.program.values if s.name == "battle")]
    assert "屍鬼C" in [c.values["name"] for c in battle.values["fighters"]]
    # It acts in the fight as the others do (its turn comes to the GM).
    title = "屍鬼C のシンプルフェイズ"
    asked = lambda: [  # noqa: E731
        r for r in table.master.transcript.records if title in str(r.get("title", ""))
    ]
    assert not isinstance(
        ruling(table, "#" + str(_oid(session, "屍鬼C")), "gmPlays", True), Refusal
    )
    play_until(table, asked)


def _oid(session: Any, name: str) -> int:
    return next(o.oid for o in session.made if o.values.get("name") == name)


def test_an_arrival_that_cannot_be_is_refused_and_a_secret_one_reaches_the_gm_alone() -> None:
    table = orm_table(5)
    before = table.master.snapshot()
    refused = arrive(table, "竜")
    assert isinstance(refused, Refusal) and "'竜' is none of 屍鬼" in refused.message
    assert table.master.snapshot() == before
    frames = arrive(table, "屍鬼", secret=True)
    assert not isinstance(frames, Refusal)
    assert rulings_told(frames, "GM") and not rulings_told(frames, RIN)
    refused = table.apply(LogEntry(table.applied + 1, "take_back", {"from": "GM"}))
    assert isinstance(refused, Refusal) and "not rewound" in refused.message


def test_an_arrival_replays_from_the_log_the_same() -> None:
    table = orm_table(5)
    entries: list[LogEntry] = []
    answers = json.loads((EXAMPLES / "orm" / "answers.json").read_text(encoding="utf-8"))
    data = {"from": "GM", "arrival": "orm.clearing.reinforcements", "kind": "屍鬼"}
    entries.append(LogEntry(1, "arrival", {**data, "secret": False}))
    assert not isinstance(table.apply(entries[-1]), Refusal)
    for _ in range(6):
        question = table.master.open_questions()[0]
        left = answers.get(question.to)
        values = (
            left.pop(0)
            if left and question.to != "GM"
            else {i.name: i.default_answer() for i in question.inputs}
        )
        entries.append(
            LogEntry(
                len(entries) + 1,
                "answer",
                {"seat": question.to, "id": question.id, "values": values},
            )
        )
        assert not isinstance(table.apply(entries[-1]), Refusal)
    again = orm_table(5)
    for entry in entries:
        assert not isinstance(
            again.apply(LogEntry(entry.index, entry.kind, dict(entry.data))), Refusal
        )
    assert again.master.snapshot() == table.master.snapshot()
    restored = Master.restore(table.master.program, table.master.snapshot(), None, (0, 0))
    assert restored.snapshot() == table.master.snapshot()


def test_a_downloaded_save_holds_the_rulings_and_lore_run_goes_on_from_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.cli.main import main
    from lore.engine.saves import read_stored
    from lore.semantics.check import check_paths
    from tests.server.test_saving import download

    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        link = links(server.create("orm"), server.base)["GM"]
        gm = SeatClient(link)
        gm.connect()
        ruled = {"type": "rule", "object": GHOUL, "member": "hp", "value": 1, "secret": False}
        assert acknowledged(gm.request(ruled))
        arrival = {"type": "arrive", "arrival": "orm.clearing.reinforcements", "kind": "屍鬼"}
        assert acknowledged(gm.request({**arrival, "secret": False}))
        # (the arrival comes once the step that waits goes on: the GM answers on)
        joined = "屍鬼C が戦闘に加わった"
        for _ in range(12):
            if any(joined in str(m.get("text")) for m in gm.state.messages):
                break
            question = next(iter(gm.state.questions.values()))
            values = {
                i["name"]: i.get("default", (i.get("choices") or [{"id": 0}])[0]["id"])
                for i in question["inputs"]
            }
            assert acknowledged(gm.answer(question["id"], values))
        assert any(joined in str(m.get("text")) for m in gm.state.messages)
        files = download(server, link)
        gm.close()
    folder = tmp_path / "unpacked"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_bytes(content)
    assert "hp = 1;" in files["save.lore"].decode("utf-8")  # (the save's state: 屍鬼A)
    none = tmp_path / "none.json"
    none.write_text("{}", encoding="utf-8")
    out = tmp_path / "went-on.jsonl"
    argv = ["run", str(folder / "save.lore"), "--answers", str(none), "--transcript", str(out)]
    main(argv)
    capsys.readouterr()
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["kind"] for r in records] == ["end"]  # (no answers given: it stops at once)
    # What it goes on from: the ghoul the GM set to HP 1, and the one the GM brought in
    # (in the fight once the step that told of it has its answers).
    result = check_paths([folder / "save.lore"])
    stored = read_stored(result.program.modules, folder / "save.lore")
    assert stored.snapshot is not None
    master = Master.restore(compile_program(result), stored.snapshot, None, (0, 0))
    session = master.session
    ghoul = next(o for o in session.rt.system.values["allPC"] if o.label == GHOUL)
    assert ghoul.values["hp"] == 1
    battle = session.rt.g[next(i for s, i, _ in session.program.values if s.name == "battle")]
    table = Table(master, SEATS, "digest")
    play_until(table, lambda: "屍鬼C" in [c.values["name"] for c in battle.values["fighters"]])


NINJA_SEATS = [("yamato@example.org", "ヤマト"), ("midori@example.org", "ミドリ")]


def ninja_table(seed: int = 1) -> Table:
    return example_table("ninja", NINJA_SEATS, seed)


def test_the_ninja_rules_offer_their_check_and_their_fight_to_the_gm() -> None:
    table = ninja_table()
    session = table.master.session
    (check,) = gm_checks(session)
    assert check.id == "ninja.improvisedCheck" and check.abilities == ("アクト", "リアクト")
    card = improvised_check(
        session, check.id, "ninja.night.yamato", "アクト", 1, 2, FixedSource([9] * 40)
    )
    assert card["ruling"] == "check" and card["title"].startswith("GM の判定 (アクト)")
    assert card["outcome"] == "success"
    assert "ninja.fightEnd" in dict(scenes(session))
    data = {"from": "GM", "scene": "ninja.fightEnd", "outcome": "won"}
    assert not isinstance(table.apply(LogEntry(table.applied + 1, "scene", data)), Refusal)
    answers = json.loads((EXAMPLES / "ninja" / "answers.json").read_text(encoding="utf-8"))
    for _ in range(120):
        texts = [str(r.get("text")) for r in table.master.transcript.records]
        if any("戦闘終了: 勝利条件を満たした" in t for t in texts):
            break
        question = table.master.open_questions()[0]
        left = answers.get(question.to)
        values = (
            left.pop(0)
            if left and question.to != "GM"
            else {i.name: i.default_answer() or (i.choices or ("",))[0] for i in question.inputs}
        )
        data = {"seat": question.to, "id": question.id, "values": values}
        assert not isinstance(table.apply(LogEntry(table.applied + 1, "answer", data)), Refusal)
    else:
        raise AssertionError("the fight did not end by the GM's ruling")
    assert dict(scenes(session))["ninja.fightEnd"].values["ruled"] == ""
