"""Random streams: one per event, derived from the session seed and the event's seq.

A handler's dice depend only on (seed, seq), so a handler re-run after an answer, a
replay and a restored session roll exactly the same numbers. The generator is
SplitMix64: tiny state, cheap to create for every event, good statistical quality.
"""

from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_WORDS = 1 << 64
# span -> the largest multiple of span that fits in 64 bits, for the usual dice sides.
_LIMITS = {span: _WORDS - (_WORDS % span) for span in range(1, 1025)}


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * _M1) & MASK
    z = ((z ^ (z >> 27)) * _M2) & MASK
    return z ^ (z >> 31)


class Stream:
    """The random numbers of one event's handler."""

    __slots__ = ("state",)

    def __init__(self, seed: int, seq: int) -> None:
        # _mix((seed * GOLDEN + seq) & MASK), written out: a stream is made per event.
        z = (seed * GOLDEN + seq) & MASK
        z = ((z ^ (z >> 30)) * _M1) & MASK
        z = ((z ^ (z >> 27)) * _M2) & MASK
        self.state = z ^ (z >> 31)

    def next64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK
        return _mix(self.state)

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in [low, high] (rejection sampling: no modulo bias)."""
        span = high - low + 1
        limit = _LIMITS.get(span)
        if limit is None:
            if span <= 0:
                raise ValueError("empty range")
            if span > _WORDS:
                return low + self._below(span)
            limit = _WORDS - (_WORDS % span)
        while True:
            # self.next64(), written out: this is the path of every die rolled.
            z = self.state = (self.state + GOLDEN) & MASK
            z = ((z ^ (z >> 30)) * _M1) & MASK
            z = ((z ^ (z >> 27)) * _M2) & MASK
            z ^= z >> 31
            if z < limit:
                return low + z % span

    def _below(self, span: int) -> int:
        """A uniform integer in [0, span) for a span past 64 bits, from several words."""
        words = (span.bit_length() + 63) // 64
        total = 1 << (64 * words)
        limit = total - (total % span)
        while True:
            value = 0
            for _ in range(words):
                value = (value << 64) | self.next64()
            if value < limit:
                return value % span

    def random(self) -> float:
        return (self.next64() >> 11) / float(1 << 53)
