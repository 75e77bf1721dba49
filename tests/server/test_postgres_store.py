"""The PostgreSQL store on a throwaway server: what it keeps across a reopen, its group
commit, the log's key fencing a second writer, its versioned migrations, and failures
of the server said as StoreErrors (the generic store tests in test_store.py run on it
too)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from lore.server import postgres_store
from lore.server.postgres_store import MIGRATIONS, PostgresStore
from lore.server.store import LogEntry, StoreError
from tests.server.postgres import Server, free_port, postgres_server, postgres_url
from tests.server.test_store import FILES, record, seats

__all__ = ["postgres_server", "postgres_url"]  # (fixtures this file uses)


def chat(index: int) -> LogEntry:
    return LogEntry(index, "chat", {"n": index, "text": "こんにちは"})


def test_everything_is_kept_across_a_reopen(postgres_url: str) -> None:
    async def write() -> None:
        store = await PostgresStore.open(postgres_url)
        await store.create(record(), FILES, seats("s1"))
        await asyncio.gather(*(store.append("s1", chat(i)) for i in range(1, 451)))
        await store.close()

    async def read() -> list[Any]:
        store = await PostgresStore.open(postgres_url)
        found = [e.data["n"] for e in await store.log("s1")]
        assert [s.seat for s in await store.seats("s1")] == ["GM", "p@x"]
        assert await store.files(record().digest) == FILES
        await store.close()
        return found

    asyncio.run(write())
    assert asyncio.run(read()) == list(range(1, 451))


def test_appends_that_wait_for_an_insert_go_in_together_each_refused_alone(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches: list[int] = []
    insert = PostgresStore._insert

    async def counted(self: PostgresStore, batch: list[Any]) -> None:
        batches.append(len(batch))
        await insert(self, batch)

    monkeypatch.setattr(PostgresStore, "_insert", counted)

    async def scenario() -> tuple[list[object], list[int]]:
        store = await PostgresStore.open(postgres_url)
        await store.create(record(), FILES, seats("s1"))
        await store.append("s1", chat(1))
        batches.clear()
        indices = [*range(2, 300), 1, 300]  # one taken already
        outcomes = await asyncio.gather(
            *(store.append("s1", chat(i)) for i in indices), return_exceptions=True
        )
        found = [e.index for e in await store.log("s1")]
        await store.close()
        return outcomes, found

    outcomes, found = asyncio.run(scenario())
    assert [type(o).__name__ for o in outcomes if o is not None] == ["StoreError"]
    assert isinstance(outcomes[-2], StoreError) and "entry 1 of s1 is taken" in str(outcomes[-2])
    assert found == list(range(1, 301))
    assert batches == [300]  # appended in one turn of the loop: one statement, one commit


def test_two_writers_of_one_entry_have_one_winner(postgres_url: str) -> None:
    """Two servers that both think they own a session: the log's key lets one entry of
    each index in, and the other server's append fails (it then lets the session go)."""

    async def scenario() -> list[object]:
        first = await PostgresStore.open(postgres_url)
        second = await PostgresStore.open(postgres_url)
        await first.create(record(), FILES, seats("s1"))
        outcomes = []
        for index in range(1, 51):
            outcomes += await asyncio.gather(
                first.append("s1", LogEntry(index, "answer", {"by": "first"})),
                second.append("s1", LogEntry(index, "answer", {"by": "second"})),
                return_exceptions=True,
            )
        assert [e.index for e in await first.log("s1")] == list(range(1, 51))
        await first.close()
        await second.close()
        return outcomes

    outcomes = asyncio.run(scenario())
    pairs = [outcomes[i : i + 2] for i in range(0, len(outcomes), 2)]
    assert all(sum(o is None for o in pair) == 1 for pair in pairs)


def test_a_new_database_gets_the_layout_and_a_reopen_keeps_it(postgres_url: str) -> None:
    async def scenario() -> None:
        store = await PostgresStore.open(postgres_url)
        cursor = await store.main.execute("SELECT version FROM lore_schema")
        assert await cursor.fetchall() == [(len(MIGRATIONS),)]
        await store.create(record(), FILES, seats("s1"))
        await store.close()
        again = await PostgresStore.open(postgres_url)
        assert [r.id for r in await again.sessions()] == ["s1"]
        await again.close()

    asyncio.run(scenario())


