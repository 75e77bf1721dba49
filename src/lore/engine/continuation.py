"""Steps kept waiting where they asked: the continuation fast path of answers that come
later (a ``Session`` made with ``resumable=True``; the server's).

A step that waits for an answer runs again from its start once the answer comes (the
re-run, see ``docs/design.md``). When a step has one handler and the question is asked
outside any ``foreach`` body, going on from the question is exactly the same as running
the step again: the re-run is deterministic, runs the handler through the same states up
to the question, takes the answer there as a continuation would, and the rest is the
same code on the same state. So the session's runs of steps go on in a greenlet of its
own (the ``Worker``), and when the question of such a handler waits, the greenlet is kept
where it asked and the run returns; the session meanwhile looks exactly as a waiting step
leaves it (what the handler made so far is put aside: its requests, additions, objects
and hooks, and the runtime's place). The next run after the answer switches back: the
question is filled in as the re-run fills an answered one, the handler goes on, and so
does the run of steps, until a question waits again (one switch in, one out, an answer).

Anything else that enters the session while a step is kept (a GM's change to an object, a
system command run in the chat, ``reopen``, ``fire_soon``, a stop) drops it first
(``Session.settle``): the step then runs again from its start, as it always did. So does
an answer that is resumed in another thread than the one the greenlet belongs to.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from greenlet import GreenletExit, getcurrent, greenlet

from lore.syntax.recursion import depth

if TYPE_CHECKING:
    from lore.engine.session import Entry, Runtime, Session
    from lore.runtime.values import LoreObject


class Kept(NamedTuple):
    """What a handler waiting in a worker asked for so far, which a waiting step clears
    (``Runtime.rest``, ``happenings.discard_step``), and the next object id. (A named
    tuple: one is made per answer, and a frozen dataclass of ten fields takes several
    times as long to make.)"""

    first_request: Any
    requests: dict[Any, list[Any]]
    adds: list[Any]
    depth: int
    created: list[Any]
    removing: list[Any]
    hooks: list[tuple[Any, ...]] | None  # those the step added
    stats: list[tuple[Any, ...]] | None  # the counts the step added
    outcome: Any  # the outcome the step reached, or None
    next_oid: int


class Worker:
    """The greenlet a resumable session runs in (its run of steps, in the thread that
    made it: ``run``), and what is kept of the handler waiting in it."""

    __slots__ = ("base", "box", "entries", "filled", "kept", "key", "resumed", "thread")

    def __init__(self) -> None:
        self.thread = greenlet(_work)
        # What goes in and out with a switch: the session to run, then what its run
        # returned (a list the greenlet holds, not the worker, so that a worker nobody
        # holds is freed with its greenlet; and passed in it, not as the switch's value,
        # so that an idle greenlet's frame holds nothing of the session).
        self.box: list[Any] = []
        self.key: Any = None  # the question the kept handler waits for
        # While a handler waits here: what it asked for so far (``Kept``), or, when it
        # asked for, added and made nothing (most often), its depth and the next object
        # id alone. (The runtime's other values, its place, dice and counts, stay as they
        # are: the session runs no rule while a step waits.)
        self.kept: Kept | tuple[int, int] | None = None
        # The spec of the question waited for, filled in by its answer (``Session.answer``;
        # None: the answer is filled in again when the handler goes on).
        self.filled: LoreObject | None = None
        self.entries: list[Entry] | None = None  # the step whose handler runs here now
        self.resumed = False  # the step run now went on where it asked (see run_steps)
        self.base = 0  # the frames below its greenlet's first (see ``run``)

    def go(self, session: Session | None) -> str:
        """Switch to the greenlet, to run ``session`` (None: to go on with the handler
        kept): the end of the run, or ``"waiting"`` (what ``Session.run_steps``
        returns); what the run raised is raised."""
        box = self.box
        if session is not None:
            box.append(session)
        self.thread.switch(box)
        found = box.pop()
        if found.__class__ is Raised:
            raise found.error
        return found  # type: ignore[no-any-return]

    def kill(self) -> None:
        """End the greenlet (the handler kept in it, and the run of steps it is in, unwind:
        no rule has a ``finally``, and the engine lets the unwinding pass, so nothing of
        the session changes). From another thread it cannot be switched to: it ends when
        nothing holds it any more (greenlet kills it in its thread)."""
        thread = self.thread
        self.kept = None
        if thread and not thread.dead and thread.parent is getcurrent():
            thread.throw()


class Raised(NamedTuple):
    """What a run of steps in a worker raised, handed to the caller of ``run``."""

    error: BaseException


def _work(box: list[Any]) -> None:
    """A worker's loop: run the steps of the session in ``box`` (``Session.run_steps``),
    leave there what the run returned or raised, and wait for the next run. (An idle
    worker holds nothing of its session, so a session nobody holds is freed.)"""
    parent = getcurrent().parent
    assert parent is not None
    while True:
        session: Session = box.pop()
        try:
            box.append(session.run_steps())
        except GreenletExit:
            raise  # (dropped: ends the greenlet)
        except BaseException as error:
            box.append(Raised(error))
        del session
        parent.switch()


def run(session: Session, room: int) -> str:
    """``Session.run``'s work in a resumable session: its steps run in the session's
    worker, where a handler that asks is kept (``wait_here``) and, once its answer
    came, goes on (``Worker.go`` of None), then the run of steps with it; a run costs a
    switch to the worker and one back. Python's recursion limit is at least ``room``
    frames above the worker's start while it runs (a greenlet's frames count from where
    it started)."""
    worker = session.worker
    if worker is not None and (worker.thread.dead or worker.thread.parent is not getcurrent()):
        session.settle()  # (another thread's: the kept step, if any, runs again)
        worker = session.worker = None
    if worker is not None and worker.kept is not None:
        if not session.rerun and not session.stop_requested:
            return "waiting"  # for Session.answer (the worker is not switched to)
        if worker.key not in session.step_answers or session.stop_requested:
            session.settle()  # dropped: the step runs again
        else:
            # (``_within`` and ``Worker.go`` of None written out: the path of every
            # answer.)
            wanted = room + worker.base
            limit = sys.getrecursionlimit()
            box = worker.box
            if limit >= wanted:
                worker.thread.switch(box)
            else:
                sys.setrecursionlimit(wanted)
                try:
                    worker.thread.switch(box)
                finally:
                    sys.setrecursionlimit(limit)
            found = box.pop()
            if found.__class__ is Raised:
                raise found.error
            return found  # type: ignore[no-any-return]
    worker = session.worker
    if worker is None:
        worker = session.worker = Worker()
        worker.base = depth() + 2  # (where it starts: in ``go``'s switch)
    return _within(room + worker.base, Worker.go, worker, session)


def _within(wanted: int, go: Callable[[Any, Any], str], first: Any, value: Any) -> str:
    """``go(first, value)`` with Python's recursion limit at least ``wanted``."""
    limit = sys.getrecursionlimit()
    if limit >= wanted:
        return go(first, value)
    sys.setrecursionlimit(wanted)
    try:
        return go(first, value)
    finally:
        sys.setrecursionlimit(limit)


