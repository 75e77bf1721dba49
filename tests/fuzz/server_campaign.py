"""The server campaign: ``scripts/fuzz --server --minutes 60`` (run from the repository).

It starts a real server on a loopback port (``server_harness.Target``, with a canary
session pinging beside) and sends it probes (``server_cases``) one after another until
the time or the count is up: hostile WebSocket messages from the GM, a player and a
client that said no hello, raw frames, HTTP requests and zip uploads. After each probe it
judges what came of it: a traceback in the server's log, a 500, a canary that waited too
long, memory past its bound, a server that died. Each new failure is printed and saved
under ``--out`` with the probe (``probe.json``: ``scripts/fuzz --server --replay
PATH`` sends it again to a fresh server) and what the log said; the exit status is 1 when
there was one. The server starts afresh every few thousand probes and after a failure of
its memory or its life; the session attacked is made anew every 50 probes (a probe may
have ended it or revoked its links).
"""

from __future__ import annotations

import hashlib
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz.server_cases import Probe, ProbeMaker
from tests.fuzz.server_harness import Bounds, Failure, Reply, Target

KEEP = 20  # cases kept of one signature that a signature does not tell apart
RENEW_EVERY = 50  # probes on one session attacked
RESTART_EVERY = 3000  # probes on one server


@dataclass
class ServerTally:
    """What a server campaign sent and found."""

    probes: Counter[str] = field(default_factory=Counter)  # by kind
    replies: Counter[str] = field(default_factory=Counter)  # by kind and how it ended
    failures: dict[str, tuple[Probe, Failure]] = field(default_factory=dict)
    signatures: Counter[str] = field(default_factory=Counter)
    canary: list[float] = field(default_factory=list)  # every ping's wait, seconds
    report: Callable[[str], None] = print
    out: Path | None = None

    def record(self, probe: Probe, reply: Reply, failures: list[Failure]) -> None:
        self.probes[probe.kind] += 1
        self.replies[f"{probe.kind} {reply.how.split(' (')[0]}"] += 1
        for failure in failures:
            signature = f"{probe.kind}: {failure.kind}: {failure.signature}"
            self.signatures[signature] += 1
            key = signature
            if failure.kind in ("canary", "memory", "died"):  # (causes a signature hides)
                key += " " + hashlib.sha256(probe.to_json().encode()).hexdigest()[:12]
            if key in self.failures or self.signatures[signature] > KEEP:
                continue
            self.failures[key] = (probe, failure)
            where = f"\n  saved in {save(probe, failure, key, self.out)}" if self.out else ""
            self.report(f"FAILURE {signature}\n  probe: {probe.name[:300]}\n{tail(failure)}{where}")

    def summary(self) -> str:
        total = sum(self.probes.values())
        lines = [
            f"{total:,} probes: " + ", ".join(f"{n:,} {k}" for k, n in sorted(self.probes.items())),
            "replies: " + ", ".join(f"{n:,} {k}" for k, n in sorted(self.replies.items())),
        ]
        finite = [s for s in self.canary if s != float("inf")]
        if finite:
            ranked = sorted(finite)
            lines.append(
                f"canary: {len(self.canary):,} pings, median {statistics.median(ranked) * 1000:.0f}"
                f" ms, 99% under {ranked[int(len(ranked) * 0.99)] * 1000:.0f} ms,"
                f" worst {ranked[-1] * 1000:.0f} ms, {len(self.canary) - len(finite)} lost"
            )
        lines.append(f"distinct failures: {len(self.signatures)}, kept: {len(self.failures)}")
        lines += [f"  {s}: {n:,}" for s, n in sorted(self.signatures.items())]
        return "\n".join(lines)


def tail(failure: Failure) -> str:
    return "\n".join("  " + line for line in failure.detail.strip().splitlines()[-12:])


def save(probe: Probe, failure: Failure, key: str, folder: Path) -> Path:
    """Write a failing probe where it can be sent again, and what the server said."""
    target = folder / f"server-{failure.kind}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    target.mkdir(parents=True, exist_ok=True)
    (target / "probe.json").write_text(probe.to_json(), encoding="utf-8")
    (target / "README.txt").write_text(
        f"{probe.name}\n\nscripts/fuzz --server --replay {target / 'probe.json'}\n\n"
        f"{key}\n\n{failure.detail}\n",
        encoding="utf-8",
    )
    return target


def probe_once(target: Target, tally: ServerTally, probe: Probe) -> list[Failure]:
    reply = target.send(probe)
    failures = target.judge(reply)
    tally.record(probe, reply, failures)
    if "bad_token" in reply.codes or "ended" in reply.codes:
        target.renew_victim()
    if any(f.kind in ("memory", "died") for f in failures):
        target.restart()
    return failures


def campaign(
    minutes: float,
    seed: int,
    tally: ServerTally,
    bounds: Bounds | None = None,
    count: int | None = None,
) -> None:
    """Probes drawn from ``seed`` for ``minutes`` (or ``count`` of them, if fewer)."""
    maker = ProbeMaker(random.Random(seed))
    deadline = time.monotonic() + minutes * 60
    sent = 0
    with Target(bounds) as target:
        while time.monotonic() < deadline and (count is None or sent < count):
            probe_once(target, tally, maker.probe())
            sent += 1
            if sent % RESTART_EVERY == 0:
                collect(target, tally)
                target.restart()
            elif sent % RENEW_EVERY == 0:
                target.renew_victim()
            if sent % 500 == 0:
                tally.report(f"... {sent:,} probes, {sum(tally.signatures.values())} failures")
        collect(target, tally)


def collect(target: Target, tally: ServerTally) -> None:
    """The canary's waits so far, into the tally."""
    if target.canary is not None:
        tally.canary += [seconds for _, seconds in target.canary.pings]
        target.canary.pings.clear()


def replay(path: Path, bounds: Bounds | None = None) -> int:
    """Send a saved probe to a fresh server; print what came of it."""
    probe = Probe.from_json(path.read_text(encoding="utf-8"))
    with Target(bounds) as target:
        reply = target.send(probe)
        time.sleep(1)  # (what the server logs after answering)
        failures = target.judge(reply)
    print(f"{probe.name}\n{reply}")
    for failure in failures:
        print(f"FAILURE {failure.kind}: {failure.signature}\n{failure.detail}")
    return 1 if failures else 0


def run(minutes: float, seed: int, out: Path) -> int:
    """The campaign of ``scripts/fuzz --server``: its report, and 1 when it failed."""
    print(f"fuzzing the server for {minutes:g} minutes from seed {seed}", flush=True)
    tally = ServerTally(report=lambda text: print(text, flush=True), out=out)
    try:
        campaign(minutes, seed, tally)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    print(tally.summary(), flush=True)
    return 1 if tally.failures else 0
