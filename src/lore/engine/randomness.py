"""Random streams: one per event, derived from the session seed and the event's seq.

A handler's dice depend only on (seed, seq), so a handler re-run after an answer, a
replay and a restored session roll exactly the same numbers. The generator is
SplitMix64: tiny state, cheap to create for every event, good statistical quality.
"""

from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


class Stream:
    """The random numbers of one event's handler."""

    __slots__ = ("state",)

    def __init__(self, seed: int, seq: int) -> None:
        self.state = _mix((seed * GOLDEN + seq) & MASK)

    def next64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK
        return _mix(self.state)

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in [low, high] (rejection sampling: no modulo bias)."""
        span = high - low + 1
        if span <= 0:
            raise ValueError("empty range")
        limit = (1 << 64) - ((1 << 64) % span)
        while True:
            value = self.next64()
            if value < limit:
                return low + value % span

    def random(self) -> float:
        return (self.next64() >> 11) / float(1 << 53)