def wait_here(rt: Runtime, key: Any) -> LoreObject | bool:
    """Called where a handler's question waits for an answer (``natives.ask_key``):
    keep the handler here and return once the answer came (the spec the answer filled in,
    when ``Session.answer`` gave it; else True: it is to be filled in), or False when the
    step must wait the usual way (raise ``Suspend``): inside a ``foreach`` body (the other
    bodies are to be asked meanwhile), in an alter, in a system command run by a rule, or
    when the step's additions pass the limit of events waiting (it is dropped).
    Meanwhile the session is as a waiting step leaves it (``keep``), and the run that
    asked returns ``"waiting"``."""
    session = rt.session
    if rt.path or rt.alter_index is not None or rt.roller is not None:
        return False
    worker = session.worker
    assert worker is not None
    entries = worker.entries
    assert entries is not None
    if not (
        rt.first_request is not None
        or rt.adds
        or rt.requests
        or rt.created
        or rt.removing
        or session.hooks
        or session.stats
        or session.outcome is not None
    ):
        # (``keep`` of a handler that asked for, added and made nothing yet, in a session
        # with no hooks, counts or outcome, written out: most.)
        if session.queued > session.limits.max_events:
            return False
        worker.key = key
        session.waiting = entries
        worker.kept = (rt.depth, session.next_oid)
        rt.depth = 0
        rt.suspended = False
    else:
        if len(rt.adds) + session.queued > session.limits.max_events:
            return False
        worker.key = key
        keep(session, worker, entries)
    rt.pausable = False
    parent = worker.thread.parent
    assert parent is not None
    worker.box.append("waiting")
    parent.switch()  # (GreenletExit when the step is dropped meanwhile)
    # The answer came (``run`` went on): the step is as it was where it asked.
    kept = worker.kept
    assert kept is not None
    worker.kept = None
    rt.pausable = True
    if type(kept) is Kept:
        (
            rt.first_request,
            rt.requests,
            rt.adds,
            rt.depth,
            rt.created,
            rt.removing,
            hooks,
            stats,
            outcome,
            session.next_oid,
        ) = kept
        if hooks:
            session.hooks.extend(hooks)
        if stats:
            session.stats.extend(stats)
        if outcome is not None:
            session.outcome = outcome
    else:  # nothing put aside: the runtime's containers are the step's
        rt.depth, session.next_oid = kept[0], kept[-1]  # (the pair: depth, next id)
    session.waiting = None
    session.rerun = False
    worker.resumed = True
    filled = worker.filled
    if filled is None:
        return True
    worker.filled = None
    return filled


