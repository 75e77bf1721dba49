"""Going back: a seat withdraws its last answer of the step that waits, and is asked that
question again.

A step that asks one seat several questions in turn (the paper's "what do you do?" then,
for a move, the route) may be answered by mistake; going back at the later question takes
the answer before it back, as if it had not been given. That is possible while nothing has
followed from the answer: it is the step's last answer, given by the seat going back; the
question gone back at was asked after it (by it); no message was told and no dice rolled
since (the step's ``told``). (No alter was applied since either: alters apply when the step
ends, and then its answers are history.)

Going back is an entry of the session's log, as an answer is: ``Session.answers`` holds it
as an ``Answer`` with ``back`` set (the question gone back at, no values), so that a save
replays it (``ReplayLog`` gives it as BACK to that question), and the transcript has a
``back`` record (``{"tick":..,"kind":"back","from":..,"title":..}``, the title of the
question asked again). Once withdrawn, the step runs again from its start: the question
is asked again (not recorded again: it stays asked), those asked since are closed and
forgotten, and the next answer goes on from there. So a session's transcript with an
answer, the records that followed it and its ``back`` record left out, is that of the
session in which the other answer was given at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lore.engine.queries import Query
from lore.engine.saves import Answer

if TYPE_CHECKING:
    from lore.engine.session import Session

Key = Any  # a question's key (``Runtime.next_key``)


def refusal(session: Session, at: Query) -> str | None:
    """Why ``at``'s participant cannot go back at the question ``at`` (asked now, or open),
    or None when it can."""
    answers = session.step_answers
    if not answers:
        return "there is no earlier answer of this step to take back"
    key = next(reversed(answers))
    noted = session.answered.get(key)
    if noted is None:
        return "the last answer of this step cannot be taken back"
    seat, _, told, before = noted
    if seat != at.to:
        return "the last answer of this step is another seat's"
    if at.id in before:
        return f"the question {at.title!r} was asked before the last answer"
    if len(session.told) != told:
        return "something followed from the last answer (a message was told or dice rolled)"
    return None


def withdraw(session: Session, at: Query, at_key: Key | None = None) -> str | None:
    """Go back at the question ``at`` (of ``at.to``): its last answer of the step is
    withdrawn and the step runs again at the next ``run()``; the reason when it cannot
    be (then nothing changed). ``at_key``: the key of ``at`` when it is being asked now
    (a participant that answers at once said BACK), not open."""
    problem = refusal(session, at)
    if problem is not None:
        return problem
    session.settle()  # a handler kept where it asked runs again from its start
    answers = session.step_answers
    key = next(reversed(answers))
    _, title, _, before = session.answered.pop(key)
    del answers[key]
    session.step_filled.pop(key, None)
    asked, open_ = session.asked, session.open
    for query_id in [q for q in open_ if q not in before]:
        asked.discard(open_.pop(query_id)[0])
    if at_key is not None:
        asked.discard(at_key)
    if session.keep_answers:
        session.answers.append(Answer(at.to, {}, at.id, at.title, back=True))
    else:
        session.answers_before += 1
    session.transcript.add({"tick": session.ticks, "kind": "back", "from": at.to, "title": title})
    session.rerun = True
    return None
