"""Uploads are checked apart: in a child process with CPU, memory and time limits, off the
event loop and out of the server's memory.

``lore check`` of a bundle a stranger sent may take long and much memory (a 4 KB zip can
unpack to a 4 MB Lore file that takes the checker tens of seconds and more than a GB):
done in the server's process, it held up every session. Here it runs in a process forked
from a small server process (multiprocessing's ``forkserver``: no threads or event loop
of the server's in it, Lore already imported), with ``RLIMIT_CPU`` and ``RLIMIT_AS`` set
and a wall-clock deadline; one upload is checked at a time. A bundle that fails, or that
the child could not check within its limits, is refused with the reason and nothing of it
is kept; one that passes is then compiled by the server as before (its check repeated in
the server's process costs what the child's did, at most its limits).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import resource
import shutil
import tempfile
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from lore.server.bundles import BundleError, Problem, checked, confined, materialize


@dataclass(frozen=True)
class CheckLimits:
    cpu: int = 20  # seconds of CPU time for one upload's check
    memory: int = 1024 * 1024 * 1024  # bytes of address space of the checking process
    wall: float = 60.0  # seconds in all (a child starved of the CPU still ends)


class Uploads:
    """The server's checks of uploads: one at a time, each in a child of its own."""

    def __init__(self, limits: CheckLimits | None = None) -> None:
        self.limits = limits or CheckLimits()
        self.one_at_a_time = asyncio.Lock()

    async def check(self, files: dict[str, bytes], entry: str) -> None:
        """Check a bundle in a child process (BundleError with its problems, or with why
        the child could not finish)."""
        async with self.one_at_a_time:
            problems = await asyncio.to_thread(_run_child, files, entry, self.limits)
        if problems:
            raise BundleError(problems)


def _run_child(files: dict[str, bytes], entry: str, limits: CheckLimits) -> list[Problem]:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["lore.server.checking"])  # (once: when it starts)
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(
        target=_check_in_child, args=(files, entry, limits, sending), daemon=True
    )
    child.start()
    sending.close()
    try:
        if receiving.poll(limits.wall):
            try:
                found: list[Problem] = receiving.recv()
                return found
            except (EOFError, OSError):
                pass  # (the child died before it said anything: told below)
        child.join(1.0)
        return [Problem(_why_it_stopped(child.exitcode, limits))]
    finally:
        receiving.close()
        if child.is_alive():
            child.kill()
        child.join()
        child.close()


def _why_it_stopped(code: int | None, limits: CheckLimits) -> str:
    if code is None:
        return f"checking the bundle took over {limits.wall:g} seconds: it is refused"
    if code == -24:  # SIGXCPU
        return f"checking the bundle took over {limits.cpu} seconds of CPU time: it is refused"
    return (
        f"checking the bundle needed more than {limits.memory // 2**20} MiB of memory"
        " (or failed): it is refused"
    )


def _check_in_child(
    files: dict[str, bytes], entry: str, limits: CheckLimits, sending: Connection
) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu, limits.cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
    folder = Path(tempfile.mkdtemp(prefix="lore-check-"))
    try:
        problems = confined(files)
        if not problems:
            try:
                checked(materialize(folder, "bundle", files), entry)
            except BundleError as error:
                problems = error.problems
        sending.send(problems)
    except MemoryError:
        pass  # (the parent says the memory ran out)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        sending.close()
