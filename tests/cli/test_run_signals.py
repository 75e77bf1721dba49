"""`lore run` stopped by signals and failing disks: SIGTERM and SIGHUP save like Ctrl-C, a
Ctrl-C while Lore is still loading is no traceback, a transcript on a full disk is an
I/O error naming it (and the session is still saved)."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lore.cli import by_ctrl_c
from lore.cli.main import main
from tests.cli.test_run_command import ASKING, answers_file, write
from tests.cli.test_run_interrupt import read_lines

REPO = Path(__file__).resolve().parents[2]
TAVERN = REPO / "examples" / "tavern" / "scenario.lore"


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_the_session_and_save_it(tmp_path: Path, number: int) -> None:
    save = tmp_path / "s.lore"
    process = subprocess.Popen(
        [sys.executable, "-m", "lore", "run", str(TAVERN), "--save", str(save)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("2\n")  # Aki talks
    process.stdin.flush()
    lines = read_lines(process.stdout)
    deadline = time.monotonic() + 30
    while not any("== Ren: " in line for line in lines):
        assert time.monotonic() < deadline, "the session did not take the answer"
        time.sleep(0.05)
    time.sleep(0.2)  # waiting for Ren at the terminal
    process.send_signal(number)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 128 + number, err
    assert "Traceback" not in err
    text = save.read_text(encoding="utf-8")
    assert "count = 1;" in text and '\\"plan\\":\\"talk\\"' in text


# What the `lore` script does, once Python has found the package: before `lore.cli` (a
# few lines) runs, a Ctrl-C is Python's own KeyboardInterrupt, that no code of Lore's can
# catch; from then on it is Lore's.
STARTER = """
import sys
import lore.cli
print("ready", flush=True)
from lore.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def default_ctrl_c() -> None:
    """In the child: Ctrl-C as at a terminal. A shell starts the commands it runs in the
    background with SIGINT ignored, and Python then leaves it ignored: the child of a test
    run so would never see the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_lore_loads_is_no_traceback(tmp_path: Path) -> None:
    """What the `lore` command does (its script imports `main` and calls it), killed
    with SIGINT at random moments of its first second, the first one at once."""
    rng = random.Random(13)
    for attempt in range(6):
        process = subprocess.Popen(
            [sys.executable, "-c", STARTER, "run", str(TAVERN), "--save", str(tmp_path / "s")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=default_ctrl_c,
        )
        assert process.stdout is not None and process.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.8) if attempt else 0.0)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
        assert "Traceback" not in err, err
        assert process.returncode == 130, err


# A Ctrl-C that lands in a callback Python makes on its own: while an import releases its
# lock, a weak reference's callback may run, and Python does not raise what it raises but
# shows "Exception ignored in ..." with a traceback, and goes on as though no key was
# pressed (1 in about 100 Ctrl-Cs of the test above).
SWALLOWED = """
import signal
import sys
import weakref
import lore.cli
{handler}

class Loaded:
    pass

def pressed(_):
    raise KeyboardInterrupt

loaded = Loaded()
watch = weakref.ref(loaded, pressed)
del loaded
print("went on", flush=True)
"""


def run_python(program: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", program, *arguments]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=default_ctrl_c,
    )


def test_a_ctrl_c_python_would_swallow_while_lore_loads_ends_it() -> None:
    done = run_python(SWALLOWED.format(handler=""))
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "lore: interrupted\n")


def test_a_ctrl_c_swallowed_beside_a_handler_of_lore_is_left_to_it() -> None:
    """`lore run` has its own handler: it asked the session to stop before it raised."""
    handler = "signal.signal(signal.SIGINT, lambda number, frame: None)"
    done = run_python(SWALLOWED.format(handler=handler))
    assert (done.returncode, done.stdout, done.stderr) == (0, "went on\n", "")


def test_other_errors_in_callbacks_are_shown_as_before() -> None:
    program = SWALLOWED.format(handler="").replace("raise KeyboardInterrupt", "1 / 0")
    done = run_python(program)
    assert done.returncode == 0 and done.stdout == "went on\n"
    assert "Exception ignored in" in done.stderr and "ZeroDivisionError" in done.stderr


# A Ctrl-C that code loading swallows: ElementTree's import ignores the ImportError that a
# Ctrl-C during its accelerator's import becomes (1 in about 200 Ctrl-Cs of the test
# above: the session then went on, and ended with 0).
SWALLOWED_WHILE_LOADING = """
import os
import signal
import sys
import lore.cli
from lore.cli import run_command

