"""Running one fuzz case: the ``lore`` command on files in a fresh folder, in a child
process with a memory cap and a time limit, and what came of it.

The child is forked from the process that runs the campaign, which has imported Lore and
warmed its caches once, so a case costs what the command costs, not a Python start-up. In
the child, ``resource.setrlimit`` caps the address space and the CPU time, and an alarm
bounds the wall time; its standard input is empty (or the case's), its output goes to
files. A case fails when the command shows a Python traceback, runs out of time or
memory, dies of a signal, or exits with a status ``lore`` never uses.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import lore
from lore.cli.main import main

# Exit statuses of ``lore``: clean, errors in the input, usage error, interrupted.
STATUSES = frozenset({0, 1, 2, 130})
_TRACEBACK = 70  # the child's status when the command raised
_MEMORY = 71  # ... when it ran out of memory
_TRACEBACK_TEXT = "Traceback (most recent call last)"


@dataclass(frozen=True)
class Limits:
    """What one case may take: CPU seconds, wall seconds, and memory above what the
    campaign's own process already maps."""

    cpu: float = 10.0
    wall: float = 30.0
    memory: int = 1536 * 1024 * 1024


@dataclass(frozen=True)
class Case:
    """Files to write in a fresh folder, and the ``lore`` arguments to run there."""

    name: str  # where it came from: the seed and the mutations
    files: dict[str, bytes]
    argv: tuple[str, ...]
    stdin: bytes = b""

    def digest(self) -> str:
        """A short digest of what the case runs: its files, arguments and input."""
        h = hashlib.sha256()
        for name in sorted(self.files):
            h.update(name.encode() + b"\0" + self.files[name] + b"\0")
        h.update("\0".join(self.argv).encode() + b"\0" + self.stdin)
        return h.hexdigest()[:12]


@dataclass(frozen=True)
class Outcome:
    kind: str  # ok, traceback, time, memory, signal, status
    status: int | None
    detail: str  # the traceback, or what killed it
    seconds: float
    out: str = field(default="", repr=False)

    @property
    def failed(self) -> bool:
        return self.kind != "ok"

    def signature(self, case: Case) -> str:
        """What tells two failures apart: the kind, the command, and for a traceback its
        exception and the innermost frame in Lore."""
        command = case.argv[0] if case.argv else "?"
        if self.kind == "traceback":
            return f"{command}: {_exception_place(self.detail)}"
        return f"{command}: {self.kind}"

    def key(self, case: Case) -> str:
        """What a failure is kept under: its signature, and for a failure without a
        traceback (a time-out, memory, a signal, a status) the case's digest too, since
        two such cases may fail for different reasons."""
        signature = self.signature(case)
        if self.kind == "traceback":
            return signature
        return f"{signature} {case.digest()}"


def run_case(
    case: Case,
    limits: Limits | None = None,
    entry: Callable[[list[str]], int] = main,
) -> Outcome:
    """Run ``entry(case.argv)`` (``lore``) in a forked child; see the module's doc."""
    limits = limits or Limits()
    with tempfile.TemporaryDirectory(prefix="lore-fuzz-") as name:
        folder = Path(name)
        for relative, data in case.files.items():
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        (folder / ".stdin").write_bytes(case.stdin)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child ends with os._exit
            _child(folder, list(case.argv), limits, entry)
        status = _wait(pid, limits.wall + 5)
        seconds = time.monotonic() - start
        out = _read(folder / ".out") + _read(folder / ".err")
        trace = _read(folder / ".trace")
    return _outcome(status, out, trace, seconds)


def _child(
    folder: Path, argv: list[str], limits: Limits, entry: Callable[[list[str]], int]
) -> None:  # pragma: no cover - runs in the forked child
    code = _TRACEBACK
    try:
        os.chdir(folder)
        stdin = os.open(".stdin", os.O_RDONLY)
        out = os.open(".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(stdin, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        sys.stdin = open(0, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        signal.signal(signal.SIGINT, signal.default_int_handler)
        cpu = int(limits.cpu)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        cap = _mapped() + limits.memory
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        signal.alarm(int(limits.wall))
        try:
            result = entry(argv)
            code = result if isinstance(result, int) else 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 2
        except MemoryError:
            code = _MEMORY
        except BaseException:
            with open(folder / ".trace", "w", encoding="utf-8") as trace:
                traceback.print_exc(file=trace)
            code = _TRACEBACK
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):  # a full disk is not the command's fault
                stream.flush()
    finally:
        os._exit(code)


