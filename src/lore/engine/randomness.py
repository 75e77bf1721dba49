"""Random numbers: where each handler's dice come from.

A handler's dice depend only on the session seed, the step it runs in and its place in
the step, so a handler re-run after an answer, a replay and a restored session roll
exactly the same numbers, whatever the other handlers draw.

- Step ``s`` of a session has a block of random 64-bit words: the SHAKE-128 output of
  ``"lore-dice:<seed>:<s>"``, read as little-endian words (``block``). The values of the
  program, computed before the first step, use step 0.
- The handler at place ``i`` of the step (the alters of the update phase come after the
  handlers, in the order they run) takes word ``i`` as its first draw. Its further draws
  continue as a SplitMix64 sequence from that word: the state goes up by ``GOLDEN`` and
  each value is the SplitMix64 finaliser of the state (``mix``).

So the first die of every handler costs a fraction of one hash for the whole step, and a
handler's later dice one finaliser each. A uniform number in a range is drawn by
rejection (no modulo bias; ``below``).

The bots' answers come from streams of their own (``Stream``), apart from the dice, so
that replaying the answers from a log rolls the same dice.
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
STRIDE = (GOLDEN * GOLDEN) & MASK
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB
WORDS = 1 << 64
# span -> the largest multiple of span that fits in 64 bits, for the usual dice sides.
LIMITS = {span: WORDS - (WORDS % span) for span in range(1, 1025)}

_WORD = array("Q")
if _WORD.itemsize != 8:  # pragma: no cover - every platform CPython supports has one
    raise ImportError("the random words need an 8-byte array type")


def mix(z: int) -> int:
    """The SplitMix64 finaliser (Stafford's variant 13) of a 64-bit word."""
    z = ((z ^ (z >> 30)) * M1) & MASK
    z = ((z ^ (z >> 27)) * M2) & MASK
    return z ^ (z >> 31)


def block(seed: int, step: int, count: int) -> Sequence[int]:
    """The first ``count`` random words of step ``step`` (a longer block of the same step
    begins with the same words). Kept as 8-byte words: a step of a million handlers
    holds 8 MB of them, not the 40 MB of a list of Python integers."""
    digest = _prefix(seed).copy()  # the hash of "lore-dice:<seed>:" goes on with the step
    digest.update(str(step).encode())
    if count == 1:  # most steps run one handler
        return (int.from_bytes(digest.digest(8), "little"),)
    words = array("Q")
    words.frombytes(digest.digest(8 * count))
    if sys.byteorder == "big":  # pragma: no cover
        words.byteswap()
    return words


@lru_cache(maxsize=64)
def _prefix(seed: int) -> Any:
    return hashlib.shake_128(f"lore-dice:{seed}:".encode())


def below(draw: Callable[[], int], span: int) -> int:
    """A uniform integer in [0, span) from 64-bit words (rejection sampling: no modulo
    bias; spans past 64 bits take several words)."""
    if span <= 0:
        raise ValueError("empty range")
    if span > WORDS:
        words = (span.bit_length() + 63) // 64
        total = 1 << (64 * words)
        limit = total - (total % span)
        while True:
            value = 0
            for _ in range(words):
                value = (value << 64) | draw()
            if value < limit:
                return value % span
    limit = LIMITS.get(span) or WORDS - (WORDS % span)
    while True:
        z = draw()
        if z < limit:
            return z % span


class Stream:
    """A random stream on its own: SplitMix64 from a key and a number (the bots' choices
    use the session's choices key and the event's seq). Streams of one key start
    ``STRIDE`` apart: a golden-ratio Weyl sequence over the 2^64 states, so for any two of
    the first 10^9 numbers they are more than 2^32 draws apart."""

    __slots__ = ("state",)

    def __init__(self, key: int, number: int) -> None:
        self.state = (key + number * STRIDE) & MASK

    def next64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK
        return mix(self.state)

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in [low, high]."""
        return low + below(self.next64, high - low + 1)


def path_key(key: int, path: tuple[int, ...]) -> int:
    """The key of the stream of a ``foreach`` body at ``path`` (its index in each
    enclosing ``foreach``), from the key of its handler's stream."""
    for index in path:
        key = mix((key + (index + 1) * STRIDE) & MASK)
    return key


def stream_key(seed: int, salt: int) -> int:
    """The key of a family of streams of a session (its seed and a salt)."""
    return mix((mix(seed & MASK) ^ salt) & MASK)
