"""Dice from the chat (a rule system's commands too, over the socket), and rules' HTML
made safe."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lore.clients.seat import SeatClient, acknowledged
from lore.dice import FixedSource
from lore.server.chat import RollError, chat_line_roll, chat_roll, clean_html
from tests.engine.harness import play
from tests.server.serving import ServerThread, links


def test_a_line_that_is_a_dice_command_is_rolled() -> None:
    roll = chat_roll("2D6+3>=10", FixedSource([6, 3]))
    assert roll is not None and roll.text == "(2D6+3>=10) ＞ 9[6,3]+3 ＞ 12 ＞ 成功"
    assert chat_roll("/roll 1D100<=65", FixedSource([40])) is not None
    assert chat_roll("/r S3D6", FixedSource([1, 2, 3])).secret  # type: ignore[union-attr]
    assert chat_roll("こんにちは") is None


@pytest.mark.parametrize(
    ("line", "dice", "text"),
    [
        ("２Ｄ６", [1, 2], "(2D6) ＞ 3[1,2] ＞ 3"),
        ("１ｄ１００＜＝５０", [42], "(1D100<=50) ＞ 42 ＞ 成功"),
        ("／ｒ　２Ｄ６＋１", [3, 4], "(2D6+1) ＞ 7[3,4]+1 ＞ 8"),
        ("ｘ２　１Ｄ６", [5, 6], "#1\n(1D6) ＞ 5\n\n#2\n(1D6) ＞ 6"),
    ],
)
def test_full_width_commands_typed_with_an_input_method_are_rolled(
    line: str, dice: list[int], text: str
) -> None:
    roll = chat_line_roll(line, FixedSource(dice))
    assert roll is not None and roll.result.text == text
    assert chat_line_roll("ＯＫ、２Ｄ６もけけ") is None  # talk stays talk


@pytest.mark.parametrize(
    ("line", "comment"),
    [
        ("1d100<=50 鍵開け", "鍵開け"),
        ("２Ｄ６　ゴブリンに攻撃　２回目", "ゴブリンに攻撃　２回目"),  # as typed
        ("/r 2D6 Ｈｉｔ!", "Ｈｉｔ!"),
        ("x2 1D6 damage", "damage"),
        ("choice[剣,槍] どちら", "どちら"),
        ("choice 剣 槍", ""),  # the words are the choice
        ("2D6", ""),
    ],
)
def test_the_comment_after_a_command_is_kept(line: str, comment: str) -> None:
    roll = chat_line_roll(line, FixedSource([1] * 10))
    assert roll is not None and roll.comment == comment


def test_a_rule_systems_full_width_command_is_rolled() -> None:
    session = play('import "basic.lore":url;\nimport "orm.lore":url;\n', dice=[])
    roll = chat_line_roll("ＯＲＭ３＋４＞＝１２　鍵開け", FixedSource([6, 6, 6]), session, "y@x")
    assert roll is not None and roll.result.text.startswith("(ORM3+4>=12)")
    assert roll.comment == "鍵開け"


@pytest.mark.parametrize("bad", ["/roll", "/roll hello", "/r 2X6", "/r +"])
def test_bad_rolls_say_what_is_wrong(bad: str) -> None:
    with pytest.raises(RollError):
        chat_roll(bad)


def test_html_is_cleaned_and_images_come_from_the_bundle() -> None:
    html = (
        '<html><body><p onclick="x()"><big>宝物</big><script>alert(1)</script>'
        '<img src="chest.jpg" onerror="x()"><img src="http://evil/x.png">'
        '<a href="javascript:alert(1)">a</a><style>p{}</style></p></body></html>'
    )
    cleaned = clean_html(html, "/bundle/abc")
    assert "script" not in cleaned and "onclick" not in cleaned and "onerror" not in cleaned
    assert "javascript" not in cleaned and "evil" not in cleaned and "style" not in cleaned
    assert "<big>宝物</big>" in cleaned
    assert '<img src="/bundle/abc/chest.jpg">' in cleaned


def test_the_sessions_rule_system_adds_its_own_commands() -> None:
    session = play(
        'import "basic.lore":url;\nimport "ninja.lore":url;\nsection s {\n'
        ' go = { ticks = 0; priority = 0; handler = @{ GM.message("ready"); }; }:Event;\n}\n',
        dice=[],
    )
    roll = chat_roll("/r NJ3@1", FixedSource([8, 9, 2]), session, "y@x")
    assert roll is not None and roll.text == "(NJ3@1) ＞ 8,9,2 ＞ 達成数2 ＞ 成功"
    assert [die.value for die in roll.dice] == [8, 9, 2]
    english = chat_roll("NJ3@1", FixedSource([8, 9, 2]), session, "y@x", language="en")
    assert english is not None and english.text == "(NJ3@1) ＞ 8,9,2 ＞ 2 successes ＞ Success"
    assert chat_roll("SNJ1", FixedSource([3]), session).secret  # type: ignore[union-attr]
    plain = chat_roll("2D6", FixedSource([1, 2]), session)
    assert plain is not None and plain.text == "(2D6) ＞ 3[1,2] ＞ 3"
    assert chat_roll("忍殺", None, session) is None
    with pytest.raises(RollError, match="more dice than the 1 faces given"):
        chat_roll("NJ3", FixedSource([8]), session)


# Two players, each with a character, and a command that names who rolls it.
NAMED = """import "basic.lore":url;
section s {
 hero = { name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Actor;
 other = { name = "Ren"; player = "ren@example.org":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Actor;
 place = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 who = {
  pattern = "WHO{n}";
  help = "WHO2: 2d6 for your character";
  handler = @(n : list<integer>) : Roll {
   names = system.roller.actors.map(@(a : Actor) : string { result = a.name; });
   r = GM.roll((n.get(0))d6);
   result = r.withText("WHO" + n.get(0) + " " + names.join(",") + " " + r.by + " " + r.text);
  };
 }:Command;
 go = { ticks = 0; priority = 0; handler = @{ GM.message("ready"); }; }:Event;
}
"""


def rolls_seen(client: SeatClient) -> list[dict[str, Any]]:
    return [
        message
        for frame in map(json.loads, client.raw)
        for message in frame.get("messages", [])
        if message["kind"] == "roll"
    ]


def test_a_players_system_command_is_rolled_in_their_name_over_the_socket(
    tmp_path: Path,
) -> None:
    """A player types a rule system's command: every seat's frame names the player, and
    the handler knew who typed it; typed secretly (``S``), its result goes to that player
    and the GM only, the other player learning no more than that there was a roll."""
    folder = tmp_path / "named"
    folder.mkdir()
    (folder / "scenario.lore").write_text(NAMED, encoding="utf-8")
    with ServerThread(tmp_path, examples=[folder]) as server:
        seats = links(server.create("named"), server.base)
        clients = {seat: SeatClient(link) for seat, link in seats.items()}
        for client in clients.values():
            client.connect()
        aki, ren, gm = (clients[s] for s in ("aki@example.org", "ren@example.org", "GM"))
        assert acknowledged(aki.request({"type": "chat", "text": "WHO2"})) is not None
        assert acknowledged(aki.request({"type": "chat", "text": "SWHO1"})) is not None
        for client in clients.values():
            client.pump(0.1)
        opened = {"kind": "roll", "from": "aki@example.org"}
        for client in (aki, ren, gm):
            [seen, _] = rolls_seen(client)
            assert opened.items() <= seen.items() and "secret" not in seen
            assert seen["text"].startswith("WHO2 Aki aki@example.org [")
        for client in (aki, gm):
            secret = rolls_seen(client)[1]
            assert secret["secret"] and secret["from"] == "aki@example.org"
            assert secret["text"].startswith("WHO1 Aki aki@example.org [")
        hidden = rolls_seen(ren)[1]
        assert set(hidden) == {"kind", "tick", "from", "secret"}
        assert hidden["from"] == "aki@example.org"
        assert "WHO1" not in "\n".join(ren.raw)
