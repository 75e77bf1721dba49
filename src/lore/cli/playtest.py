"""Play-through tests (``lore test``): an answers file, the Lore file it plays, and the
transcript blessed for it.

A test is an answers file named ``answers.json`` or ``NAME.answers.json`` (the format of
``lore run --answers``); its blessed transcript is beside it, ``transcript.jsonl`` or
``NAME.transcript.jsonl``, exactly as ``lore run --transcript`` writes it when run from the
test's folder. The Lore file played and the seed are in the answers file's header, a
member ``"$test"`` that ``lore run`` leaves aside::

    {"$test": {"play": "scenario.lore", "seed": 73},
     "GM": [{"stance": "gedan"}], ...}

Without ``play`` the test plays ``NAME.lore`` beside it if there is one, else
``scenario.lore``; without ``seed``, seed 0. The session is played from the test's folder
(its file named as the header names it), so a transcript is the same whoever runs the
test from wherever: a rule error's place reads ``scenario.lore:3:9``.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.cli.answers_file import HEADER, Answers, load_answers_file, unknown_seats
from lore.cli.io import unreadable
from lore.cli.playtest_texts import TEXTS
from lore.cli.run_command import DEFAULT_MAX_STEPS, resume
from lore.engine.participants import Scripted
from lore.engine.saves import SaveError, read_stored
from lore.engine.session import Limits
from lore.engine.transcript import Transcript, dumps
from lore.runtime.compiler import compile_program
from lore.runtime.errors import RuleError
from lore.semantics.check import check_paths, ordered_diagnostics
from lore.syntax.diagnostics import has_errors, limit_per_file
from lore.syntax.files import describe, read_bytes
from lore.world.static import check_world

ANSWERS = "answers.json"
ANSWERS_SUFFIX = ".answers.json"
TRANSCRIPT = "transcript.jsonl"
TRANSCRIPT_SUFFIX = ".transcript.jsonl"
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules"})  # and hidden ones (.git, .venv)


@dataclass(frozen=True, slots=True)
class PlayTest:
    """A test: its answers file and the blessed transcript beside it."""

    answers: Path

    @property
    def name(self) -> str:
        """``NAME`` of ``NAME.answers.json`` ("" for ``answers.json``)."""
        file = self.answers.name
        if file == ANSWERS:
            return ""
        if file.endswith(ANSWERS_SUFFIX):
            return file.removesuffix(ANSWERS_SUFFIX)
        return self.answers.stem  # a file named on the command line: x.json

    @property
    def transcript(self) -> Path:
        name = self.name
        return self.answers.with_name(f"{name}{TRANSCRIPT_SUFFIX}" if name else TRANSCRIPT)


@dataclass
class Played:
    """What playing a test gave: the transcript's text, or why it could not be played
    (lines to print, each naming its place); notes about answers never used."""

    text: str | None = None
    problem: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    replay: str = ""  # the ``lore run`` command line that plays the same session


def is_answers_file(name: str) -> bool:
    return name == ANSWERS or name.endswith(ANSWERS_SUFFIX)


def find_tests(path: Path) -> list[PlayTest]:
    """The tests under the folder ``path`` (its sub-folders too, hidden ones left out),
    in the order of their paths."""
    found = []
    for folder, folders, files in os.walk(path):
        folders[:] = sorted(
            f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS
        )
        found += [PlayTest(Path(folder) / f) for f in sorted(files) if is_answers_file(f)]
    return found


def play(test: PlayTest) -> Played:
    """Play ``test``'s answers on its Lore file and seed; never raises for bad input."""
    try:
        answers, header = load_answers_file(test.answers)
    except ValueError as error:
        return Played(problem=[str(error)])
    played = Played()
    settings = header_settings(test, header, played)
    if settings is None:
        return played
    lore, seed = settings
    played.replay = replay_command(test, lore, seed)
    target = test.answers.parent / lore
    problem = unreadable(target)
    if problem is not None:
        played.problem = [TEXTS.text("no_lore", answers=test.answers, problem=problem)]
        return played
    with contextlib.chdir(test.answers.parent):
        text = session_text(Path(lore), seed, answers, played)
    if text is None and not played.problem:
        played.problem = problem_lines(target)  # the same problems, named from here
    played.text = text
    return played


