"""The GM's simulation page of ``lore serve``: ``lore sim`` on the session's own rules,
bounded in runs and time, run in a process of its own, for the GM alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lore.analysis.report import STYLE
from lore.server.simulating import MAX_RUNS
from tests.analysis.test_report import CHECKS
from tests.server.serving import PLAYER, ServerThread, http, links


def asked(base: str, session: str, token: str | None, query: str = "runs=3") -> tuple[int, bytes]:
    headers = {} if token is None else {"authorization": f"Bearer {token}"}
    return http(base, f"/api/simulate?session={session}&{query}", headers=headers)


def test_the_gm_gets_the_report_of_the_sessions_rules_and_nobody_else(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        created = server.create()
        session, seats = created["session"], links(created, server.base)
        gm, player = (seats[seat].split("#")[1] for seat in ("GM", PLAYER))
        status, body = asked(server.base, session, gm, "runs=4&lang=ja")
        assert status == 200, body
        page = body.decode("utf-8")
        assert '<html lang="ja">' in page and "シミュレーション報告: scenario.lore" in page
        found = re.search(
            r'<script type="application/json" id="figures">(.*?)</script>', page, re.S
        )
        assert found is not None
        figures = json.loads(found.group(1).replace("<\\/", "</"))
        assert (figures["file"], figures["sessions"]) == ("scenario.lore", 4)
        assert str(tmp_path) not in page  # (no path of the server)
        # The page's style sheet is the one inline style the server's policy allows.
        assert f"<style>{STYLE}</style>" in page
        for token in (player, "not-a-token", None):
            status, body = asked(server.base, session, token)
            assert status == 403 and b"<html" not in body
        # The session goes on meanwhile, and the page itself is served.
        status, shell = http(server.base, f"/simulate?session={session}")
        assert status == 200 and b"simulate.js" in shell


def test_a_simulation_is_bounded_in_runs_and_in_time(tmp_path: Path) -> None:
    with ServerThread(tmp_path) as server:
        created = server.create()
        session, seats = created["session"], links(created, server.base)
        gm = seats["GM"].split("#")[1]
        for runs in ("0", str(MAX_RUNS + 1), "many"):
            status, body = asked(server.base, session, gm, f"runs={runs}")
            assert status == 422, body
        assert server.server is not None
        server.server.simulations.time_limit = 0.05
        status, body = asked(server.base, session, gm, f"runs={MAX_RUNS}")
        assert status == 504 and b"longer than 0.05 seconds" in body


def test_the_places_in_the_report_are_the_bundles(tmp_path: Path) -> None:
    folder = tmp_path / "checks"
    folder.mkdir()
    (folder / "scenario.lore").write_text(CHECKS, "utf-8")
    with ServerThread(tmp_path, [folder]) as server:
        created = server.create("checks")
        gm = links(created, server.base)["GM"].split("#")[1]
        status, body = asked(server.base, created["session"], gm, "runs=5")
        assert status == 200, body
        page = body.decode("utf-8")
        assert (
            "<code>scenario.lore:17:4</code>" in page and "<code>scenario.lore:18:4</code>" in page
        )
        assert str(tmp_path) not in page
