"""Map tokens in a real browser (as ``test_browser.py``): a player's map colours its own
actor, allies, enemies and items apart, draws the downed and the dead so, gives 屍鬼A and
屍鬼B marks of their own, draws a mark that names a picture of the bundle, lays four
actors of one square out inside it, and puts every label where it overlaps no other and
stays inside the map (a long name at the map's edge too). The GM follows Aki into the
cave (a sub-area): the GM's map goes with him. ORM's own map is checked the same way.
Screenshots go to ``test-artifacts/browser/`` (``tokens-*``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.server.serving import EXAMPLES, ServerThread
from tests.server.test_browser import ARTIFACTS, browser, dialog, shot
from tests.server.test_browser_systems import start

__all__ = ["browser"]  # the fixture, used by the tests below

BUNDLE = Path(__file__).parent / "bundles" / "tokens"

# The labels: how many, how many overlap another label, a token or an area's marker, and
# how many (areas' markers too) are cut at the map's edge (the script's comment aside).
LABEL_BOXES = "\n".join(
    line
    for line in (Path(__file__).parent / "label_boxes.js").read_text("utf-8").splitlines()
    if not line.startswith("//")
)

DEBUG = """() => [...document.querySelectorAll('#map text.token-label')].map((t) => {
  const b = t.getBBox();
  return [t.textContent, b.x, b.y, b.width, b.height];
})"""

# The circles of the tokens at one place: each inside the square, none on another.
CIRCLES = """(ids) => ids.map((id) => {
  const c = document.querySelector(`#map g.token[data-id="${id}"] circle`);
  return [Number(c.getAttribute('cx')), Number(c.getAttribute('cy')), Number(c.getAttribute('r'))];
})"""


def token(page: Page, name: str) -> Any:
    return page.locator(f'#map g.token[data-id="tokens.{name}"]')


def labels_fit(page: Page) -> int:
    count, overlapping, outside = page.evaluate(LABEL_BOXES)
    assert overlapping == 0, f"{overlapping} labels overlap: {page.evaluate(DEBUG)}"
    assert outside == 0, f"{outside} labels are cut at the map's edge"
    return int(count)


def test_tokens_have_sides_states_marks_and_labels_that_fit(
    tmp_path: Path, browser: Browser
) -> None:
    with ServerThread(tmp_path, [BUNDLE]) as server:
        errors: list[str] = []
        gm = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()
        gm.on("pageerror", lambda error: errors.append(str(error)))
        gm.goto(server.base + "/")
        gm.locator('button[data-source="tokens"]').click()
        invite = gm.locator("a.invite-link").first.get_attribute("href")
        assert invite is not None
        gm.locator("a.open-gm").click()
        expect(gm.locator("#gm")).to_be_visible()
        me = browser.new_context(viewport={"width": 900, "height": 800}, locale="ja-JP").new_page()
        me.on("pageerror", lambda error: errors.append(str(error)))
        me.goto(invite)
        asked = dialog(me, "Into the cave?")
        expect(asked).to_be_visible()

        # Sides, seen from Aki's seat; downed and dead.
        expect(token(me, "aki")).to_have_class("token actor side-own mine")
        expect(token(me, "ben")).to_have_class("token actor side-ally downed")
        expect(token(me, "g1")).to_have_class("token actor side-enemy")
        expect(token(me, "g3")).to_have_class("token actor side-enemy dead")
        expect(token(me, "potion")).to_have_class("token object side-item")
        expect(token(me, "g3").locator("path.token-cross")).to_have_count(1)
        expect(token(me, "g3").locator("title")).to_have_text("屍鬼C (死亡)")
        # Marks of their own: 屍鬼A and 屍鬼B differ, the rules' icon is shown.
        marks = [token(me, f"g{i}").locator(".token-mark").text_content() for i in range(1, 5)]
        assert marks == ["屍鬼A", "屍鬼B", "屍鬼C", "屍鬼D"]
        expect(token(me, "archer").locator(".token-mark")).to_have_text("🏹")
        expect(token(me, "ben").locator(".token-mark")).to_have_text("Ben")
        # A mark that is a picture of the bundle: drawn, and it loads.
        picture = token(me, "wolf").locator("image.token-image")
        expect(picture).to_have_attribute("href", re.compile(r"^/bundle/\w+/wolf\.png$"))
        href = picture.get_attribute("href")
        assert me.request.get(server.base + str(href)).ok
        # Four in one square: inside it and apart.
        circles = me.evaluate(CIRCLES, [f"tokens.g{i}" for i in range(1, 5)])
        for i, (x, y, r) in enumerate(circles):
            assert x - r >= 44 + 4 and x + r <= 88 + 4 and y - r >= 4 and y + r <= 44 + 4
            for x2, y2, r2 in circles[i + 1 :]:
                assert (x - x2) ** 2 + (y - y2) ** 2 >= (r + r2) ** 2
        assert labels_fit(me) == 9
        shot(me, "tokens-1-player")
        token(me, "archer").screenshot(path=str(ARTIFACTS / "tokens-1-archer.png"))

        # The GM follows Aki: when he goes into the cave, the GM's map goes there too.
        expect(gm.locator("#followLabel")).to_be_visible()
        expect(token(gm, "aki")).to_have_class("token actor side-ally")
        gm.select_option("#followSelect", "tokens.aki")
        expect(gm.locator("#areaSelect")).to_have_value("/")
        assert labels_fit(gm) == 9
        shot(gm, "tokens-2-gm-hall")
        asked.locator("input[type=checkbox]").check()
        asked.locator(".submit").click()
        expect(gm.locator("#log")).to_contain_text("Aki goes to cave [1,0]")
        expect(gm.locator("#areaSelect")).to_have_value("/cave")
        expect(token(gm, "aki")).to_have_count(1)
        expect(me.locator("#areaSelect")).to_have_value("/cave")
        shot(gm, "tokens-3-gm-follows-into-the-cave")
        # An area chosen by hand ends the following.
        gm.select_option("#areaSelect", "/")
        expect(gm.locator("#followSelect")).to_have_value("")
        assert errors == []


def test_orms_map_tells_pcs_and_enemies_apart(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        gm, players = start(server, browser, "orm")
        me = players[0]
        own = me.locator("#map g.token.side-own")
        expect(own).to_have_count(1)
        expect(me.locator("#map g.token.side-ally")).to_have_count(1)
        enemies = me.locator("#map g.token.side-enemy")
        expect(enemies.first).to_be_visible()
        marks = [mark.text_content() for mark in enemies.locator(".token-mark").all()]
        assert "屍鬼A" in marks and "屍鬼B" in marks and len(set(marks)) == len(marks)
        labels_fit(me)
        labels_fit(gm)
        shot(me, "tokens-4-orm-player")
        shot(gm, "tokens-5-orm-gm")


def test_blackpokers_players_labels_leave_the_points_name_whole(
    tmp_path: Path, browser: Browser
) -> None:
    """BlackPoker's map is one point ("0") with both players on it: their labels go where
    they cover neither the point's name nor each other (a label over the "0" once left a
    stray "(" of it before レン)."""
    with ServerThread(tmp_path, [EXAMPLES / "blackpoker"]) as server:
        gm, players = start(server, browser, "blackpoker")
        for page in (gm, *players):
            expect(page.locator("#map g.token")).to_have_count(2)
            expect(page.locator("#map text.node-label")).to_have_text("0")
            assert labels_fit(page) == 2
        shot(gm, "tokens-6-blackpoker-gm")
