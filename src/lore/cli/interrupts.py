"""Signals during ``lore run``: Ctrl-C (SIGINT), SIGTERM and SIGHUP (the terminal closed)
stop the session the same way, and it is saved.

A signal never cuts a step in two: while the terminal waits for an answer it interrupts
the read (the step then waits, to run again from its start when the session goes on);
otherwise the session stops before its next step. A second signal before that happens
interrupts at once (a rule running long).
"""

from __future__ import annotations

import signal
from types import FrameType, TracebackType
from typing import Any

from lore.cli import take_ctrl_c
from lore.cli.terminal import Terminal
from lore.engine.session import Session

SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupts:
    """Within ``with``: the signals stop ``session`` (``received`` tells which)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.received: int | None = None
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> Interrupts:
        for number in SIGNALS:
            try:
                self.previous[number] = signal.signal(number, self.handle)
            except (OSError, ValueError):  # not the main thread, or not allowed here
                continue
        if signal.SIGINT in self.previous and take_ctrl_c():
            self.handle(signal.SIGINT, None)  # as the session loaded, and swallowed
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)

    def handle(self, number: int, frame: FrameType | None) -> None:
        first = self.received is None
        self.received = number
        self.session.stop_requested = True  # the run stops before its next step
        if self.session.running and (Terminal.reading or not first):
            raise KeyboardInterrupt  # (not while the save is written: that must finish)

    @property
    def status(self) -> int | None:
        """The exit status after the signal received (128 + its number), or None."""
        return 128 + self.received if self.received is not None else None
