"""The table in a real browser (as ``test_browser_systems.py``): in the sample fights of
ORM and of the ninja rules, the sheets and the HP bars on the map's tokens change as
damage applies, and the tracker shows the order of play (ORM's by 先制値) and moves on
by the rules alone: nobody clicks anything but the dialogs' answers. A player on a
phone-width screen opens its sheet from its tab. Screenshots go to
``test-artifacts/browser/``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.server.serving import EXAMPLES, ServerThread
from tests.server.test_browser import browser, shot
from tests.server.test_browser_systems import TIMEOUT, answer_first_dialog, start

__all__ = ["browser"]  # the fixture, used by the tests below

READ_TABLE = """() => {
  const hp = {};
  for (const sheet of document.querySelectorAll('#sheets .sheet')) {
    const bar = sheet.querySelector('.entry[data-member="hp"] .bar');
    if (bar) hp[sheet.dataset.id] = Number(bar.getAttribute('aria-valuenow'));
  }
  const initiative = {};
  for (const sheet of document.querySelectorAll('#sheets .sheet')) {
    const dd = sheet.querySelector('.entry[data-member="initiative"] dd');
    if (dd) initiative[sheet.dataset.id] = Number(dd.textContent);
  }
  const tokens = {};
  for (const fill of document.querySelectorAll('#map .token .token-bar-fill')) {
    tokens[fill.parentNode.dataset.id] = Number(fill.dataset.value);
  }
  const tracker = document.querySelector('#tracker .tracker');
  const ids = (selector) =>
    tracker ? [...tracker.querySelectorAll(selector)].map((li) => li.dataset.id) : [];
  return {
    hp, initiative, tokens,
    phase: tracker ? tracker.querySelector('.tracker-phase')?.textContent || '' : '',
    round: tracker ? tracker.querySelector('.tracker-round')?.textContent || '' : '',
    order: ids('.tracker-order li'),
    current: ids('.tracker-order li.current'),
  };
}"""


# Every "whose chance" the page's tracker showed, however briefly (a round of answers may
# pass over a holder between two reads of the table).
WATCH_CURRENT = """() => {
  window.loreCurrents = [];
  const note = () => {
    const ids = [...document.querySelectorAll('#tracker .tracker-order li.current')]
      .map((li) => li.dataset.id);
    if (ids.length) window.loreCurrents.push(ids.join(' '));
  };
  note();
  new MutationObserver(note).observe(document.body,
    { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
}"""


def currents_shown(page: Page) -> set[str]:
    found: list[str] = page.evaluate("() => window.loreCurrents")
    return set(found)


def read_table(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(READ_TABLE)
    return found


def hurt(first: dict[str, Any], now: dict[str, Any]) -> bool:
    """Whether some HP bar of the sheets is lower now than at first."""
    return any(now["hp"].get(k, v) < v for k, v in first["hp"].items())


def play_watching(
    gm: Page, players: list[Page], text: str, prefer: list[str], hurt_too: bool = False
) -> list[Any]:
    """Answer every page's dialogs until the GM's log holds ``text`` (and, with
    ``hurt_too``, some HP went down); what the GM's table showed after each round of
    answers."""
    gm.evaluate(WATCH_CURRENT)
    seen = [read_table(gm)]
    deadline = time.monotonic() + TIMEOUT
    log = gm.locator("#log")
    while text not in log.inner_text() or (hurt_too and not hurt(seen[0], seen[-1])):
        assert time.monotonic() < deadline, f"'{text}' did not come in {TIMEOUT} s"
        answered = False
        for page in [gm, *players]:
            answered = answer_first_dialog(page, prefer) or answered
        if not answered:
            gm.wait_for_timeout(100)
        seen.append(read_table(gm))
    return seen


def test_orm_sheets_bars_and_tracker(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        gm, players = start(server, browser, "orm")
        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        expect(gm.locator("#sheets .sheet")).to_have_count(5)  # the GM sees every sheet
        expect(players[0].locator("#sheets .sheet.mine")).to_have_count(1)
        first = read_table(gm)
        # (until turn 2 and a blow landed: turn 1's attacks may all miss)
        turn = "ターン 2: スタートフェイズ"
        seen = play_watching(gm, players, turn, ["通常攻撃", "終わる"], hurt_too=True)
        shot(gm, "table-orm-gm")
        shot(players[0], "table-orm-player")
        last = read_table(gm)
        # Damage applied: some HP bar on a sheet and on the map went down.
        assert hurt(first, last), (first, last)
        # (the last read too: the blow may land after the last round of answers was read)
        assert any(t["tokens"] != first["tokens"] for t in [*seen, last])
        for id_, value in last["tokens"].items():
            assert value == last["hp"][id_]
        # The tracker: the set phase's order by 先制値 (highest first), its current actor
        # moving on, no button to push.
        set_phases = [t for t in seen if t["phase"] == "セットフェイズ" and t["order"]]
        assert set_phases
        for shown in set_phases:
            values = [shown["initiative"][a] for a in shown["order"]]
            assert values == sorted(values, reverse=True), shown
        assert len({tuple(t["current"]) for t in set_phases}) >= 2
        assert gm.locator("#tracker button").count() == 0
        assert "1" in first["round"] or "1" in seen[1]["round"]
        # A player reads its own sheet whole, and of the others only what everyone sees.
        own = players[0].locator("#sheets .sheet.mine .entry")
        assert own.count() > 3
        others = players[0].locator("#sheets .sheet:not(.mine) .entry")
        members = {e.get_attribute("data-member") for e in others.all()}
        assert members <= {"hp", "initiative"}, members
        assert errors == []


def test_ninja_sheets_and_tracker(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "ninja"]) as server:
        gm, players = start(server, browser, "ninja")
        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        expect(gm.locator("#sheets .sheet")).to_have_count(5)
        first = read_table(gm)
        seen = play_watching(
            gm,
            players,
            "ラウンド 2: セットアップフェイズ",
            ["攻撃 (1)", "残りの行動回数を破棄"],
            hurt_too=True,
        )
        shot(gm, "table-ninja-gm")
        shot(players[1], "table-ninja-player")
        last = read_table(gm)
        assert hurt(first, last), (first, last)
        phases = {t["phase"] for t in seen}
        assert {"セットアップフェイズ", "メインフェイズ"} <= phases | {last["phase"]}, phases
        assert len(currents_shown(gm)) >= 2, currents_shown(gm)
        assert errors == []


def test_a_phone_opens_its_sheet_from_a_tab(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        _, players = start(server, browser, "orm")
        invite = players[0].url
        phone = browser.new_context(viewport={"width": 360, "height": 640}).new_page()
        phone.goto(invite)
        tab = phone.locator("#sheets .sheet-tab")
        expect(tab).to_be_visible()
        expect(phone.locator("#sheets .sheet-list")).to_be_hidden()
        tab.click()
        expect(phone.locator("#sheets .sheet.mine")).to_be_visible()
        expect(tab).to_have_attribute("aria-expanded", "true")
        expect(phone.locator("#tracker")).to_be_visible()
        shot(phone, "table-orm-phone")
