"""The GM's save: every answer since the session's start, in order, read from the store's
log (the server keeps no answers in memory), also after a restart restored the session
from a snapshot; ``lore run`` replays such a save from the start on changed files the
same as the session that was never interrupted."""

from __future__ import annotations

import io
import json
import urllib.request
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from lore.cli.main import main
from lore.clients.seat import SeatClient
from lore.engine.saves import Answer
from lore.server.saving import logged_answer
from lore.server.store import LogEntry
from tests.server.serving import EXAMPLES, ServerThread, http, links
from tests.server.test_app import zipped
from tests.server.test_rooms import play

ROUND = EXAMPLES / "round"


def download(server: ServerThread, gm_link: str) -> dict[str, bytes]:
    token = gm_link.split("#")[1]
    status, data = http(server.base, "/api/save", headers={"authorization": f"Bearer {token}"})
    assert status == 200, data
    archive = zipfile.ZipFile(io.BytesIO(data))
    return {name: archive.read(name) for name in archive.namelist()}


def saved_answers(text: str) -> list[dict[str, Any]]:
    """The answers a save holds, and a check that its count says as many."""
    section = text.split(" answers = {", 1)[1].split(" };", 1)[0]
    lines = [line.strip().rstrip(",") for line in section.splitlines() if line.strip()]
    answers = [json.loads(json.loads(line)) for line in lines]
    assert f" count = {len(answers)};" in text
    assert f"{len(answers)} answers" in text or "history(" not in text
    return answers


