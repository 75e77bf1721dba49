"""What the mutation fuzzer starts from: the project's own Lore files, answers and maps.

A seed is a folder's worth of files and the one to run: each example with its answers
and maps, each Lore snippet of the language reference, each program of the checker's and
parser's corpora, and saves of the examples (made at the start by running them).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lore.cli.answers_file import HEADER
from lore.cli.main import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
CORPORA = (REPO / "tests" / "semantics" / "corpus", REPO / "tests" / "syntax" / "corpus")
_SNIPPET = re.compile(r"```lore\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Seed:
    name: str
    files: dict[str, bytes]
    entry: str
    answers: str | None = None


@cache
def seeds() -> tuple[Seed, ...]:
    """Every seed, in a stable order."""
    return (*example_seeds(), *snippet_seeds(), *corpus_seeds(), *save_seeds())


def example_seeds() -> list[Seed]:
    found: list[Seed] = [
        Seed("examples/hello.lore", _files([EXAMPLES / "hello.lore"]), "hello.lore")
    ]
    for folder in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        files = _files(sorted(p for p in folder.iterdir() if p.is_file()))
        entry = "scenario.lore" if "scenario.lore" in files else sorted(files)[0]
        answers = "answers.json" if "answers.json" in files else None
        found.append(Seed(f"examples/{folder.name}", files, entry, answers))
    return found


def snippet_seeds() -> list[Seed]:
    text = (REPO / "docs" / "language.md").read_text(encoding="utf-8")
    return [
        Seed(f"docs/language.md snippet {index}", {"snippet.lore": body.encode()}, "snippet.lore")
        for index, body in enumerate(_SNIPPET.findall(text))
    ]


def corpus_seeds() -> list[Seed]:
    found: list[Seed] = []
    for corpus in CORPORA:
        for path in sorted(corpus.rglob("*.lore")):
            data = path.read_bytes()
            if b"\0" in data or len(data) > 200_000:
                continue
            name = path.relative_to(REPO).as_posix()
            found.append(Seed(name, {path.name: data}, path.name))
    return found


def save_seeds() -> list[Seed]:
    """Saves of the examples that have answers: the whole run, and the run cut short (a
    question open when it was saved)."""
    found: list[Seed] = []
    for seed in example_seeds():
        if seed.answers is None:
            continue
        answers = json.loads(seed.files[seed.answers])
        cut = {  # (the "$test" header is kept as it is)
            who: given if who == HEADER else given[: len(given) // 2]
            for who, given in answers.items()
        }
        for label, given in (("whole", answers), ("cut", cut)):
            save = _save_of(seed, given)
            if save is not None:
                files = {**seed.files, "save.lore": save}
                found.append(Seed(f"{seed.name} save ({label})", files, "save.lore", None))
    return found


def _save_of(seed: Seed, answers: object) -> bytes | None:
    with tempfile.TemporaryDirectory(prefix="lore-seed-") as name:
        folder = Path(name)
        for relative, data in seed.files.items():
            (folder / relative).write_bytes(data)
        (folder / "given.json").write_text(json.dumps(answers), encoding="utf-8")
        argv = ["run", str(folder / seed.entry), "--answers", str(folder / "given.json")]
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            main([*argv, "--save", str(folder / "save.lore"), "--max-steps", "20000"])
        save = folder / "save.lore"
        return save.read_bytes() if save.exists() else None


def _files(paths: list[Path]) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in paths}
