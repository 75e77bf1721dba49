"""The simulation report of the ORM sample in a real browser (Debian's chromium, driven
by Playwright, as ``tests/server/test_browser.py``): it renders with its charts, loads
nothing from the network and shows the figures of ``lore sim --json``. The screenshot
goes to ``test-artifacts/browser/sim-report.png``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Request, expect

from lore.cli.main import main
from tests.server.test_browser import browser, shot

__all__ = ["browser"]  # the fixture, used below

REPO = Path(__file__).resolve().parents[2]
ORM = REPO / "examples" / "orm" / "scenario.lore"


def test_the_orm_report_renders(
    tmp_path: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "orm.html"
    args = ["sim", str(ORM), "--runs", "1000", "--jobs", "2"]  # (as the issue asks)
    assert main([*args, "--report", str(report), "--lang", "en", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    fetched: list[str] = []

    def note(request: Request) -> None:
        if not request.url.startswith("file:"):
            fetched.append(request.url)

    page.on("request", note)
    page.goto(report.as_uri())
    expect(page.locator("h1")).to_contain_text("Simulation report")
    assert page.locator("svg").count() >= 5
    won = page.locator('tr[data-key="outcomes/won"]')
    expect(won).to_contain_text(f"{100 * figures['outcomes']['won']['rate']:.1f}%")
    expect(page.locator('tr[data-key="seats/GM"]')).to_be_visible()
    # The bars are as wide as the rates they show (320 pixels for 100%).
    width = page.locator("svg rect.bar").first.get_attribute("width")
    assert float(width or "0") == pytest.approx(
        320 * figures["end_rates"]["ended"]["rate"], abs=0.1
    )
    assert fetched == []
    shot(page, "sim-report")
