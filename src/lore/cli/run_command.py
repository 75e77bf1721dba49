"""``lore run FILE [--seed N] [--answers A.json] [--transcript T.jsonl] [--save S.lore]
[--continue-anyway]``.

Runs a session in the terminal. Without ``--answers`` the GM and every player answer at
the terminal (``<`` typed at a prompt takes back the last answer of the moment and asks
its question again, while nothing followed from it); with it, each participant answers
from its list, and the run stops (reason ``no-answer``) when one has none left. ``FILE``
may be a save written by ``--save``: the session goes on from where it was. Ctrl-C,
SIGTERM and SIGHUP stop the session (it is saved); the exit status is then 128 + the
signal's number (130 for Ctrl-C).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from lore.cli import gm_commands
from lore.cli.answers_file import Answers, load_answers, unknown_seats
from lore.cli.atomic import AtomicFile, write_atomically
from lore.cli.interrupts import Interrupts
from lore.cli.io import (
    no_events_note,
    print_diagnostics,
    read_failure,
    unreadable,
    usage_error,
    warning,
)
from lore.cli.printer import Printer, resumed_summary
from lore.cli.terminal import Terminal
from lore.engine.participants import (
    Participant,
    Participants,
    Replaying,
    ReplayLog,
    Scripted,
)
from lore.engine.saves import SaveData, SaveError, Stored, read_stored, save_text
from lore.engine.seat_labels import label_of
from lore.engine.session import Limits, Session
from lore.engine.snapshot import SnapshotError, changed_files, describe_queue
from lore.engine.transcript import Streamed
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.runtime.errors import RuleError
from lore.semantics.check import CheckResult, check_paths, ordered_diagnostics
from lore.syntax.diagnostics import has_errors
from lore.world.static import check_world

# Steps a run takes at most unless told otherwise: a rule that reschedules itself for
# ever (each game second, say) stops instead of running until the memory is full.
DEFAULT_MAX_STEPS = 1_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__
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
        help="save the session at the end (or when interrupted); FILE itself may be named",
    )
    parser.add_argument(
        "--continue-anyway",
        action="store_true",
        help="continue a save whose files changed since: its answers are given again, "
        "each checked against the question asked, up to the first that does not fit",
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


@dataclass
class Resumed:
    """How a session starts: new, or from a save (its snapshot, or a replay)."""

    session: Session
    log: ReplayLog
    prior: int  # answers of the save before the snapshot (not given again)
    hidden: int  # transcript records the user has seen already
    base_records: int  # records the session had made before this run


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
        stored = read_stored(result.program.modules, path)
    except SaveError as error:
        usage_error(f"not a valid save: {error}; nothing was run or written")
        return 1
    if args.seed is not None and stored.format and args.seed != stored.seed:
        usage_error(f"{path} is a saved session with seed {stored.seed}; it keeps its seed")
        return 2
    try:
        program = compile_program(result)
    except RuleError as error:
        print(error.render(), file=sys.stderr)
        return 1
    problem = refused_output(args, result, program, stored)
    if problem is not None:
        usage_error(problem + "; nothing was run or written")
        return 2
    changed = changed_files(
        [list(item) for item in stored.files] if stored.files is not None else None, program
    )
    if stored.files is not None and changed and not args.continue_anyway:
        usage_error(
            f"{path} was saved from files that changed since: {', '.join(changed)}; going on"
            " could give an answer to another question than the one it answered (run with"
            " --continue-anyway to replay the answers, each checked, up to the first that"
            " does not fit)"
        )
        return 1
    if args.seed is not None:
        stored.seed = args.seed  # a new session (a save keeps its own, checked above)
    return play(args, program, stored, scripted, bool(stored.files is not None and changed))


def play(
    args: argparse.Namespace,
    program: CompiledProgram,
    stored: Stored,
    scripted: Answers | None,
    changed: bool,
) -> int:
    out: AtomicFile | None = None
    if args.transcript is not None:
        try:
            out = AtomicFile(args.transcript)
        except OSError as error:
            usage_error(f"cannot write {args.transcript}: {error.strerror or error}")
            return 2
    try:
        return play_to(args, program, stored, scripted, changed, out)
    finally:
        if out is not None:
            out.discard()  # kept only if play_to committed it


def play_to(
    args: argparse.Namespace,
    program: CompiledProgram,
    stored: Stored,
    scripted: Answers | None,
    changed: bool,
    out: AtomicFile | None,
) -> int:
    transcript = Streamed()  # written out and shown as made, not kept
    limits = Limits(max_steps=args.max_steps or None, max_ticks=args.max_ticks)
    scripts = {who: Scripted(list(answers)) for who, answers in (scripted or {}).items()}
    try:
        resumed = resume(program, stored, scripts, scripted is not None, changed, limits)
    except SnapshotError as error:  # pragma: no cover - resume falls back to a replay
        usage_error(str(error))
        return 1
    session = resumed.session
    session.transcript = transcript
    printer = Printer(resumed.hidden, out)
    printer.session = session
    transcript.listen(printer)
    status = 0
    with Interrupts(session) as interrupts:
        try:
            if scripted is not None:
                problem = unknown_seats(scripted, session.seats())
                if problem is not None:
                    usage_error(f"{args.answers}: {problem}; nothing was run or written")
                    return 2
            if stored.format and not resumed.hidden:
                print(resumed_summary(session), file=sys.stderr, flush=True)
            reason = session.run()
            while reason == "waiting":  # (the GM typed rulings at a prompt)
                rulings = gm_rulings(session)
                if not rulings:
                    break
                for line in rulings:
                    said = gm_commands.apply(session, line)
                    if said:
                        print(said, flush=True)
                session.reopen()  # the questions open are asked again
                reason = session.run()
            if getattr(session, "detail", "") == "max-steps":
                print(
                    f"lore: stopped after {session.steps:,} steps (--max-steps; 0 for no limit)",
                    file=sys.stderr,
                )
        except RuleError as error:
            print(error.render(), file=sys.stderr)
            return 1
        if reason == "error":
            status = 1
        if reason == "no-events" and session.steps == 0:
            print(no_events_note(args.file), file=sys.stderr)
        if reason == "no-events":
            for script in scripts.values():
                for left in script.left():
                    usage_error(f"{left.where} is for the question {left.query!r}, never asked")
                    status = 1
        if out is not None:
            status = max(status, finish_transcript(args.transcript, out, printer))
        if args.save is not None:
            status = max(status, write_save(args.save, session, stored, resumed, printer))
    return interrupts.status or status


def gm_rulings(session: Session) -> list[str]:
    """The rulings typed at the terminal since the last run (at any participant's
    prompt: one person plays them all, the GM among them), taken."""
    taken: list[str] = []
    for member in session.participants.members.values():
        terminal = getattr(member, "live", None)
        if isinstance(terminal, Terminal):
            taken += terminal.rulings
            terminal.rulings = []
    return taken


def resume(
    program: CompiledProgram,
    stored: Stored,
    scripts: dict[str, Scripted],
    scripted: bool,
    changed: bool,
    limits: Limits,
) -> Resumed:
    """The session to run: restored from the save's snapshot when its files are the
    same, else replaying every answer of the save (checked when the files changed)."""
    name = stored.source.name if stored.source is not None else "the save"
    if stored.snapshot is not None and not changed:
        try:
            prior = Session.restore(program, stored.snapshot).answers_before
        except SnapshotError as error:
            warning(f"{name}: {error}; replaying its answers instead")
        else:
            log = ReplayLog(stored.answers[prior:], name, checked=False)
            labels = Labels()
            session = Session.restore(
                program,
                stored.snapshot,
                participants=participants(log, scripts, scripted, labels),
                limits=limits,
            )
            labels.session = session
            session.reopen()  # questions open at the save are asked here again
            hidden = max(0, stored.shown - stored.records)
            return Resumed(session, log, prior, hidden, stored.records)
    log = ReplayLog(stored.answers, name, checked=changed)
    labels = Labels()
    session = Session(program, stored.seed, participants(log, scripts, scripted, labels), limits)
    labels.session = session
    return Resumed(session, log, 0, stored.shown, 0)


@dataclass
class Labels:
    """The participants' labels in the session (``Aki``), once it is made."""

    session: Session | None = None

    def __call__(self, participant: str) -> str:
        return label_of(self.session, participant)


