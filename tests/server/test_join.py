"""``lore join``: a seat played from the terminal, with numbered menus like ``lore run``."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.clients.join import clock_text, describe, play
from lore.clients.seat import SeatClient
from tests.server.serving import PLAYER, ServerThread, links


class Typing(io.StringIO):
    """Lines typed one by one, each when the output shows the prompt it answers."""

    def __init__(self, out: io.StringIO, script: list[tuple[str, str]]) -> None:
        super().__init__()
        self.out = out
        self.script = script

    def __iter__(self) -> Typing:
        return self

    def __next__(self) -> str:
        if not self.script:
            time.sleep(0.5)
            raise StopIteration
        awaited, line = self.script.pop(0)
        deadline = time.monotonic() + 20
        while awaited not in self.out.getvalue():
            if time.monotonic() > deadline:
                raise StopIteration
            time.sleep(0.02)
        return line + "\n"


def test_a_seat_is_played_with_numbered_menus(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        seats = links(server.create(), server.base)
        out = io.StringIO()
        script = [
            ("action [1-3]>", "7"),  # not a choice: asked again
            ("please answer again", "2"),  # move
            ("goal [1-1]>", "1"),  # to the dungeon
            ("answered goal=", "/roll 2D6"),  # a chat command, though a question is open
        ]
        status: list[int] = []
        thread = threading.Thread(
            target=lambda: status.append(play(seats[PLAYER], Typing(out, script), out))
        )
        thread.start()
        thread.join(60)
        text = out.getvalue()
        assert status == [0], text
        assert "Joined 'シナリオ・サンプル' as Chihiro (Chihiro_Shiiji@xmpp.xgmtk.org)" in text
        # Seats by their label, game time as the web client shows it, values as typed.
        assert "] Chihiro answered action=move" in text
        assert "[Day 1, " in text and "Chihiro_Shiiji@" not in text.split("\n", 1)[1]
        assert "== どうしますか？" in text and "   2. 移動する (move)" in text
        assert "   1. /region[dungeon]" in text
        gm = SeatClient(seats["GM"])
        gm.connect()
        gm.pump()
        assert [m["values"] for m in gm.state.messages if m["kind"] == "answer"] == [
            {"action": "move"},
            {"goal": "/region[dungeon]"},
        ]
        assert any(m["kind"] == "roll" and m["from"] == PLAYER for m in gm.state.messages)


def test_messages_name_seats_by_label_and_show_the_game_time() -> None:
    labels = {"GM": "GM", "p1": "Aki"}.get

    def label_of(seat: str) -> str:
        return labels(seat) or seat

    roll = {"kind": "roll", "tick": 90_061, "from": "p1", "to": "GM", "text": "2D6 > 7"}
    assert describe(roll, label_of) == "[Day 2, 01:01] Aki -> GM: 2D6 > 7"
    answer = {"kind": "answer", "tick": 0, "from": "p1", "values": {"n": 3, "ok": True}}
    assert describe(answer, label_of) == "[Day 1, 00:00] Aki answered n=3, ok=true"
    assert describe({"kind": "chat", "tick": 59, "from": "seat-9", "text": "hi"}, label_of) == (
        "[Day 1, 00:00] seat-9: hi"  # a seat no longer listed: its id
    )
    assert clock_text(86_399) == "Day 1, 23:59"


def test_a_bad_link_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", "http://127.0.0.1:9/play"]) == 2
    assert "is not a seat's link" in capsys.readouterr().err
    assert main(["join", "http://127.0.0.1:9/play#token"]) == 2
    assert "cannot reach ws://127.0.0.1:9/ws" in capsys.readouterr().err
