"""Phones, keyboards and accessibility, in a real browser (as ``test_browser.py``).

axe-core (``tests/server/axe.py``) finds no serious or critical violation on the start
page, the page of a created session, the GM's and a player's tables (the paper, ORM, with
a dialog open), in both languages. A player plays a whole turn of the paper by keyboard
alone (Tab to a control, Enter). A whole ORM fight is played to its end on two phones
(360x640, touch: every answer tapped), the page never wider than the screen.
Screenshots go to ``test-artifacts/browser/`` (``a11y-*``).
"""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

from tests.server.axe import axe_script, violations
from tests.server.serving import EXAMPLES, PLAYER, ServerThread
from tests.server.test_browser import browser, dialog, shot
from tests.server.test_browser_systems import answer_first_dialog, start

__all__ = ["browser"]  # the fixture, used by the tests below

FIGHT_TIMEOUT = 400.0  # seconds for the whole ORM fight


def clean(page: Page, where: str) -> None:
    found = violations(page)
    assert found == [], f"{where}: {found}"


def test_axe_finds_no_serious_violation_on_any_page(tmp_path: Path, browser: Browser) -> None:
    # (axe-core is put in the pages by the test, past the pages' Content-Security-Policy)
    axe_script()  # (skipped, or failed under CI, without axe-core)
    with ServerThread(tmp_path, [EXAMPLES / "orm", EXAMPLES / "paper"]) as server:
        for locale in ("ja-JP", "en-US"):
            start = browser.new_context(locale=locale, bypass_csp=True).new_page()
            start.goto(server.base + "/")
            expect(start.locator('button[data-source="paper"]')).to_be_visible()
            clean(start, f"start page ({locale})")
            start.locator('button[data-source="paper"]').click()
            expect(start.locator("a.invite-link")).to_have_count(1)
            clean(start, f"created ({locale})")
            invite = start.locator("a.invite-link").get_attribute("href")
            start.locator("a.open-gm").click()
            expect(start.locator("#gm")).to_be_visible()
            # (the sheets, with the GM's ✎ on each line: drawn before the check, not raced)
            expect(start.locator("#sheets button.rule-edit").first).to_be_visible()
            clean(start, f"GM's table ({locale})")
            start.locator("#sheets button.rule-edit").first.click()
            expect(start.locator("#sheets form.rule-form")).to_be_visible()
            clean(start, f"GM's ruling form ({locale})")
            start.locator("#sheets button.rule-cancel").click()
            me = browser.new_context(
                locale=locale, viewport={"width": 390, "height": 844}, bypass_csp=True
            )
            player = me.new_page()
            assert invite is not None
            player.goto(invite)
            expect(player.locator("article.dialog").first).to_be_visible()
            clean(player, f"player's table ({locale})")
            shot(player, f"a11y-1-player-{locale}")
        orm = browser.new_context(
            locale="ja-JP", viewport={"width": 1280, "height": 900}, bypass_csp=True
        )
        gm = orm.new_page()
        gm.goto(server.base + "/")
        gm.locator('button[data-source="orm"]').click()
        gm.locator("a.open-gm").click()
        expect(gm.locator("article.dialog").first).to_be_visible()
        clean(gm, "ORM GM's table")
        shot(gm, "a11y-2-orm-gm")


# Whether a glyph is drawn (not the blank box of a font that lacks it) and in colour: its
# width against a character no font has, and the colours of its pixels on a canvas.
GLYPH = """(glyph) => {
  const draw = (text) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 64;
    const context = canvas.getContext('2d');
    context.font = '40px "Noto Sans CJK JP", sans-serif';
    context.fillStyle = '#000';
    context.fillText(text, 4, 48);
    return context.getImageData(0, 0, 64, 64).data;
  };
  const data = draw(glyph);
  const missing = draw(String.fromCodePoint(0x10fffd));
  let inked = 0, coloured = 0, differ = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] > 0) inked += 1;
    if (data[i + 3] !== missing[i + 3]) differ += 1;
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    if (data[i + 3] > 0 && (Math.abs(r - g) > 40 || Math.abs(g - b) > 40)) coloured += 1;
  }
  return { drawn: inked > 20 && differ > 20, coloured: coloured > 20 };
}"""


