"""A BlackPoker game played to its end in a real browser by two players (one on a phone of
360x640), each paying the costs of their requests by clicking the cards of their hand on
the card table, each seeing only their own hand: on the page (the other hand is a count)
and on the wire (no frame a player's socket received holds the other hand's cards).
Screenshots go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.server.serving import EXAMPLES, ServerThread
from tests.server.test_browser import browser, shot

__all__ = ["browser"]  # the fixture, used by the tests below

TIMEOUT = 150.0  # seconds for the game to be played
PREFER = ["アタック (2 ダメージ)", "スローイング (1 ダメージ)", "エンド (ターンを渡す)", "パス"]
HANDS = {"アオイ": "aoiHand", "レン": "renHand"}


def frames_of(page: Page) -> list[dict[str, Any]]:
    """The frames the page's socket receives, as they come."""
    frames: list[dict[str, Any]] = []

    def on_socket(socket: Any) -> None:
        socket.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    page.on("websocket", on_socket)
    return frames


def zones_in(frame: dict[str, Any]) -> list[dict[str, Any]]:
    view = frame.get("view") or {}
    zones = view.get("zones")
    found = list(zones) if isinstance(zones, list) else []
    return found + list((view.get("put") or {}).get("zones", []))


def play_turn(page: Page, clicks: dict[str, int]) -> bool:
    """Answer the page's open question, by its cards when it offers cards; whether there
    was one."""
    dialog = page.locator("article.dialog")
    if dialog.count() == 0:
        return False
    try:
        offered = page.locator("#cardPanel .card.offered")
        if offered.count() > 0:
            hint = dialog.first.locator("span.hint")
            wanted = int(hint.first.inner_text(timeout=1000).split("–")[0]) if hint.count() else 1
            for index in range(wanted):
                offered.nth(index).click(timeout=1000)
                clicks["cards"] += 1
            return True
        buttons = dialog.first.locator("button.choice")
        captions = [text.strip() for text in buttons.all_inner_texts()]
        wanted_caption = next((c for c in PREFER if c in captions), None)
        if wanted_caption is None:
            return False
        buttons.nth(captions.index(wanted_caption)).click(timeout=1000)
        clicks["menu"] += 1
    except Exception:  # the question went away while being answered (a new view came)
        pass
    return True


def test_blackpoker_is_played_by_clicking_cards(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "blackpoker"]) as server:
        gm = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP").new_page()
        gm.goto(server.base + "/")
        gm.locator('button[data-source="blackpoker"]').click()
        expect(gm.locator("a.invite-link")).to_have_count(2)
        invites = [link.get_attribute("href") for link in gm.locator("a.invite-link").all()]
        gm.locator("a.open-gm").click()
        expect(gm.locator("#gm")).to_be_visible()
        sizes = [{"width": 1000, "height": 800}, {"width": 360, "height": 640}]
        players: list[Page] = []
        frames: list[list[dict[str, Any]]] = []
        errors: list[str] = []
        for invite, size in zip(invites, sizes, strict=True):
            assert invite is not None
            phone = size["width"] < 400
            context = browser.new_context(viewport=size, locale="ja-JP", has_touch=phone)
            page = context.new_page()
            frames.append(frames_of(page))
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(invite)
            players.append(page)
        expect(players[0].locator("#cardPanel .zone.mine.zone-hand .card")).to_have_count(7)
        names = [page.locator("#who").inner_text() for page in players]
        own = [HANDS[name] for name in names]
        # Each sees its own hand's faces, and the other hand as a count.
        for page, mine in zip(players, own, strict=True):
            other = next(h for h in HANDS.values() if h != mine)
            expect(page.locator(f'.zone[data-zone="{mine}"] .card:not(.back)')).to_have_count(7)
            expect(page.locator(f'.zone[data-zone="{other}"] .card')).to_have_count(0)
            expect(page.locator(f'.zone[data-zone="{other}"] .zone-count')).to_be_visible()
        shot(players[0], "cards-start")
        shot(players[1], "cards-start-phone")
        clicks = {"cards": 0, "menu": 0}
        deadline = time.monotonic() + TIMEOUT
        staged = False
        while "の勝ち" not in players[0].locator("#log").inner_text():
            assert time.monotonic() < deadline, f"the game did not end in {TIMEOUT} s"
            answered = False
            for page in players:
                answered = play_turn(page, clicks) or answered
            if not staged and players[0].locator('.zone[data-zone="stage"] .card').count() > 0:
                shot(players[0], "cards-stage")
                staged = True
            if not answered:
                players[0].wait_for_timeout(100)
        shot(players[0], "cards-end")
        shot(players[1], "cards-end-phone")
        shot(gm, "cards-end-gm")
        assert clicks["cards"] > 0 and clicks["menu"] > 0, clicks
        # On the wire: no frame a player received holds the other hand's cards.
        for received, mine in zip(frames, own, strict=True):
            assert received, "no frames"
            for frame in received:
                for zone in zones_in(frame):
                    if zone["id"] in HANDS.values() and zone["id"] != mine:
                        assert "cards" not in zone, zone
                    for card in zone.get("cards", []):
                        assert card.get("back") or "face" in card
        assert errors == []


def test_klondike_moves_are_made_by_clicking_spots_and_cards(
    tmp_path: Path, browser: Browser
) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "klondike"]) as server:
        gm = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP").new_page()
        gm.goto(server.base + "/")
        gm.locator('button[data-source="klondike"]').click()
        expect(gm.locator("a.invite-link")).to_have_count(1)
        invite = gm.locator("a.invite-link").first.get_attribute("href")
        assert invite is not None
        page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(invite)
        # The triangle: seven columns, the last card of each face up, the rest backs.
        for n in range(1, 8):
            column = page.locator(f'.zone[data-zone="t{n}"] .card')
            expect(column).to_have_count(n)
            expect(page.locator(f'.zone[data-zone="t{n}"] .card.back')).to_have_count(n - 1)
        expect(page.locator('.zone[data-zone="stock"] .zone-name')).to_contain_text("24")
        before = page.locator("#cardPanel").inner_text()
        clicks = 0
        deadline = time.monotonic() + 60
        while clicks < 12 and not page.locator("#banner:not([hidden])").count():
            assert time.monotonic() < deadline, "no move could be clicked"
            offered = page.locator("#cardPanel .offered")
            if offered.count() == 0 or page.locator("article.dialog").count() == 0:
                page.wait_for_timeout(100)
                continue
            try:
                offered.last.click(timeout=1000)
                clicks += 1
                page.wait_for_timeout(150)
            except Exception:  # the table was drawn again under the click
                continue
        shot(page, "klondike-clicked")
        assert clicks >= 12
        # The clicks made moves: the table is another.
        assert page.locator("#cardPanel").inner_text() != before
        assert errors == []
