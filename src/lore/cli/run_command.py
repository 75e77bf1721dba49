"""``lore run FILE [--seed N] [--answers A.json] [--transcript T.jsonl] [--save S.lore]``.

Runs a session in the terminal. Without ``--answers`` the GM and every player answer at
the terminal; with it, each participant answers from its list, and the run stops
(reason ``no-answer``) when one has none left. ``FILE`` may be a save written by
``--save``: the session goes on from where it was.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from lore.cli.io import print_diagnostics, read_failure, unreadable, usage_error
from lore.cli.terminal import Terminal
from lore.engine.participants import (
    Participant,
    Participants,
    Replaying,
    ReplayLog,
    Scripted,
)
from lore.engine.saves import SaveError, Stored, read_stored, save_text
from lore.engine.session import Limits, Session
from lore.engine.transcript import Record, Transcript, dumps
from lore.runtime.compiler import compile_program
from lore.runtime.errors import RuleError
from lore.semantics.check import check_paths, ordered_diagnostics
from lore.syntax.diagnostics import has_errors
from lore.syntax.files import read_bytes
from lore.world.static import check_world

_TAG = re.compile(r"<[^>]*>")
# Steps a run takes at most unless told otherwise: a rule that reschedules itself for
# ever (each game second, say) stops instead of running until the memory is full.
DEFAULT_MAX_STEPS = 1_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument("--seed", type=int, default=None, help="the random seed (default 0)")
    parser.add_argument(
        "--answers",
        type=Path,
        metavar="ANSWERS.json",
        help="answers of each participant, by id, in order",
    )
    parser.add_argument(
        "--transcript", type=Path, metavar="OUT.jsonl", help="write every happening as a JSON line"
    )
    parser.add_argument(
        "--save",
        type=Path,
        metavar="OUT.lore",
        help="save the session at the end (or when interrupted)",
    )
    parser.add_argument(
        "--max-steps",
        type=int,
        default=DEFAULT_MAX_STEPS,
        metavar="K",
        help=f"stop after K steps (default {DEFAULT_MAX_STEPS:,}; 0 for no limit)",
    )
    parser.add_argument(
        "--max-ticks",
        type=int,
        default=None,
        metavar="T",
        help="stop once the game time would pass T ticks (default: no limit)",
    )


def load_answers(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Read ANSWERS.json; raises ValueError with a message that names the place."""
    problem = unreadable(path)
    if problem is not None:
        raise ValueError(problem)
    try:
        data = json.loads(read_bytes(path).decode("utf-8"))
    except OSError as error:
        raise ValueError(read_failure(path, error)) from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}:{error.lineno}:{error.colno}: {error.msg}") from None
    if not isinstance(data, dict):
        raise ValueError(f'{path}: expected an object like {{"GM": [{{...}}, ...]}}')
    for who, answers in data.items():
        if not isinstance(answers, list) or not all(isinstance(a, dict) for a in answers):
            raise ValueError(
                f"{path}: the answers of '{who}' must be a list of objects "
                '(input name to value), like [{"action": "move"}]'
            )
    return data


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    problem = unreadable(path) or bad_limits(args)
    if problem is not None:
        usage_error(problem)
        return 2
    try:
        scripted = load_answers(args.answers) if args.answers is not None else None
    except ValueError as error:
        usage_error(str(error))
        return 2
    try:
        result = check_paths([path])
    except OSError as error:
        usage_error(read_failure(path, error))
        return 2
    diagnostics = ordered_diagnostics(result.program, result.diagnostics + check_world(result))
    if has_errors(diagnostics):
        print_diagnostics(diagnostics)
        return 1
    try:
        stored = read_stored(result.program.modules) or Stored()
    except SaveError as error:
        usage_error(f"{path}: not a valid save: {error}")
        return 1
    problem = unwritable(args.save) if args.save is not None else None
    if problem is not None:
        usage_error(f"cannot save there: {problem}")
        return 2
    if args.seed is not None and stored.answers and args.seed != stored.seed:
        usage_error(f"{path} is a saved session with seed {stored.seed}; it keeps its seed")
        return 2
    seed = args.seed if args.seed is not None else stored.seed
    log = ReplayLog(stored.answers, stored.ids)
    participants = make_participants(log, scripted)
    transcript = Transcript()
    out = open_transcript(args.transcript)
    if out is None and args.transcript is not None:
        return 2
    printer = Printer(stored.shown, out)
    transcript.listeners.append(printer)
    try:
        program = compile_program(result)
        session = Session(
            program,
            seed,
            participants,
            Limits(max_steps=args.max_steps or None, max_ticks=args.max_ticks),
            transcript,
        )
        printer.session = session
        reason = session.run()
        if getattr(session, "detail", "") == "max-steps":
            print(
                f"lore: stopped after {session.steps:,} steps (--max-steps; 0 for no limit)",
                file=sys.stderr,
            )
    except RuleError as error:
        print(error.render(), file=sys.stderr)
        return 1
    finally:
        if out is not None:
            out.close()
    if args.save is not None:
        entry = path
        shown = len([r for r in transcript.records if r["kind"] != "end"])
        changed = [(obj.label, members) for obj, members in session.changed() if obj.label]
        text = save_text(
            entry,
            args.save,
            seed,
            session.ticks,
            session.answers,
            shown,
            changed=changed,
            ids=session.answer_ids,
        )
        try:
            args.save.write_text(text, encoding="utf-8")
        except OSError as error:
            # Nothing is lost: the session is the seed and the answers, shown here.
            usage_error(f"cannot write {args.save}: {error.strerror or error}; the save follows")
            sys.stderr.write(text)
            return 1
    return 1 if reason == "error" else 0


