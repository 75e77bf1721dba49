"""The chat and log panel in a real browser (as ``test_browser.py``): a broadcast of the
rules reaches the GM's log once and a reload gives back the whole log; a player is told
when the GM answered for it or moved its actor; full-width commands typed with an input
method are rolled, the comment after a command is shown with the roll, and the roll's
die is drawn in colour. Screenshots go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from lore.clients.seat import SeatClient, acknowledged
from lore.server.connection import Limits
from tests.server.serving import EXAMPLES, PLAYER, ServerThread, links
from tests.server.test_browser import browser, dialog, gm_and_player, shot
from tests.server.test_browser_systems import start

__all__ = ["browser"]  # the fixture, used by the tests below

ORM = EXAMPLES / "orm"
APPEARED = "屍鬼が二体と骸骨の弓兵が、空き地に現れた！"  # told every player's seat at once
FAST = Limits(rate=10_000, burst=10_000)  # (the test's own client sends hundreds of lines)


def lines(page: Page) -> list[str]:
    return page.locator("#log li").all_inner_texts()


def scroll_log_to_top(page: Page) -> None:
    page.locator("#log").evaluate("log => { log.scrollTop = 0; }")


def test_a_broadcast_reaches_the_gms_log_once_and_a_reload_gives_back_the_whole_log(
    tmp_path: Path, browser: Browser
) -> None:
    """The ORM fight tells every player's seat that the enemies appeared: the GM reads it
    once, sent to everyone. After 320 lines more, a reloaded page shows the last 300 and,
    scrolled to the top, the earlier ones, back to the first line of the session."""
    with ServerThread(tmp_path, [ORM], limits=FAST) as server:
        gm, players = start(server, browser, "orm")
        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        told = gm.locator("#log li", has_text=APPEARED)
        expect(told).to_have_count(1)
        expect(told.locator(".to")).to_have_text("→ 全員")
        expect(players[0].locator("#log li", has_text=APPEARED)).to_have_count(1)
        shot(gm, "chat-1-gm-broadcast-once")

        # 320 lines more from the GM, by a client of the GM's own link.
        gm_link = gm.url
        talker = SeatClient(gm_link)
        talker.connect()
        for n in range(320):
            assert acknowledged(talker.request({"type": "chat", "text": f"台詞 {n}"}))
        talker.close()
        expect(players[0].locator("#log li", has_text="台詞 319")).to_have_count(1)
        whole = lines(players[0])
        assert any(APPEARED in line for line in whole[:5])

        for page, name in ((players[0], "player"), (gm, "gm")):
            page.reload()
            expect(page.locator("#log li", has_text="台詞 319")).to_have_count(1)
            expect(page.locator("#log li")).to_have_count(300)
            expect(page.locator("#log li", has_text=APPEARED)).to_have_count(0)
            for _ in range(20):  # scrolled to the top until the first line is back
                if page.locator("#log li", has_text=APPEARED).count():
                    break
                scroll_log_to_top(page)
                page.wait_for_timeout(200)
            expect(page.locator("#log li", has_text=APPEARED)).to_have_count(1)
            expect(page.locator("#log li", has_text="台詞 0")).to_have_count(1)
            shot(page, f"chat-1-{name}-reloaded-whole-log")
        assert lines(players[0]) == whole
        assert errors == []


def test_a_player_is_told_the_gm_answered_for_it_and_moved_its_actor(
    tmp_path: Path, browser: Browser
) -> None:
    """The GM answers the player's question: the player reads that the GM answered for
    it, the GM that it answered for that seat. The GM gives the player's actor to a new
    seat: the player reads where it went, the new seat's page that it came to it."""
    with ServerThread(tmp_path) as server:
        seats = links(server.create(), server.base)
        errors: list[str] = []
        gm, me = gm_and_player(browser, "ja-JP", errors)
        gm.goto(seats["GM"])
        me.goto(seats[PLAYER])
        expect(dialog(me, "どうしますか？")).to_be_visible()
        gm.once("dialog", lambda box: box.accept())  # answering for a player is confirmed
        gm.locator("article.dialog", has_text="どうしますか？").get_by_role(
            "button", name="探す", exact=True
        ).click()
        # (the answer as its caption says it: the choice's, not its identifier)
        expect(me.locator("#log")).to_contain_text("GM answered for you: 探す")
        expect(me.locator("#log")).not_to_contain_text("you answered")
        expect(gm.locator("#log")).to_contain_text("あなたがChihiroの代わりに回答: 探す")
        shot(me, "chat-3-player-gm-answered-for-it")

        gm.locator("#seatLabel").fill("Aki")
        gm.locator("#addSeat button[type=submit]").click()
        expect(gm.locator("#assignSeat option", has_text="Aki")).to_have_count(1)
        watcher = SeatClient(seats["GM"])  # the new seat's link, as the GM's page has it
        watcher.connect()
        found = watcher.wait_for(lambda frame: frame["type"] == "links")
        watcher.close()
        aki_link = next(s["link"] for s in found["links"] if s["label"] == "Aki")
        aki = browser.new_context(viewport={"width": 900, "height": 700}, locale="en-US")
        new_seat = aki.new_page()
        new_seat.on("pageerror", lambda error: errors.append(str(error)))
        new_seat.goto(server.base + aki_link)
        expect(new_seat.locator("#who")).to_have_text("Aki")

        gm.select_option("#assignSeat", label="Aki")
        gm.locator("#assignForm button[type=submit]").click()
        expect(me.locator("#log")).to_contain_text("The GM moved Chihiro from you to Aki.")
        expect(new_seat.locator("#log")).to_contain_text(
            "The GM moved Chihiro from Chihiro to you."
        )
        expect(gm.locator("#log")).to_contain_text(
            "GM が Chihiro を Chihiro から Aki に移しました。"
        )
        expect(new_seat.locator("article.dialog")).to_have_count(1)  # its question came too
        shot(me, "chat-3-player-actor-moved-away")
        shot(new_seat, "chat-3-new-seat-actor-moved-in")
        shot(gm, "chat-3-gm-moved-actor")
        assert errors == []


