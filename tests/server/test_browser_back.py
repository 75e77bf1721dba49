"""Going back in a real browser (as ``test_browser.py``): the paper's player chooses
移動する, is shown the route with a Back button, goes back and chooses 探す; the GM's
session log reads the answers by their questions and the captions chosen, and says the
player went back. Screenshots go to ``test-artifacts/browser/``."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.server.serving import PLAYER, ServerThread
from tests.server.test_browser import browser, choose, dialog, gm_and_player, shot
from tests.server.test_browser_dialogs import seat_links

__all__ = ["browser"]  # the fixture, used by the tests below


def test_the_player_goes_back_from_the_route_and_chooses_otherwise(
    tmp_path: Path, browser: Browser
) -> None:
    with ServerThread(tmp_path) as server:
        links = seat_links(server)
        errors: list[str] = []
        gm, me = gm_and_player(browser, "ja-JP", errors)
        gm.goto(links["GM"])
        me.goto(links[PLAYER])
        what = dialog(me, "どうしますか？")
        expect(what).to_be_visible()
        expect(what.locator("button.back")).to_have_count(0)  # nothing before it
        choose(me, "移動する")
        route = dialog(me, "Where to?")
        expect(route).to_be_visible()
        back = route.get_by_role("button", name="Back", exact=True)
        expect(back).to_be_visible()
        shot(me, "back-1-route-with-back")
        back.click()
        expect(route).to_have_count(0)
        expect(dialog(me, "どうしますか？")).to_be_visible()
        expect(me.locator("#log")).to_contain_text("you went back to: どうしますか？")
        expect(me.locator("#clock")).to_have_text("Day 1, 00:00")  # nothing happened
        shot(me, "back-2-asked-again")
        choose(me, "探す")
        expect(me.locator("#clock")).to_have_text("Day 1, 00:05")  # a round searched
        expect(dialog(me, "どうしますか？")).to_be_visible()
        expect(me.locator("article.dialog button.back")).to_have_count(0)
        # The GM's session log: answers as the player saw them, the back between.
        gm.locator("#showLog").click()
        log = gm.locator("#sessionLog")
        expect(log).to_contain_text("> Chihiro: どうしますか？ → 移動する")
        expect(log).to_contain_text("< Chihiroが戻りました: どうしますか？")
        expect(log).to_contain_text("> Chihiro: どうしますか？ → 探す")
        expect(log).not_to_contain_text("action=")
        # (the engine's own route question titled in the GM's language, not "route in …")
        expect(log).to_contain_text("? Chihiro: どこへ行きますか？")
        expect(log).not_to_contain_text("route in")
        shot(gm, "back-3-gm-session-log")
        assert errors == []
