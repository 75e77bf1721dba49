"""axe-core in the browser tests: the accessibility engine from npm, which
``scripts/setup-browser`` installs (pinned) into the ignored ``.vendor/``. Without it the
accessibility checks are skipped, with one line at the end of the run; under ``CI=true``
they fail instead."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = Path(__file__).resolve().parents[2] / ".vendor" / "node_modules" / "axe-core" / "axe.min.js"
NEEDED = "axe-core (scripts/setup-browser installs it from npm into .vendor/)"
SERIOUS = ("serious", "critical")


def axe_script() -> str:
    if not AXE.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the accessibility checks need {NEEDED}", pytrace=False)
        pytest.skip(f"needs {NEEDED}")
    return str(AXE)


def violations(page: Page) -> list[dict[str, Any]]:
    """The serious and critical violations axe-core finds in the page as it is now:
    each rule's id, its help and the elements (their selectors) that break it."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=axe_script())
    found = page.evaluate(
        "async () => (await axe.run(document, { resultTypes: ['violations'] })).violations"
    )
    return [
        {"id": v["id"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in found
        if v.get("impact") in SERIOUS
    ]
