"""A step that goes wrong, or passes a limit: it is one whole, and its effects go with it
(the GM is told); one that went wrong after its answers came runs again, asking again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lore.engine import happenings, rule_errors
from lore.engine.event_queue import Entry
from lore.engine.handler_runtime import Stop
from lore.runtime.errors import LimitExceeded

if TYPE_CHECKING:
    from lore.engine.session import Session

# How many times in a row a step that goes wrong after its answers is asked again.
MAX_ASKED_AGAIN = 3


def too_many(session: Session, entries: list[Entry]) -> None:
    """The step would make more events wait than the limit: it is dropped (raises),
    with the waiting events of its handlers and of those it added."""
    adds = session.rt.adds
    dropped = session.drop_waiting({fn for _, fn, _ in entries} | {a[2] for a in adds})
    error = LimitExceeded(
        f"more than {session.limits.max_events} events would wait: events keep"
        f" scheduling more events (this step and the {dropped:,} waiting events"
        " of its handlers are dropped)",
        "a handler probably schedules several events that each do the same",
    )
    error.frames = rule_errors.handler_frames(session, entries)
    raise error


def cut_short(session: Session, entries: list[Entry], error: BaseException) -> None:
    """The step went wrong, or the run stops in its middle: the step is one whole,
    and its effects go with it."""
    rt = session.rt
    suspended = rt.suspended
    rt.rest()
    happenings.discard_step(session)
    if isinstance(error, Stop) or not isinstance(error, Exception):
        # The run stops in the middle of the step (no answer left, interrupted):
        # the step waits, as if for an answer, and runs again from its start
        # when the session goes on (what it asked and told is not repeated).
        session.waiting = entries
        session.rerun = True
        raise error
    if suspended:
        # A body waits for an answer, and a later one went wrong: the error is
        # told when the step runs again with the answers, as it would have been
        # had they come at once (the waiting body may also go wrong first).
        session.waiting = entries
        return
    session.open = {}
    found = rule_errors.rule_error(session, error, error.__traceback__)
    # (Not past a limit: a rule that runs away does so whatever the answers.)
    again = bool(session.step_answers) and not isinstance(error, LimitExceeded)
    if again and ask_again(session, entries):
        retried = "the step runs again: its questions are asked again"
        found.hint = f"{found.hint}; {retried}" if found.hint else retried
        rule_errors.report(session, found, again=True)
    else:
        rule_errors.report(session, found)


def ask_again(session: Session, entries: list[Entry]) -> bool:
    """A step that went wrong after answers came (a number out of what the rules can
    take, say; not a limit passed) runs again from its start, asking its questions
    again (and telling again what it told: its answers differ), up to
    ``MAX_ASKED_AGAIN`` times in a row; then it is dropped. Whether it runs again."""
    step, times = session.asked_again
    times = times + 1 if step == session.steps else 1
    if times > MAX_ASKED_AGAIN:
        return False
    session.asked_again = (session.steps, times)
    session.step_answers, session.step_filled, session.asked, session.told = {}, {}, set(), set()
    session.answered = {}
    session.waiting = entries
    session.rerun = True
    return True


def drop_runaway(session: Session, entries: list[Entry]) -> None:
    """Drop a step past the limit of steps at one time (its events do not run, so the
    chain of events that keeps the time from moving on ends); the GM is told."""
    error = LimitExceeded(
        f"more than {session.limits.max_steps_at_once} steps at {session.ticks}[sec]: events"
        " keep scheduling events at the same time",
        "an event's handler probably schedules itself at schedule.current; give it a delay",
    )
    error.frames = rule_errors.handler_frames(session, entries)
    rule_errors.report(session, error)
    session.at_once = 0
