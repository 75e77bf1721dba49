"""Writing files atomically: a process killed at any moment leaves the old file or the new
one, whole (saves, transcripts, `lore fmt --write`)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lore.cli.atomic import AtomicFile, write_atomically

REPO = Path(__file__).resolve().parents[2]
TRIALS = 5


def test_write_replaces_at_once_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    write_atomically(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_discarded_file_leaves_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old", encoding="utf-8")
    file = AtomicFile(target)
    file.write("half")
    file.discard()
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_device_is_written_directly() -> None:
    with pytest.raises(OSError):  # no room on /dev/full: an error, not a rename
        write_atomically(Path("/dev/full"), "x" * 100_000)


WRITER = """
import sys
from pathlib import Path
from lore.cli.atomic import write_atomically
target = Path(sys.argv[1])
texts = ["A" * 8_000_000 + "\\n", "B" * 8_000_000 + "\\n"]
print("ready", flush=True)
number = 0
while True:
    number += 1
    write_atomically(target, texts[number % 2])
"""


def test_a_writer_killed_at_random_moments_leaves_a_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "big.txt"
    target.write_text("A" * 8_000_000 + "\n", encoding="utf-8")
    whole = {"A" * 8_000_000 + "\n", "B" * 8_000_000 + "\n"}
    rng = random.Random(8)
    for _ in range(TRIALS):
        process = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True
        )
        assert process.stdout is not None and process.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.4))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        assert target.read_text(encoding="utf-8") in whole
        for left in tmp_path.glob(".big.txt.*.tmp"):
            left.unlink()  # what a kill leaves beside it: never the target


def kill_at_random(argv: list[str], cwd: Path, rng: random.Random, took: float) -> None:
    """Run ``lore ARGV`` and kill it at a random moment of its second half (where it
    writes), or just after it would have ended."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lore", *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "SOURCE_DATE_EPOCH": "1700000000"},
    )
    time.sleep(rng.uniform(0.5 * took, 1.1 * took))
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def long_rounds(tmp_path: Path, count: int) -> tuple[Path, Path]:
    from tests.cli.test_saves import ROUNDS

    scenario = tmp_path / "rounds.lore"
    scenario.write_text(ROUNDS, encoding="utf-8")
    answers = tmp_path / "a.json"
    values = [{"n": n} for n in range(count)]
    answers.write_text(json.dumps({"hero@example.org": values}), encoding="utf-8")
    return scenario, answers


def test_lore_run_killed_while_saving_leaves_the_old_save_or_the_new(tmp_path: Path) -> None:
    scenario, answers = long_rounds(tmp_path, 1500)
    save = tmp_path / "s.lore"
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    argv = [sys.executable, "-m", "lore", "run"]
    subprocess.run(
        [*argv, str(scenario), "--save", str(save)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    old = save.read_bytes()
    started = time.monotonic()
    done = subprocess.run(
        [*argv, str(save), "--answers", str(answers), "--save", str(save)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
    )
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    new = save.read_bytes()
    assert new != old
    rng = random.Random(36)
    for _ in range(TRIALS):
        save.write_bytes(old)
        kill_at_random(
            ["run", str(save), "--answers", str(answers), "--save", str(save)], tmp_path, rng, took
        )
        assert save.read_bytes() in (old, new)


def test_lore_fmt_write_killed_leaves_the_old_file_or_the_new(tmp_path: Path) -> None:
    body = "".join(f" v{i}={i};\n" for i in range(8_000))
    old = f"section big {{\n{body}}}\n"
    source = tmp_path / "big.lore"
    source.write_text(old, encoding="utf-8")
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "lore", "fmt", "--write", str(source)], check=True)
    took = time.monotonic() - started
    new = source.read_text(encoding="utf-8")
    assert new != old
    rng = random.Random(5)
    for _ in range(TRIALS):
        source.write_text(old, encoding="utf-8")
        kill_at_random(["fmt", "--write", str(source)], tmp_path, rng, took)
        assert source.read_text(encoding="utf-8") in (old, new)
