"""The two bundled rule systems played online in a real browser (as ``test_browser.py``):
the GM starts the sample fight of ORM and of the ninja rules, both players join from
browser contexts of their own, and the three answer every dialog that opens (with a
simple policy: attack or end when offered, else the first choice) until a whole turn or
round has been played. A player then types the system's own chat command, which the
server rolls through the session's Lore rules. Screenshots go to
``test-artifacts/browser/``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Locator, Page, expect

from tests.server.serving import EXAMPLES, ServerThread
from tests.server.test_browser import browser, shot

__all__ = ["browser"]  # the fixture, used by the tests below

TIMEOUT = 90.0  # seconds for the turn to be played


def answer_first_dialog(page: Page, prefer: list[str], tap: bool = False) -> bool:
    """Answer the first open dialog of a page (by taps, on a touch screen, with
    ``tap``); whether there was one."""
    dialogs = page.locator("article.dialog")
    if dialogs.count() == 0:
        return False
    box = dialogs.first

    def press(target: Locator) -> None:
        if tap:
            target.tap(timeout=1000)
        else:
            target.click(timeout=1000)

    try:
        for many in box.locator("div.input").all():
            checks = many.locator("input[type=checkbox]")
            hint = many.locator("span.hint")
            if checks.count() > 1 and hint.count() > 0:
                least = int(re.split("[–-]", hint.first.inner_text(timeout=1000))[0] or 1)
                for index in range(max(least, 1)):
                    if tap:
                        checks.nth(index).tap(timeout=1000)
                    else:
                        checks.nth(index).check(timeout=1000)
        for group in box.locator("div.choices:not(.many)").all():
            buttons = group.locator("button.choice")
            captions = [text.strip() for text in buttons.all_inner_texts()]
            wanted = next((c for c in prefer if c in captions), None)
            press(buttons.nth(captions.index(wanted)) if wanted else buttons.first)
        submit = box.locator("button.submit")
        if submit.count() > 0 and submit.is_visible():
            press(submit)
    except Exception:  # the dialog went away while being answered (a new view came)
        pass
    return True


def play_until(gm: Page, players: list[Page], text: str, prefer: list[str]) -> None:
    """Answer the dialogs of every page until the GM's log holds ``text``."""
    deadline = time.monotonic() + TIMEOUT
    log = gm.locator("#log")
    while text not in log.inner_text():
        assert time.monotonic() < deadline, f"'{text}' did not come in {TIMEOUT} s"
        answered = False
        for page in [gm, *players]:
            answered = answer_first_dialog(page, prefer) or answered
        if not answered:
            page.wait_for_timeout(100)


def start(
    server: ServerThread,
    browser: Browser,
    source: str,
    phones: bool = False,
    wait: float = 5_000,
) -> tuple[Page, list[Page]]:
    """The GM starts a session of ``source``; every player opens its invitation (on a
    360x640 touch screen, with ``phones``; ``wait``: the milliseconds each page may take
    to show it)."""
    gm = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP").new_page()
    gm.goto(server.base + "/")
    gm.locator(f'button[data-source="{source}"]').click()
    expect(gm.locator("a.invite-link")).to_have_count(2, timeout=wait)
    invites = [link.get_attribute("href") for link in gm.locator("a.invite-link").all()]
    gm.locator("a.open-gm").click()
    expect(gm.locator("#gm")).to_be_visible(timeout=wait)
    players = []
    for invite in invites:
        assert invite is not None
        screen: dict[str, Any] = {"viewport": {"width": 900, "height": 800}}
        if phones:
            screen = {"viewport": {"width": 360, "height": 640}, "has_touch": True}
            screen.update(is_mobile=True, device_scale_factor=2, locale="ja-JP")
        page = browser.new_context(**screen).new_page()
        page.goto(invite)
        players.append(page)
    expect(gm.locator("#presence li.online")).to_have_count(1 + len(players), timeout=wait)
    return gm, players


def roll_in_chat(page: Page, command: str) -> Locator:
    page.locator("#chatText").fill(command)
    page.locator("#chatText").press("Enter")
    return page.locator("#log li", has_text=f"({command.upper()})")


def test_orm_is_played_online(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        gm, players = start(server, browser, "orm")
        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        expect(gm.locator("#log")).to_contain_text("屍鬼が二体と骸骨の弓兵が")
        play_until(gm, players, "ターン 2: スタートフェイズ", ["通常攻撃", "終わる", "判定に+2"])
        shot(gm, "orm-gm-turn-2")
        shot(players[0], "orm-player-turn-2")
        expect(gm.locator("#log")).to_contain_text("の先制値")
        # The system's own check command, rolled by its Lore rule.
        rolled = roll_in_chat(players[0], "ORM3+4>=12")
        expect(rolled).to_contain_text("＞")
        expect(gm.locator("#log li", has_text="(ORM3+4>=12)")).to_have_count(1)
        assert errors == []


def test_the_ninja_rules_are_played_online(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "ninja"]) as server:
        gm, players = start(server, browser, "ninja")
        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        expect(gm.locator("#log")).to_contain_text("ラウンド進行開始")
        play_until(
            gm, players, "ラウンド 2: セットアップフェイズ", ["攻撃 (1)", "残りの行動回数を破棄"]
        )
        shot(gm, "ninja-gm-round-2")
        shot(players[1], "ninja-player-round-2")
        # The hacker, 認識 at first, hears the Kotodama scene; the ninja does not.
        expect(players[1].locator("#log")).to_contain_text("コトダマシーン")
        rolled = roll_in_chat(players[0], "NJ7@2")
        expect(rolled).to_contain_text("達成数")
        expect(gm.locator("#log li", has_text="(NJ7@2)")).to_have_count(1)
        assert errors == []
