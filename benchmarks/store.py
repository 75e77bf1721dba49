"""Store benchmark: the SQLite store's CPU per appended log row, beside a plain table.

Run from the project root::

    .venv/bin/python benchmarks/store.py [--sessions 200,500] [--rows R] [--batch B]
        [--snapshot-every K] [--records-every J] [--json]

The workload is what ``lore serve`` asks of its store under ``benchmarks/server.py``: N
sessions (default 200, then 500) append answer entries round-robin, B at a time (default
35: the rows one group commit holds at the server's pace, about 3,000 answers a second
and a sync of about 12 ms), each batch awaited before the next, as the hub's appends of
one turn of the event loop reach the store's thread as one operation. Every J entries
(default 100) a session stores the transcript records made since it last did (moving its
log rows up to there into a chunk), and every K entries (default 500) its snapshot with
them instead (a session's first ones sooner, by its number, as the rooms stagger them),
in the same commit as the batch they follow. The entries, snapshot and records are those
of the round-table example (one session of it played for J answers): an answer entry of
about 120 bytes of JSON, a snapshot of about 38 KB and 400 records.

The baseline, measured in the same run: the same rows, snapshots and records inserted
into plain append-only tables (rowid order, no other index) of another file, with the
same pragmas (WAL, ``synchronous=FULL``) and one commit per batch: the least any layout
can write.

Figures per appended log row (R rows, default N x K, so that each session stores one
snapshot among them; after a warm-up of N x K rows, so that every session has stored
one): microseconds of CPU time of the store's thread (the connection's, for the
baseline) and of the whole process, and kilobytes written (``wchar``: the write-ahead
log's frames and the checkpoints' copies); each beside the baseline's, with the ratio.
It exits 0 (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import msgspec

from lore.server.rooms import RECORDS_EVERY, SNAPSHOT_EVERY
from lore.server.sqlite_store import SQLiteStore
from lore.server.store import LogEntry, Records, SeatRecord, SessionRecord, Snapshot

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


@dataclass
class Figures:
    sessions: int
    rows: int
    batch: int
    store_us: float  # the store's thread, per row
    store_process_us: float  # the whole process, per row
    store_kb: float  # written, per row
    plain_us: float
    plain_process_us: float
    plain_kb: float
    ratio: float  # store_us / plain_us


@dataclass(frozen=True)
class Workload:
    entry: dict[str, Any]
    snapshot: bytes
    records: tuple[dict[str, Any], ...]


def round_table_workload(every: int) -> Workload:
    """An answer entry, a snapshot and its records, from one session of the round table
    played for ``every`` answers."""
    from answers import SEATS, endless_program  # the server benchmark's workload

    from lore.server.master import Master
    from lore.server.table import Table

    with tempfile.TemporaryDirectory() as folder:
        program = endless_program(Path(folder))
        table = Table(Master(program, 1), SEATS, "digest")
        table.start()
        data: dict[str, Any] = {}
        for _ in range(every):
            question = table.master.open_questions()[0]
            data = {"seat": question.to, "id": question.id, "values": {"move": "roll"}}
            table.apply(LogEntry(table.applied + 1, "answer", data))
        snapshot = table.snapshot_state()
        records = tuple(table.master.transcript.records)
        table.master.session.settle()
    return Workload(data, snapshot, records)


def first_snapshot(number: int, every: int) -> int:
    """The entry of a session's first snapshot: up to half ``every`` sooner."""
    return every - zlib.crc32(str(number).encode()) % (every // 2 + 1)


def schedule(sessions: int, rows: int, batch: int) -> list[list[tuple[int, int]]]:
    """The batches: each a list of (session, entry index); round-robin over sessions."""
    counts = [0] * sessions
    batches: list[list[tuple[int, int]]] = []
    turn = 0
    for start in range(0, rows, batch):
        made = []
        for _ in range(min(batch, rows - start)):
            counts[turn] += 1
            made.append((turn, counts[turn]))
            turn = (turn + 1) % sessions
        batches.append(made)
    return batches


def due(index: int, number: int, every: int, last: dict[int, int]) -> bool:
    """Whether a session's snapshot (or records) is due after its entry ``index``."""
    gap = every if last.get(number, 0) else first_snapshot(number, every)
    return index - last.get(number, 0) >= gap


@dataclass(frozen=True)
class Every:
    """Entries between a session's snapshots, and between its records."""

    snapshot: int
    records: int

    def what(
        self, index: int, number: int, snapped: dict[int, int], recorded: dict[int, int]
    ) -> str | None:
        """What a session stores after its entry ``index`` ("snapshot", "records" or
        None), noted in ``snapped`` and ``recorded``."""
        if due(index, number, self.snapshot, snapped):
            snapped[number] = recorded[number] = index
            return "snapshot"
        if due(index, number, self.records, recorded):
            recorded[number] = index
            return "records"
        return None


def thread_cpu(thread: threading.Thread) -> float:
    assert thread.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def written() -> int:
    """Bytes this process wrote so far (``/proc/self/io``'s ``wchar``)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    return 0


Batches = list[list[tuple[int, int]]]


async def store_run(
    folder: Path, sessions: int, batches: Batches, warm: int, load: Workload, every: Every
) -> tuple[float, float, float]:
    """Seconds of the store thread's and the process's CPU, and bytes written, for the
    batches after the first ``warm`` ones."""
    store = SQLiteStore(folder / "store.db")
    ids = [f"{number:032x}" for number in range(sessions)]
    for number, session in enumerate(ids):
        record = SessionRecord(session, f"table {number}", "digest", "scenario.lore", number, 0.0)
        seat = SeatRecord(session, "GM", "GM", f"token-{number}")
        await store.create(record, {"scenario.lore": b"scenario"}, [seat])
    snapped: dict[int, int] = {}
    recorded: dict[int, int] = {}
    first: dict[int, int] = {}  # the first transcript record a session's next records have
    for counting, part in ((False, batches[:warm]), (True, batches[warm:])):
        if counting:
            cpu, process, wrote = thread_cpu(store.thread), time.process_time(), written()
        for made in part:
            waits = []
            for number, index in made:
                entry = LogEntry(index, "answer", load.entry)
                waits.append(store.append(ids[number], entry))
            for number, index in made:
                what = every.what(index, number, snapped, recorded)
                if what is None:
                    continue
                at = first.get(number, 0)
                first[number] = at + len(load.records)
                if what == "snapshot":
                    snapshot = Snapshot(index, load.snapshot, at, load.records)
                    waits.append(store.put_snapshot(ids[number], snapshot))
                else:
                    put = Records(index, at, load.records)
                    waits.append(store.put_records(ids[number], put))
            await asyncio.gather(*waits)
    spent = (thread_cpu(store.thread) - cpu, time.process_time() - process, written() - wrote)
    await store.close()
    return spent


def plain_run(
    folder: Path, sessions: int, batches: Batches, warm: int, load: Workload, every: Every
) -> tuple[float, float, float]:
    """The baseline: the same rows, snapshots and records into plain append-only
    tables."""
    db = sqlite3.connect(folder / "plain.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE log (session TEXT, idx INTEGER, kind TEXT, data TEXT)")
    db.execute("CREATE TABLE snapshots (session TEXT, idx INTEGER, data BLOB, records TEXT)")
    db.execute("CREATE TABLE transcript (session TEXT, idx INTEGER, records TEXT)")
    ids = [f"{number:032x}" for number in range(sessions)]
    data = msgspec.json.encode(load.entry).decode()
    records = msgspec.json.encode(load.records).decode()
    snapped: dict[int, int] = {}
    recorded: dict[int, int] = {}
    current = threading.current_thread()
    for counting, part in ((False, batches[:warm]), (True, batches[warm:])):
        if counting:
            cpu, process, wrote = thread_cpu(current), time.process_time(), written()
        for made in part:
            rows = [(ids[number], index, "answer", data) for number, index in made]
            snaps = []
            kept = []
            for number, index in made:
                what = every.what(index, number, snapped, recorded)
                if what == "snapshot":
                    snaps.append((ids[number], index, load.snapshot, records))
                elif what == "records":
                    kept.append((ids[number], index, records))
            db.execute("BEGIN")
            values = ", ".join(["(?, ?, ?, ?)"] * len(rows))
            db.execute(f"INSERT INTO log VALUES {values}", [f for row in rows for f in row])
            if snaps:
                db.executemany("INSERT INTO snapshots VALUES (?, ?, ?, ?)", snaps)
            if kept:
                db.executemany("INSERT INTO transcript VALUES (?, ?, ?)", kept)
            db.execute("COMMIT")
    spent = (thread_cpu(current) - cpu, time.process_time() - process, written() - wrote)
    db.close()
    return spent


def measure(load: Workload, sessions: int, rows: int, batch: int, every: Every) -> Figures:
    warm = sessions * every.snapshot // batch  # every session has stored a snapshot
    batches = schedule(sessions, warm * batch + rows, batch)
    counted = sum(len(made) for made in batches[warm:])
    with tempfile.TemporaryDirectory(dir=ROOT) as name:
        folder = Path(name)
        store = asyncio.run(store_run(folder, sessions, batches, warm, load, every))
        plain = plain_run(folder, sessions, batches, warm, load, every)
    per = 1e6 / counted
    return Figures(
        sessions,
        counted,
        batch,
        store[0] * per,
        store[1] * per,
        store[2] / counted / 1024,
        plain[0] * per,
        plain[1] * per,
        plain[2] / counted / 1024,
        store[0] / plain[0],
    )


def report(figures: Figures) -> str:
    return (
        f"{figures.sessions} sessions, {figures.rows} rows in batches of {figures.batch}:"
        f" store thread {figures.store_us:.1f} us/row (process {figures.store_process_us:.1f},"
        f" {figures.store_kb:.2f} KB written) vs plain append-only table"
        f" {figures.plain_us:.1f} us/row (process {figures.plain_process_us:.1f},"
        f" {figures.plain_kb:.2f} KB): {figures.ratio:.2f}x"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", default="200,500")
    parser.add_argument("--rows", type=int, default=0, help="default: sessions x K")
    parser.add_argument("--batch", type=int, default=35)
    parser.add_argument("--snapshot-every", type=int, default=SNAPSHOT_EVERY)
    parser.add_argument("--records-every", type=int, default=RECORDS_EVERY)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    every = Every(args.snapshot_every, min(args.records_every, args.snapshot_every))
    load = round_table_workload(every.records)
    found = []
    for sessions in (int(n) for n in args.sessions.split(",")):
        rows = args.rows or sessions * every.snapshot
        figures = measure(load, sessions, rows, args.batch, every)
        found.append(figures)
        if not args.json:
            print(report(figures), flush=True)
    if args.json:
        print(json.dumps([asdict(f) for f in found], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
