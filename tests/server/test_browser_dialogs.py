"""The dialogs in a real browser (as ``test_browser.py``): questions asked twice at once,
an answer waiting for the server, the GM's questions apart from the players', dialogs
closed to answers while paused, ended or revoked, the texts in the language shown, and
staying put offered as what it is. Screenshots go to ``test-artifacts/browser/``."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.server.serving import EXAMPLES, PAPER, PLAYER, ServerThread, http
from tests.server.test_browser import browser, choose, dialog, gm_and_player, shot

__all__ = ["browser"]  # the fixture, used by the tests below

WAITING = "Your answer is in: what it leads to happens once the other questions"


class HeldSocket:
    """A page's WebSocket passed through frame by frame, with the server's frames held
    back while ``held`` (then given in order by ``release``)."""

    def __init__(self, page: Page) -> None:
        self.held = False
        self.kept: list[str | bytes] = []
        self.page_side: WebSocketRoute | None = None
        page.route_web_socket("**/ws?*", self.route)

    def route(self, socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()
        self.page_side = socket
        server.on_message(self.from_server)
        socket.on_message(server.send)

    def from_server(self, message: str | bytes) -> None:
        assert self.page_side is not None
        if self.held:
            self.kept.append(message)
        else:
            self.page_side.send(message)

    def wait_for(self, page: Page, text: str) -> None:
        """Until a frame holding ``text`` is held back."""
        for _ in range(100):
            if any(text in str(frame) for frame in self.kept):
                return
            page.wait_for_timeout(100)
        raise AssertionError(f"no frame with {text} came")

    def release(self) -> list[dict[str, object]]:
        assert self.page_side is not None
        self.held = False
        frames, self.kept = self.kept, []
        for frame in frames:
            self.page_side.send(frame)
        return [json.loads(frame) for frame in frames]


def seat_links(server: ServerThread, source: str = "paper") -> dict[str, str]:
    created = server.create(source)
    return {s["seat"]: server.base + s["link"] for s in created["seats"]}


def to_the_dungeon(me: Page) -> None:
    choose(me, "移動する")
    me.locator('g.place.choice[data-place="dungeon"]').click()
    me.locator("article.dialog .submit").click()
    expect(me.locator("#clock")).to_have_text("Day 1, 00:45")
    choose(me, "探す")
    expect(me.locator("#log")).to_contain_text("ダンジョンに入ります。")


def test_two_questions_at_once_are_numbered_and_an_answer_shows_it_waits(
    tmp_path: Path, browser: Browser
) -> None:
    """In the dungeon the paper's rules ask Chihiro's choice twice at once (the trigger's
    move and the search both schedule it): two dialogs, each drawn once, numbered. An
    answer sent is shown pending until the server acknowledges it; then the other
    dialog says that the answer takes effect once it is answered too."""
    with ServerThread(tmp_path) as server:
        links = seat_links(server)
        errors: list[str] = []
        _, me = gm_and_player(browser, "ja-JP", errors)
        socket = HeldSocket(me)
        me.goto(links[PLAYER])
        to_the_dungeon(me)
        twins = me.locator("article.dialog", has_text="どうしますか？")
        expect(twins).to_have_count(2)
        ids = [twins.nth(i).get_attribute("data-id") for i in range(2)]
        assert ids[0] != ids[1]  # two questions of the rules, not one drawn twice
        expect(twins.nth(0).locator(".together")).to_contain_text("Asked 2 times at once (1 of 2)")
        expect(twins.nth(1).locator(".together")).to_contain_text("(2 of 2)")
        shot(me, "dialogs-1-asked-twice")

        socket.held = True
        twins.nth(0).get_by_role("button", name="探す", exact=True).click()
        first = me.locator(f'article.dialog[data-id="{ids[0]}"]')
        expect(first).to_have_class("dialog pending")
        expect(first.locator(".dialog-note")).to_have_text("Sending your answer…")
        expect(first.get_by_role("button", name="寝る", exact=True)).to_be_disabled()
        expect(
            me.locator(f'article.dialog[data-id="{ids[1]}"] button.choice').first
        ).to_be_enabled()
        shot(me, "dialogs-2-answer-pending")
        socket.wait_for(me, '"ack"')
        frames = socket.release()
        assert any(f.get("ack") and f.get("closed") == [ids[0]] for f in frames)
        expect(first).to_have_count(0)
        expect(me.locator("#dialogs .answer-waits")).to_contain_text(WAITING)
        expect(me.locator("article.dialog .together")).to_have_count(1)
        expect(me.locator("article.dialog .together")).to_have_text("")  # alone now
        shot(me, "dialogs-3-answer-waits-for-the-other")

        choose(me, "寝る")
        expect(dialog(me, "何時間寝ますか？")).to_be_visible()
        expect(me.locator("#dialogs .answer-waits")).to_have_count(0)
        assert errors == []


def test_the_gm_sees_its_own_questions_apart_and_confirms_answering_for_a_player(
    tmp_path: Path, browser: Browser
) -> None:
    """The tavern asks both adventurers at once; the GM takes Ren. The GM's panel shows
    its own question first, under its own heading, and Aki's under Aki's name; answering
    Aki's asks first (declined: nothing is sent), then answers it."""
    with ServerThread(tmp_path, [EXAMPLES / "tavern"]) as server:
        links = seat_links(server, "tavern")
        errors: list[str] = []
        gm, aki = gm_and_player(browser, "en-US", errors)
        gm.goto(links["GM"])
        aki.goto(links["aki@example.org"])
        expect(dialog(aki, "どうしますか？")).to_be_visible()
        gm.select_option("#assignActor", label="Ren (Ren)")
        gm.select_option("#assignSeat", label="GM")
        gm.locator("#assignForm button[type=submit]").click()
        own = gm.locator('#dialogs section.dialog-group.own[data-seat="GM"]')
        theirs = gm.locator('#dialogs section.dialog-group.seat[data-seat="aki@example.org"]')
        expect(own.locator("h3.group-title")).to_have_text("Your own questions (GM)")
        expect(own.locator("article.dialog .asked")).to_contain_text("Ren")
        expect(theirs.locator("h3.group-title")).to_have_text("Questions for Aki (a player's seat)")
        expect(theirs.locator("article.dialog .asked")).to_contain_text("Aki")
        groups = gm.locator("#dialogs section.dialog-group")
        expect(groups).to_have_count(2)
        assert groups.nth(0).get_attribute("data-seat") == "GM"  # its own first
        shot(gm, "dialogs-4-gm-own-and-players")

        asked: list[str] = []

        def decline(box: object) -> None:
            asked.append(box.message)  # type: ignore[attr-defined]
            box.dismiss()  # type: ignore[attr-defined]

        gm.once("dialog", decline)
        first = theirs.locator("button.choice").first
        first.click()
        expect(theirs.locator("article.dialog")).to_have_count(1)
        assert asked == ["Answer for Aki? The player will see that the GM answered."]
        gm.wait_for_timeout(300)
        expect(dialog(aki, "どうしますか？")).to_be_visible()  # nothing was sent
        gm.once("dialog", lambda box: box.accept())
        first.click()
        expect(theirs).to_have_count(0)
        expect(dialog(aki, "どうしますか？")).to_have_count(0)
        expect(own.locator("article.dialog")).to_have_count(1)  # its own, still open
        assert errors == []


