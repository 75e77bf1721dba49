"""The web client in a real browser (Debian's chromium, driven by Playwright): the GM
starts a session of the paper's scenario, a player joins from a second browser context,
walks to the dungeon and to the altar through the dialogs and the map, and searches.

The player's map shows the chest only once the search has found it; the GM's shows it
all along, marked hidden. Screenshots of both screens are saved in
``test-artifacts/browser/`` (look at them when the client changes).
"""

from __future__ import annotations

import io
import re
import shutil
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, WebSocketRoute, expect, sync_playwright

from tests.server.serving import PAPER, PLAYER, REPO, ServeProcess, ServerThread

ARTIFACTS = REPO / "test-artifacts" / "browser"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CHEST = 'g.token.object[data-id="scenario.chest"]'


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(
            "chromium is not installed: scripts/test installs it (apt-get install chromium"
            " fonts-noto-cjk fonts-noto-color-emoji) when it runs as root",
            pytrace=False,
        )
    return found


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        found = playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)
        yield found
        found.close()


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def broken_zip() -> bytes:
    """The paper's scenario with the paper's own misprint (``Featur``)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in PAPER.iterdir():
            content = path.read_bytes()
            if path.name == "scenario.lore":
                content = content.replace(b"list<Feature>", b"list<Featur>", 1)
            archive.writestr(path.name, content)
    return buffer.getvalue()


def dialog(page: Page, title: str) -> Locator:
    return page.locator("article.dialog", has_text=title).first


def choose(page: Page, caption: str) -> None:
    dialog(page, "どうしますか？").get_by_role("button", name=caption, exact=True).click()


def gm_and_player(browser: Browser, gm_locale: str, errors: list[str]) -> tuple[Page, Page]:
    """The GM's page (a desktop screen) and a player's (a phone's, in English), their
    script errors kept in ``errors``."""
    gm = browser.new_context(viewport={"width": 1280, "height": 900}, locale=gm_locale).new_page()
    me = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US").new_page()
    for page in (gm, me):
        page.on("pageerror", lambda error: errors.append(str(error)))
    return gm, me


@contextmanager
def serving(tmp_path: Path, workers: int) -> Iterator[ServerThread | ServeProcess]:
    """A server of the paper's scenario: in this process, or ``lore serve --workers N``."""
    if workers == 1:
        with ServerThread(tmp_path) as server:
            yield server
        return
    with ServeProcess(tmp_path / "sessions.db", [PAPER], ("--workers", str(workers))) as process:
        process.start()
        yield process


@pytest.mark.parametrize("workers", [1, 2])
def test_a_gm_and_a_player_play_the_papers_scenario(
    tmp_path: Path, browser: Browser, workers: int
) -> None:
    """Also with two workers, the player's link naming no session (as an older server
    made them): its page is told where the session is, and connects there."""
    suffix = "" if workers == 1 else f"-workers{workers}"

    def snap(page: Page, name: str) -> None:
        shot(page, name + suffix)

    with serving(tmp_path, workers) as server:
        gm = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP").new_page()
        errors: list[str] = []
        gm.on("pageerror", lambda error: errors.append(str(error)))
        gm.goto(server.base + "/")
        # A bundle with an error is refused, shown with its place and a caret.
        gm.locator("#upload").set_input_files(
            files=[{"name": "broken.zip", "mimeType": "application/zip", "buffer": broken_zip()}]
        )
        expect(gm.locator("#problemText")).to_contain_text("scenario.lore:")
        expect(gm.locator("#problemText")).to_contain_text("^^^^^^")
        snap(gm, "0-gm-upload-refused")
        gm.locator('button[data-source="paper"]').click()
        invite = gm.locator("a.invite-link").get_attribute("href")
        assert invite is not None and re.search(r"/play\?session=\w+#", invite)
        snap(gm, "0-gm-created")
        gm.locator("a.open-gm").click()
        expect(gm.locator("#gm")).to_be_visible()

        player = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
        me = player.new_page()
        me.on("pageerror", lambda error: errors.append(str(error)))
        me.goto(invite if workers == 1 else re.sub(r"\?session=\w+", "", invite))
        expect(me.locator("#presence li.online")).to_have_count(2)
        expect(
            gm.locator('#presence li.online[data-seat="Chihiro_Shiiji@xmpp.xgmtk.org"]')
        ).to_be_visible()
        snap(me, "1-player-start")

        # To the dungeon: move, then the destination picked on the region's map.
        choose(me, "移動する")
        me.locator('g.place.choice[data-place="dungeon"]').click()
        expect(me.locator("article.dialog .route-line")).to_contain_text(
            "スタート地点 → ミニマムダンジョン所在地"
        )
        snap(me, "2-player-route")
        me.locator("article.dialog .submit").click()
        expect(me.locator("#clock")).to_have_text("Day 1, 00:45")
        choose(me, "探す")  # at the dungeon's entrance: in we go
        expect(me.locator("#log")).to_contain_text("ダンジョンに入ります。")
        expect(me.locator("#clock")).to_have_text("Day 1, 00:50")

        # In the dungeon two dialogs are open at once: walk to the altar, and sleep an hour.
        expect(me.locator("article.dialog")).to_have_count(2)
        choose(me, "移動する")
        me.locator('g.place.choice[data-place="1,2"]').click()
        walk = dialog(me, "Where to?")
        expect(walk.locator(".route-line")).to_contain_text("4,2 → 3,2 → 2,2 → 1,2")
        assert me.locator(CHEST).count() == 0  # not found yet: not there at all
        gm.select_option("#areaSelect", "/region/dungeon")
        expect(gm.locator(CHEST)).to_have_class("token object side-item hidden")  # the GM sees it
        snap(gm, "3-gm-dungeon-chest-hidden")
        snap(me, "3-player-dungeon")
        walk.locator(".submit").click()
        choose(me, "寝る")
        hours = dialog(me, "何時間寝ますか？")
        hours.locator("input[type=number]").fill("1")
        hours.locator(".submit").click()

        # At the altar: search, and the chest appears.
        expect(me.locator("#clock")).to_have_text("Day 1, 00:55")
        assert me.locator(CHEST).count() == 0
        choose(me, "探す")
        expect(me.locator("#log")).to_contain_text("宝物が見つかりました！")
        expect(me.locator(CHEST)).to_have_count(1)
        expect(gm.locator("#log")).to_contain_text("宝物が見つかりました！")
        # The message's picture is the bundle's own file, and it loads.
        picture = me.locator("#log img")
        expect(picture).to_have_attribute("alt", "（宝箱のイメージ）")
        me.wait_for_function("document.querySelector('#log img').naturalWidth > 0")
        found = "token object side-item hidden seen"  # found by Chihiro
        expect(gm.locator(CHEST)).to_have_class(found)
        snap(me, "4-player-chest-found")
        snap(gm, "4-gm-chest-found")
        assert me.locator("#log script").count() == 0
        assert errors == []


def test_the_gms_tools_and_the_language_switch(tmp_path: Path, browser: Browser) -> None:
    """Pause and resume, a whisper to one seat, the session log, the save, the seat's
    language switched, the question following its actor to a new seat, and the end."""
    with ServerThread(tmp_path) as server:
        created = server.create()
        links = {s["seat"]: server.base + s["link"] for s in created["seats"]}
        player_seat = next(seat for seat in links if seat != "GM")
        errors: list[str] = []
        gm, me = gm_and_player(browser, "ja-JP", errors)
        gm.goto(links["GM"])
        me.goto(links[player_seat])
        expect(dialog(me, "どうしますか？")).to_be_visible()
        expect(me.locator(".dialog .asked")).to_contain_text("Asked of: Chihiro")
        # The player's language, switched: the page's own texts change, not the rules'.
        expect(me.locator("h2[data-i18n=chat]")).to_have_text("Chat")
        me.locator("#lang").click()
        expect(me.locator("h2[data-i18n=chat]")).to_have_text("チャット")
        expect(me.locator(".dialog .asked")).to_contain_text("質問の対象: Chihiro")
        # Pause: the player is told; resume: the banner goes.
        gm.locator("#pause").click()
        expect(me.locator("#banner")).to_have_text("GM がセッションを一時停止しています。")
        gm.locator("#pause").click()
        expect(me.locator("#banner")).to_be_hidden()
        # A whisper to the player's seat reaches it.
        gm.select_option("#chatTo", player_seat)
        gm.locator("#chatText").fill("ささやき")
        gm.locator("#chatForm button[type=submit]").click()
        expect(me.locator("#log")).to_contain_text("ささやき")
        # The session log, and the save as a file.
        gm.locator("#showLog").click()
        expect(gm.locator("#sessionLog")).to_contain_text("どうしますか？")
        # Lines a GM reads (time, who, what), not records as JSON.
        expect(gm.locator("#sessionLog")).to_contain_text("? Chihiro: どうしますか？")
        expect(gm.locator("#sessionLog")).not_to_contain_text('"kind"')
        with gm.expect_download() as download:
            gm.locator("#save").click()
        with zipfile.ZipFile(download.value.path()) as saved:  # the bundle and save.lore
            assert "save.lore" in saved.namelist() and "scenario.lore" in saved.namelist()
        # The question follows its actor to a seat the GM adds.
        gm.locator("#seatLabel").fill("Aki")
        gm.locator("#addSeat button[type=submit]").click()
        expect(gm.locator("#assignSeat option", has_text="Aki")).to_have_count(1)
        gm.select_option("#assignSeat", label="Aki")
        gm.locator("#assignForm button[type=submit]").click()
        expect(me.locator("article.dialog")).to_have_count(0)
        expect(gm.locator("article.dialog .for")).to_contain_text("Aki")  # asked of Aki now
        shot(gm, "5-gm-tools")
        # The end: everyone is told.
        gm.once("dialog", lambda box: box.accept())
        gm.locator("#end").click()
        expect(me.locator("#banner")).to_have_text("セッションは終了しました。")
        shot(me, "5-player-ended")
        assert errors == []


def test_a_dropped_connection_shows_the_banner_and_misses_nothing(
    tmp_path: Path, browser: Browser
) -> None:
    """The player's socket is dropped (by the browser's own WebSocket routing, which
    then holds the reconnection back for a while): the player sees the reconnecting
    banner, the GM sees the seat gone; meanwhile the GM whispers to the seat and moves it
    on. Let through again, the player catches up on both, and the banner goes."""
    with ServerThread(tmp_path) as server:
        created = server.create()
        links = {s["seat"]: server.base + s["link"] for s in created["seats"]}
        sockets: list[WebSocketRoute] = []
        held = [False]

        def route(socket: WebSocketRoute) -> None:
            sockets.append(socket)
            if not held[0]:
                socket.connect_to_server()  # passed through, frame by frame

        errors: list[str] = []
        gm, me = gm_and_player(browser, "en-US", errors)
        me.route_web_socket("**/ws?*", route)
        gm.goto(links["GM"])
        me.goto(links[PLAYER])
        expect(dialog(me, "どうしますか？")).to_be_visible()
        seat = gm.locator(f'#presence li[data-seat="{PLAYER}"]')
        own = me.locator(f'#presence li[data-seat="{PLAYER}"]')  # the player's own seat
        expect(seat).to_have_class("online")
        expect(own).to_have_class("online")

        held[0] = True
        sockets[-1].close()  # the page's side: the server's side closes with it
        expect(me.locator("#banner")).to_have_text("Connection lost: reconnecting…")
        # Its own seat is not shown online while its socket is down (it cannot know).
        expect(own).to_have_class("offline reconnecting")
        expect(own).to_contain_text("(you, reconnecting…)")
        expect(me.locator("#presence")).to_have_class("presence stale")
        expect(seat).to_have_class("offline", timeout=5000)  # gone, for the others
        # While the player is away, the GM whispers to the seat and answers for it.
        gm.select_option("#chatTo", PLAYER)
        gm.locator("#chatText").fill("ささやき")
        gm.locator("#chatForm button[type=submit]").click()
        gm.once("dialog", lambda box: box.accept())  # answering for a player is confirmed
        gm.locator("article.dialog", has_text="どうしますか？").get_by_role(
            "button", name="移動する", exact=True
        ).click()
        expect(gm.locator("article.dialog", has_text="どうしますか？")).to_have_count(0)
        expect(gm.locator("article.dialog")).to_have_count(1)  # where to: the player's now
        shot(me, "6-player-reconnecting")
        shot(gm, "6-gm-player-gone")
        assert me.locator("#log", has_text="ささやき").count() == 0

        for _ in range(100):  # the page tries again (to the held route) within a second
            if len(sockets) == 2:
                break
            me.wait_for_timeout(100)
        assert len(sockets) == 2
        held[0] = False
        sockets[-1].close()  # the held attempt: the next one goes through
        expect(me.locator("#banner")).to_be_hidden(timeout=10000)
        expect(seat).to_have_class("online")
        expect(own).to_have_class("online")  # once the server's presence says so
        expect(own).not_to_contain_text("reconnecting")
        expect(me.locator("#presence")).to_have_class("presence")
        expect(me.locator("#log")).to_contain_text("ささやき")  # nothing missed
        expect(dialog(me, "どうしますか？")).to_have_count(0)  # answered by the GM
        expect(me.locator("article.dialog")).to_have_count(1)  # the walk it led to
        shot(me, "7-player-reconnected")
        shot(gm, "7-gm-player-back")
        assert errors == []