def swallow():
    try:
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))
    except KeyboardInterrupt:
        pass  # what `except ImportError: pass` around an import does with one

loaded = run_command.resume

def resume(*args, **kwargs):
    {in_resume}
    return loaded(*args, **kwargs)

run_command.resume = resume
{before_main}
from lore.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("place", ["before_main", "in_resume"])
def test_a_ctrl_c_swallowed_while_lore_loads_still_stops_it(tmp_path: Path, place: str) -> None:
    program = SWALLOWED_WHILE_LOADING.format(
        before_main="swallow()" if place == "before_main" else "",
        in_resume="swallow()" if place == "in_resume" else "pass",
    )
    save = tmp_path / "s.lore"
    done = run_python(program, "run", str(TAVERN), "--save", str(save))
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr
    assert "== Aki: " not in done.stdout  # nobody was asked
    if place == "in_resume":  # the session was made: it stops before its first step, saved
        assert "session ended: stopped" in done.stderr + done.stdout
        assert "count = 0;" in save.read_text(encoding="utf-8")
    else:
        assert done.stderr == "lore: interrupted\n"


def test_a_transcript_on_a_full_disk_is_an_io_error_and_the_save_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path / "asking.lore", ASKING)
    answers = answers_file(tmp_path, {"hero@example.org": [{"stance": "high", "step": 1}]})
    save = tmp_path / "s.lore"
    status = main(
        [
            "run",
            str(program),
            "--answers",
            str(answers),
            "--transcript",
            "/dev/full",
            "--save",
            str(save),
        ]
    )
    err = capsys.readouterr().err
    assert status == 1
    assert "lore: error: cannot write the transcript /dev/full: No space left on device" in err
    assert "rule error" not in err and "Traceback" not in err
    assert "count = 1;" in save.read_text(encoding="utf-8")


def test_a_closed_output_does_not_stop_the_session(tmp_path: Path) -> None:
    """`lore run ... | head -1`: the messages after the first go nowhere, the session
    goes on, and the save holds it whole."""
    scenario = REPO / "examples" / "tavern" / "scenario.lore"
    answers = REPO / "examples" / "tavern" / "answers.json"
    save = tmp_path / "s.lore"
    command = [
        sys.executable,
        "-m",
        "lore",
        "run",
        str(scenario),
        "--answers",
        str(answers),
        "--save",
        str(save),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.readline()
    process.stdout.close()  # what `head -1` does
    _, err = process.communicate(timeout=60)
    assert b"Traceback" not in err and b"rule error" not in err
    count = json.loads(answers.read_text(encoding="utf-8"))
    total = sum(len(values) for seat, values in count.items() if seat != "$test")
    assert f"count = {total};" in save.read_text(encoding="utf-8")


def test_a_ctrl_c_turned_into_another_error_is_an_interruption(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python 3.11 wraps a Ctrl-C that arrives while a class is made (in a module being
    imported) in a RuntimeError: it is still an interruption, not a traceback."""

    def interrupted_import(name: str) -> object:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as error:
            raise RuntimeError("Error calling __set_name__") from error

    monkeypatch.setattr("importlib.import_module", interrupted_import)
    assert main(["check", str(TAVERN)]) == 130
    assert capsys.readouterr().err == "lore: interrupted\n"
    assert not by_ctrl_c(RuntimeError("a bug"))  # any other error is not one
