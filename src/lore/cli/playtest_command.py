"""``lore test [PATH...] [--bless]``: play recorded answers files again and compare each
transcript with the one blessed for it.

Each PATH is an answers file or a folder searched for them (``NAME.answers.json`` or
``answers.json``, with ``NAME.transcript.jsonl`` or ``transcript.jsonl`` beside it; by
default the current folder). Every test gets a line: ``ok``, ``FAILED`` (the transcript
differs: its first difference is shown as a unified diff), ``new`` (no blessed transcript
yet) or ``ERROR`` (it cannot be played: the places that say why). ``--bless`` writes the
transcript played as the blessed one of every test that failed or was new.

Exit codes: 0 every test ok (or blessed), 1 a test failed, was new or could not be played,
2 usage error (a path that does not exist, a file that is no answers file).
"""

from __future__ import annotations

import argparse
import difflib
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from lore.cli.atomic import write_atomically
from lore.cli.io import usage_error
from lore.cli.playtest import PlayTest, find_tests, is_answers_file, play, read_blessed
from lore.cli.playtest_texts import TEXTS
from lore.syntax.files import describe

CONTEXT = 3  # lines of context around the first difference
OK, FAILED, NEW, BLESSED, BROKEN = "ok", "failed", "new", "blessed", "broken"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Play answers files again and compare each transcript with the blessed one beside it."
    )
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        default=[Path(".")],
        metavar="PATH",
        help="answers files, or folders searched for them (default: the current folder)",
    )
    parser.add_argument(
        "--bless",
        action="store_true",
        help="write the transcripts played as the blessed ones of the tests that differ or are new",
    )


@dataclass(frozen=True, slots=True)
class Outcome:
    status: str  # ok, failed, new, blessed, broken
    lines: tuple[str, ...] = ()  # what to say under the test's line


def run(args: argparse.Namespace) -> int:
    tests = collected(args.paths)
    if tests is None:
        return 2
    counts: dict[str, int] = {}
    for test in tests:
        outcome = judged(test, args.bless)
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
        status = TEXTS.text(f"status_{outcome.status}")
        print(f"{status}{' ' * (8 - width(status))}{test.answers}")
        for line in outcome.lines:
            print(f"  {line}" if line else "")
        sys.stdout.flush()
    order = (OK, BLESSED, FAILED, NEW, BROKEN)
    parts = [TEXTS.text(f"count_{s}", count=counts[s]) for s in order if counts.get(s)]
    print(TEXTS.text("separator").join(parts))
    return 0 if set(counts) <= {OK, BLESSED} else 1


def width(text: str) -> int:
    """Columns ``text`` takes in a terminal (wide characters two: 失敗)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def collected(paths: list[Path]) -> list[PlayTest] | None:
    """The tests the paths name, each once (None after a usage error, said)."""
    found: list[PlayTest] = []
    for path in paths:
        if path.is_dir():
            under = find_tests(path)
            if not under:
                usage_error(TEXTS.text("no_tests", path=path))
                return None
            found += under
        elif path.is_file():
            if not is_answers_file(path.name) and path.suffix != ".json":
                usage_error(TEXTS.text("not_answers", path=path))
                return None
            found.append(PlayTest(path))
        else:
            usage_error(TEXTS.text("no_such_path", path=path))
            return None
    unique: dict[Path, PlayTest] = {}
    for test in found:
        unique.setdefault(test.answers.resolve(), test)
    return list(unique.values())


def judged(test: PlayTest, bless: bool) -> Outcome:
    played = play(test)
    notes = tuple(f"{TEXTS.text('warning')}: {note}" for note in played.notes)
    if played.text is None:
        again = (TEXTS.text("replay", command=played.replay),) if played.replay else ()
        return Outcome(BROKEN, (*played.problem, *notes, *again))
    try:
        blessed = read_blessed(test)
    except ValueError as error:
        return Outcome(BROKEN, (TEXTS.text("read_failed", path=test.transcript, problem=error),))
    if blessed == played.text:
        return Outcome(OK, notes)
    if bless:
        try:
            write_atomically(test.transcript, played.text)
        except OSError as error:
            problem = TEXTS.text("write_failed", path=test.transcript, problem=describe(error))
            return Outcome(BROKEN, (problem,))
        return Outcome(BLESSED, (TEXTS.text("wrote", transcript=test.transcript), *notes))
    if blessed is None:
        return Outcome(NEW, (TEXTS.text("new_hint", transcript=test.transcript), *notes))
    replay = TEXTS.text("replay", command=played.replay)
    return Outcome(FAILED, (*difference(test, blessed, played.text), *notes, replay))


def difference(test: PlayTest, blessed: str, played: str) -> list[str]:
    """The first place the two transcripts differ, as a unified diff of its lines, and
    how many other places differ."""
    old, new = blessed.splitlines(), played.splitlines()
    groups = list(
        difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(CONTEXT)
    )
    first = groups[0]
    changed = next(op for op in first if op[0] != "equal")
    lines = [TEXTS.text("differs", transcript=test.transcript, line=changed[1] + 1)]
    lines.append(f"--- {TEXTS.text('blessed_label', transcript=test.transcript)}")
    lines.append(f"+++ {TEXTS.text('played_label', transcript=test.transcript)}")
    start_old, end_old = first[0][1], first[-1][2]
    start_new, end_new = first[0][3], first[-1][4]
    lines.append(
        f"@@ -{start_old + 1},{end_old - start_old} +{start_new + 1},{end_new - start_new} @@"
    )
    for tag, i1, i2, j1, j2 in first:
        if tag == "equal":
            lines += [f" {line}" for line in old[i1:i2]]
            continue
        lines += [f"-{line}" for line in old[i1:i2]]
        lines += [f"+{line}" for line in new[j1:j2]]
    if len(groups) > 1:
        lines.append(TEXTS.text("more_differences", count=len(groups) - 1))
    return lines