def participants(
    log: ReplayLog, scripts: dict[str, Scripted], scripted: bool, labels: Labels
) -> Participants:
    def create(who: str) -> Participant:
        if scripted:
            return Replaying(log, who, scripts.setdefault(who, Scripted([])))
        return Replaying(log, who, Terminal(who, label_of=labels))

    return Participants(default=create)


def finish_transcript(target: Path, out: AtomicFile, printer: Printer) -> int:
    failed = printer.failed
    if failed is None:
        try:
            out.commit()
            return 0
        except OSError as error:
            failed = error
    usage_error(f"cannot write the transcript {target}: {failed.strerror or failed}")
    return 1


def write_save(
    target: Path, session: Session, stored: Stored, resumed: Resumed, printer: Printer
) -> int:
    program = session.program
    failed = 0  # a save without its snapshot is written (nothing is lost), but an error
    try:
        snapshot: bytes | None = session.snapshot()
    except SnapshotError as error:
        usage_error(f"cannot save the session's state ({error}): {target} holds only its answers")
        snapshot, failed = None, 1
    transcript = session.transcript
    made = (
        transcript.made
        if isinstance(transcript, Streamed)
        else len([r for r in transcript.records if r["kind"] != "end"])
    )
    records = resumed.base_records + made
    answers = stored.answers[: resumed.prior] + session.answers + resumed.log.unused()
    entry = (
        stored.path
        if stored.path is not None
        else Path(program.result.program.modules[1].source.path or target)
    )
    scenario = stored.imports if stored.format else [entry]
    changed = [(obj.label, members) for obj, members in session.changed() if obj.label]
    data = SaveData(
        scenario=scenario,
        seed=session.seed,
        ticks=session.ticks,
        answers=answers,
        files=program.files(),
        snapshot=snapshot,
        records=records,
        shown=max(stored.shown, records),
        title=scenario[0].name if scenario else "",
        history=stored.history,
        when=save_date(),
        changed=changed,
        schedule=describe_queue(session),
    )
    text = save_text(data, target)
    try:
        write_atomically(target, text)
    except OSError as error:
        # Nothing is lost: the session is in the save's text, shown here.
        usage_error(f"cannot write {target}: {error.strerror or error}; the save follows")
        sys.stderr.write(text)
        return 1
    return failed


