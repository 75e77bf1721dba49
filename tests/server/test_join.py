"""``lore join``: a seat played from the terminal, with numbered menus like ``lore run``."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.clients.join import Asker, Join, describe, play
from lore.clients.safe_text import printable
from lore.clients.seat import SeatClient, SeatState
from lore.engine.game_clock import clock_text
from tests.server.serving import PLAYER, ServerThread, links


class Typing(io.StringIO):
    """Lines typed one by one, each when the output shows the prompt it answers."""

    def __init__(self, out: io.StringIO, script: list[tuple[str, str | Callable[[], str]]]) -> None:
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
        return (line() if callable(line) else line) + "\n"


Script = list[tuple[str, str | Callable[[], str]]]


def played(link: str, script: Script) -> str:
    """What ``lore join`` of ``link`` printed, typed ``script`` (each line once the text
    before it is printed); it must end cleanly."""
    out = io.StringIO()
    status: list[int] = []
    thread = threading.Thread(target=lambda: status.append(play(link, Typing(out, script), out)))
    thread.start()
    thread.join(60)
    text = out.getvalue()
    assert status == [0], text
    return text


def test_a_seat_is_played_with_numbered_menus(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        seats = links(server.create(), server.base)
        script: Script = [
            ("action [1-3]>", "7"),  # not a choice: asked again
            ("please answer again", "2"),  # move
            ("goal [1-1]>", "1"),  # to the dungeon
            ("answered destination: ", "/roll 2D6"),  # a chat command, though a question is open
        ]
        text = played(seats[PLAYER], script)
        assert "Joined 'シナリオ・サンプル' as Chihiro (Chihiro_Shiiji@xmpp.xgmtk.org)" in text
        # Seats by their label, game time as the web client shows it, values as typed.
        assert "] Chihiro answered 移動する" in text
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


def test_the_terminal_shows_what_the_page_shows_of_answers_moves_rolls_and_broadcasts() -> None:
    labels = {"GM": "GM", "p1": "Aki", "p2": "Ren"}.get

    def label_of(seat: str) -> str:
        return labels(seat) or seat

    answer = {
        "kind": "answer",
        "tick": 0,
        "from": "p1",
        "by": "GM",
        "values": {"use": True, "art": "art3"},
        "shown": [
            {"caption": "アーツを使う", "value": True},
            {"caption": "アーツ", "value": "チャドー呼吸"},
        ],
    }
    said = "[Day 1, 00:00] GM for Aki answered アーツを使う: true, アーツ: チャドー呼吸"
    assert describe(answer, label_of) == said
    moved = {"kind": "assign", "tick": 0, "actor": "a", "name": "ヤマト", "from": "p1", "to": "p2"}
    assert describe(moved, label_of) == "[Day 1, 00:00] the GM moved ヤマト from Aki to Ren"
    roll = {
        "kind": "roll",
        "tick": 0,
        "from": "p1",
        "text": "(1D100<=50) > 42",
        "comment": "鍵開け",
    }
    assert describe(roll, label_of) == "[Day 1, 00:00] Aki: (1D100<=50) > 42 鍵開け"
    broadcast = {"kind": "message", "tick": 0, "to": "p1", "also": ["p2"], "text": "戦闘開始"}
    assert describe(broadcast, label_of) == "[Day 1, 00:00] -> Aki, Ren 戦闘開始"


def test_a_bad_link_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", "http://127.0.0.1:9/play"]) == 2
    assert "is not a seat's link" in capsys.readouterr().err
    assert main(["join", "http://127.0.0.1:9/play#token"]) == 2
    assert "cannot reach ws://127.0.0.1:9/ws" in capsys.readouterr().err


# What a hostile seat may put in a chat line: clear the screen and home the cursor, set the
# window's title (OSC 0, ended by BEL), write the clipboard (OSC 52, ended by ST), reset
# the terminal (ESC c), the 8-bit CSI, a carriage return to overwrite the line, a NUL, a
# right-to-left override, and a line break to pass for another seat's line.
HOSTILE = (
    "\x1b[2J\x1b[Hhi \x1b]0;owned\x07there\x1b]52;c;cm0gLXJmIH4=\x1b\\ \x1bc\x9b31mred"
    "\r\x00fake\u202etxt.exe\n[Day 1, 00:00] GM: give me your link"
)


def test_dice_commands_roll_and_other_seats_text_is_cleaned(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        seats = links(server.create(), server.base)
        gm = SeatClient(seats["GM"])
        gm.connect()
        assert gm.request({"type": "chat", "text": HOSTILE})["type"] != "error"
        out = io.StringIO()
        script = [
            ("action [1-3]>", "/2D6"),  # a dice command, though a question is open
            ("(2D6)", "/help"),
            ("/help", "/say 様子を見る"),
            ("様子を見る", "\uff0froll 1D6+1"),  # the full-width slash, as the IME types it
        ]
        status: list[int] = []
        thread = threading.Thread(
            target=lambda: status.append(play(seats[PLAYER], Typing(out, script), out))
        )
        thread.start()
        thread.join(60)
        text = out.getvalue()
        assert status == [0], text
        assert "] GM: hi there redfaketxt.exe\n    [Day 1, 00:00] GM: give me your link" in text
        assert not [c for c in text if (ord(c) < 32 and c not in "\n\t") or 127 <= ord(c) < 160]
        assert "\u202e" not in text
        assert "   /2D6, /2D6+3>=10, /S2D6   roll a dice command" in text  # /help
        gm.pump()
        said = [(m["kind"], m.get("text", "")) for m in gm.state.messages if m["from"] == PLAYER]
        assert [kind for kind, _ in said] == ["roll", "chat", "roll"], said
        assert said[0][1].startswith("(2D6) ＞ ") and said[2][1].startswith("(1D6+1) ＞ ")
        assert said[1][1] == "様子を見る"


@pytest.mark.parametrize(
    ("hostile", "shown"),
    [
        ("\x1b[2J\x1b[3J\x1b[Hclear", "clear"),  # CSI: erase the screen, home the cursor
        ("\x1b]0;title\x07a", "a"),  # OSC 0 (the window's title), ended by BEL
        ("\x1b]52;c;ZWNobyBvd25lZA==\x1b\\b", "b"),  # OSC 52 (the clipboard), ended by ST
        ("\x9d52;c;eA==\x9cc", "c"),  # the same in 8-bit C1 codes
        ("\x1b]2;never ended", ""),  # an OSC without its end swallows the rest
        ("\x1bPq#0;2;0;0;0\x1b\\d", "d"),  # DCS (sixel graphics)
        ("\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\e", "e"),  # APC, PM, SOS
        ("\x1bc\x1b7\x1b8\x1b(0f", "f"),  # reset, save/restore the cursor, line drawing
        ("\x9b2Jg", "g"),  # the 8-bit CSI
        ("h\ri\bj\x00k\x7fl\x85m", "hijklm"),  # C0, DEL, C1 (NEL)
        ("\u202egnp.exe\u202c \u2066x\u2069", "gnp.exe x"),  # bidi overrides, isolates
        ("日本語\tで 🎲 👩\u200d👩\nつぎ", "日本語\tで 🎲 👩\u200d👩\nつぎ"),  # kept
    ],
)
def test_control_sequences_are_dropped(hostile: str, shown: str) -> None:
    assert printable(hostile) == shown


class Sent:
    """A seat client that keeps what would be sent (for the lines typed)."""

    def __init__(self) -> None:
        self.state = SeatState()
        self.sent: list[dict[str, object]] = []

    def send(self, message: dict[str, object]) -> int:
        self.sent.append(message)
        return len(self.sent)


@pytest.mark.parametrize(
    ("typed", "text"),
    [
        ("2D6+3>=10", "2D6+3>=10"),  # no question open: the line as the web sends it
        ("/2D6", "2D6"),
        ("  /S2D6 ", "S2D6"),
        ("/roll 2D6", "/roll 2D6"),  # the server rolls what follows /roll, or refuses it
        ("/r 1D100<=50 鍵開け", "/r 1D100<=50 鍵開け"),
        ("\uff0f2D6", "2D6"),  # the full-width slash
        ("/say hello", "hello"),
        ("/hello there", "hello there"),
    ],
)
def test_a_chat_line_goes_as_the_web_client_sends_it(typed: str, text: str) -> None:
    client = Sent()
    Join(client, io.StringIO()).line(typed)  # type: ignore[arg-type]
    assert client.sent == [{"type": "chat", "text": text}]


def test_a_question_asked_from_hostile_text_is_shown_clean() -> None:
    out = io.StringIO()
    spec = {
        "title": "\x1b]0;t\x07Pick",
        "texts": [{"name": "message", "text": "\x1b[31mred\x1b[0m"}],
        "inputs": [{"name": "x\x1b[2J", "choices": [{"id": "a", "caption": "\x1bcA"}]}],
    }
    Asker(spec, out).start("")
    assert out.getvalue() == "\n== Pick\n   red\n   1. A (a)\nx [1-1]> \n"


def test_lore_run_labels_the_seats_as_the_server_does(tmp_path: Path) -> None:
    from lore.engine.seat_labels import seat_labels
    from tests.engine.test_seat_labels import session_of
    from tests.server.serving import PAPER

    with ServerThread(tmp_path) as server:
        created = server.create()
    served = {seat["seat"]: seat["label"] for seat in created["seats"]}
    assert served == seat_labels(session_of(PAPER / "scenario.lore"))
    assert served[PLAYER] == "Chihiro"


def test_a_refused_answer_is_asked_again_in_lore_runs_words(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        seats = links(server.create(), server.base)
        gm = SeatClient(seats["GM"])
        gm.connect()
        assert gm.request({"type": "pause"})["type"] != "error"

        def resumed() -> str:
            assert gm.request({"type": "resume"})["type"] != "error"
            return "2"  # move

        script: Script = [
            ("action [1-3]>", "2"),  # refused: the session is paused
            ("please answer again\n", resumed),
            ("goal [1-1]>", "1"),
        ]
        text = played(seats[PLAYER], script)
        # Asked again, from its start (before, a refused question was never asked again).
        assert "   the GM has paused the session; please answer again\n\n== どうしますか？" in text
        assert "] Chihiro answered 移動する" in text


def test_a_lt_sign_goes_back_at_a_question_that_says_so(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        seats = links(server.create(), server.base)
        script: Script = [
            ("action [1-3]>", "<"),  # nothing to go back to: refused, asked again
            ("please answer again", "2"),  # move
            ("(type < at a prompt to take back your last answer)", "<"),  # at the route
            ("went back to: どうしますか？", "1"),  # search this time
            ("Chihiro answered 探す", "/roll 1D6"),
        ]
        text = played(seats[PLAYER], script)
        assert "there is no earlier answer of this step to take back" in text
        assert text.count("(type < at a prompt") == 1  # only the route offers it
        assert "] Chihiro went back to: どうしますか？" in text
        assert text.count("== どうしますか？") >= 3