def bad_limits(args: argparse.Namespace) -> str | None:
    if args.max_steps < 0:
        return f"--max-steps must be 0 (no limit) or more (got {args.max_steps})"
    if args.max_ticks is not None and args.max_ticks < 0:
        return f"--max-ticks must be 0 or more (got {args.max_ticks})"
    return None


def unwritable(path: Path) -> str | None:
    """Why no file can be written at ``path``, or None when one can."""
    if path.is_dir():
        return f"{path} is a folder"
    folder = path.resolve().parent
    if not folder.is_dir():
        return f"the folder {folder} does not exist"
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is not writable"
    return None


def make_participants(
    log: ReplayLog, scripted: dict[str, list[dict[str, Any]]] | None
) -> Participants:
    def create(who: str) -> Participant:
        live: Participant = (
            Scripted(list(scripted.get(who, []))) if scripted is not None else Terminal(who)
        )
        return Replaying(log, who, live)

    return Participants(default=create)


def open_transcript(path: Path | None) -> TextIO | None:
    if path is None:
        return None
    try:
        return path.open("w", encoding="utf-8")
    except OSError as error:
        usage_error(f"cannot write {path}: {error.strerror or error}")
        return None


class Printer:
    """Shows messages and errors as they happen and writes the transcript file."""

    def __init__(self, shown: int, out: TextIO | None) -> None:
        self.shown = shown  # records a resumed session made before: not shown again
        self.count = 0
        self.session: Session | None = None
        self.out = out

    def __call__(self, record: Record) -> None:
        if self.out is not None:
            self.out.write(dumps(record) + "\n")
            self.out.flush()
        self.count += 1
        if self.count <= self.shown and record["kind"] != "end":
            if self.count == self.shown and self.session is not None:
                print(resumed_summary(self.session), file=sys.stderr, flush=True)
            return
        kind = record["kind"]
        if kind == "message":
            text = record["text"]
            if record.get("format") == "html":
                text = " ".join(_TAG.sub(" ", text).split())
            print(f"[{record['tick']}] {record['to']}: {text}", flush=True)
        elif kind == "error":
            print(
                f"[{record['tick']}] rule error at {record['where']}: {record['message']}",
                file=sys.stderr,
                flush=True,
            )
            errors = self.session.errors if self.session is not None else []
            if errors and errors[-1].message == record["message"]:
                # The line, the hint and the Lore call stack, for the rule's author.
                for line in errors[-1].render().splitlines()[1:]:
                    print(f"    {line}", file=sys.stderr, flush=True)
        elif kind == "end":
            why = f": {record['message']}" if record.get("message") else ""
            if record.get("outcome"):
                why = f": {record['outcome']}"
            print(
                f"[{record['tick']}] session ended: {record['reason']}{why}",
                file=sys.stderr,
                flush=True,
            )


def resumed_summary(session: Session) -> str:
    """Where each actor stands when a saved session has caught up."""
    lines = [f"[{session.ticks}] session resumed"]
    system = session.rt.system
    actors = system.values.get("allPC", ()) if system is not None else ()
    for actor in actors:
        location = actor.values.get("location")
        secrets = actor.values.get("knownSecrets") or ()
        known = ", ".join(str(s) for s in secrets) if secrets else "nothing secret"
        lines.append(f"  {actor.label}: at {location}, knows {known}")
    return "\n".join(lines)