def run_file(program: CompiledProgram, stored: Stored) -> Path:
    """The file that was run: the scenario (or a save in the paper's format)."""
    if stored.path is not None:
        return stored.path
    first = next(m for m in program.result.program.modules if not m.is_library)
    assert first.source.path is not None
    return first.source.path


def save_date() -> str:
    """When a save is written (``SOURCE_DATE_EPOCH`` fixes it, for reproducible files)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    moment = datetime.fromtimestamp(int(epoch), UTC) if epoch.isdigit() else datetime.now(UTC)
    return moment.isoformat(timespec="seconds")


def refused_output(
    args: argparse.Namespace, result: CheckResult, program: CompiledProgram, stored: Stored
) -> str | None:
    """Why ``--save`` or ``--transcript`` must not be written, or None. A save may
    replace the save being run; no output may replace another input (a Lore file the
    program loads, an XML file it reads, the answers file), nor the other output."""
    inputs: list[tuple[Path, str]] = [
        (m.source.path, "Lore's own library" if m.is_library else "a file the session is made from")
        for m in result.program.modules
        if m.source.path is not None
    ]
    inputs += [(p, "a map the session reads") for p in program.read_files]
    if args.answers is not None:
        inputs.append((args.answers, "the answers file"))
    run_file = args.file
    outputs = [(o, flag) for o, flag in ((args.save, "--save"), (args.transcript, "--transcript"))]
    for output, flag in outputs:
        if output is None:
            continue
        problem = unwritable(output)
        if problem is not None:
            return f"cannot write {flag} {output}: {problem}"
        for source, what in inputs:
            if not same_file(output, source):
                continue
            if flag == "--save" and same_file(output, run_file) and stored.format:
                continue  # saving over the save being continued
            return f"{flag} {output} would overwrite {source}, {what}"
    if (
        args.save is not None
        and args.transcript is not None
        and same_file(args.save, args.transcript)
    ):
        return f"--save and --transcript name the same file ({args.save})"
    return None


def same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except OSError:
        return False


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
    if not os.access(folder, os.W_OK) and not path.exists():
        return f"the folder {folder} is not writable"
    return None
