"""Answers to a waiting step's open questions: giving one, going back at one, asking them
again, and dropping a step kept where it asked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lore.engine import natives, withdrawal
from lore.engine.queries import AnswerError, Query, fill

if TYPE_CHECKING:
    from lore.engine.session import Session


def open_questions(session: Session) -> list[Query]:
    """The questions the waiting step asked and has no answer to yet (in the order
    they were asked); ``Query.record()`` gives each as plain data."""
    return [query for _, query, _ in session.open.values()]


def answer(
    session: Session, query_id: str, values: dict[str, Any], *, seat: str | None = None
) -> str | None:
    """Give the answer to an open question; the reason when it does not fit (and
    then nothing changes). With ``seat``, a question asked of another seat is refused.

    The next ``run()`` runs the waiting step again from its start, with this answer
    (or, in a resumable session, goes on where the step asked, which is the same).
    """
    entry = session.open.get(query_id)
    if entry is None:
        return f"there is no open question '{query_id}'"
    key, query, spec = entry
    if seat is not None and seat != query.to:
        return f"question '{query_id}' is asked of {query.to}, not of {seat}"
    try:
        filled = fill(query, spec, values, session.place_problem)
    except AnswerError as error:
        return str(error)
    del session.open[query_id]
    worker = session.worker
    if worker is not None and worker.key is key and worker.kept is not None:
        # The handler kept where it asked takes the spec filled in as it goes on
        # (``continuation.wait_here``): it is not filled in again there, nor kept for
        # a run of the step again (which fills the answer in again, if it comes to it).
        worker.filled = filled
        natives.record_answer(session, query, key, values)
    else:
        natives.record_answer(session, query, key, values, filled)
    session.rerun = True
    return None


def back(session: Session, query_id: str, *, seat: str | None = None) -> str | None:
    """Go back at the open question ``query_id``: the last answer of the step, which
    its participant gave before it was asked, is taken back, and the next ``run()``
    asks that question again; the reason when it cannot be (nothing followed from the
    answer: see ``engine/withdrawal.py``; then nothing changes). With ``seat``, a
    question asked of another seat is refused."""
    entry = session.open.get(query_id)
    if entry is None:
        return f"there is no open question '{query_id}'"
    query = entry[1]
    if seat is not None and seat != query.to:
        return f"question '{query_id}' is asked of {query.to}, not of {seat}"
    return withdrawal.withdraw(session, query)


def place_problem(session: Session, text: str) -> str | None:
    """Why an answer's location ``text`` names no place of the session's world, or
    None when it does (how answers are checked: a bound method, made with no call)."""
    return natives.place_problem(session, text)


def reopen(session: Session) -> None:
    """Ask the open questions again, of the participants the session has now (after a
    restore, say): the waiting step runs again at the next ``run()``. They are not
    recorded in the transcript again."""
    if session.waiting is not None and session.open:
        session.settle()
        session.open = {}
        session.rerun = True


def settle(session: Session) -> None:
    """Drop the step kept waiting where it asked (in a resumable session): it runs
    again from its start when it goes on, as in any session. Whatever changes the
    session from outside while a step waits (a GM's change to an object, a system
    command run in the chat) calls this first. (The session already is as a waiting
    step leaves it; only the kept handler goes.)"""
    worker = session.worker
    if worker is not None and worker.kept is not None:
        session.worker = None
        worker.kill()
