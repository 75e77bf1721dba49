"""Dice from the chat, and rules' HTML made safe."""

from __future__ import annotations

import pytest

from lore.dice import FixedSource
from lore.server.chat import RollError, chat_roll, clean_html
from tests.engine.harness import play


def test_a_line_that_is_a_dice_command_is_rolled() -> None:
    roll = chat_roll("2D6+3>=10", FixedSource([6, 3]))
    assert roll is not None and roll.text == "(2D6+3>=10) ＞ 9[6,3]+3 ＞ 12 ＞ 成功"
    assert chat_roll("/roll 1D100<=65", FixedSource([40])) is not None
    assert chat_roll("/r S3D6", FixedSource([1, 2, 3])).secret  # type: ignore[union-attr]
    assert chat_roll("こんにちは") is None


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
    assert roll is not None and roll.text == "(NJ3@1) ＞ [8 9 2] ＞ 達成数2 ＞ 成功"
    assert [die.value for die in roll.dice] == [8, 9, 2]
    assert chat_roll("SNJ1", FixedSource([3]), session).secret  # type: ignore[union-attr]
    plain = chat_roll("2D6", FixedSource([1, 2]), session)
    assert plain is not None and plain.text == "(2D6) ＞ 3[1,2] ＞ 3"
    assert chat_roll("忍殺", None, session) is None
    with pytest.raises(RollError, match="more dice than the 1 faces given"):
        chat_roll("NJ3", FixedSource([8]), session)
