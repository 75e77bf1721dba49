"""An opt-in recorder of what holds a server's answers back: collector passes, event-loop
stalls, the store's commits, snapshots taken on the loop.

Off unless the environment names a file in ``LORE_TRACE`` (``benchmarks/server.py
--trace`` does): then each such event is a line of that file, ``kind start seconds
detail``, its start on ``time.perf_counter``'s clock (the system's monotonic clock, the
same in every process of the machine, so a load generator can lay its answers' latencies
beside it). Lines are kept in memory and written out about once a second from the event
loop; recording costs an append per event, and nothing at all when off.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from typing import Any, TextIO

STALL = 0.005  # seconds late a tick of the loop's watch must be to count as a stall
TICK = 0.005  # seconds between the watch's ticks
FLUSH = 1.0  # seconds between writes of the file


class Recorder:
    """The events noted so far, and the file they go to."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.lines: list[str] = []
        self.gc_start = 0.0
        self.gc_cpu = 0.0

    def note(self, kind: str, start: float, seconds: float, detail: object = "") -> None:
        # (list.append is atomic: the store's thread notes its commits here too)
        self.lines.append(f"{kind} {start:.6f} {seconds:.6f} {detail}\n")

    def flush(self) -> None:
        lines, self.lines = self.lines, []
        self.out.writelines(lines)
        self.out.flush()

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        """A collector pass, with the CPU time it took (its thread's: what the machine's
        other work changes least) and the objects it freed."""
        if phase == "start":
            self.gc_start, self.gc_cpu = time.perf_counter(), time.thread_time()
        else:
            took, cpu = time.perf_counter() - self.gc_start, time.thread_time() - self.gc_cpu
            detail = f"{cpu:.6f} {info['collected']}"
            self.note(f"gc{info['generation']}", self.gc_start, took, detail)

    async def watch(self) -> None:
        """Tick every ``TICK``: a tick late by more than ``STALL`` is a stall of the loop
        (a step, a collection, a long callback held it); write the file now and then."""
        loop = asyncio.get_running_loop()
        flushed = loop.time()
        while True:
            before, cpu = time.perf_counter(), time.process_time()
            await asyncio.sleep(TICK)
            late = time.perf_counter() - before - TICK
            if late > STALL:  # (with the process's CPU time meanwhile: little of it, and
                # the process was kept waiting: by the machine's other work, say)
                self.note("stall", before + TICK, late, f"{time.process_time() - cpu:.4f}")
            if loop.time() - flushed > FLUSH:
                flushed = loop.time()
                self.flush()


recorder: Recorder | None = None


def start(suffix: str = "") -> Recorder | None:
    """Start recording when ``LORE_TRACE`` names a file (on the event loop: the caller
    keeps ``recorder.watch()`` running as a task); a worker of several records in a file
    of its own, the name with ``suffix`` (``.w1``) after it."""
    global recorder
    path = os.environ.get("LORE_TRACE")
    if not path:
        return None
    recorder = Recorder(open(path + suffix, "w", encoding="utf-8"))  # noqa: SIM115 (kept open)
    gc.callbacks.append(recorder.on_gc)
    return recorder
