"""The GM's rulings in a real browser (as ``test_browser_table.py``): in the ORM sample the
GM lowers an enemy's HP from its sheet; the sheet and the token's bar show the new value
at once, the players who see the enemy read the ruling in their log, a ruling of the wrong
kind is refused with its reason, and a secret ruling reaches the GM's log alone.
Screenshots go to ``test-artifacts/browser/``."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.server.serving import EXAMPLES, ServerThread
from tests.server.test_browser import browser, shot
from tests.server.test_browser_systems import start

__all__ = ["browser"]  # the fixture, used by the tests below

GHOUL = "orm.clearing.ghoulA"


def rule(gm: Page, sheet: str, member: str, value: str, secret: bool = False) -> None:
    row = gm.locator(f'#sheets .sheet[data-id="{sheet}"] .entry[data-member="{member}"]')
    row.locator("button.rule-edit").click()
    form = row.locator("form.rule-form")
    form.locator('input[name="value"]').fill(value)
    if secret:
        form.locator('input[name="secret"]').check()
    form.locator('button[type="submit"]').click()


def hp_bar(page: Page, sheet: str) -> str | None:
    bar = page.locator(f'#sheets .sheet[data-id="{sheet}"] .entry[data-member="hp"] .bar')
    return bar.get_attribute("aria-valuenow")


def test_the_gm_rules_on_an_enemys_hp_from_its_sheet(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        gm, players = start(server, browser, "orm")
        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        expect(gm.locator(f'#sheets .sheet[data-id="{GHOUL}"]')).to_be_visible()
        # Players have no ruling buttons.
        expect(players[0].locator("#sheets .sheet")).not_to_have_count(0)
        assert players[0].locator("button.rule-edit").count() == 0
        rule(gm, GHOUL, "hp", "5")
        expect(gm.locator("#log .msg-ruling").last).to_contain_text("屍鬼A の HP 12 → 5")
        assert hp_bar(gm, GHOUL) == "5"
        token = gm.locator(f'#map .token[data-id="{GHOUL}"] .token-bar-fill')
        expect(token).to_have_attribute("data-value", "5")
        # The players, beside the ghoul in the clearing, read it as the GM's ruling.
        for player in players:
            expect(player.locator("#log .msg-ruling").last).to_contain_text("屍鬼A")
            expect(player.locator("#log .msg-ruling").last).to_contain_text("12 → 5")
        shot(gm, "ruling-gm-sets-hp")
        shot(players[0], "ruling-player-reads-it")
        # A value of the wrong kind: refused, with the reason, and nothing changed.
        rule(gm, GHOUL, "hp", "99")
        expect(gm.locator("#log .msg:last-child")).to_contain_text("その裁定はできません")
        assert hp_bar(gm, GHOUL) == "5"
        # A secret ruling: the GM's log alone.
        rule(gm, GHOUL, "hp", "3", secret=True)
        expect(gm.locator("#log .msg-ruling.secret").last).to_contain_text("5 → 3")
        expect(players[0].locator(f'#sheets .sheet[data-id="{GHOUL}"]')).to_be_visible()
        gm.wait_for_timeout(300)
        for player in players:
            assert "5 → 3" not in player.locator("#log").inner_text()
        assert errors == []
