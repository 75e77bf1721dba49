"""Dice from the chat, and rules' HTML made safe."""

from __future__ import annotations

import itertools

import pytest

from lore.server.chat import RollError, clean_html, roll_command, roll_dice


def fixed(*faces: int):  # type: ignore[no-untyped-def]
    found = itertools.cycle(faces)
    return lambda sides: next(found)


def test_roll_commands() -> None:
    assert roll_command("/roll 2D6+3") == "2D6+3"
    assert roll_command("/r 1d100<=65") == "1d100<=65"
    assert roll_command("/ROLL") == ""
    assert roll_command("hello /roll 2d6") is None


def test_rolls_add_dice_and_numbers_and_compare() -> None:
    roll = roll_dice("2D6+3", fixed(4, 2))
    assert (roll.dice, roll.total, roll.success) == ([4, 2], 9, None)
    assert roll.text() == "(2D6+3) > [4,2] > 9"
    check = roll_dice("1D100<=65", fixed(40))
    assert check.success is True and check.text().endswith("成功 success")
    assert roll_dice("d20-1>=15", fixed(15)).success is False
    assert roll_dice("3d6", fixed(6)).total == 18
    for _ in range(200):
        assert 2 <= roll_dice("2d6").total <= 12


def test_what_follows_a_space_is_a_comment() -> None:
    roll = roll_dice("2D6 攻撃 3", fixed(1, 2))
    assert roll.total == 3 and roll.text() == "(2D6) > [1,2] > 3 攻撃 3"


@pytest.mark.parametrize("bad", ["", "2X6", "2D6+", "101D6", "1D0", "1D100000", ">=5"])
def test_bad_rolls_say_what_is_wrong(bad: str) -> None:
    with pytest.raises(RollError):
        roll_dice(bad)


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