def header_settings(test: PlayTest, header: Any, played: Played) -> tuple[str, int] | None:
    """The Lore file (relative to the test's folder) and the seed of the header."""
    where = f"{test.answers}: {HEADER}"
    if header is None:
        header = {}
    if not isinstance(header, dict):
        played.problem = [TEXTS.text("header_not_object", where=where)]
        return None
    unknown = sorted(set(header) - {"play", "seed"})
    if unknown:
        played.problem = [TEXTS.text("header_unknown", where=where, names=", ".join(unknown))]
        return None
    lore = header.get("play", default_lore(test))
    if not isinstance(lore, str) or not lore or Path(lore).is_absolute():
        played.problem = [TEXTS.text("header_play", where=where, value=_shown(lore))]
        return None
    seed = header.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        played.problem = [TEXTS.text("header_seed", where=where, value=_shown(seed))]
        return None
    return lore, seed


def _shown(value: Any) -> str:
    return dumps(value) if not isinstance(value, str) else repr(value)


def default_lore(test: PlayTest) -> str:
    """``NAME.lore`` beside ``NAME.answers.json`` when there is one, else ``scenario.lore``."""
    name = test.name
    if name and (test.answers.parent / f"{name}.lore").is_file():
        return f"{name}.lore"
    return "scenario.lore"


def replay_command(test: PlayTest, lore: str, seed: int) -> str:
    folder = test.answers.parent
    run = f"lore run {lore} --seed {seed} --answers {test.answers.name}"
    return run if folder in (Path(""), Path(".")) else f"cd {folder} && {run}"


def session_text(path: Path, seed: int, answers: Answers, played: Played) -> str | None:
    """The transcript of ``path`` played with ``answers`` (from the current folder);
    None when the program has errors (``problem_lines`` names them) or the answers file
    names participants the session lacks (``played.problem``)."""
    try:
        result = check_paths([path])
    except OSError:
        return None
    if has_errors(result.diagnostics + check_world(result)):
        return None
    try:
        stored = read_stored(result.program.modules, path)
        program = compile_program(result)
    except (SaveError, RuleError):
        return None
    stored.seed = seed if not stored.format else stored.seed
    scripts = {who: Scripted(list(given)) for who, given in answers.items()}
    limits = Limits(max_steps=DEFAULT_MAX_STEPS)
    session = resume(program, stored, scripts, True, False, limits).session
    transcript = Transcript()
    session.transcript = transcript
    unknown = unknown_seats(answers, session.seats())
    if unknown is not None:
        played.problem = [f"{path.name}: {unknown}"]
        return None
    try:
        session.run()
    except RuleError as error:
        played.problem = error.render().splitlines()
        return None
    for script in scripts.values():
        played.notes += [
            TEXTS.text("never_asked", where=a.where, query=a.query) for a in script.left()
        ]
    return "".join(dumps(record) + "\n" for record in transcript.records)


def problem_lines(path: Path) -> list[str]:
    """Why ``path`` cannot be played, its places named as seen from here."""
    try:
        result = check_paths([path])
    except OSError as error:
        return [TEXTS.text("no_lore", answers=path, problem=describe(error))]
    diagnostics = ordered_diagnostics(result.program, result.diagnostics + check_world(result))
    if has_errors(diagnostics):
        return [line for d in limit_per_file(diagnostics) for line in d.render().splitlines()]
    try:
        read_stored(result.program.modules, path)
        compile_program(result)
    except SaveError as error:
        return [TEXTS.text("bad_save", path=path, problem=str(error))]
    except RuleError as error:
        return error.render().splitlines()
    return [TEXTS.text("unplayable", path=path)]


def read_blessed(test: PlayTest) -> str | None:
    """The blessed transcript's text, None when there is none; raises ValueError naming
    the file when it cannot be read."""
    path = test.transcript
    if not path.exists() and not path.is_symlink():
        return None
    problem = unreadable(path)
    if problem is not None:
        raise ValueError(problem)
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(TEXTS.text("not_utf8", path=path)) from None
    except OSError as error:
        raise ValueError(f"{path}: {describe(error)}") from None
