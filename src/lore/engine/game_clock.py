"""Game time as people read it: ticks are game seconds, shown as a day and a clock.

``Day 1, 00:45`` is tick 2,700, as the web client shows it (its ``clockText``, in English);
``lore run`` and ``lore join`` print it so. Transcripts keep the ticks.
"""

from __future__ import annotations

SECONDS_A_DAY = 86_400


def clock_text(tick: int) -> str:
    """``tick`` as ``Day D, HH:MM`` (day 1 starts at tick 0; seconds are not shown)."""
    day, rest = divmod(tick, SECONDS_A_DAY)
    return f"Day {day + 1}, {rest // 3600:02d}:{rest % 3600 // 60:02d}"
