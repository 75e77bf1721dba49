"""The GM's simulation page in a real browser (Debian's chromium, driven by Playwright, as
``test_browser.py``): the GM's tools link to it, it runs ``lore sim`` on the session's
rules and shows the report, its style sheet allowed by the server's content policy; a
player's link gets no report. The screenshot goes to
``test-artifacts/browser/sim-serve.png``."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, ConsoleMessage, expect

from tests.server.serving import EXAMPLES, ServerThread, links
from tests.server.test_browser import browser, shot

__all__ = ["browser"]  # the fixture, used below


def test_the_gm_simulates_the_sessions_rules(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        created = server.create("orm")
        seats = links(created, server.base)
        context = browser.new_context(viewport={"width": 1100, "height": 900}, locale="en-US")
        table = context.new_page()
        table.goto(seats["GM"])
        link = table.locator("#simulateLink")
        expect(link).to_be_visible()
        expect(link).to_have_text("Simulate the rules")
        href = link.get_attribute("href") or ""
        assert href.startswith(f"/simulate?session={created['session']}#")
        page = context.new_page()
        refused: list[str] = []

        def note(message: ConsoleMessage) -> None:
            if "Content Security Policy" in message.text:
                refused.append(message.text)

        page.on("console", note)
        page.goto(server.base + href)
        page.locator("#runs").fill("30")
        page.locator("#run").click()
        expect(page.locator("#report h1")).to_contain_text(
            "Simulation report: scenario.lore", timeout=60_000
        )
        expect(page.locator("#simulateStatus")).to_have_text("Simulated 30 sessions.")
        assert page.locator("#report svg").count() >= 5
        expect(page.locator("#report h2", has_text="Dice outcomes")).to_be_visible()
        expect(page.locator('#report rect[data-key="dice/2D6/7"]')).to_have_count(1)
        # The report's own style sheet applies: its sections are white cards.
        background = page.locator("#report section").first.evaluate(
            "e => getComputedStyle(e).backgroundColor"
        )
        assert background == "rgb(255, 255, 255)"
        assert refused == []
        shot(page, "sim-serve")
        # A player's link opens the page, but no report comes.
        player = next(link for seat, link in seats.items() if seat != "GM")
        token = player.split("#")[1]
        other = browser.new_page(locale="en-US")
        other.goto(f"{server.base}/simulate?session={created['session']}#{token}")
        other.locator("#run").click()
        expect(other.locator("#simulateStatus")).to_contain_text("Only the GM")
        assert other.locator("#report *").count() == 0
        context.close()