def colour_of_the_die(page: Page) -> int:
    """How many pixels of the die marker, drawn as the log draws text, are in colour
    (a missing emoji font draws a grey box, or nothing)."""
    script = """() => {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 64;
      const context = canvas.getContext("2d");
      const font = getComputedStyle(document.querySelector("#log")).font;
      context.font = font.replace(/[0-9.]+px/, "48px");
      context.fillText("🎲", 4, 52);
      const pixels = context.getImageData(0, 0, 64, 64).data;
      let coloured = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        const [r, g, b] = [pixels[i], pixels[i + 1], pixels[i + 2]];
        if (pixels[i + 3] > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
      }
      return coloured;
    }"""
    found: int = page.evaluate(script)
    return found


def test_full_width_commands_are_rolled_with_their_comments_and_a_coloured_die(
    tmp_path: Path, browser: Browser
) -> None:
    """Typed with the input method on, ``ＯＲＭ３＋４＞＝１２`` (the system's own command)
    and ``２Ｄ６　攻撃`` are rolled; ``1d100<=50 鍵開け`` shows its comment after the result,
    on every seat; a secret roll's comment reaches the GM, not the other player."""
    with ServerThread(tmp_path, [ORM]) as server:
        gm, players = start(server, browser, "orm")
        me, other = players
        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        for typed in ("ＯＲＭ３＋４＞＝１２", "２Ｄ６　攻撃", "1d100<=50 鍵開け"):
            me.locator("#chatText").fill(typed)
            me.locator("#chatText").press("Enter")
        for page in (me, other, gm):
            log = page.locator("#log")
            expect(log.locator("li.msg-roll", has_text="(ORM3+4>=12) ＞")).to_have_count(1)
            expect(log.locator("li.msg-roll", has_text="(2D6) ＞")).to_contain_text(" 攻撃")
            roll = log.locator("li.msg-roll", has_text="(1D100<=50) ＞")
            expect(roll).to_contain_text("🎲 (1D100<=50) ＞")
            expect(roll).to_contain_text(" 鍵開け")
            assert "ＯＲＭ" not in log.inner_text()  # rolled, not said
        me.locator("#chatText").fill("S1D100<=50 隠し扉")
        me.locator("#chatText").press("Enter")
        expect(gm.locator("#log li.msg-roll.secret", has_text="隠し扉")).to_have_count(1)
        expect(other.locator("#log li.msg-roll.secret")).to_have_count(1)
        assert "隠し扉" not in other.locator("#log").inner_text()
        assert colour_of_the_die(me) > 20, "the die is not drawn in colour: no emoji font"
        me.locator("#log li.msg-roll").last.scroll_into_view_if_needed()
        shot(me, "chat-5-player-full-width-rolls")
        shot(gm, "chat-5-gm-full-width-rolls")
        assert json.dumps(errors) == "[]"


def test_the_start_page_chooses_a_dice_system_and_the_chat_rolls_its_commands(
    tmp_path: Path, browser: Browser
) -> None:
    """The GM picks 新クトゥルフ神話TRPG on the start page; the session's chat hints at its
    commands and rolls ``CC(1)<=50`` as BCDice's Cthulhu7th does, for the GM and a player."""
    with ServerThread(tmp_path) as server:
        errors: list[str] = []
        gm, me = gm_and_player(browser, "ja-JP", errors)
        gm.goto(server.base + "/")
        expect(gm.locator("#diceSystem option")).to_have_count(6)
        gm.locator("#diceSystem").select_option("Cthulhu7th")
        expect(gm.locator("#diceHelp")).to_contain_text("CC<=50")
        shot(gm, "chat-dice-system-chosen")
        gm.locator('button[data-source="paper"]').click()
        invite = gm.locator("a.invite-link").get_attribute("href")
        assert invite is not None
        gm.locator("a.open-gm").click()
        expect(gm.locator("#chatText")).to_have_attribute("placeholder", re.compile("新クトゥルフ"))
        me.goto(invite)
        expect(me.locator("#chatText")).to_have_attribute(
            "placeholder", re.compile("Call of Cthulhu 7th")
        )
        me.locator("#chatText").fill("CC(1)<=50 目星")
        me.locator("#chatText").press("Enter")
        rolled = gm.locator("#log li", has_text="(1D100<=50) ボーナス・ペナルティダイス[1]")
        expect(rolled).to_have_count(1)
        expect(rolled).to_contain_text("目星")
        expect(me.locator("#log li", has_text="(1D100<=50)")).to_have_count(1)
        shot(gm, "chat-dice-system-rolled")
        assert errors == []