def test_a_later_step_of_the_layout_is_made_once_however_many_servers_open_it(
    postgres_url: str,
) -> None:
    later = (*MIGRATIONS, "ALTER TABLE sessions ADD COLUMN note TEXT NOT NULL DEFAULT ''")

    async def scenario() -> list[Any]:
        old = await PostgresStore.open(postgres_url)
        await old.create(record(), FILES, seats("s1"))
        await old.close()
        opened = await asyncio.gather(*(PostgresStore.open(postgres_url, later) for _ in range(3)))
        cursor = await opened[0].main.execute("SELECT id, note FROM sessions")
        rows = await cursor.fetchall()
        cursor = await opened[0].main.execute("SELECT version FROM lore_schema")
        rows += await cursor.fetchall()
        for store in opened:
            await store.close()
        return rows

    assert asyncio.run(scenario()) == [("s1", ""), (len(MIGRATIONS) + 1,)]


def test_a_database_of_a_newer_lore_is_refused(postgres_url: str) -> None:
    async def scenario() -> None:
        store = await PostgresStore.open(postgres_url)
        await store.main.execute("UPDATE lore_schema SET version = version + 5")
        await store.close()
        with pytest.raises(StoreError, match=r"its layout \(\d+\) is of a newer Lore"):
            await PostgresStore.open(postgres_url)

    asyncio.run(scenario())


def test_a_server_that_cannot_be_reached_is_said_without_the_password() -> None:
    url = f"postgresql://lore:secret@127.0.0.1:{free_port()}/lore"

    async def scenario() -> None:
        with pytest.raises(StoreError) as caught:
            await PostgresStore.open(url)
        assert caught.value.args[0].startswith("cannot open postgresql://lore@127.0.0.1:")
        assert "secret" not in str(caught.value)

    asyncio.run(scenario())


def test_a_connection_the_server_ends_fails_what_it_carried_and_the_store_goes_on(
    postgres_server: Server, postgres_url: str
) -> None:
    async def scenario() -> tuple[object, list[int]]:
        store = await PostgresStore.open(postgres_url)
        await store.create(record(), FILES, seats("s1"))
        await store.append("s1", chat(1))
        pid = store.writer.info.backend_pid
        await store.main.execute("SELECT pg_terminate_backend(%s)", (pid,))
        failed: object = None
        try:
            await store.append("s1", chat(2))
        except StoreError as error:
            failed = error
        if failed is None:  # (the server's end may reach the client only after this insert)
            await store.append("s1", chat(3))
        else:
            await store.append("s1", chat(2))
            await store.append("s1", chat(3))
        found = [e.index for e in await store.log("s1")]
        await store.close()
        return failed, found

    failed, found = asyncio.run(scenario())
    assert found == [1, 2, 3]
    assert failed is None or re.search("could not be written", str(failed))


def test_the_store_is_the_protocols(postgres_url: str) -> None:
    """Every method of the Store protocol is there (a type check cannot see the
    protocol's use through ``open_store``)."""
    from lore.server.store import Store

    members = {name for name in dir(Store) if not name.startswith("_")}
    assert members <= set(dir(PostgresStore))
    assert postgres_store.is_postgres_url(postgres_url)


def test_one_server_holds_a_database_until_its_connection_ends(postgres_url: str) -> None:
    from lore.server.databases import database, hold_postgres
    from lore.server.workers import StoreLocked

    db = database(postgres_url)

    async def scenario() -> None:
        first = await hold_postgres(db, 0.5)
        with pytest.raises(StoreLocked, match=r"postgresql://lore@.* is used by another lore"):
            await hold_postgres(db, 0.5)
        await first.release()  # (as when its server is killed: the connection ends)
        second = await hold_postgres(db, 0.5)
        await second.release()

    asyncio.run(scenario())


def test_lore_sessions_lists_a_postgresql_databases_sessions(
    postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.cli.main import main

    async def make() -> None:
        store = await PostgresStore.open(postgres_url)
        await store.create(record(), FILES, seats("s1"))
        await store.close()

    asyncio.run(make())
    assert main(["sessions", "--db", postgres_url, "--url", "http://example.org"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("s1  A session  (open, started ")
    assert "http://example.org/play#t-s1" in out or "#t-s1" in out


def test_without_postgresql_its_tests_skip_or_fail_when_it_is_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.server import postgres

    monkeypatch.setattr(postgres, "binaries", lambda: None)
    monkeypatch.delenv("LORE_POSTGRES", raising=False)
    skipped = pytest.raises(pytest.skip.Exception, match="needs PostgreSQL's server binaries")
    with skipped, postgres.throwaway():
        pass
    monkeypatch.setenv("LORE_POSTGRES", "required")
    failed = pytest.raises(pytest.fail.Exception, match="PostgreSQL is required here")
    with failed, postgres.throwaway():
        pass
