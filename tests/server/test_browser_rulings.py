"""The GM's rulings in a real browser (as ``test_browser_table.py``): in the ORM sample the
GM lowers an enemy's HP from its sheet; the sheet and the token's bar show the new value
at once, the players who see the enemy read the ruling in their log, a ruling of the wrong
kind is refused with its reason, and a secret ruling reaches the GM's log alone.
Screenshots go to ``test-artifacts/browser/``."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.server.serving import EXAMPLES, ServerThread
from tests.server.test_browser import browser, shot
from tests.server.test_browser_systems import TIMEOUT, answer_first_dialog, play_until, start

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


def rule_on_a_roll(gm: Page) -> bool:
    """If the GM is asked to rule on a roll: set its faces to 6 (whether it was)."""
    dialog = gm.locator("article.dialog", has_text="出目を決める")
    if dialog.count() == 0:
        return False
    box = dialog.first
    try:
        box.locator("button.choice", has_text="出目を決める").click(timeout=1000)
        for die in box.locator('input[name^="die"]').all():
            die.fill("6", timeout=1000)
        box.locator("button.submit").click(timeout=1000)
    except Exception:  # (the dialog went away while being answered: asked again)
        return False
    return True


def test_the_gm_rules_over_an_orm_fight(tmp_path: Path, browser: Browser) -> None:
    """The issue's walk: every check ruled, a hit roll's faces set, an enemy's HP lowered,
    an improvised 感覚 check on a PC, an enemy brought in, and the fight ended by ruling;
    the player sees each."""
    with ServerThread(tmp_path, [EXAMPLES / "orm"]) as server:
        gm, players = start(server, browser, "orm")
        rin = players[0]
        errors: list[str] = []
        for page in [gm, *players]:
            page.on("pageerror", lambda error: errors.append(str(error)))
        gm.locator("#ruleRolls").check()
        # A ruled check: the players play on (attacking) until the GM is asked about one.
        deadline = time.monotonic() + TIMEOUT
        ruled = False
        while not ruled:
            assert time.monotonic() < deadline, "no check came to the GM to rule on"
            ruled = rule_on_a_roll(gm)
            if not ruled:
                for page in [gm, *players]:  # (the GM plays the enemies)
                    answer_first_dialog(page, ["通常攻撃", "終わる"])
                gm.wait_for_timeout(100)
        expect(gm.locator("#log .roll-ruling").first).to_be_visible(timeout=TIMEOUT * 1000)
        shot(gm, "ruling-gm-sets-the-faces")
        ruled_card = rin.locator("#log .roll-ruling")
        # (a hit check of Rin's or Goro's: Rin sees the checks of those beside her)
        expect(ruled_card.first).to_be_visible(timeout=TIMEOUT * 1000)
        gm.locator("#ruleRolls").uncheck()
        # An enemy's HP lowered from its sheet.
        rule(gm, GHOUL, "hp", "1")
        expect(rin.locator("#log .msg-ruling").last).to_contain_text("→ 1")
        # An improvised 感覚 check on Rin, with a modifier and a target.
        gm.locator("#checkActor").select_option("orm.clearing.rin")
        gm.locator("#checkAbility").select_option("感覚")
        gm.locator("#checkModifier").fill("1")
        gm.locator("#checkTarget").fill("10")
        gm.locator("#gmCheck button[type=submit]").click()
        check_card = rin.locator("#log .roll-ruling", has_text="GM")
        expect(check_card.last).to_be_visible()
        expect(rin.locator("#log").last).to_contain_text("GM の判定 (感覚)")
        shot(rin, "ruling-player-sees-the-gms-check")
        # An enemy brought into the fight: it joins once the question that waits is
        # answered, on the map and with its sheet.
        gm.locator("#arrivalWhat").select_option("屍鬼")
        gm.locator("#arrivalForm button[type=submit]").click()
        expect(rin.locator("#log .msg-ruling").last).to_contain_text("Enemy joins: 屍鬼")
        play_until(gm, players, "屍鬼C が戦闘に加わった", ["通常攻撃", "終わる"])
        expect(rin.locator("#sheets .sheet", has_text="屍鬼C")).to_be_visible()
        expect(rin.locator("#map .token", has_text="屍鬼C")).to_have_count(1)
        shot(gm, "ruling-an-enemy-joins")
        shot(rin, "ruling-player-sees-the-enemy-join")
        # The fight ended by ruling: at the end of the turn, with its outcome.
        gm.locator("#sceneOutcome").select_option("won")
        gm.locator("#sceneEnd button[type=submit]").click()
        expect(rin.locator("#log .msg-ruling").last).to_contain_text("won")
        play_until(gm, players, "戦闘終了 (勝利)", ["通常攻撃", "終わる"])
        shot(gm, "ruling-the-fight-ended-by-ruling")
        shot(rin, "ruling-player-reads-the-end")
        assert errors == []