def test_texts_follow_the_language_and_the_status(tmp_path: Path, browser: Browser) -> None:
    """A paused refusal the player got in a race goes once the GM resumes; "nothing to
    decide" and the server's errors are in the language shown, also after a switch."""
    with ServerThread(tmp_path) as server:
        links = seat_links(server)
        errors: list[str] = []
        gm, me = gm_and_player(browser, "ja-JP", errors)
        socket = HeldSocket(me)
        gm.goto(links["GM"])
        me.goto(links[PLAYER])
        choice = dialog(me, "どうしますか？")
        expect(choice).to_be_visible()
        # The player answers before it hears of the pause: the server refuses it.
        socket.held = True
        gm.locator("#pause").click()
        expect(gm.locator("#banner")).to_have_text("GM がセッションを一時停止しています。")
        choose(me, "探す")
        socket.wait_for(me, '"code":"paused"')  # (held with the pause's update before it)
        frames = socket.release()
        assert [f["code"] for f in frames if f["type"] == "error"] == ["paused"]
        expect(choice.locator(".problem")).to_have_text("The GM has paused the session.")
        gm.locator("#pause").click()
        expect(me.locator("#banner")).to_be_hidden()
        expect(choice.locator(".problem")).to_be_hidden()  # not stale once resumed
        expect(choice.locator("button.choice").first).to_be_enabled()
        # Nothing to decide (the actor went to another seat), then the language switched.
        gm.locator("#seatLabel").fill("Aki")
        gm.locator("#addSeat button[type=submit]").click()
        expect(gm.locator("#assignSeat option", has_text="Aki")).to_have_count(1)
        gm.select_option("#assignSeat", label="Aki")
        gm.locator("#assignForm button[type=submit]").click()
        # (nothing to decide: the table says whom it waits for, Chihiro now played by Aki)
        expect(me.locator("#dialogs .empty")).to_have_text("Waiting for Chihiro.")
        me.locator("#lang").click()
        expect(me.locator("#dialogs .empty")).to_have_text("Chihiro を待っています。")
        expect(me.locator("#chatTo")).to_have_attribute("aria-label", "宛先")
        # A server's error, in Japanese; switched back, in English.
        me.locator("#chatText").fill("/roll")
        me.locator("#chatText").press("Enter")
        notice = me.locator("#log li.msg-notice").last
        expect(notice).to_contain_text("そのダイスは振れません")
        shot(me, "dialogs-5-errors-in-japanese")
        me.locator("#lang").click()
        expect(me.locator("#log li.msg-notice").last).to_contain_text("Those dice cannot be rolled")
        expect(me.locator("#dialogs .empty")).to_have_text("Waiting for Chihiro.")
        assert errors == []