def _wait(pid: int, seconds: float) -> int:
    """The child's wait status; killed when it runs past ``seconds``."""
    deadline = time.monotonic() + seconds
    delay = 0.001
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            return os.waitpid(pid, 0)[1]
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def _outcome(status: int, out: str, trace: str, seconds: float) -> Outcome:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number in (signal.SIGALRM, signal.SIGXCPU, signal.SIGKILL):
            return Outcome("time", None, signal.Signals(number).name, seconds, out)
        return Outcome("signal", None, signal.Signals(number).name, seconds, out)
    code = os.WEXITSTATUS(status)
    if code == _MEMORY:
        return Outcome("memory", code, "MemoryError", seconds, out)
    if code == _TRACEBACK:
        kind = "memory" if trace.rstrip().endswith("MemoryError") else "traceback"
        return Outcome(kind, code, trace or "(no traceback)", seconds, out)
    if _TRACEBACK_TEXT in out:
        return Outcome("traceback", code, out[out.index(_TRACEBACK_TEXT) :], seconds, out)
    if code not in STATUSES:
        return Outcome("status", code, f"exit status {code}", seconds, out)
    return Outcome("ok", code, "", seconds, out)


LORE_PACKAGE = Path(lore.__file__).resolve().parent


def _exception_place(trace: str) -> str:
    """``RecursionError at lore/syntax/printer.py:render`` from a traceback."""
    lines = [line for line in trace.strip().splitlines() if line.strip()]
    exception = lines[-1].split(":")[0].strip() if lines else "?"
    frames = re.findall(r'File "([^"]*)", line \d+, in (\S+)', trace)
    inside = [(path, function) for path, function in frames if _in_lore(path)]
    if not inside:
        return exception
    path, function = inside[-1]
    place = Path(path).resolve().relative_to(LORE_PACKAGE).as_posix()
    return f"{exception} at lore/{place}:{function}"


def _in_lore(path: str) -> bool:
    """Whether a traceback's file is Lore's own code: inside the package's folder, whatever
    the folders above it are called (a checkout named ``lore`` holds tests too)."""
    return Path(path).resolve().is_relative_to(LORE_PACKAGE)


def _mapped() -> int:
    """Bytes of address space this process maps now (Linux), or 0."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def _read(path: Path) -> str:
    try:
        return path.read_bytes()[:200_000].decode("utf-8", errors="replace")
    except OSError:
        return ""


def save_failure(case: Case, outcome: Outcome, folder: Path) -> Path:
    """Write a failing case where it can be run again: its files, the command, what
    happened. Returns its folder (named by the failure's key)."""
    digest = hashlib.sha256(outcome.key(case).encode()).hexdigest()[:12]
    target = folder / f"{outcome.kind}-{digest}"
    target.mkdir(parents=True, exist_ok=True)
    for relative, data in case.files.items():
        path = target / "files" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (target / "stdin").write_bytes(case.stdin)
    (target / "README.txt").write_text(
        f"{case.name}\n\ncd files && lore {' '.join(case.argv)}\n\n"
        f"{outcome.signature(case)}\n{outcome.kind} after {outcome.seconds:.1f} s\n\n"
        f"{outcome.detail}\n",
        encoding="utf-8",
    )
    return target


def describe(case: Case, outcome: Outcome) -> str:
    """A failure in a few lines, for a test's message or the campaign's report."""
    detail = "\n".join(outcome.detail.strip().splitlines()[-12:])
    return (
        f"{outcome.signature(case)} ({outcome.kind} after {outcome.seconds:.1f} s)\n"
        f"  case: {case.name}\n  lore {' '.join(case.argv)}\n{detail}"
    )


# Failures the fuzzer finds in parts of Lore that are being changed elsewhere, by the
# beginning of their signature, with why: they are reported, but do not fail the run.
# Remove an entry once its fix has landed.
KNOWN: dict[str, str] = {}


def known(signature: str) -> str | None:
    """Why a failure is known (see ``KNOWN``), or None for a new one."""
    return next((why for start, why in KNOWN.items() if signature.startswith(start)), None)
