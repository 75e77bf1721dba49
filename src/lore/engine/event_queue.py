"""The queue of events waiting: each step's ``(ticks, priority)`` as one whole number in a
heap, and each step's events in a bucket."""

from __future__ import annotations

from typing import Any

from lore.runtime.errors import RuleError
from lore.runtime.ops import NARROW_PRIORITY, Handler

# A step's (ticks, priority) as the queue keys it: one whole number, ticks * 2^shift +
# priority + bias, ordered as the pairs are (a heap of numbers is far quicker than one of
# pairs). Priorities are whole numbers of 64 bits, checked where events are added. Two
# layouts: *wide* (shift 64, bias 2^63) holds any priority; *narrow* (shift 8, bias 2^7)
# holds priorities -128 to 127 (what rules use), and keeps the keys of the first 48 days of
# game time within one digit of a Python number (2^30), where comparing, shifting and adding
# take the interpreter's quick paths (a step of one event does a dozen of them). A session
# starts narrow and turns wide for good when a priority outside that range comes
# (``Session.fit``); both layouts order the keys alike, so the heap stays a heap. A snapshot
# holds the wide keys, whichever the session has.
KEY_SHIFT = 64
BIAS = 1 << 63
NARROW_SHIFT = 8
NARROW_BIAS = NARROW_PRIORITY
FAR = 1 << 1024  # past any key a session reaches

Entry = tuple[int, Handler, Any]  # an event waiting: seq, fn, arg (run as fn(rt, arg))
# The events of one (ticks, priority) in the queue: the entry of the only one (most
# steps), or a list of several in seq order.
Bucket = Entry | list[Entry]


def entries_of(bucket: Bucket) -> list[Entry]:
    """The events of a bucket of the queue, as a list (see ``Bucket``)."""
    return bucket if isinstance(bucket, list) else [bucket]


def priority_error(priority: int) -> RuleError:
    return RuleError(
        f"an event's priority must be between -2^63 and 2^63-1, not {priority}",
        "priorities only order the events of one time: small numbers do",
    )
