"""PostgreSQL store benchmark: appends per second and CPU per append of the store's group
commit, beside a bare batched ``INSERT`` loop on the same server.

Run from the project root (it starts a throwaway PostgreSQL server of its own, as the
tests do: Debian's binaries, a temporary folder, a free loopback port, fsync on)::

    .venv/bin/python benchmarks/postgres.py [--sessions 200] [--appends 20000] [--json]

The workload: N sessions (default 200) each append answer entries (about 120 bytes of
JSON, as the round table's) one after another, each waiting for its acknowledgement
before the next, all sessions at once: what a server's hub asks of its store while N
tables play. The store batches what arrives during an insert into the next one.

The baseline, in the same run, on the same server and an identical table: a loop of
plain multi-row ``INSERT`` statements of the same batch size as the store's average,
one after another, each its own commit (the least a group commit can cost). Figures:
appends per second (wall time: the server's disk flushes bound it), the client
process's CPU time per append, the store's mean batch, each with the ratio.
It exits 0 (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lore.server.postgres_store import PostgresStore  # noqa: E402
from lore.server.store import LogEntry, SeatRecord, SessionRecord  # noqa: E402

ENTRY = {
    "id": "12/0/1",
    "values": {"action": "attack", "target": "scenario.ghoul_a"},
    "from": "aki@example.org",
    "seq": 41,
}


@dataclass
class Figures:
    sessions: int
    appends: int
    store_per_s: float
    store_cpu_us: float  # the client process's CPU per append
    mean_batch: float
    bare_per_s: float
    bare_cpu_us: float
    ratio: float  # store_per_s / bare_per_s


async def store_run(url: str, sessions: int, appends: int) -> tuple[float, float, float]:
    store = await PostgresStore.open(url)
    for n in range(sessions):
        await store.create(
            SessionRecord(f"s{n}", "bench", "d", "e", n, 1.0),
            {},
            [SeatRecord(f"s{n}", "GM", "GM", f"t{n}")],
        )
    batches: list[int] = []
    insert = store._insert

    async def counted(batch: list[object]) -> None:
        batches.append(len(batch))
        await insert(batch)  # type: ignore[arg-type]

    store._insert = counted  # type: ignore[method-assign]
    each = appends // sessions

    async def table(n: int) -> None:
        for index in range(1, each + 1):
            await store.append(f"s{n}", LogEntry(index, "answer", ENTRY))

    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(table(n) for n in range(sessions)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await store.close()
    done = each * sessions
    return done / wall, cpu / done * 1e6, sum(batches) / len(batches)


async def bare_run(url: str, appends: int, batch: int) -> tuple[float, float]:
    connection = await psycopg.AsyncConnection.connect(url, autocommit=True)
    await connection.execute(
        "CREATE TABLE bare (session TEXT NOT NULL, idx INTEGER NOT NULL, kind TEXT NOT NULL,"
        " data TEXT NOT NULL, PRIMARY KEY (session, idx))"
    )
    data = json.dumps(ENTRY)
    wall, cpu = time.perf_counter(), time.process_time()
    done = 0
    while done < appends:
        rows = range(done, min(done + batch, appends))
        await connection.execute(
            "INSERT INTO bare SELECT * FROM unnest(%s::text[], %s::int[], %s::text[], %s::text[])",
            (["s"] * len(rows), list(rows), ["answer"] * len(rows), [data] * len(rows)),
        )
        done += len(rows)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await connection.close()
    return appends / wall, cpu / appends * 1e6


def measure(url: str, sessions: int, appends: int) -> Figures:
    per_s, cpu_us, mean = asyncio.run(store_run(url, sessions, appends))
    bare_per_s, bare_cpu = asyncio.run(bare_run(url, appends, max(1, round(mean))))
    return Figures(
        sessions,
        appends,
        round(per_s),
        round(cpu_us, 1),
        round(mean, 1),
        round(bare_per_s),
        round(bare_cpu, 1),
        round(per_s / bare_per_s, 2),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--appends", type=int, default=20_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from tests.server.postgres import throwaway

    with throwaway() as server:
        figures = measure(server.url, args.sessions, args.appends)
    if args.json:
        print(json.dumps(asdict(figures)))
        return 0
    print(
        f"PostgreSQL store, {figures.sessions} sessions, {figures.appends} appends:"
        f" {figures.store_per_s}/s, {figures.store_cpu_us} us CPU each, batches of"
        f" {figures.mean_batch} on average"
    )
    print(
        f"bare batched INSERT loop (batches of {round(figures.mean_batch)}):"
        f" {figures.bare_per_s}/s, {figures.bare_cpu_us} us CPU each"
    )
    print(f"store / bare appends per second: {figures.ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
