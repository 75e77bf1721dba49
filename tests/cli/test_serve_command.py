"""``lore serve``'s process settings: the cyclic collector's policy while serving (young
passes only, their survivors frozen; a full pass once memory grew enough); the session
``--ready`` offers (the open one of the first example, else a new one), and the examples
``scripts/start`` serves."""

from __future__ import annotations

import gc
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.cli.serve_command import collect_for_serving, store_warnings
from lore.server.collecting import NEVER, YOUNG, Collector
from tests.server.serving import EXAMPLES, PAPER, REPO, start_examples


class Node:
    """An object that can be part of a reference cycle (and be watched by a weak ref)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A garbage cycle, watched: the ref is dead once the collector freed it."""
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


@pytest.fixture
def serving() -> Iterator[Collector]:
    before = gc.get_threshold()
    collector = collect_for_serving()
    try:
        yield collector
    finally:
        collector.uninstall()
        gc.set_threshold(*before)


def test_only_young_objects_are_collected_by_count(serving: Collector) -> None:
    assert gc.get_threshold() == (YOUNG, NEVER, NEVER)
    assert YOUNG >= 5 * 700  # fewer passes than Python's default
    assert gc.isenabled()  # cycles are still collected


def test_survivors_of_a_young_pass_are_frozen(serving: Collector) -> None:
    frozen = gc.get_freeze_count()
    kept = [Node() for _ in range(100)]
    gc.collect(0)
    assert gc.get_freeze_count() >= frozen + len(kept)
    collected = {id(found) for generation in (0, 1, 2) for found in gc.get_objects(generation)}
    assert not collected & {id(node) for node in kept}  # no pass looks at them again


def test_a_young_garbage_cycle_is_collected(serving: Collector) -> None:
    watched = cycle()
    gc.collect(0)
    assert watched() is None


def test_a_cycle_that_dies_frozen_goes_at_the_next_full_pass(serving: Collector) -> None:
    first = Node()
    first.other = Node()
    first.other.other = first
    watched = weakref.ref(first)
    gc.collect(0)  # survives: frozen
    del first
    gc.collect(0)
    assert watched() is not None  # (a frozen cycle: no young pass sees it)
    assert not serving.full_if_due()  # memory did not grow: no full pass
    serving.blocks = 1  # as if the memory had grown from next to nothing
    gc.collect(0)
    assert serving.due
    passes = serving.full_passes
    assert serving.full_if_due()
    assert serving.full_passes == passes + 1 and not serving.due
    assert watched() is None


def test_a_full_pass_waits_for_a_quiet_loop_unless_overdue(serving: Collector) -> None:
    serving.blocks = sys.getallocatedblocks() // 3  # grown 3 times: due, not overdue
    gc.collect(0)
    assert serving.due
    assert not serving.full_if_due(quiet=False)
    assert serving.due
    assert serving.full_if_due(quiet=True)
    serving.blocks = 1  # grown far more than GROWTH squared: overdue
    gc.collect(0)
    assert serving.full_if_due(quiet=False)


# ------------------------------------------------------------ the session ready at start


def test_scripts_start_offers_every_example_and_readies_the_papers_session() -> None:
    offered = start_examples()
    examples = sorted(
        str(path.relative_to(REPO))
        for path in [*EXAMPLES.glob("*/scenario.lore"), *EXAMPLES.glob("*.lore")]
    )
    bundles = sorted(
        name if name.endswith(".lore") else f"{name}/scenario.lore" for name in offered
    )
    assert bundles == examples  # orm, ninja, blackpoker ... each once
    assert offered[0] == "examples/paper"
    script = (REPO / "scripts" / "start").read_text(encoding="utf-8")
    assert "serve --ready " in script and "--new" in script  # (another: scripts/start --new)


