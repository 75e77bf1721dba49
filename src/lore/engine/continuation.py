"""Steps kept waiting where they asked: the continuation fast path of answers that come
later (a ``Session`` made with ``resumable=True``; the server's).

A step that waits for an answer runs again from its start once the answer comes (the
re-run, see ``docs/design.md``). When a step has one handler and the question is asked
outside any ``foreach`` body, going on from the question is exactly the same as running
the step again: the re-run is deterministic, runs the handler through the same states up
to the question, takes the answer there as a continuation would, and the rest is the
same code on the same state. So such a handler runs in a greenlet of its session (the
``Worker``), and when its question waits, the greenlet is kept where it asked; the
session meanwhile looks exactly as a waiting step leaves it (what the handler made so far
is put aside: its requests, additions, objects and hooks, and the runtime's place). The
answer then resumes the greenlet, the question is filled in as the re-run fills an
answered one, and the handler goes on.

Anything else that enters the session while a step is kept (a GM's change to an object, a
system command run in the chat, ``reopen``, ``fire_soon``, a stop) drops it first
(``Session.settle``): the step then runs again from its start, as it always did. So does
an answer that is resumed in another thread than the one the greenlet belongs to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from greenlet import GreenletExit, getcurrent, greenlet

if TYPE_CHECKING:
    from lore.engine.session import Entry, Runtime, Session

DONE = "done"  # the handler ran to its end (or raised: the error waits in the box)
PAUSED = "paused"  # the handler waits for an answer, kept where it asked
RESUMED = "resumed"  # the answer came: go on


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
    """The greenlet a resumable session runs its handlers in (one at a time, in the
    thread that made it), and what is kept of the handler waiting in it."""

    __slots__ = ("box", "kept", "key", "started", "thread")

    def __init__(self) -> None:
        # The handler to run, then the exception it raised (nothing else: an idle
        # worker holds nothing of its session, so a session nobody holds is freed).
        self.box: list[Any] = []
        self.thread = greenlet(_work)
        self.started = False
        self.key: Any = None  # the question the kept handler waits for
        # While a handler waits here: what it asked for so far (``Kept``).
        # (The runtime's other values, its place, dice and counts, stay as they are: the
        # session runs no rule while a step waits.)
        self.kept: Kept | None = None

    def switch(self, rt: Runtime, value: Any) -> str:
        """Run the handler in ``box`` (or go on with the one kept here): DONE when it
        ended, PAUSED when it waits for an answer; what it raised is raised."""
        self.started = True
        rt.pausable = True
        try:
            found: str = self.thread.switch(value)
        finally:
            rt.pausable = False
        box = self.box
        if box:
            error = box.pop()
            raise error
        return found

    def kill(self) -> None:
        """End the greenlet (the handler kept in it unwinds: no rule has a ``finally``,
        so nothing of the session changes). From another thread it cannot be switched
        to: it ends when nothing holds it any more (greenlet kills it in its thread)."""
        thread = self.thread
        self.kept = None
        if self.started and not thread.dead and thread.parent is getcurrent():
            thread.throw()


def _work(box: list[Any]) -> None:
    """A worker's loop: run the handler in ``box``, keep what it raised there."""
    parent = getcurrent().parent
    assert parent is not None
    while True:
        fn, rt, arg = box
        box.clear()
        try:
            fn(rt, arg)
        except GreenletExit:
            return
        except BaseException as error:
            box.append(error)
        del fn, rt, arg
        parent.switch(DONE)


def wait_here(rt: Runtime, key: Any) -> bool:
    """Called where a handler's question waits for an answer (``natives.ask_key``):
    keep the handler here and return once the answer came (True), or False when the step
    must wait the usual way (raise ``Suspend``): inside a ``foreach`` body (the other
    bodies are to be asked meanwhile), in an alter, in a system command run by a rule, or
    when the step's additions pass the limit of events waiting (it is dropped)."""
    session = rt.session
    if (
        rt.path
        or rt.alter_index is not None
        or rt.roller is not None
        or len(rt.adds) + session.queued > session.limits.max_events
    ):
        return False
    worker = session.worker
    assert worker is not None
    worker.key = key
    parent = worker.thread.parent
    assert parent is not None
    parent.switch(PAUSED)  # (GreenletExit when the step is dropped meanwhile)
    return True


