"""The queue of events waiting: each step's ``(ticks, priority)`` as one whole number in a
heap, and each step's events in a bucket (the session's ``keys`` and ``buckets``), with
what adds to it, takes from it and counts it."""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

from lore.runtime.errors import RuleError
from lore.runtime.ops import NARROW_PRIORITY, Handler

if TYPE_CHECKING:
    from lore.engine.session import Session

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


def push(session: Session, ticks: int, priority: int, fn: Any, arg: Any) -> None:
    if not -session.bias <= priority < session.bias:
        session.fit(priority)
    key = (ticks << session.shift) + priority + session.bias
    bucket = session.buckets.get(key)
    entry = (next(session.seqs), fn, arg)
    if bucket is None:
        session.buckets[key] = entry
        heapq.heappush(session.keys, key)
    elif isinstance(bucket, list):
        bucket.append(entry)
    else:
        session.buckets[key] = [bucket, entry]
    session.queued += 1


def fit(session: Session, priority: int) -> None:
    """Make the queue's keys hold ``priority``: a narrow queue turns wide (see
    ``KEY_SHIFT``); a priority past 64 bits is an error. A step of one event being run
    (``singles``) sees ``rt.rare`` and takes the new layout."""
    if -session.bias <= priority < session.bias:
        return
    if not -BIAS <= priority < BIAS:
        raise priority_error(priority)
    session.rekey(KEY_SHIFT, BIAS)
    session.rt.rare = True


def key_parts(session: Session, key: int) -> tuple[int, int]:
    """The (ticks, priority) of a step's key in the queue."""
    return key >> session.shift, (key & ((1 << session.shift) - 1)) - session.bias


def rekey(session: Session, shift: int, bias: int) -> None:
    """Give the queue's keys the layout of ``shift`` and ``bias``, in place (a step
    being run holds the heap and the buckets). The order of the keys stays, so the
    heap needs no sorting."""
    parts = session.key_parts
    session.keys[:] = [(t << shift) + p + bias for t, p in map(parts, session.keys)]
    buckets = list(session.buckets.items())
    session.buckets.clear()
    for key, bucket in buckets:
        ticks, priority = parts(key)
        session.buckets[(ticks << shift) + priority + bias] = bucket
    session.shift, session.bias = shift, bias


def wide_queue(session: Session) -> tuple[list[int], dict[int, Bucket]]:
    """The queue's heap and buckets with wide keys (what a snapshot holds)."""
    if session.shift == KEY_SHIFT:
        return session.keys, session.buckets
    parts = session.key_parts

    def wide(key: int) -> int:
        ticks, priority = parts(key)
        return (ticks << KEY_SHIFT) + priority + BIAS

    return [wide(key) for key in session.keys], {wide(k): b for k, b in session.buckets.items()}


def narrow_restored(session: Session) -> None:
    """After a restore put a snapshot's (wide) keys in the queue: narrow them when
    every priority waiting fits (as a session that never saw a wide one has them)."""
    session.shift, session.bias = KEY_SHIFT, BIAS
    if all(-NARROW_BIAS <= session.key_parts(key)[1] < NARROW_BIAS for key in session.buckets):
        session.rekey(NARROW_SHIFT, NARROW_BIAS)


def pending(session: Session) -> int:
    """How many events wait (not counting a step that waits for answers). While a step
    of one event runs, it may count that event too (see ``singles``)."""
    return session.queued


def count_waiting(session: Session) -> int:
    """How many events wait, counted in the queue (``pending`` while a step runs)."""
    return sum(len(b) if isinstance(b, list) else 1 for b in session.buckets.values())


def queue(session: Session, adds: list[tuple[int, int, Any, Any]]) -> None:
    """Queue the events a step added (and empty ``adds``). They are taken from the end
    of the reversed list, so that a big step does not hold them all and all the
    entries they become at once."""
    buckets, keys, seqs = session.buckets, session.keys, session.seqs
    last_ticks: int | None = None
    last_priority = 0
    key = 0
    bucket: list[Entry] | None = None  # the list of the last key, once it has one
    session.queued += len(adds)
    adds.reverse()
    pop = adds.pop
    while adds:
        ticks, priority, fn, arg = pop()
        entry = (next(seqs), fn, arg)
        if ticks != last_ticks or priority != last_priority:
            last_ticks, last_priority = ticks, priority
            if not -session.bias <= priority < session.bias:
                session.fit(priority)
            key = (ticks << session.shift) + priority + session.bias
            bucket = None
        elif bucket is not None:
            bucket.append(entry)
            continue
        found = buckets.get(key)
        if found is None:
            buckets[key] = entry
            heapq.heappush(keys, key)
        elif isinstance(found, list):
            found.append(entry)
            bucket = found
        else:
            bucket = buckets[key] = [found, entry]


def drop_waiting(session: Session, handlers: set[Any]) -> int:
    """Drop the waiting events whose handler is one of ``handlers`` (events that
    multiply: dropping only the step that passed the limit would leave the others
    to multiply again); how many were dropped."""
    dropped = 0
    for key in list(session.buckets):
        bucket = entries_of(session.buckets[key])
        kept = [entry for entry in bucket if entry[1] not in handlers]
        dropped += len(bucket) - len(kept)
        if len(kept) > 1:
            session.buckets[key] = kept
        elif kept:
            session.buckets[key] = kept[0]
        else:
            del session.buckets[key]
    if dropped:
        session.keys = list(session.buckets)
        heapq.heapify(session.keys)
        session.queued -= dropped
    return dropped