@contextmanager
def lore_serve(db: Path, *options: str, example: Path = PAPER) -> Iterator[str]:
    """Run ``lore serve`` until it printed a session's links (what it printed so far),
    then stop it (Ctrl-C)."""
    argv = [sys.executable, "-m", "lore", "serve", "--db", str(db), "--port", "0", *options]
    output = db.with_name("serve.log")
    with output.open("wb") as out:
        process = subprocess.Popen([*argv, str(example)], stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            text = output.read_text(encoding="utf-8")
            if "invite for Chihiro" in text or process.poll() is not None:
                break
            assert time.monotonic() < deadline, text
            time.sleep(0.05)
        yield text
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(60)


def serve_once(db: Path, *options: str, example: Path = PAPER) -> str:
    """What ``lore serve`` printed up to a session's links."""
    with lore_serve(db, *options, example=example) as text:
        return text


def gm_link(text: str) -> str:
    found = re.search(r"GM link: http://127\.0\.0\.1:\d+(/play\S+)", text)
    assert found is not None, text
    return found.group(1)


def test_ready_offers_the_open_session_of_the_first_example_else_starts_one(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    first = serve_once(db, "--ready")
    assert "(0 open sessions)" in first and "New session: シナリオ・サンプル" in first
    again = serve_once(db, "--ready")
    assert "(1 open session)" in again and "New session" not in again
    assert "Open session: シナリオ・サンプル (started " in again and "--new starts another" in again
    assert gm_link(again) == gm_link(first)
    other = serve_once(db, "--ready", "--new")  # (--new: always another)
    assert "New session" in other and gm_link(other) != gm_link(first)
    assert gm_link(serve_once(db, "--ready")) == gm_link(other)  # the latest
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE sessions SET status = 'ended'")
    ended = serve_once(db, "--ready")  # (no open one: a new one)
    assert "New session" in ended and gm_link(ended) not in (gm_link(first), gm_link(other))


def test_ready_offers_no_session_of_files_changed_since(tmp_path: Path) -> None:
    paper = tmp_path / "paper"
    shutil.copytree(PAPER, paper)
    db = tmp_path / "sessions.db"
    first = serve_once(db, "--ready", example=paper)
    assert gm_link(serve_once(db, "--ready", example=paper)) == gm_link(first)
    rules = paper / "rules.lore"
    rules.write_text(rules.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    changed = serve_once(db, "--ready", example=paper)
    assert "New session" in changed and gm_link(changed) != gm_link(first)


def test_ready_with_workers_offers_the_session_from_the_store(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    first = serve_once(db, "--ready")
    again = serve_once(db, "--ready", "--workers", "2")
    assert "(1 open session)" in again and "Open session" in again
    assert gm_link(again) == gm_link(first)


def test_ready_needs_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--ready"]) == 2
    assert "--ready starts a session of the first example: name one" in capsys.readouterr().err


def test_ready_while_a_server_serves_the_store_prints_its_open_sessions_links(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    with lore_serve(db, "--ready") as first:
        argv = [sys.executable, "-m", "lore", "serve", "--db", str(db), "--ready", str(PAPER)]
        start = time.monotonic()
        again = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert time.monotonic() - start < 20  # (not the usual wait for a server to stop)
    assert again.returncode == 2
    assert "is used by another lore serve" in again.stderr
    assert "Open session: シナリオ・サンプル" in again.stdout
    assert "GM link: http://127.0.0.1:8000/play?session=" in again.stdout
    assert gm_link(again.stdout) == gm_link(first)


def test_an_empty_database_and_a_lost_write_ahead_log_are_warned_of(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    assert store_warnings(db) == []  # (none yet: a new server)
    db.touch()
    (warned,) = store_warnings(db)
    assert "is empty (0 bytes)" in warned
    db.write_bytes(b"SQLite format 3\0" + bytes(100))
    (tmp_path / "sessions.db-shm").write_bytes(bytes(32768))
    (warned,) = store_warnings(db)
    assert "sessions.db-wal" in warned and "is missing" in warned
    (tmp_path / "sessions.db-wal").write_bytes(b"")
    assert store_warnings(db) == []