def fire_one(session: Session, entries: list[Entry]) -> None:
    """Run a step of one handler (``Session.fire``'s work), the handler in the session's
    worker so that it can be kept where it asks."""
    rt = session.rt
    worker = session.worker
    if worker is None or worker.thread.dead or worker.thread.parent is not getcurrent():
        worker = session.worker = Worker()
    seq, fn, arg = entries[0]
    rt.seq = seq
    rt.index = 0
    rt.ops = 0
    rt.max_adds = len(rt.adds) + session.limits.max_adds
    rt.state = None
    box = worker.box
    box[:] = (fn, rt, arg)
    finish(session, entries, worker, RESUMED if worker.started else box)


def resume(session: Session, entries: list[Entry]) -> bool:
    """Go on with the step kept waiting, if its question has its answer and the worker
    can be switched to from here (else it is dropped: False, the step runs again)."""
    worker = session.worker
    kept = worker.kept if worker is not None else None
    if kept is None:
        return False
    assert worker is not None
    if worker.key not in session.step_answers or worker.thread.parent is not getcurrent():
        session.settle()
        return False
    worker.kept = None
    rt = session.rt
    rt.first_request, rt.requests, rt.adds = kept.first_request, kept.requests, kept.adds
    rt.depth, rt.created, rt.removing = kept.depth, kept.created, kept.removing
    session.next_oid = kept.next_oid
    if kept.hooks:
        session.hooks.extend(kept.hooks)
    if kept.stats:
        session.stats.extend(kept.stats)
    if kept.outcome is not None:
        session.outcome = kept.outcome
    session.waiting = None
    session.rerun = False
    finish(session, entries, worker, RESUMED)
    return True


def finish(session: Session, entries: list[Entry], worker: Worker, value: Any) -> None:
    """Run the handler of a step of one handler in ``worker`` (switched to with
    ``value``), then the rest of the step as ``Session.fire`` does (the update, the new
    events), or, when the handler waits for an answer, keep it waiting."""
    from lore.engine.session import Suspend

    rt = session.rt
    try:
        suspended = False
        try:
            if worker.switch(rt, value) == PAUSED:
                keep(session, worker, entries)
                return
        except Suspend:
            suspended = True  # a foreach body waits: the step runs again with its answers
            rt.depth = 0
        if not session.fired(entries, suspended):
            return
    except BaseException as error:
        session.cut_short(entries, error)
        return
    if rt.adds:
        session.queue(rt.adds)


def keep(session: Session, worker: Worker, entries: list[Entry]) -> None:
    """The handler waits in ``worker``: put aside what it asked for so far, and leave the
    session as a waiting step leaves it (``Session.wait_for_answers``)."""
    rt = session.rt
    step = session.steps
    hooks, stats, outcome = session.hooks, session.stats, session.outcome
    worker.kept = Kept(
        first_request=rt.first_request,
        requests=rt.requests,
        adds=rt.adds,
        depth=rt.depth,
        created=rt.created,
        removing=rt.removing,
        hooks=_of_step(hooks, step) if hooks and hooks[-1][0] == step else None,
        stats=_of_step(stats, step) if stats and stats[-1][0] == step else None,
        outcome=outcome if outcome is not None and outcome[0] == step else None,
        next_oid=session.next_oid,
    )
    session.wait_for_answers(entries)  # (clears what the step asked for, and its hooks)


def _of_step(made: list[tuple[Any, ...]], step: int) -> list[tuple[Any, ...]]:
    """The entries of ``made`` (hooks or counts) the step ``step`` added (at its end)."""
    start = len(made)
    while start and made[start - 1][0] == step:
        start -= 1
    return made[start:]
