"""``lore sessions``: every session the store keeps, open or ended, with its links; read
from the database as it is (nothing changed, no file made), also a store of several
workers' files."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.server.shards import open_store
from lore.server.store import ENDED, SeatRecord, SessionRecord, bundle_digest
from tests.server.postgres import free_port

FILES = {"scenario.lore": b"section s {}"}


def record(session: str, title: str, created: float) -> SessionRecord:
    return SessionRecord(session, title, bundle_digest(FILES), "scenario.lore", 1, created)


def make_store(db: Path) -> None:
    """Three sessions: s1 open (its second player's link revoked), s2 ended, s3 open in
    worker 1's file."""

    async def write() -> None:
        store = await open_store(db, at_least=2)
        seats = [
            SeatRecord("s1", "GM", "GM", "gm1"),
            SeatRecord("s1", "aki@x", "Aki", "aki1"),
            SeatRecord("s1", "ren@x", "Ren", None),
        ]
        await store.create(record("s1", "The paper", 1000.0), FILES, seats)
        await store.create(
            record("s2", "Old fight", 2000.0), FILES, [SeatRecord("s2", "GM", "GM", "gm2")]
        )
        await store.set_status("s2", ENDED)
        await store.close()
        worker = await open_store(db, 1, at_least=2)
        await worker.create(
            record("s3", "Dice", 3000.0), FILES, [SeatRecord("s3", "GM", "GM", "gm3")]
        )
        await worker.close()

    asyncio.run(write())


def test_every_session_is_printed_with_its_state_and_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "lore-sessions.db"
    make_store(db)
    assert main(["sessions", "--db", str(db), "--url", "https://lore.example.org/"]) == 0
    lines = capsys.readouterr().out.splitlines()
    base = "https://lore.example.org/play?session="
    assert lines[0].startswith("s1  The paper  (open, started ")
    assert lines[1:4] == [
        f"  GM link: {base}s1#gm1",
        f"  invite for Aki: {base}s1#aki1",
        "  invite for Ren: revoked",
    ]
    assert lines[4].startswith("s2  Old fight  (ended, started ")
    assert lines[5] == f"  GM link: {base}s2#gm2"
    assert lines[6].startswith("s3  Dice  (open, started ")  # (worker 1's file)
    assert lines[7:] == [f"  GM link: {base}s3#gm3"]


def test_only_the_open_ones_and_the_default_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "lore-sessions.db"
    make_store(db)
    assert main(["sessions", "--db", f"sqlite:///{db}", "--open"]) == 0
    out = capsys.readouterr().out
    assert "Old fight" not in out and "The paper" in out and "Dice" in out
    assert "  GM link: http://127.0.0.1:8000/play?session=s1#gm1" in out


def test_no_sessions_no_file_and_not_a_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["sessions"]) == 2
    err = capsys.readouterr().err
    assert "there is no lore-sessions.db: lore serve makes it" in err
    assert not (tmp_path / "lore-sessions.db").exists()  # (nothing made)
    asyncio.run(empty(tmp_path / "lore-sessions.db"))
    assert main(["sessions"]) == 0
    assert capsys.readouterr().out == "No sessions in lore-sessions.db.\n"
    (tmp_path / "notes.txt").write_text("not a database\n", encoding="utf-8")
    assert main(["sessions", "--db", "notes.txt"]) == 2
    assert "cannot read notes.txt" in capsys.readouterr().err
    assert main(["sessions", "--db", "mysql://x/y"]) == 2
    assert "not supported" in capsys.readouterr().err
    port = free_port()  # (nothing listens there)
    assert main(["sessions", "--db", f"postgresql://lore:pw@127.0.0.1:{port}/y"]) == 2
    err = capsys.readouterr().err
    assert f"cannot open postgresql://lore@127.0.0.1:{port}/y" in err and "pw" not in err


async def empty(db: Path) -> None:
    await (await open_store(db)).close()


def test_the_help_says_what_it_prints_without_markup(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["sessions", "--help"])
    out = capsys.readouterr().out
    assert "GM link" in out and "--db" in out and "--url" in out and "--open" in out
    assert "``" not in out


def test_listed_in_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "sessions" in capsys.readouterr().out
