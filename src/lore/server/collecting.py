"""The cyclic collector while serving: short young passes, no long ones.

A server holds every session's state (hundreds of thousands of objects), and each answer
makes a few objects that live on for a while (the transcript records kept until the next
snapshot, the step kept waiting for its answer): Python's collector goes through those
again in its older generations, and a pass of the middle generation took 100 to 300 ms in
``benchmarks/server.py`` (every session's answer in flight waits for it: the latency's
tail). Here the young generation is collected every ``YOUNG`` new objects (net of
those freed meanwhile), and what survives a young pass is frozen (``gc.freeze``: moved
where no pass looks), so a pass only ever goes through the objects made since the one
before: no middle or full passes by count. In-process (``Table.apply``, 200 tables,
60,000 answers, CPU time): young passes of 15.5 ms (p50; 39 ms at most) and 10.9 us of
collector per answer, against 24.5 ms (50 at most), a middle pass of 149 ms, and 9.8 us
per answer with thresholds of 20,000/20/10. (Smaller young passes cost more in all: more
objects are still alive when they come; 5,000 took 11.5 ms a pass and 16.4 us an answer.)

Frozen objects are still freed by reference counting when they die (a session's state
does not form garbage cycles: the young passes find none); a cycle that became garbage
only after it was frozen would stay. So, once the interpreter's memory blocks have grown
by ``GROWTH`` times since the last full pass, everything is unfrozen and collected once
(on the event loop: ``full_if_due``), then frozen again: what such cycles can hold stays
within the live objects' size, as with Python's own rule for its oldest generation. That
pass goes through every object (a fifth of a second for 200 sessions): it waits for a
quiet moment of the loop (a pause then delays few answers), unless the memory grew by
``GROWTH`` times again meanwhile.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

YOUNG = 10_000  # new objects between young passes (Python's default is 700)
NEVER = 1 << 30  # the older generations' thresholds: they are never collected by count
GROWTH = 2.0  # memory blocks grown by this factor since the last full pass: one is due


class Collector:
    """The collector's policy while serving (``serve``): installed once."""

    def __init__(self, young: int = YOUNG, growth: float = GROWTH) -> None:
        self.young = young
        self.growth = growth
        self.blocks = 0  # the interpreter's memory blocks after the last full pass
        self.due = False  # a full pass is due (done by ``full_if_due``)
        self.full_passes = 0

    def install(self) -> None:
        """Collect and freeze what is there, and collect only new objects from now on."""
        self.full()
        gc.set_threshold(self.young, NEVER, NEVER)
        gc.callbacks.append(self.after)

    def uninstall(self) -> None:
        if self.after in gc.callbacks:
            gc.callbacks.remove(self.after)
        gc.unfreeze()

    def after(self, phase: str, info: dict[str, Any]) -> None:
        """After a pass (of any thread): freeze its survivors; note whether the memory grew
        enough for a full pass (which cannot run here: the collector is busy)."""
        if phase != "stop":
            return
        gc.freeze()
        if sys.getallocatedblocks() > self.growth * self.blocks:
            self.due = True

    def ask(self) -> None:
        """Make a full pass soon: many objects were let go of at once (rooms unloaded:
        ``unloading.py``), and the cycles among them, frozen, are freed only by one."""
        self.due = True

    def full_if_due(self, quiet: bool = True) -> bool:
        """Make the full pass if one is due (called on the event loop now and then) and
        the loop is ``quiet``, or if it is overdue (the memory grew ``GROWTH`` times more
        since it was due); whether it was made."""
        if not self.due:
            return False
        if not quiet and sys.getallocatedblocks() <= self.growth**2 * self.blocks:
            return False
        self.full()
        return True

    def full(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.blocks = sys.getallocatedblocks()
        self.due = False
        self.full_passes += 1