def test_emoji_and_suits_render(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path) as server:
        page = browser.new_context().new_page()
        page.goto(server.base + "/")
        for emoji in ("🎲", "🏹", "👺"):
            assert page.evaluate(GLYPH, emoji) == {"drawn": True, "coloured": True}, emoji
        for suit in ("♠", "♥", "♦", "♣"):
            assert page.evaluate(GLYPH, suit)["drawn"], suit


def focus_on(page: Page, target: Locator, presses: int = 80) -> None:
    """Press Tab until ``target`` has the focus."""
    handle = target.element_handle()
    for _ in range(presses):
        if page.evaluate("(el) => document.activeElement === el", handle):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {target}")


def test_a_whole_turn_is_played_by_keyboard_alone(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path) as server:
        created = server.create()
        link = next(server.base + s["link"] for s in created["seats"] if s["seat"] == PLAYER)
        me = browser.new_context(locale="ja-JP").new_page()
        me.goto(link)
        asked = dialog(me, "どうしますか？")
        focus_on(me, asked.get_by_role("button", name="移動する", exact=True))
        me.keyboard.press("Enter")
        where = dialog(me, "どこへ")
        expect(where).to_be_visible()
        # The place is picked on the map by keyboard too (its places are buttons).
        focus_on(me, me.locator('g.place.choice[data-place="dungeon"]'))
        me.keyboard.press("Enter")
        expect(where.locator(".route-line")).to_contain_text("ミニマムダンジョン所在地")
        focus_on(me, where.locator(".submit"))
        shot(me, "a11y-3-keyboard-focus")
        me.keyboard.press("Enter")
        expect(me.locator("#clock")).to_have_text("1日目 00:45")
        # And the next question, answered the same way, begins the next turn.
        asked = dialog(me, "どうしますか？")
        focus_on(me, asked.get_by_role("button", name="探す", exact=True))
        me.keyboard.press("Enter")
        expect(me.locator("#log")).to_contain_text("ダンジョンに入ります。")
        # The chat too.
        focus_on(me, me.locator("#chatText"))
        me.keyboard.type("by keyboard")
        me.keyboard.press("Enter")
        expect(me.locator("#log")).to_contain_text("by keyboard")


def test_a_whole_orm_fight_is_played_on_phones(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        gm, phones = start(server, browser, "orm", phones=True)
        errors: list[str] = []
        for page in [gm, *phones]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        # (who is asked first follows the fight's initiative dice: one of the phones, or
        # the GM for an enemy)
        started = time.monotonic()
        while not any(p.locator("article.dialog").count() for p in [*phones, gm]):
            assert time.monotonic() - started < 30, "no one was asked anything"
            gm.wait_for_timeout(100)
        shot(phones[0], "a11y-4-phone-start")
        prefer = ["通常攻撃", "攻撃", "終わる", "判定に+2"]
        deadline = time.monotonic() + FIGHT_TIMEOUT
        log = gm.locator("#log")
        tapped = 0
        while "戦闘終了" not in log.inner_text():
            assert time.monotonic() < deadline, f"the fight did not end in {FIGHT_TIMEOUT} s"
            answered = False
            for page in phones:
                if answer_first_dialog(page, prefer, tap=True):
                    answered, tapped = True, tapped + 1
            if gm.locator("article.dialog").count() > 0:
                answered = answer_first_dialog(gm, prefer) or answered  # (the GM's desktop)
            if not answered:
                gm.wait_for_timeout(100)
        assert tapped > 5
        for page in phones:
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= 360, f"the page is {width}px wide on a 360px screen"
            expect(page.locator("#log")).to_contain_text("戦闘終了")
        shot(phones[0], "a11y-5-phone-fight-over")
        shot(phones[1], "a11y-6-phone-fight-over")
        assert errors == []
