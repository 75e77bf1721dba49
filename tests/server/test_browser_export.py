"""The log's export in a real browser (as ``test_browser.py``): after a walk to the
dungeon, a chat line and a roll, the player downloads the log as HTML and as Markdown:
both hold the rules' messages, the chat, the roll and the answers with the questions
they answered; the HTML page has the client's style and looks like its log (a screenshot
of it is kept); the GM's save keeps the chat and the roll. A player's export holds what
the player was told alone (not the faces of the GM's secret roll).
Screenshots go to ``test-artifacts/browser/`` (``export-*``).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.server.serving import ServerThread
from tests.server.test_browser import browser, choose, gm_and_player, shot
from tests.server.test_browser_systems import roll_in_chat

__all__ = ["browser"]  # the fixture, used by the tests below


def downloaded(page: Page, button: str, folder: Path) -> tuple[str, str]:
    with page.expect_download() as download:
        page.locator(button).click()
    name = download.value.suggested_filename
    path = folder / name
    download.value.save_as(path)
    return name, path.read_text("utf-8")


def test_the_log_is_exported_as_html_and_markdown(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path) as server:
        created = server.create()
        links = {s["seat"]: server.base + s["link"] for s in created["seats"]}
        errors: list[str] = []
        gm, me = gm_and_player(browser, "ja-JP", errors)
        gm.goto(links["GM"])
        me.goto(next(link for seat, link in links.items() if seat != "GM"))
        choose(me, "移動する")
        me.locator('g.place.choice[data-place="dungeon"]').click()
        me.locator("article.dialog .submit").click()
        expect(me.locator("#clock")).to_have_text("Day 1, 00:45")
        me.locator("#chatText").fill("Hello *table*")
        me.locator("#chatText").press("Enter")
        expect(gm.locator("#log")).to_contain_text("Hello *table*")
        expect(roll_in_chat(me, "2D6")).to_have_count(1)
        gm.locator("#secret").check()
        expect(roll_in_chat(gm, "3D6")).to_have_count(1)  # a secret roll: its faces the GM's
        expect(me.locator("#log li.msg-roll")).to_have_count(2)
        # The answer says which question it answered.
        expect(me.locator("#log li.msg-answer .question").first).to_have_text("(どうしますか？)")

        name, page = downloaded(me, "#exportHtml", tmp_path)
        assert name.endswith(".html") and name.startswith("シナリオ・サンプル")
        assert page.startswith("<!doctype html>") and "<style>" in page and ".msg .tick" in page
        for said in ("Hello *table*", "🎲", "(2D6)", "どうしますか？", "you answered"):
            assert said in page, said
        assert "(3D6)" not in page
        name, text = downloaded(me, "#exportMarkdown", tmp_path)
        assert name.endswith(".md")
        assert text.startswith("# シナリオ・サンプル")
        assert "Hello \\*table\\*" in text and "🎲" in text and "(どうしますか？)" in text
        assert "(3D6)" not in text
        assert all(line.startswith("- **") for line in text.splitlines()[2:] if line[:1] == "-")

        # The exported page looks like the client's log.
        shown = browser.new_context(viewport={"width": 900, "height": 700}).new_page()
        shown.goto((tmp_path / "シナリオ・サンプル.html").as_uri())
        expect(shown.locator("ol.log li.msg-chat")).to_have_count(1)
        display = shown.locator("ol.log li").first.evaluate("(li) => getComputedStyle(li).display")
        assert display == "flex"  # (styled as the client's log)
        shot(shown, "export-1-html")

        # The GM's export holds the secret roll; the save keeps the chat and the rolls.
        _, page = downloaded(gm, "#exportHtml", tmp_path)
        assert "(3D6)" in page
        with gm.expect_download() as download:
            gm.locator("#save").click()
        download.value.save_as(tmp_path / "save.zip")
        with zipfile.ZipFile(tmp_path / "save.zip") as saved:
            chat = [json.loads(line) for line in saved.read("chat.jsonl").splitlines()]
        assert [c["kind"] for c in chat] == ["chat", "roll", "roll"]
        shot(me, "export-2-player")
        assert errors == []
