"""The fast path: steps of one event (most steps of a session) run in one loop.

``singles`` runs each such step as ``Session.begin``, ``fire`` and ``update`` would, paying
only for what it uses; any other step goes back to the general path. A resumable session
never takes it (its steps run one by one, in its worker): ``tests/engine`` compares the
two on the same programs.
"""

from __future__ import annotations

import heapq
import math
import sys
from sys import getrefcount
from typing import TYPE_CHECKING, Any

from lore.engine import happenings, update_phase
from lore.engine.event_queue import FAR, entries_of
from lore.engine.handler_runtime import Suspend
from lore.runtime.ops import GROUPED
from lore.runtime.quantity import Quantity

if TYPE_CHECKING:
    from lore.engine.session import Session

# The references to the clock's quantity (``schedule.current``) when the session holds it
# alone: the schedule's ``ticks``, ``Runtime.now``, the step's local and getrefcount's
# argument. A step of one event then gives it its new time in place rather than making a
# new quantity each step (no rule can tell: none holds the old one).
HELD_NOW = 4
# The most steps one call of ``singles`` counts (a range of machine integers is the quick one).
MAX_STEP = sys.maxsize - 1


def singles(session: Session, max_steps: float, max_ticks: float) -> None:
    """Run the next steps, while the run goes on (no answer awaited, no limit or
    outcome reached, no stop asked for). A step of one event (most steps of a session)
    is run right here, as ``begin``, ``fire`` and ``update`` would: it pays only for
    what it uses (the step opened, its handler, its one alter when it requested one,
    the queueing of what it added). Other steps return after ``begin``, and so does
    a step after one that asked or told something (``opened`` clears what it kept)."""
    rt = session.rt
    keys, buckets, seqs = session.keys, session.buckets, session.seqs
    limits = session.limits
    max_events, max_at_once = limits.max_events, limits.max_steps_at_once
    heappop, heapreplace = heapq.heappop, heapq.heapreplace
    clock = rt.schedule.values  # type: ignore[union-attr]
    time = session.time
    adds = rt.adds
    hooks = session.hooks  # (changed in place only)
    # Handlers' one-event variants (see ``CompiledProgram.ones``): they add their one
    # event without looking at the limit of events a handler adds, so not below one;
    # and they may draw their first die as the seed's dice give it (not given dice).
    ones = session.program.ones if limits.max_adds >= 1 and rt.own_dice else {}
    rt.max_adds = limits.max_adds  # what opened sets (only fire changes it)
    # A step of one event draws at place 0 (the first words of its group, not the
    # step's own block): only the non-plain alter path moves to place 1, and puts
    # these back when its alter is done.
    rt.index = 0
    rt.block = None
    # (Globals as locals: quicker to read.)
    held, refcount = HELD_NOW, getrefcount
    shift, bias = session.shift, session.bias
    low_bits = (1 << shift) - 1
    grouped, tuple_ = GROUPED, tuple
    # The first key past max_ticks (keys[0] >> shift > max_ticks, without a shift),
    # as a whole number (quicker to compare with one than infinity is), and the step
    # count to stop at (the loop counts the steps up to it; past the largest machine
    # integer, singles returns after that many steps: run_steps still checks them).
    end = FAR if max_ticks == math.inf else (int(max_ticks) + 1) << shift
    last = MAX_STEP if max_steps >= MAX_STEP else int(max_steps)
    if (
        session.step_answers
        or session.asked
        or session.told
        or session.open
        or rt.counts is not None
    ):
        key = heappop(keys)  # the last step asked or told: ``opened`` clears that
        session.begin(key, entries_of(buckets.pop(key)))
        return
    # (What set it is gone now, unless the session comes with it: an outcome restored.)
    rt.rare = session.outcome is not None or bool(rt.created) or bool(rt.removing)
    session.step_size = 1  # (begin sets it for the other steps)
    # While a step of one event runs, ``queued`` still counts its event (most such
    # steps add one event: the count is then left as it was); the waiting limit is
    # checked against one more, and the other ends of the step take it off.
    over = max_events + 1
    room = over - session.queued  # (as long as ``queued`` stays as it is)
    low: int | None = None  # the priority part of the last key (its step's priority)
    # The step's key stays at the top of the heap while its handler and alter run (no
    # rule reaches the heap): a step that adds one event at a new time then replaces
    # it there (one sift instead of a pop and a push). Every other way out takes it
    # off first, and an error takes it off if it is still there (keys are unique).
    # ``key``: the step's, read from the heap's top where the last step ended; ``now``:
    # the clock's quantity, which the schedule's ``ticks`` holds (only the engine
    # writes it: no alter of a Schedule does; a change from outside between runs, or
    # a restore that made two equal quantities, is undone here, as a step would).
    key = keys[0]
    now: Any = rt.now  # (a Quantity, its value written in place below)
    if clock["ticks"] is not now:
        clock["ticks"] = now
    for steps in range(session.steps + 1, last + 1):  # (the number of the step run now)
        entry = buckets.pop(key)
        if entry.__class__ is not tuple_:
            heappop(keys)
            session.begin(key, entries_of(entry))
            return
        # ``opened`` written out (``rt.counts`` is None: the last step asked nothing).
        # The step's first object id is kept for the paths where it waits.
        ticks = key >> shift
        if ticks == session.ticks and steps > 1:
            at_once = session.at_once + 1
            if at_once > max_at_once:  # one step too many at this time: dropped
                heappop(keys)
                session.opened(key, [entry])
                return
            session.at_once = at_once
        else:
            session.at_once = 1
        session.ticks = rt.tick = ticks
        if key & low_bits != low:  # (only the engine writes the priorities)
            low = key & low_bits
            session.priority = clock["priority"] = low - bias
        session.steps = steps
        if refcount(now) == held:
            # Held by nothing else: the same object, moved on (its slot written as
            # an attribute: far quicker than through the slot's descriptor).
            now.value = ticks
        else:
            now = clock["ticks"] = rt.now = Quantity(ticks, "sec", time)
        first_oid = session.next_oid
        seq, fn, arg = entry
        rt.seq = seq
        rt.ops = 0
        rt.state = None
        try:
            try:
                # (Its variant holds its one request and event, and applies the first
                # itself as this step's update would: only where that update would run
                # no hook and the event is room for one more.)
                if (one := ones.get(fn)) is not None and room > 0 and not hooks:
                    event = one(rt, arg)
                else:
                    fn(rt, arg)
                    event = None
            except Suspend:
                heappop(keys)
                session.queued -= 1
                rt.depth = 0
                session.step_oid = first_oid
                if len(adds) + session.queued > max_events:
                    session.too_many([entry])
                session.wait_for_answers([entry])
                return
            if event is not None:
                added = 1
                if rt.rare:  # (the general ending takes it, with what the step made)
                    adds.append(event)
                    event = None
                first = None
            else:
                added = len(adds)  # (taken again where the update may add events)
                if added > room:
                    session.too_many([entry])
                first = rt.first_request
            if first is not None:
                if first is grouped or hooks:
                    update_phase.update(session)
                    rt.index = 0  # (see above)
                    rt.block = None
                    added = len(adds)
                else:  # alter_one written out, to its common end
                    rt.first_request = None
                    obj, alter, value = first
                    apply = obj.form.plain_table.get(alter)
                    if apply is not None:  # it needs no place, and writes itself
                        apply(rt, obj, (value,))
                    else:
                        form = obj.form
                        rt.alter_index = 0
                        rt.index = 1  # the place after the step's one handler
                        rt.state = None
                        rt.ops = 0
                        apply = form.apply_table.get(alter)
                        if apply is not None:  # it writes what it modifies itself
                            modifications = apply(rt, obj, (value,))
                            rt.alter_index = None
                            if modifications is not None:  # it requested an alter
                                update_phase.altered_one(session, (obj, alter), modifications)
                        else:
                            run = form.vtable.get(alter) or form.resolve()[alter]
                            modifications = run(rt, obj, (value,))
                            rt.alter_index = None
                            if rt.first_request is not None or "location" in modifications:
                                update_phase.altered_one(session, (obj, alter), modifications)
                            else:
                                obj.values.update(modifications)
                        rt.index = 0  # (see above)
                        rt.block = None
                        added = len(adds)
                    if alter not in obj.altered:
                        update_phase.note_altered(session, ((obj, alter),))
            if rt.rare:
                if rt.created or rt.removing:
                    happenings.after_step(session)
                    added = len(adds)
                if session.shift != shift:  # a priority made the keys wide (``fit``)
                    added = -1  # queued below by ``queue``, which keys them so
        except BaseException as error:
            if session.shift != shift:  # (as above: the step's key is wide now)
                key = ((key >> shift) << session.shift) + (key & low_bits) - bias + session.bias
            if keys and keys[0] == key:
                heappop(keys)
            session.queued -= 1
            session.step_oid = first_oid
            session.cut_short([entry], error)
            return
        if event is None and added == 1:
            event = adds[0]
            # (Not pop: a list that pop empties keeps a 0-byte buffer from the C
            # allocator, which each append and pop then reallocates, far slower.)
            adds.clear()
        if event is not None:  # session.push written out (``queued`` is as it was)
            ticks, priority, fn, arg = event
            key = (ticks << shift) + priority + bias
            entry = (next(seqs), fn, arg)
            bucket = buckets.setdefault(key, entry)  # (one look-up of the key)
            if bucket is entry:
                heapreplace(keys, key)  # the step's key goes, this one comes
            else:
                heappop(keys)
                if bucket.__class__ is list:
                    bucket.append(entry)
                else:
                    buckets[key] = [bucket, entry]  # type: ignore[list-item]
        else:
            heappop(keys)
            if adds:
                session.queue(adds)
            session.queued -= 1
            room = over - session.queued
            if not keys:
                return
        if (key := keys[0]) >= end or rt.rare or session.stop_requested:
            return
