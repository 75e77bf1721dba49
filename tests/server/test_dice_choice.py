"""A session's dice system: chosen when it starts (``POST /api/sessions``), kept by every
store and across a restart, and the game system whose commands its chat rolls."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

from lore.clients.seat import SeatClient, acknowledged
from lore.server import listing
from lore.server.sqlite_store import SQLiteStore
from lore.server.store import SessionRecord
from tests.server.serving import PLAYER, ServerThread, http, links
from tests.server.test_app import paper_files, zipped
from tests.server.test_journal import EARLIER


def started(base: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    status, answer = http(base, "/api/sessions", json.dumps(body).encode())
    found: dict[str, Any] = json.loads(answer)
    return status, found


def roll_texts(client: SeatClient) -> list[str]:
    return [
        message["text"]
        for frame in map(json.loads, client.raw)
        for message in frame.get("messages", [])
        if message["kind"] == "roll" and "text" in message
    ]


def test_the_start_page_is_offered_the_systems_there_are(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        status, body = http(server.base, "/api/dice")
    assert status == 200
    systems = {s["id"]: s for s in json.loads(body)}
    assert set(systems) == {"Cthulhu", "Cthulhu7th", "SwordWorld2.5", "DoubleCross", "Emoklore"}
    assert systems["Cthulhu7th"]["name"] == "新クトゥルフ神話TRPG"
    assert "CC<=50" in systems["Cthulhu7th"]["commands"]


def test_a_sessions_chat_rolls_its_chosen_systems_commands_and_a_restart_keeps_it(
    tmp_path: Path,
) -> None:
    with ServerThread(tmp_path) as server:
        # BCDice's own spelling of the file name is taken too, and stored as its id.
        status, created = started(server.base, {"source": "paper", "dice": "cthulhu7th"})
        assert status == 201 and created["dice"] == "Cthulhu7th"
        _, plain = started(server.base, {"source": "paper"})
        assert plain["dice"] == ""
        player = SeatClient(links(created, server.base)[PLAYER])
        player.connect()
        welcome = json.loads(player.raw[0])
        assert welcome["session"]["dice"]["id"] == "Cthulhu7th"
        assert acknowledged(player.request({"type": "chat", "text": "CC<=50 目星"})) is not None
        player.pump(0.1)
        (text,) = roll_texts(player)
        assert text.startswith("(1D100<=50)") and "＞" in text
        other = SeatClient(links(plain, server.base)[PLAYER])
        other.connect()
        assert "dice" not in json.loads(other.raw[0])["session"]
        # (Without the system, its command is a line of chat, as on BCDice's common bot.)
        assert acknowledged(other.request({"type": "chat", "text": "CC<=50"})) is not None
        other.pump(0.1)
        assert roll_texts(other) == []
        assert "CC<=50" in "\n".join(other.raw)
    with ServerThread(tmp_path) as server:
        player.base = server.base.replace("http://", "ws://") + "/ws"
        player.raw.clear()
        player.connect()
        assert json.loads(player.raw[0])["session"]["dice"]["id"] == "Cthulhu7th"
        assert acknowledged(player.request({"type": "chat", "text": "CC(1)<=50"})) is not None
        player.pump(0.1)
        assert any(t.startswith("(1D100<=50)") for t in roll_texts(player))


def test_an_unknown_system_is_refused_naming_the_ones_there_are(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        status, found = started(server.base, {"source": "paper", "dice": "Paranoia"})
        assert status == 422
        (problem,) = found["problems"]
        assert "'Paranoia'" in problem["message"] and "Cthulhu7th" in problem["message"]
        status, found = started(server.base, {"source": "paper", "dice": 7})
        assert status == 422 and "is the name of a dice system" in found["problems"][0]["message"]
        upload = zipped(paper_files())
        status, body = http(server.base, "/api/sessions?dice=Nope", upload, "application/zip")
        assert status == 422 and b"'Nope'" in body
        status, body = http(server.base, "/api/sessions?dice=Emoklore", upload, "application/zip")
        assert status == 201 and json.loads(body)["dice"] == "Emoklore"
    sessions = sqlite3.connect(tmp_path / "sessions.db").execute("SELECT dice FROM sessions")
    assert [row[0] for row in sessions] == ["Emoklore"]  # (the refused ones made nothing)


OLD_LAYOUT = (
    EARLIER
    + """
INSERT INTO sessions VALUES ('s1', 'old', 'd', 'scenario.lore', 5, 1.0, 'open');
INSERT INTO seats VALUES ('s1', 'GM', 'GM', 't1', 0);
"""
)


def test_a_store_of_before_dice_systems_reads_its_sessions_with_none(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    old = sqlite3.connect(path)
    old.executescript(OLD_LAYOUT)
    old.close()
    (listed,) = listing.read(path)  # (read-only: the file is not brought up to date)
    assert listed.record.dice == ""

    async def reopened() -> tuple[list[SessionRecord], Any]:
        store = SQLiteStore(path)
        try:
            return await store.sessions(), await store.holder("t1")
        finally:
            await store.close()

    sessions, holder = asyncio.run(reopened())
    assert [(s.id, s.dice) for s in sessions] == [("s1", "")]
    assert holder[0].dice == "" and holder[1].seat == "GM"
