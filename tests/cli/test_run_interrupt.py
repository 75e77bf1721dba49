"""Ctrl-C during `lore run`: the session stops and is saved, and continues later."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parents[2]
TAVERN = REPO / "examples" / "tavern" / "scenario.lore"


def read_lines(stream: IO[str]) -> list[str]:
    """The lines of ``stream`` as they come (read by a thread)."""
    lines: list[str] = []

    def read() -> None:
        with contextlib.suppress(ValueError):  # the test closed the stream when done with it
            lines.extend(stream)

    threading.Thread(target=read, daemon=True).start()
    return lines


def test_interrupt_saves_and_the_save_continues(tmp_path: Path) -> None:
    save = tmp_path / "s.lore"
    transcript = tmp_path / "t.jsonl"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lore",
            "run",
            str(TAVERN),
            "--save",
            str(save),
            "--transcript",
            str(transcript),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("2\n")  # Aki: 話す (talk)
    process.stdin.flush()
    lines = read_lines(process.stdout)
    deadline = time.monotonic() + 30
    while not any("== Ren: " in line for line in lines):
        assert time.monotonic() < deadline, "the session did not take the answer"
        time.sleep(0.05)
    time.sleep(0.2)  # now waiting for Ren's answer at the terminal
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    out = "".join(lines)
    assert process.returncode == 130, err  # 128 + SIGINT
    assert "Traceback" not in out + err
    records = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert records[-1]["reason"] == "stopped"
    text = save.read_text(encoding="utf-8")
    assert '"values\\":{\\"plan\\":\\"talk\\"}' in text

    # Continuing the save asks Ren next (Aki's answer is kept).
    answers = tmp_path / "more.json"
    answers.write_text(
        json.dumps({"ren@example.org": [{"plan": "rest"}, {"hours": 1}]}), encoding="utf-8"
    )
    resumed = tmp_path / "resumed.jsonl"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "lore",
            "run",
            str(save),
            "--answers",
            str(answers),
            "--transcript",
            str(resumed),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={**os.environ},
    )
    assert completed.returncode == 0, completed.stderr
    answered = [
        r["from"]
        for r in map(json.loads, resumed.read_text(encoding="utf-8").splitlines())
        if r["kind"] == "answer"
    ]
    # The resumed transcript goes on from the save: Ren answers next.
    assert answered[:2] == ["ren@example.org", "ren@example.org"]
    assert [r["from"] for r in records if r["kind"] == "answer"] == ["aki@example.org"]


def test_what_an_interrupt_says_starts_on_a_line_of_its_own(tmp_path: Path) -> None:
    """At a terminal the prompt and what follows share one screen: the prompt ends with
    no newline, and the end of the session must not be printed after it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lore", "run", str(TAVERN)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one screen
        text=True,
        cwd=tmp_path,
    )
    assert process.stdout is not None
    lines = read_lines(process.stdout)
    deadline = time.monotonic() + 30
    while not any("== " in line for line in lines):
        assert time.monotonic() < deadline, "the session asked nothing"
        time.sleep(0.05)
    time.sleep(0.3)  # now waiting at the prompt
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    time.sleep(0.2)  # the last lines read
    screen = "".join(lines)
    assert process.returncode == 130, screen
    ended = [line for line in screen.splitlines() if "session ended: stopped" in line]
    assert len(ended) == 1 and ended[0].startswith("["), screen
    assert screen.rstrip("\n").splitlines()[-2].endswith("> "), screen  # the prompt's line


def test_the_end_of_input_at_a_prompt_ends_its_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lore", "run", str(TAVERN)],
        stdin=subprocess.DEVNULL,  # Ctrl-D at once
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout
    assert done.stdout.endswith("> \n[Day 1, 00:00] session ended: no-answer\n"), done.stdout
