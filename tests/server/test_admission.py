"""Who may start sessions: anyone on a loopback server; on one others can reach, only
who says its host token, each client within its quotas (sessions and upload bytes an
hour). In a real browser, the start link's token is what the start page sends."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from lore.cli.serve_command import host_token, start_line
from lore.server.admission import HOUR, Admission, is_loopback
from tests.server.serving import EXAMPLES, ServerThread, http
from tests.server.test_browser import browser, shot

__all__ = ["browser"]  # the fixture, used by a test below

PAPER = json.dumps({"source": "paper"}).encode()


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.0.1", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.0.2.7", False),
        ("::", False),
        ("example.org", False),
    ],
)
def test_only_loopback_addresses_are_the_machines_own(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_the_host_token_is_made_off_loopback_and_given_to_the_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (set, then taken away: so that what host_token puts there is taken away after the
    # test, as servers that tests start later would otherwise find it)
    monkeypatch.setenv("LORE_HOST_TOKEN", "")
    monkeypatch.delenv("LORE_HOST_TOKEN")
    assert host_token(argparse.Namespace(host="127.0.0.1", host_token=None)) is None
    made = host_token(argparse.Namespace(host="0.0.0.0", host_token=None))
    assert made is not None and len(made) >= 32 and os.environ["LORE_HOST_TOKEN"] == made
    assert host_token(argparse.Namespace(host="0.0.0.0", host_token="given")) == "given"
    line = start_line("http://192.0.2.7:8000", "abc")
    assert line is not None and "http://192.0.2.7:8000/#host=abc" in line
    assert start_line("http://127.0.0.1:8000", None) is None


def test_quotas_count_sessions_and_bytes_in_a_sliding_hour() -> None:
    admission = Admission("t", sessions_per_hour=2, upload_bytes_per_hour=1000)
    assert admission.admit("Bearer t") is None
    assert admission.admit("Bearer wrong").status == 401  # type: ignore[union-attr]
    assert admission.admit("").status == 401  # type: ignore[union-attr]
    assert admission.charge("a", 600, now=0.0) is None
    refused = admission.charge("a", 600, now=1.0)  # 1,200 bytes: over
    assert refused is not None and refused.status == 429 and "MiB" in refused.message
    assert admission.charge("a", 0, now=2.0) is None  # (the refused one was not counted)
    refused = admission.charge("a", 0, now=3.0)
    assert refused is not None and "2 sessions in the last hour" in refused.message
    assert admission.charge("b", 0, now=3.0) is None  # another client: its own quota
    assert admission.charge("a", 600, now=HOUR + 1.0) is None  # the first is an hour old
    assert Admission(None).charge("a", 10**9) is None  # (on loopback: no quotas)


def test_a_server_others_reach_starts_sessions_only_with_its_token(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        assert server.server is not None
        server.server.admission = Admission("s3cret", sessions_per_hour=2)
        status, body = http(server.base, "/api/sessions", PAPER)
        assert status == 401 and b"host token" in body
        wrong = {"authorization": "Bearer nope"}
        assert http(server.base, "/api/sessions", PAPER, headers=wrong)[0] == 401
        right = {"authorization": "Bearer s3cret"}
        assert http(server.base, "/api/sessions", PAPER, headers=right)[0] == 201
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("scenario.lore", (EXAMPLES / "hello.lore").read_bytes())
        upload = buffer.getvalue()
        status, _ = http(server.base, "/api/sessions", upload, "application/zip", right)
        assert status == 201
        status, body = http(server.base, "/api/sessions", PAPER, headers=right)
        assert status == 429 and b"in the last hour" in body
        assert len(server.server.rooms.by_id) == 2


def test_the_start_link_lets_a_browser_start_sessions(tmp_path: Path, browser: Browser) -> None:
    with ServerThread(tmp_path) as server:
        assert server.server is not None
        server.server.admission = Admission("s3cret")
        page = browser.new_context(locale="en-US").new_page()
        page.goto(server.base + "/")  # without the token: refused, and said so
        page.locator('button[data-source="paper"]').click()
        expect(page.locator("#problemText")).to_contain_text("host token")
        page.goto(server.base + "/#host=s3cret")
        # (a change of the address's hash reloads the page, which takes the token out)
        expect(page).not_to_have_url(re.compile("s3cret"))
        expect(page.locator('button[data-source="paper"]')).to_be_visible()
        page.locator('button[data-source="paper"]').click()
        expect(page.locator("#created a.gm-link")).to_be_visible()
        shot(page, "admission-started-with-the-host-token")
        assert len(server.server.rooms.by_id) == 1
