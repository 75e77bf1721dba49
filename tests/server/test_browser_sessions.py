"""The start page in a real browser (as ``test_browser.py``): it offers every example
``scripts/start`` serves (the bundled rule systems' samples among them), and lists the
GM's sessions for the browser that started them, or opened their GM links: their state
(open, ended), their GM links and invites, asked of the server by GM token. Another
browser is shown none. Screenshots go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.server.serving import REPO, ServerThread, start_examples
from tests.server.test_browser import browser, shot

__all__ = ["browser"]  # the fixture, used by the tests below


def test_the_start_page_offers_every_example_and_lists_the_gms_sessions(
    tmp_path: Path, browser: Browser
) -> None:
    examples = start_examples()
    with ServerThread(tmp_path, [REPO / example for example in examples]) as server:
        errors: list[str] = []
        gm = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP").new_page()
        gm.on("pageerror", lambda error: errors.append(str(error)))
        gm.goto(server.base + "/")
        buttons = gm.locator("#sources button[data-source]")
        expect(buttons).to_have_count(len(examples))
        for name in ("paper", "orm", "ninja", "blackpoker", "tavern", "hello"):
            expect(gm.locator(f'button[data-source="{name}"]')).to_be_visible()
        expect(gm.locator("#mySessions")).to_be_hidden()  # (none started here yet)
        shot(gm, "sessions-0-start-page")

        # Started here: listed, open, with its GM link and invites (the latest first).
        gm.locator('button[data-source="paper"]').click()
        expect(gm.locator("#created a.gm-link")).to_be_visible()
        paper_gm = gm.locator("#created a.gm-link").get_attribute("href")
        gm.locator('button[data-source="orm"]').click()
        expect(gm.locator("#created a.gm-link")).not_to_have_attribute("href", paper_gm or "")
        gm.goto(server.base + "/")
        sessions = gm.locator("#mySessionList li.my-session")
        expect(sessions).to_have_count(2)
        expect(sessions.first).to_contain_text("森の空き地の戦い")  # (ORM's)
        paper = gm.locator("#mySessionList li.my-session", has_text="シナリオ・サンプル")
        expect(paper.locator(".session-state")).to_have_text("進行中")
        expect(paper.locator("a.open-session")).to_have_attribute("href", paper_gm or "")
        expect(paper.locator("a.session-invite")).to_have_count(1)
        expect(paper.locator(".session-invites")).to_contain_text("Chihiro")
        shot(gm, "sessions-1-listed")

        # Another browser is told of none.
        stranger = browser.new_context(locale="en-US").new_page()
        stranger.goto(server.base + "/")
        expect(stranger.locator("#sources button[data-source]")).to_have_count(len(examples))
        expect(stranger.locator("#mySessions")).to_be_hidden()

        # The GM ends the paper's session: listed as ended.
        paper.locator("a.open-session").click()
        expect(gm.locator("#gm")).to_be_visible()
        gm.once("dialog", lambda box: box.accept())
        gm.locator("#end").click()
        expect(gm.locator("#banner")).to_have_text("セッションは終了しました。")
        gm.goto(server.base + "/")
        expect(paper.locator(".session-state")).to_have_text("終了")
        shot(gm, "sessions-2-ended")

        # A GM link opened in another browser (as lore sessions prints it): listed there.
        expect(sessions.first).to_contain_text("シナリオ・サンプル")  # (opened last)
        orm = gm.locator("#mySessionList li.my-session", has_text="森の空き地の戦い")
        orm_gm = orm.locator("a.open-session").get_attribute("href")
        assert orm_gm is not None
        other = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
        phone = other.new_page()
        phone.on("pageerror", lambda error: errors.append(str(error)))
        phone.goto(orm_gm)
        expect(phone.locator("#gm")).to_be_visible()
        phone.goto(server.base + "/")
        listed = phone.locator("#mySessionList li.my-session")
        expect(listed).to_have_count(1)
        expect(listed.locator(".session-state")).to_have_text("open")
        phone.locator("#lang").click()  # (listed again in the other language)
        expect(listed.locator(".session-state")).to_have_text("進行中")
        expect(phone.locator("#mySessions h2")).to_have_text("あなたのセッション")
        expect(phone.locator('button[data-source="orm"]')).to_have_text("開始")
        shot(phone, "sessions-3-phone")
        listed.locator("button.forget").click()
        expect(phone.locator("#mySessions")).to_be_hidden()
        assert errors == []