def test_dialogs_close_to_answers_when_paused_revoked_or_ended(
    tmp_path: Path, browser: Browser
) -> None:
    """Paused: the player's dialog cannot be answered (it says why) until the GM resumes.
    Revoked: the player's own seat says so (not "reconnecting"), its dialogs and chat
    are closed. Ended by the GM: dialogs closed, and the table may still talk, as after
    an end by the rules."""
    with ServerThread(tmp_path) as server:
        links = seat_links(server)
        errors: list[str] = []
        gm, me = gm_and_player(browser, "en-US", errors)
        gm.goto(links["GM"])
        me.goto(links[PLAYER])
        choice = dialog(me, "どうしますか？")
        expect(choice).to_be_visible()
        gm.locator("#pause").click()
        expect(choice.locator(".dialog-note")).to_have_text(
            "Paused by the GM: answer once the session goes on."
        )
        expect(choice.locator("button.choice").first).to_be_disabled()
        expect(gm.locator("article.dialog button.choice").first).to_be_enabled()  # the GM may
        shot(me, "dialogs-6-paused")
        gm.locator("#pause").click()
        expect(choice.locator("button.choice").first).to_be_enabled()
        expect(choice.locator(".dialog-note")).to_have_text("")

        # The GM ends the session: dialogs closed; chat goes on, for everyone.
        gm.once("dialog", lambda box: box.accept())
        gm.locator("#end").click()
        expect(me.locator("#banner")).to_have_text("The session has ended.")
        expect(choice.locator("button.choice").first).to_be_disabled()
        expect(choice.locator(".dialog-note")).to_have_text(
            "The session is over: nothing more to answer."
        )
        me.locator("#chatText").fill("お疲れさまでした")
        me.locator("#chatText").press("Enter")
        expect(gm.locator("#log")).to_contain_text("お疲れさまでした")
        expect(me.locator("#log li.msg-notice")).to_have_count(0)  # not refused
        shot(me, "dialogs-7-ended")

        # Revoked: the player's page says so, and offers nothing to do.
        gm.locator("#seatList li", has_text="Chihiro").get_by_role(
            "button", name="Revoke link"
        ).click()
        expect(me.locator("#banner")).to_contain_text("This link was revoked")
        own = me.locator(f'#presence li[data-seat="{PLAYER}"]')
        expect(own).to_have_text("Chihiro (you, link revoked)")
        expect(own).to_have_class("offline revoked")
        me.wait_for_timeout(1500)  # (a reconnection would have been tried by now)
        expect(own).not_to_contain_text("reconnecting")
        expect(me.locator("#banner")).to_contain_text("This link was revoked")
        expect(me.locator("#chatText")).to_be_disabled()
        expect(choice.locator(".dialog-note")).to_have_text(
            "This link was revoked: nothing can be answered from it."
        )
        shot(me, "dialogs-8-revoked")
        assert errors == []


def moving_bundle() -> bytes:
    """The paper's scenario with its move made by ``choiceMove`` (which offers staying,
    as ORM's and the ninja rules' moves do), as a zip."""
    buffer = io.BytesIO()
    free = "@(place : loc) : boolean { result = true; }"
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in PAPER.iterdir():
            content = path.read_bytes()
            if path.name == "rules.lore":
                old = b"route = area.choiceRoute(self);"
                assert old in content
                new = f"route = area.choiceMove(self, 10, {free}, {free});".encode()
                content = content.replace(old, new)
            archive.writestr(path.name, content)
    return buffer.getvalue()


def test_staying_put_is_offered_apart_from_the_places_to_go(
    tmp_path: Path, browser: Browser
) -> None:
    """A move that may stay where the actor stands: staying is its own button (not a
    square among the places to go, nor one on the map), and it answers at once; with
    these rules it leads back to the choice of what to do."""
    with ServerThread(tmp_path) as server:
        status, body = http(server.base, "/api/sessions", moving_bundle(), "application/zip")
        assert status == 201, body
        created = json.loads(body)
        links = {s["seat"]: server.base + s["link"] for s in created["seats"]}
        errors: list[str] = []
        _, me = gm_and_player(browser, "ja-JP", errors)
        me.goto(links[PLAYER])
        choose(me, "移動する")
        move = dialog(me, "Where to move?")
        stay = move.locator("button.choice.stay")
        expect(stay).to_have_text("Don't move: stay at スタート地点")  # (as its map names it)
        expect(move.locator(".choices button.choice")).to_have_count(1)  # the dungeon alone
        expect(me.locator('g.place.choice[data-place="dungeon"]')).to_have_count(1)
        expect(me.locator('g.place.choice[data-place="start_point"]')).to_have_count(0)
        shot(me, "dialogs-9-stay-apart")
        stay.click()
        expect(move).to_have_count(0)
        expect(dialog(me, "どうしますか？")).to_be_visible()  # back to the choice
        expect(me.locator("#clock")).to_have_text("Day 1, 00:00")  # no time spent
        assert errors == []