def fire_one(session: Session, entries: list[Entry]) -> None:
    """Run a step of one handler (``Session.fire``'s work) where its question can keep
    it: in the session's worker (when the run is there)."""
    worker = session.worker
    if worker is None or worker.thread is not getcurrent():
        session.fire(entries)
        return
    rt = session.rt
    seq, fn, arg = entries[0]
    rt.seq = seq
    rt.index = 0
    rt.ops = 0
    rt.max_adds = len(rt.adds) + session.limits.max_adds
    rt.state = None
    worker.entries = entries
    try:
        suspended = False
        rt.pausable = True
        try:
            fn(rt, arg)
        except Exception as error:
            from lore.engine.session import Suspend  # (only then: it builds on this module)

            if not isinstance(error, Suspend):
                raise
            suspended = True  # a foreach body waits: the step runs again with its answers
            rt.depth = 0
        finally:
            rt.pausable = False
            worker.entries = None
        if not session.fired(entries, suspended):
            return
    except GreenletExit:
        raise  # the kept step is dropped (the session is as the waiting step left it)
    except BaseException as error:
        session.cut_short(entries, error)
        return
    adds = rt.adds
    if adds:
        if len(adds) == 1:  # (most steps add one event: queued as ``queue`` would)
            event = adds[0]
            adds.clear()
            session.push(*event)
        else:
            session.queue(adds)


def keep(session: Session, worker: Worker, entries: list[Entry]) -> None:
    """The handler waits in ``worker``: put aside what it asked for so far, and leave the
    session as a waiting step leaves it (``Session.wait_for_answers``: ``Runtime.rest``
    and ``happenings.discard_step``, written out here: this runs at every answer, and
    ``wait_here`` has found the handler outside any ``foreach`` body and alter, so its
    path and alter index are as ``rest`` leaves them)."""
    rt = session.rt
    step = session.steps
    hooks, stats, outcome = session.hooks, session.stats, session.outcome
    kept_hooks = kept_stats = kept_outcome = None
    if hooks and hooks[-1][0] == step:
        kept_hooks = _of_step(hooks, step)
        del hooks[-len(kept_hooks) :]
    if stats and stats[-1][0] == step:
        kept_stats = _of_step(stats, step)
        del stats[-len(kept_stats) :]
    if outcome is not None and outcome[0] == step:
        kept_outcome = outcome
        session.outcome = None
    requests, adds, created, removing = rt.requests, rt.adds, rt.created, rt.removing
    session.waiting = entries
    if rt.first_request is None and not (
        requests or adds or created or removing or kept_hooks or kept_stats or kept_outcome
    ):
        # Nothing asked for, added or made yet (most handlers kept where they asked):
        # the empty containers stay, and only the depth and next object id are kept.
        worker.kept = (rt.depth, session.next_oid)
    else:
        # (Made as ``Kept(...)`` makes it, without the Python function of its ``__new__``.)
        worker.kept = _new_tuple(
            Kept,
            (
                rt.first_request,
                requests,
                adds,
                rt.depth,
                created,
                removing,
                kept_hooks,
                kept_stats,
                kept_outcome,
                session.next_oid,
            ),
        )
        rt.first_request = None
        # (New containers only for those holding something; an empty one stays.)
        if requests:
            rt.requests = {}
        if adds:
            rt.adds = []
        if created:
            rt.created = []
        if removing:
            rt.removing = []
    rt.depth = 0
    rt.suspended = False


_new_tuple = tuple.__new__


def _of_step(made: list[tuple[Any, ...]], step: int) -> list[tuple[Any, ...]]:
    """The entries of ``made`` (hooks or counts) the step ``step`` added (at its end)."""
    start = len(made)
    while start and made[start - 1][0] == step:
        start -= 1
    return made[start:]
