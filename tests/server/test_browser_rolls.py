"""Rolls at the table in a real browser (as ``test_browser_systems.py``): in the ORM sample
fight a player sees their own character's hit check as a roll card, with its dice and
their faces, the total and the outcome; a secret roll of the GM's never reaches the
player's socket (its frames are read as the browser got them). Screenshots go to
``test-artifacts/browser/``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import Browser, WebSocket, expect

from tests.server.serving import EXAMPLES, ServerThread
from tests.server.test_browser import browser, shot
from tests.server.test_browser_systems import TIMEOUT, answer_first_dialog, start

__all__ = ["browser"]  # the fixture, used by the test below

WAIT = 30_000  # ms for a page to show what it should (the ORM program compiles first)
SECRET = "ひみつqzxjv"  # the comment of the GM's secret roll: never on a player's wire


def test_a_player_sees_their_own_orm_hit_check_as_a_roll_card(
    tmp_path: Path, browser: Browser
) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        gm, players = start(server, browser, "orm", WAIT)
        player = players[0]
        frames: list[str] = []

        def listen(socket: WebSocket) -> None:
            socket.on("framereceived", lambda payload: frames.append(str(payload)))

        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        player.on("websocket", listen)
        player.reload()  # (its socket made again, now listened to)
        expect(gm.locator("#presence li.online")).to_have_count(3, timeout=WAIT)
        # The player's own hit check, as a card in the player's log (its first attack).
        name = player.locator("#who").inner_text().strip()  # (the seat: its character's name)
        mine = player.locator("#log li.roll-card", has_text="命中判定").filter(
            has=player.locator(".from", has_text=name)
        )
        deadline = time.monotonic() + TIMEOUT
        while mine.count() == 0:
            assert time.monotonic() < deadline, f"no hit check came in {TIMEOUT} s"
            answered = False
            for page in [gm, *players]:
                answered = answer_first_dialog(page, ["通常攻撃", "終わる", "判定に+2"]) or answered
            if not answered:
                gm.wait_for_timeout(100)
        card = mine.first
        card.scroll_into_view_if_needed()
        dice = card.locator(".die")
        assert dice.count() >= 1
        for face in dice.locator(".face").all_inner_texts():
            assert 1 <= int(face) <= 6
        expect(dice.first.locator(".sides")).to_have_text(
            re.compile("^[dD]6$")
        )  # (d6, D6 in Japanese)
        expect(card.locator(".roll-total")).to_contain_text("=")
        expect(card.locator(".roll-text")).to_contain_text("命中判定")
        shot(player, "rolls-player-hit-check")
        # The GM sees the same check once: a card, no second line of its text.
        text = card.locator(".roll-text").inner_text()
        expect(gm.locator("#log li", has_text=text)).to_have_count(1)
        # A secret roll of the GM's: the GM sees its card; the player, that one was made.
        gm.locator("#secret").check()
        gm.locator("#chatText").fill(f"2D6 {SECRET}")
        gm.locator("#chatText").press("Enter")
        expect(gm.locator("#log li.roll-card", has_text=SECRET)).to_have_count(1)
        expect(player.locator("#log li.secret").last).to_be_visible()
        player.wait_for_timeout(500)
        shot(gm, "rolls-gm-secret-roll")
        assert frames, "the player's frames were not read"
        assert not any(SECRET in frame for frame in frames)
        assert SECRET not in player.locator("#log").inner_text()
        assert errors == []