def answered(records: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [(r["from"], r["values"]) for r in records if r["kind"] == "answer"]


def test_a_save_after_a_restart_holds_every_answer_and_replays_on_changed_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ServerThread(tmp_path, [ROUND], snapshot_every=4) as server:
        created = server.create("round")
        seats = links(created, server.base)
        gm = SeatClient(seats["GM"])  # answers for the three players
        gm.connect()
        play(gm, 5)
        gm.close()
    # Restarted: the session is restored from its snapshot, then goes on.
    with ServerThread(tmp_path, [ROUND], snapshot_every=4) as server:
        seats = links(created, server.base)
        gm = SeatClient(seats["GM"])
        gm.connect()
        play(gm, 4)
        assert server.server is not None
        session = server.server.rooms.by_id[created["session"]].table.master.session
        assert session.answers == [] and session.answer_count == 9  # kept by the store only
        records = gm.request({"type": "log"})["records"]
        files = download(server, seats["GM"])
        gm.close()
    answers = saved_answers(files["save.lore"].decode("utf-8"))
    assert len(answers) == 9
    # In order, each from the player asked (not the GM's seat that gave it), with the
    # question's id and title.
    assert [(a["from"], a["values"]) for a in answers] == answered(records)
    assert all(a["title"] == "あなたの番です" and a["query"] for a in answers)
    assert len({a["from"] for a in answers}) == 3
    # The scenario changed since: `lore run` replays every answer from the start, and
    # the session is the one that was never interrupted.
    folder = tmp_path / "unpacked"
    folder.mkdir()
    for name, content in files.items():
        (folder / name).write_bytes(content)
    scenario = folder / "scenario.lore"
    scenario.write_text(scenario.read_text(encoding="utf-8") + "\n// changed\n", "utf-8")
    out = tmp_path / "replayed.jsonl"
    none = tmp_path / "none.json"
    none.write_text("{}", encoding="utf-8")
    argv = ["run", str(folder / "save.lore"), "--continue-anyway", "--answers", str(none)]
    main([*argv, "--transcript", str(out)])
    capsys.readouterr()
    replayed = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert answered(replayed) == answered(records)
    told = [r for r in records if r["kind"] == "message"]
    assert [r for r in replayed if r["kind"] == "message"][: len(told)] == told


def test_a_save_uploaded_again_goes_on_and_its_save_has_every_answer(tmp_path: Path) -> None:
    with ServerThread(tmp_path, [ROUND]) as server:
        seats = links(server.create("round"), server.base)
        gm = SeatClient(seats["GM"])
        gm.connect()
        play(gm, 3)
        first = download(server, seats["GM"])
        gm.close()
        status, body = http(server.base, "/api/sessions", zipped(first), "application/zip")
        assert status == 201, body
        again = links(json.loads(body), server.base)
        gm = SeatClient(again["GM"])
        gm.connect()
        play(gm, 2)
        records = gm.request({"type": "log"})["records"]
        second = download(server, again["GM"])
        gm.close()
    before = saved_answers(first["save.lore"].decode("utf-8"))
    after = saved_answers(second["save.lore"].decode("utf-8"))
    assert len(before) == 3 and after[:3] == before and len(after) == 5
    assert [(a["from"], a["values"]) for a in after] == answered(records)


def test_an_answer_logged_before_its_question_was_kept_still_gives_its_answer() -> None:
    old = LogEntry(3, "answer", {"seat": "GM", "id": "4//0", "values": {"move": "roll"}})
    assert logged_answer(old) == Answer("GM", {"move": "roll"}, "4//0", None)
    new = LogEntry(4, "answer", {**old.data, "to": "aki@example.org", "title": "番"})
    assert logged_answer(new) == Answer("aki@example.org", {"move": "roll"}, "4//0", "番")


def test_a_save_holds_the_chat_and_rolls_and_brings_them_back_when_uploaded(
    tmp_path: Path,
) -> None:
    """The chat lines and rolls are in the download's ``chat.jsonl`` (a whisper and a
    secret roll among them); the session started from it shows them again to whom they
    were for, and its save has them and the new ones. A download of before (no
    ``chat.jsonl``) still starts a session. The download is named after the session."""
    with ServerThread(tmp_path, [ROUND]) as server:
        created = server.create("round")
        seats = links(created, server.base)
        gm = SeatClient(seats["GM"])
        gm.connect()
        player = next(seat for seat in seats if seat != "GM")
        gm.request({"type": "chat", "text": "ようこそ"})
        gm.request({"type": "chat", "text": "ないしょ", "to": player})
        gm.request({"type": "chat", "text": "2D6", "secret": True})
        play(gm, 2)
        token = seats["GM"].split("#")[1]
        headers = {"authorization": f"Bearer {token}"}
        request = urllib.request.Request(server.base + "/api/save", headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            disposition = response.headers["content-disposition"]
            archive = zipfile.ZipFile(io.BytesIO(response.read()))
        first = {name: archive.read(name) for name in archive.namelist()}
        gm.close()
        title = created["title"]
        assert quote(title) in disposition and "lore-session" not in disposition
        chat = [json.loads(line) for line in first["chat.jsonl"].decode().splitlines()]
        assert [(c["kind"], c.get("to"), c.get("secret")) for c in chat] == [
            ("chat", None, None),
            ("chat", player, None),
            ("roll", None, True),
        ]
        assert chat[0]["text"] == "ようこそ" and chat[2]["text"].startswith("(2D6)")

        status, body = http(server.base, "/api/sessions", zipped(first), "application/zip")
        assert status == 201, body
        again = links(json.loads(body), server.base)
        said = []
        for seat in ("GM", player):
            client = SeatClient(again[seat])
            client.connect()
            told = client.wait_for(lambda frame: frame["type"] == "snapshot")["messages"]
            said.append([m.get("text") for m in told if m["kind"] in ("chat", "roll")])
            if seat == "GM":
                client.request({"type": "chat", "text": "おかえり"})
                second = download(server, again["GM"])
            client.close()
        assert said[0][:3] == ["ようこそ", "ないしょ", chat[2]["text"]]
        assert said[1][:2] == ["ようこそ", "ないしょ"] and chat[2]["text"] not in said[1]
        later = [json.loads(line)["text"] for line in second["chat.jsonl"].decode().splitlines()]
        assert later == ["ようこそ", "ないしょ", chat[2]["text"], "おかえり"]

        older = {name: data for name, data in first.items() if name != "chat.jsonl"}
        status, body = http(server.base, "/api/sessions", zipped(older), "application/zip")
        assert status == 201, body
