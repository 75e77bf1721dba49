"""Participants: who is told things and asked things (the GM and each player).

The engine only knows this small protocol. Three kinds ship here and in the CLI:
scripted (answers from a list, at once), bot (a random valid answer) and the
interactive terminal (``lore.cli.terminal``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from lore.engine.queries import Input, Query
from lore.engine.randomness import Stream
from lore.engine.saves import Answer


class Pending:
    """What ``ask`` returns for "asked: the answer comes later" (``Session.answer``)."""

    def __repr__(self) -> str:
        return "PENDING"


PENDING = Pending()


class Back:
    """What ``ask`` returns for "take back my answer before this question": the seat's
    last answer of the step is withdrawn, and the step asks that question again (see
    ``engine/withdrawal.py``)."""

    def __repr__(self) -> str:
        return "BACK"


BACK = Back()


class NoStream(Stream):
    """What a participant that draws nothing is given in place of its stream (see
    ``Participant``): drawing from it is a mistake."""

    __slots__ = ()

    def next64(self) -> int:
        raise AssertionError("a participant marked draws = False drew from its stream")


NO_STREAM = NoStream(0, 0)


class Participant(Protocol):
    """Who answers a seat's questions. One that never draws from the stream it is given
    (answers that come later, say) may say so with a class attribute ``draws = False``:
    it is then given ``NO_STREAM``, and the stream is not made for it. One whose ``tell``
    does nothing (it reads what was told elsewhere, the transcript, say) may say so with
    ``listens = False``: a rule's messages are then not handed to it. One whose ``ask``
    always returns PENDING may say so with ``answers_later = True``: it is then not
    called."""

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | Pending | Back | None:
        """The answer to ``query``; PENDING when it will come later (the step waits, and
        the other handlers of the step are started meanwhile); BACK to withdraw the last
        answer instead (``engine/withdrawal.py``); None when there is none (the run
        stops)."""

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        """An answer did not fit; True to ask again, False to give up."""

    def tell(self, record: dict[str, Any]) -> None:
        """A message (or other record) for this participant."""


class Refusal(Exception):
    """A participant cannot go on (an answer that does not fit, or answers another
    question than the one asked): the run stops with this error."""


@dataclass(frozen=True)
class Scripted1:
    """One scripted answer: its values, the question it is for (an id or a title; None:
    whatever is asked) and where it was written (for errors). ``back``: not an answer but
    going back (BACK), its values empty."""

    values: dict[str, Any]
    query: str | None = None
    where: str = ""
    back: bool = False


@dataclass
class Scripted:
    """Answers from a list, in order; no answer left means the run stops. An answer that
    names its question must be given to that question (its id or its title)."""

    answers: list[dict[str, Any] | Scripted1]
    used: int = 0
    told: list[dict[str, Any]] = field(default_factory=list)

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | Back | None:
        if self.used >= len(self.answers):
            return None
        answer = self.answers[self.used]
        self.used += 1
        if not isinstance(answer, Scripted1):
            return answer
        if answer.query is not None and answer.query not in (query.id, query.title):
            raise Refusal(
                f"{answer.where or 'an answer'} is for the question {answer.query!r}, but "
                f"{query.to} is asked {query.title!r} (question {query.id})"
            )
        return BACK if answer.back else answer.values

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        given = self.answers[self.used - 1] if self.used else None
        if isinstance(given, Scripted1) and given.where:
            raise Refusal(f"{given.where}, to {query.title!r}: {reason}")
        return False

    def left(self) -> list[Scripted1]:
        """The answers not used that name their question (each matches no question)."""
        return [
            a for a in self.answers[self.used :] if isinstance(a, Scripted1) and a.query is not None
        ]

    def tell(self, record: dict[str, Any]) -> None:
        self.told.append(record)


@dataclass
class Bot:
    """Answers every query at random (from the asking handler's random stream)."""

    told: int = 0

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | None:
        return {item.name: self.pick(item, stream) for item in query.inputs}

    @staticmethod
    def pick(item: Input, stream: Stream) -> Any:
        if item.choices and item.multiple:
            # A number of picks in the range allowed, then that many distinct choices.
            left = list(item.choices)
            count = stream.randint(item.least, min(item.most or 0, len(left)))
            return [left.pop(stream.randint(0, len(left) - 1)) for _ in range(count)]
        if item.choices:
            return item.choices[stream.randint(0, len(item.choices) - 1)]
        kind, name = item.type.kind, item.type.name
        if kind == "unit" or name in ("integer", "real", "number"):
            whole = name == "integer" or (kind == "unit" and item.type.family.integer)
            return _number(item, stream, whole)
        if name == "boolean":
            return stream.randint(0, 1) == 1
        if item.default is not None:
            return item.default_answer()
        return _TEXTS.get(name, "bot")

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return False

    def tell(self, record: dict[str, Any]) -> None:
        self.told += 1


# What a bot types for an input of a typed string (a valid one of its kind).
_TEXTS = {
    "loc": "/",  # the root area: every world has it
    "url": "http://example.org/",
    "jid": "bot@example.org",
    "date": "2000-01-01T00:00:00+00:00",
    "html": "<p>bot</p>",
    "xml": "<bot/>",
}


def _number(item: Input, stream: Stream, whole: bool) -> Any:
    """A number in the allowed range (1 to 12 without one): a whole number when the input
    wants one, else a real on a grid of 1000 steps over the range."""
    allowed = item.allowed
    low, high = 1.0, 12.0
    low_open = high_open = False
    if allowed is not None:
        # (A bound of ``T.input(min = ...)`` only: the other end 11 away.)
        given_low = _plain_number(allowed.low) if allowed.low is not None else None
        given_high = _plain_number(allowed.high) if allowed.high is not None else None
        low = given_low if given_low is not None else (given_high or 0.0) - 11
        high = given_high if given_high is not None else (given_low or 0.0) + 11
        low_open, high_open = allowed.low_open, allowed.high_open
    if whole:
        first = math.floor(low) + 1 if low_open else math.ceil(low)
        last = math.ceil(high) - 1 if high_open else math.floor(high)
        return stream.randint(first, max(first, last))
    steps = 1000
    first_step = 1 if low_open else 0
    last_step = steps - 1 if high_open else steps
    step = stream.randint(first_step, max(first_step, last_step))
    return low + (high - low) * step / steps


def _plain_number(value: Any) -> float:
    amount = getattr(value, "amount", None)
    if callable(amount):
        return float(amount())
    return float(value)


class Participants:
    """The participants of a session by id (``"GM"`` or a player's jid)."""

    def __init__(
        self,
        members: dict[str, Participant] | None = None,
        default: Callable[[str], Participant | None] | None = None,
    ) -> None:
        self.members: dict[str, Participant] = dict(members or {})
        self.default = default

    def get(self, participant: str) -> Participant | None:
        found = self.members.get(participant)
        if found is None and self.default is not None:
            found = self.default(participant)
            if found is not None:
                self.members[participant] = found
        return found


class ReplayLog:
    """The answers of a saved session, given again to the questions they answered.

    An answer saved with the id of its question goes to that question (answers to
    questions asked at once may have come in any order), and only if the question is
    asked of the seat that gave it; others go to their seat in order. With ``checked``
    (the files changed since the save, and the user asked to go on anyway), each
    question asked must also have the title it had, and a question no answer is for,
    while answers remain, stops the replay: the first mismatch is reported, with the
    answer's line in the save."""

    def __init__(self, answers: list[Answer], source: str = "the save", checked: bool = False):
        self.answers = answers
        self.source = source
        self.checked = checked
        self.used = [False] * len(answers)
        # (A question may have several: an answer, going back at it, another answer.)
        self.by_id: dict[str, list[int]] = {}
        self.by_seat: dict[str, list[int]] = {}
        for index, answer in enumerate(answers):
            if answer.query:
                self.by_id.setdefault(answer.query, []).append(index)
            else:
                self.by_seat.setdefault(answer.seat, []).append(index)
        self.remaining = len(answers)
        self.last = 0  # the answer given last

    @property
    def replaying(self) -> bool:
        return self.remaining > 0

    def take(self, query: Query) -> dict[str, Any] | Back | None:
        """The saved answer to ``query`` (or BACK, saved as going back at it), if any
        (raises Refusal on a mismatch)."""
        index = None
        if query.id:
            given = self.by_id.get(query.id)
            if given:
                index = given.pop(0)
        if index is None:
            waiting = self.by_seat.get(query.to)
            if waiting:
                index = waiting.pop(0)
            elif self.checked and self.remaining:
                first = next(i for i, used in enumerate(self.used) if not used)
                raise Refusal(
                    f"the session now asks {query.to} {query.title!r} (question {query.id}),"
                    f" which no answer of {self.source} is for; its next answer"
                    f" ({self.where(first)}) is {self.describe(first)}"
                )
            else:
                return None
        answer = self.answers[index]
        if answer.seat != query.to or (
            self.checked and answer.title is not None and answer.title != query.title
        ):
            raise Refusal(
                f"the answer at {self.where(index)} is {self.describe(index)}, but the "
                f"session now asks {query.to} {query.title!r} there"
            )
        self.used[index] = True
        self.remaining -= 1
        self.last = index
        return BACK if answer.back else answer.values

    def where(self, index: int) -> str:
        line = self.answers[index].line
        return f"{self.source}:{line}" if line else f"{self.source}, answer {index + 1}"

    def describe(self, index: int) -> str:
        answer = self.answers[index]
        title = f" to {answer.title!r}" if answer.title is not None else ""
        question = f" (question {answer.query})" if answer.query else ""
        return f"{answer.seat}'s{title}{question}"

    def unused(self) -> list[Answer]:
        """The answers not given yet, in their order."""
        return [a for a, used in zip(self.answers, self.used, strict=True) if not used]


class Replaying:
    """Answers from a saved log first, then from the live participant."""

    def __init__(self, log: ReplayLog, who: str, live: Participant | None) -> None:
        self.log = log
        self.live = live
        self.replayed: bool = False  # whether the last answer came from the log
        # (``Participant``) told nothing when the live participant is told nothing
        self.listens: bool = live is not None and getattr(live, "listens", True)

    @property
    def draws(self) -> bool:
        """Whether the live participant draws (the log's answers draw nothing)."""
        return self.live is not None and getattr(self.live, "draws", True)

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | Pending | Back | None:
        found = self.log.take(query)
        self.replayed = found is not None
        if found is not None:
            return found
        return self.live.ask(query, stream) if self.live is not None else None

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        if self.replayed:
            where = self.log.where(self.log.last)
            raise Refusal(f"the answer at {where}, to {query.title!r}: {reason}")
        return self.live is not None and self.live.rejected(query, answer, reason)

    def tell(self, record: dict[str, Any]) -> None:
        if self.live is not None and not self.log.replaying:
            self.live.tell(record)
