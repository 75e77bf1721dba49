"""Restore benchmark: how long restoring a long session takes, from its latest snapshot
(and the answers after it) beside a full replay of every answer, in the same run.

Run from the project root::

    .venv/bin/python benchmarks/restore.py [--sizes 1000,10000,100000] [--every 1000]
        [--objects 200] [--json]

The played session is let go before the restores are timed (a server restoring a session
does not hold its history). The workload: a hero is asked a number every game second (the
answer comes later, as from a browser: the session waits, then goes on), rolls a die and
adds both to a tally
(an alter); the scenario also holds ``--objects`` other objects (default 200), which
every snapshot carries. For each size N the session is played to N answers, taking a
snapshot every ``--every`` answers (at 500, 1,500, 2,500 ... so that the latest one is
500 answers before the end), then restored twice: from the latest snapshot with the
answers after it, and by replaying all N answers from the start. Both must end in the
same state (the benchmark checks it).

It prints, per size: the restore time, the replay time (the baseline), the snapshot's
size and its bytes per live object; then the ratio of the restore time at the largest
size to that at the smallest against the target (at most 2: restoring is flat in the
length of the history) with PASS/FAIL. It exits 0, as it is a report; 1 if the scenario
does not check or a restore differs from the session.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

import msgspec

from lore.engine.participants import PENDING, Participants, Pending, Replaying, ReplayLog
from lore.engine.queries import Query
from lore.engine.randomness import Stream
from lore.engine.saves import Answer
from lore.engine.session import Session
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import check_text
from lore.syntax.diagnostics import has_errors

TARGET_FLAT = 2.0  # restore(largest) / restore(smallest)
SEED = 3
HERO = "hero@example.org"
SCENARIO = """\
import "basic.lore":url;
section bench {{
 form Thing {{
  name : string;
  weight : integer;
 }}
 form Tally {{
  total : integer;
  alter add(values : list<integer>) {{ self.total := total + values.sum; }}
 }}
 form Hero extends Actor {{
  rule turn {{
   a = self.query("いくつ？", {{ n = integer.input; }});
   tally.add(a.n + 1D6.roll);
   schedule.add({{
    ticks = schedule.current + 1[sec]; priority = 0; handler = @{{ self.turn; }};
   }}:Event);
  }}
 }}
 tally = {{ total = 0; }}:Tally;
 hero = {{ name = "Hero"; player = "{hero}":jid; location = "/[0]":loc; }}:Hero;
 things = {{ {things} }};
 first = {{ ticks = 0; priority = 0; handler = @{{ hero.turn; }}; }}:Event;
}}
"""


class Later:
    """The hero's player: answers come later (the benchmark gives them)."""

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | Pending | None:
        return PENDING

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return False

    def tell(self, record: dict[str, Any]) -> None:
        pass


def program(objects: int) -> CompiledProgram:
    things = ", ".join(
        f'{{ name = "thing {i}"; weight = {i % 17}; }}:Thing' for i in range(objects)
    )
    result = check_text(SCENARIO.format(hero=HERO, things=things), "bench.lore")
    if has_errors(result.diagnostics):
        for diagnostic in result.diagnostics:
            print(diagnostic.render(), file=sys.stderr)
        raise SystemExit(1)
    return compile_program(result)


def seats(live: Any) -> Participants:
    return Participants({"GM": Later(), HERO: live})


@dataclass
class Played:
    end: bytes  # the snapshot at the end (the played session itself is let go)
    snapshot: bytes
    at: int  # answers given before the snapshot
    answers: list[Answer]  # every answer given


def play(compiled: CompiledProgram, size: int, every: int) -> Played:
    """A session played to ``size`` answers, with its latest snapshot."""
    session = Session(compiled, SEED, seats(Later()))
    snapshot, at = session.snapshot(), 0
    given = 0
    while given < size:
        if session.run() != "waiting":
            raise SystemExit("the session ended before its answers")
        for query in session.open_questions():
            session.answer(query.id, {"n": given % 10})
            given += 1
            if given % every == every // 2:
                session.run()  # goes on to the next question, where a snapshot is taken
                snapshot, at = session.snapshot(), given
    session.run()
    return Played(session.snapshot(), snapshot, at, list(session.answers))


def replayed(
    compiled: CompiledProgram, session: Session | None, answers: list[Answer], data: bytes | None
) -> Session:
    """A session restored from ``data`` (or started anew) given ``answers`` again."""
    log = ReplayLog(answers, "the log")
    players = Participants({"GM": Later(), HERO: Replaying(log, HERO, Later())})
    if data is None:
        restored = Session(compiled, SEED, players)
    else:
        restored = Session.restore(compiled, data, participants=players)
        restored.reopen()  # its open question goes to the log
    while restored.run() == "waiting" and log.replaying:
        pass
    if log.replaying:
        raise SystemExit("a restore did not use every answer")
    return restored


def timed(fn: Any, repeat: int = 1) -> tuple[float, Any]:
    """The shortest time of ``repeat`` calls (after a collection), and the last value."""
    best, value = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - started)
    return best, value


@dataclass
class Figure:
    answers: int
    restore_ms: float
    replay_ms: float
    snapshot_bytes: int
    live_objects: int
    bytes_per_object: float
    tail: int  # answers given again after the snapshot


def measure(compiled: CompiledProgram, size: int, every: int) -> Figure:
    played = play(compiled, size, every)
    tail = played.answers[played.at :]
    restore_s, restored = timed(lambda: replayed(compiled, None, tail, played.snapshot), 5)
    replay_s, full = timed(lambda: replayed(compiled, None, played.answers, None))
    end = played.end
    if restored.snapshot() != end or full.snapshot() != end:
        print(f"{size} answers: a restored session differs from the session", file=sys.stderr)
        raise SystemExit(1)
    objects = len(msgspec.msgpack.decode(played.snapshot)["objects"])
    return Figure(
        size,
        restore_s * 1000,
        replay_s * 1000,
        len(played.snapshot),
        objects,
        len(played.snapshot) / objects,
        len(tail),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--objects", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    compiled = program(args.objects)
    figures = [measure(compiled, size, args.every) for size in sizes]
    flat = figures[-1].restore_ms / figures[0].restore_ms
    if args.json:
        print(json.dumps({"figures": [asdict(f) for f in figures], "flat": flat}, indent=2))
        return 0
    print(
        f"{'answers':>9} {'restore ms':>11} {'replay ms':>11} {'snapshot B':>11} "
        f"{'objects':>8} {'B/object':>9} {'tail':>5}"
    )
    for f in figures:
        print(
            f"{f.answers:>9} {f.restore_ms:>11.1f} {f.replay_ms:>11.1f} {f.snapshot_bytes:>11}"
            f" {f.live_objects:>8} {f.bytes_per_object:>9.1f} {f.tail:>5}"
        )
    verdict = "PASS" if flat <= TARGET_FLAT else "FAIL"
    print(
        f"restore at {figures[-1].answers} / at {figures[0].answers} answers: {flat:.2f}"
        f" (target <= {TARGET_FLAT}) {verdict}; replay at {figures[-1].answers}: "
        f"{figures[-1].replay_ms / figures[-1].restore_ms:.0f}x the restore"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
