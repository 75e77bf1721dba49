"""Resources for working on big trees: stack room, and the collector paused.

The parser accepts up to 200 levels of nesting; walking such a tree recursively (to print,
check or compile it) takes several Python frames a level, more than Python's default
limit of 1000. Each walker runs inside ``deeper()``.

Parsing, checking and compiling a file make hundreds of thousands of small objects and
free few of them before they end, so the cyclic garbage collector would run again and
again over the growing tree and find nothing: about half the time of a 50,000-line file.
``collector_paused()`` lets it look at the new objects once, afterwards (Mercurial's
``util.nogc`` does the same).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

RECURSION_LIMIT = 10_000


@contextmanager
def deeper() -> Iterator[None]:
    limit = sys.getrecursionlimit()
    if limit < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        yield
    finally:
        if limit < RECURSION_LIMIT:
            sys.setrecursionlimit(limit)


class room_for:
    """Python's recursion limit at least ``frames`` above the current depth while the
    ``with`` block runs (rules run as Python code: a rule that calls itself 10,000 deep
    takes that many Python frames). The frames live on the heap; only calls that go
    through C code take room on the machine's stack, and rules avoid those.

    A class, not a generator: a session runs inside it at every answer, so it costs
    little (the depth is found by asking for frames that deep, not by walking them in
    Python, which would make an object of every frame on the way).
    """

    def __init__(self, frames: int) -> None:
        self.frames = frames
        self.limit = self.wanted = 0

    def __enter__(self) -> None:
        self.limit = sys.getrecursionlimit()
        self.wanted = depth() + self.frames
        if self.limit < self.wanted:
            sys.setrecursionlimit(self.wanted)

    def __exit__(self, *exc: object) -> None:
        if self.limit < self.wanted:
            sys.setrecursionlimit(self.limit)


_last = [1]  # the depth found last: the same code is most often called from the same place


def depth() -> int:
    """How many Python frames the calling code runs under (itself included)."""
    guess = _last[0]
    if _reaches(guess) and not _reaches(guess + 1):
        return guess
    below, above = 1, 2  # a frame that deep exists (from the caller's), one that deep not known
    while _reaches(above):
        below, above = above, above * 2
    while above - below > 1:
        middle = (below + above) // 2
        if _reaches(middle):
            below = middle
        else:
            above = middle
    _last[0] = below
    return below


def _reaches(frames: int) -> bool:
    """Whether the caller of ``depth`` runs under ``frames`` frames or more."""
    try:
        sys._getframe(frames + 1)  # this function's frame and depth's are not counted
    except ValueError:
        return False
    return True


class collector_paused:
    """Pause the cyclic collector for the ``with`` block (if it was running).

    A class, not a generator: leaving a generator-based context raises StopIteration, and
    that allocation right after the collector resumes would start a collection over the
    whole new tree at once, on top of the one its next user makes.
    """

    def __enter__(self) -> None:
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.paused:
            gc.enable()
