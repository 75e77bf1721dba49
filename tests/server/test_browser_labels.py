"""What the web client shows of questions, answers, places and lengths: what the rules
call them for people, never their identifiers (in a real browser, as ``test_browser.py``).

The paper's player walks to the dungeon: the dialogs label no input by its name, the
destination question is titled in the page's language, the route and the map measure in
the map's unit (km), places go by what their map calls them, the answer is told by its
captions and the arrival is told. The ninja's question of an art labels its checkbox and
its choice by the captions the rules give them, and so does the answer. ORM's moves read
in squares. The GM's seats need names and can be removed; the save holds the chat.
Screenshots go to ``test-artifacts/browser/`` (``labels-*``).
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.server.serving import EXAMPLES, PLAYER, ServerThread
from tests.server.test_browser import browser, dialog, gm_and_player, shot
from tests.server.test_browser_systems import answer_first_dialog, start

__all__ = ["browser"]  # the fixture, used by the tests below

MOVE_TITLE = re.compile("どこへ移動しますか？|Where to move\\?")
IDENTIFIERS = ["action", "goal", "plan", "act", "use", "art", "hour"]


def test_the_papers_walk_is_shown_by_names_and_in_the_maps_unit(
    tmp_path: Path, browser: Browser
) -> None:
    with ServerThread(tmp_path) as server:
        created = server.create()
        links = {s["seat"]: server.base + s["link"] for s in created["seats"]}
        errors: list[str] = []
        gm, me = gm_and_player(browser, "ja-JP", errors)
        gm.goto(links["GM"])
        me.goto(links[PLAYER])
        asked = dialog(me, "どうしますか？")
        expect(asked).to_be_visible()
        expect(asked.locator(".input-name")).to_have_count(0)  # no "action"
        # The region's map: its link measured as its scale is written (1[km]).
        expect(me.locator("#map text.link-label").first).to_have_text("4km")
        # The area inside is marked by what its description says, not its label.
        expect(me.locator("#map text.child-area")).to_have_text(re.compile("^▣ Sectioned2D型"))
        asked.get_by_role("button", name="移動する", exact=True).click()
        where = dialog(me, "Where to?")
        expect(where.locator(".input-name")).to_have_text("Destination")
        expect(where.locator("button.choice")).to_have_text("ミニマムダンジョン所在地")
        me.locator('g.place.choice[data-place="dungeon"]').click()
        route = where.locator(".route-line")
        expect(route).to_have_text("Route: スタート地点 → ミニマムダンジョン所在地 (distance 4km)")
        shot(me, "labels-1-player-route")
        where.locator(".submit").click()
        log = me.locator("#log")
        expect(log).to_contain_text("you answered: 移動する")
        expect(log).to_contain_text("you answered: Destination: ミニマムダンジョン所在地")
        expect(log).to_contain_text("Chihiro arrived: ミニマムダンジョン所在地")
        expect(gm.locator("#log")).to_contain_text("Chihiro 回答: 行き先: ミニマムダンジョン所在地")
        for word in IDENTIFIERS:
            expect(me.locator("#dialogs")).not_to_contain_text(word)
        assert "/region" not in log.inner_text()
        shot(me, "labels-2-player-arrived")
        # The save is named after the session and the time it was saved.
        with gm.expect_download() as download:
            gm.locator("#save").click()
        name = download.value.suggested_filename
        assert name.startswith("シナリオ・サンプル 20") and name.endswith(".zip"), name
        shot(gm, "labels-3-gm")
        assert errors == []


def test_the_ninjas_art_question_labels_its_checkbox_and_choice(
    tmp_path: Path, browser: Browser
) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "ninja"]) as server:
        gm, players = start(server, browser, "ninja")
        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        prefer = ["攻撃 (1)", "残りの行動回数を破棄"]
        art = None
        for _ in range(600):  # until a page asks whether to use an art
            for page in [gm, *players]:
                found = page.locator("article.dialog", has=page.locator("input[type=checkbox]"))
                if page is not gm and found.count() > 0:  # (the GM's would be confirmed)
                    art = (page, found.first)
                    break
                answer_first_dialog(page, prefer)
            if art is not None:
                break
            gm.wait_for_timeout(100)
        assert art is not None, "no question of an art came"
        page, box = art
        expect(box.locator("label.check")).to_have_text("アーツを使う")
        expect(box.locator(".input-name")).to_have_text("アーツ")
        for word in IDENTIFIERS:
            expect(box).not_to_contain_text(word)
        shot(page, "labels-4-ninja-art")
        box.locator("input[type=checkbox]").check()
        box.locator("button.choice").first.click()
        box.locator("button.submit").click()
        # (in the page's language: the players' pages are the one or the other)
        said = re.compile("アーツを使う: (はい、|Yes, )アーツ: チャドー呼吸")
        expect(page.locator("#log")).to_contain_text(said)
        assert "true" not in page.locator("#log").inner_text()
        shot(page, "labels-5-ninja-answered")
        assert errors == []


def test_the_gm_names_and_removes_seats_and_saves_the_chat(
    tmp_path: Path, browser: Browser
) -> None:
    """A seat without a name is not made; a seat the GM added is removed, its link
    stops working; the seat that still plays Chihiro is not removed, and the GM is told
    why. The save holds the chat."""
    with ServerThread(tmp_path) as server:
        created = server.create()
        links = {s["seat"]: server.base + s["link"] for s in created["seats"]}
        errors: list[str] = []
        gm, me = gm_and_player(browser, "ja-JP", errors)
        gm.goto(links["GM"])
        me.goto(links[PLAYER])
        expect(dialog(me, "どうしますか？")).to_be_visible()
        seats = gm.locator("#seatList li")
        expect(seats).to_have_count(2)
        gm.locator("#seatLabel").fill("   ")
        gm.locator("#addSeat button[type=submit]").click()
        expect(gm.locator("#log")).to_contain_text("新しい席の名前")
        expect(seats).to_have_count(2)  # no seat called "player"
        gm.locator("#seatLabel").fill("Aki")
        gm.locator("#addSeat button[type=submit]").click()
        expect(seats).to_have_count(3)
        aki = seats.filter(has_text="Aki")
        gm.once("dialog", lambda box: box.accept())
        seats.filter(has_text="Chihiro").locator("button.remove-seat").click()
        expect(gm.locator("#log li.msg-notice").last).to_contain_text("Chihiro")  # (why)
        expect(seats).to_have_count(3)
        shot(gm, "labels-6-gm-seat-kept")
        gm.once("dialog", lambda box: box.accept())
        aki.locator("button.remove-seat").click()
        expect(seats).to_have_count(2)
        expect(gm.locator("#assignSeat option", has_text="Aki")).to_have_count(0)
        expect(me.locator("#presence li")).to_have_count(2)
        gm.locator("#chatText").fill("ようこそ")
        gm.locator("#chatForm button[type=submit]").click()
        expect(me.locator("#log")).to_contain_text("ようこそ")
        with gm.expect_download() as download:
            gm.locator("#save").click()
        with zipfile.ZipFile(download.value.path()) as saved:
            chat = saved.read("chat.jsonl").decode("utf-8")
        assert json.loads(chat.splitlines()[-1])["text"] == "ようこそ"
        shot(gm, "labels-7-gm-seat-removed")
        assert errors == []


def test_orms_moves_are_measured_in_squares(tmp_path: Path, browser: Browser) -> None:
    """ORM's map is written in its unit [Sq]: the route of a move reads 3Sq, as the rule
    tells the move, not 3 m."""
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        gm, players = start(server, browser, "orm")
        prefer = ["移動", "通常攻撃", "終わる", "判定に+2"]
        moving = None
        for _ in range(600):  # until a player is asked where to move
            for page in [gm, *players]:
                found = page.locator("article.dialog", has_text=MOVE_TITLE)
                if page is not gm and found.count() > 0:
                    moving = (page, found.first)
                    break
                answer_first_dialog(page, prefer)
            if moving is not None:
                break
            gm.wait_for_timeout(100)
        assert moving is not None, "no move was asked"
        page, box = moving
        expect(box.locator(".input-name")).to_have_text(re.compile("^(行き先|Destination)$"))
        box.locator(".choices button.choice").last.click()  # (a place to go: not staying)
        expect(box.locator(".route-line")).to_contain_text(re.compile(r"\d+Sq\)$"))
        assert " m)" not in box.locator(".route-line").inner_text()
        shot(page, "labels-8-orm-move")
        box.locator("button.submit").click()
        expect(gm.locator("#log")).to_contain_text("Sq)")
