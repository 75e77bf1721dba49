"""The fuzzing campaign: ``scripts/fuzz --minutes 60`` (run from the repository).

It alternates batches of mutated seeds (``mutate.py``) and of generated programs
(``programs.py``) until the time is up, each case in a child process with a memory cap
and a time limit (``harness.py``). Each new failure (a traceback not seen yet, and each
case over its time or memory, killed by a signal or ending with an unknown exit status)
is printed, saved with its files under ``--out`` so that it can be run again, and, with
``--reduce``, cut down to the lines that still make it fail. At the end it prints what it
ran and found; the exit status is 1 when it found a failure.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from lore.cli.main import main
from tests.fuzz.harness import (
    Case,
    Limits,
    Outcome,
    describe,
    known,
    run_case,
    save_failure,
)
from tests.fuzz.mutate import Mutator
from tests.fuzz.programs import Program, programs
from tests.fuzz.seeds import EXAMPLES, seeds

# What a case may take: the front end is quick; a session may legitimately run long
# (a million events at most), so its limit is wider.
LIMITS = {
    "check": Limits(cpu=20, wall=60),
    "fmt": Limits(cpu=20, wall=60),
    "run": Limits(cpu=60, wall=180),
    "sim": Limits(cpu=60, wall=180),
}

# How many cases of one signature a campaign keeps (a time-out's signature is only its
# command and kind, so its cases are kept one by one, up to this many).
KEEP = 20


@dataclass
class Tally:
    """What a campaign ran and found."""

    cases: Counter[str] = field(default_factory=Counter)  # by command
    outcomes: Counter[str] = field(default_factory=Counter)  # by kind
    # by key: one case per traceback's signature; each case of a time-out, memory or
    # signal failure (up to KEEP of a signature), whose cause a signature does not tell
    failures: dict[str, tuple[Case, Outcome]] = field(default_factory=dict)
    signatures: Counter[str] = field(default_factory=Counter)  # failing cases by signature
    report: Callable[[str], None] = print
    out: Path | None = None

    def run(self, case: Case) -> Outcome:
        command = case.argv[0]
        outcome = run_case(case, LIMITS.get(command, Limits()))
        self.cases[command] += 1
        self.record(case, outcome)
        return outcome

    def record(self, case: Case, outcome: Outcome) -> None:
        """Count an outcome; keep, save and report a failure not kept yet."""
        self.outcomes[outcome.kind] += 1
        if outcome.failed:
            signature = outcome.signature(case)
            key = outcome.key(case)
            self.signatures[signature] += 1
            if key not in self.failures and self.signatures[signature] <= KEEP:
                self.failures[key] = (case, outcome)
                where = f"\n  saved in {save_failure(case, outcome, self.out)}" if self.out else ""
                self.report(f"FAILURE {describe(case, outcome)}{where}")

    def new_failures(self) -> list[str]:
        """The keys of the failures that are not known (see ``harness.KNOWN``)."""
        return sorted(k for k, (c, o) in self.failures.items() if known(o.signature(c)) is None)

    def summary(self) -> str:
        total = sum(self.cases.values())
        lines = [
            f"{total:,} cases: " + ", ".join(f"{n:,} {c}" for c, n in sorted(self.cases.items())),
            "outcomes: " + ", ".join(f"{n:,} {k}" for k, n in sorted(self.outcomes.items())),
            f"distinct failures: {len(self.signatures)}, kept cases: {len(self.failures)}",
        ]
        for signature, count in sorted(self.signatures.items()):
            why = known(signature)
            lines.append(
                f"  {signature}: {count:,} case{'s' if count > 1 else ''}"
                + (f" (known: {why})" if why else "")
            )
        return "\n".join(lines)


def warm_up() -> None:
    """Import and build what every case needs once, before forking (parsers, schemas)."""
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        for path in sorted(EXAMPLES.rglob("scenario.lore")):
            main(["check", str(path)])
    seeds()


def mutation_batch(tally: Tally, mutator: Mutator, count: int) -> None:
    for _ in range(count):
        tally.run(mutator.case())


def program_cases(program: Program, rng: random.Random) -> list[Case]:
    files = {"program.lore": program.text.encode(), "answers.json": program.answers.encode()}
    # A step may spend all its limits (a recursion 10,000 calls deep, each requesting an
    # alter, takes some 50 ms), so a case's CPU budget holds a few hundred steps of it:
    # more steps would only find the budget, not a fault. (A sim of two runs: half each.)
    steps = rng.choice((100, 400))
    return [
        Case("generated program", files, ("check", "program.lore")),
        Case(
            "generated program",
            files,
            ("run", "program.lore", "--answers", "answers.json", "--max-steps", str(steps)),
        ),
        Case(
            "generated program",
            files,
            ("sim", "program.lore", "--runs", "2", "--max-steps", str(steps // 2), "--seed", "3"),
        ),
    ]


def program_batch(tally: Tally, round_seed: int, count: int) -> None:
    """``count`` programs drawn by hypothesis (no shrinking: a failure is kept as drawn;
    ``--reduce`` cuts it down)."""
    rng = random.Random(round_seed)

    @hypothesis_seed(round_seed)
    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(programs())
    def batch(program: Program) -> None:
        for case in program_cases(program, rng):
            tally.run(case)

    batch()


def campaign(minutes: float, start_seed: int, tally: Tally) -> None:
    warm_up()
    deadline = time.monotonic() + minutes * 60
    mutator = Mutator(random.Random(start_seed), seeds())
    round_seed = start_seed
    while time.monotonic() < deadline:
        mutation_batch(tally, mutator, 20)
        if time.monotonic() >= deadline:
            break
        round_seed += 1
        program_batch(tally, round_seed, 5)
        failing = sum(tally.signatures.values())
        tally.report(f"... {sum(tally.cases.values()):,} cases, {failing} failures")


def reduce(case: Case, outcome: Outcome, seconds: float = 120) -> Case:
    """``case`` with as many lines of its largest file left out as can be while it still
    fails the same way (halves, then quarters ..., then single lines)."""
    signature = outcome.signature(case)
    name = max(case.files, key=lambda n: len(case.files[n]))
    lines = case.files[name].split(b"\n")
    deadline = time.monotonic() + seconds
    chunk = max(len(lines) // 2, 1)
    while chunk >= 1 and time.monotonic() < deadline:
        start = 0
        while start < len(lines) and time.monotonic() < deadline:
            trial = lines[:start] + lines[start + chunk :]
            files = {**case.files, name: b"\n".join(trial)}
            candidate = Case(case.name + " (reduced)", files, case.argv, case.stdin)
            found = run_case(candidate, LIMITS.get(case.argv[0], Limits()))
            if found.failed and found.signature(candidate) == signature:
                lines = trial
            else:
                start += chunk
        chunk //= 2
    return Case(case.name + " (reduced)", {**case.files, name: b"\n".join(lines)}, case.argv)


def main_campaign(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/fuzz", description=__doc__)
    parser.add_argument("--minutes", type=float, default=60.0, help="how long (default 60)")
    parser.add_argument("--seed", type=int, default=None, help="the first random seed")
    parser.add_argument(
        "--out", type=Path, default=Path("fuzz-failures"), help="where failures are saved"
    )
    parser.add_argument("--reduce", action="store_true", help="cut failing cases down")
    parser.add_argument(
        "--server", action="store_true", help="fuzz a server instead (server_campaign.py)"
    )
    parser.add_argument(
        "--replay", type=Path, help="with --server: send a saved probe.json to a fresh server"
    )
    args = parser.parse_args(argv)
    start_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    if args.server:
        from tests.fuzz import server_campaign

        if args.replay is not None:
            return server_campaign.replay(args.replay)
        return server_campaign.run(args.minutes, start_seed, args.out)
    print(f"fuzzing for {args.minutes:g} minutes from seed {start_seed}", flush=True)
    tally = Tally(report=lambda text: print(text, flush=True), out=args.out)
    try:
        campaign(args.minutes, start_seed, tally)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    if args.reduce:
        for key, (case, outcome) in sorted(tally.failures.items()):
            saved = save_failure(reduce(case, outcome), outcome, args.out / "reduced")
            print(f"reduced {key}: saved in {saved}")
    print(tally.summary(), flush=True)
    return 1 if tally.new_failures() else 0


if __name__ == "__main__":
    sys.exit(main_campaign())
