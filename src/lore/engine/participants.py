"""Participants: who is told things and asked things (the GM and each player).

The engine only knows this small protocol. Three kinds ship here and in the CLI:
scripted (answers from a list, at once), bot (a random valid answer) and the
interactive terminal (``lore.cli.terminal``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from lore.engine.queries import Input, Query
from lore.engine.randomness import Stream


class Pending:
    """What ``ask`` returns for "asked: the answer comes later" (``Session.answer``)."""

    def __repr__(self) -> str:
        return "PENDING"


PENDING = Pending()


class Participant(Protocol):
    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | Pending | None:
        """The answer to ``query``; PENDING when it will come later (the step waits, and
        the other handlers of the step are started meanwhile); None when there is none
        (the run stops)."""

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        """An answer did not fit; True to ask again, False to give up."""

    def tell(self, record: dict[str, Any]) -> None:
        """A message (or other record) for this participant."""


@dataclass
class Scripted:
    """Answers from a list, in order; no answer left means the run stops."""

    answers: list[dict[str, Any]]
    used: int = 0
    told: list[dict[str, Any]] = field(default_factory=list)

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | None:
        if self.used >= len(self.answers):
            return None
        answer = self.answers[self.used]
        self.used += 1
        return answer

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return False

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
        low, high = 1, 12
        if item.allowed is not None:
            low = int(_plain_number(item.allowed.low)) + (1 if item.allowed.low_open else 0)
            high = int(_plain_number(item.allowed.high)) - (1 if item.allowed.high_open else 0)
        if kind == "unit" or name in ("integer", "real", "number"):
            return stream.randint(low, max(low, high))
        if name == "boolean":
            return stream.randint(0, 1) == 1
        return "bot"

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return False

    def tell(self, record: dict[str, Any]) -> None:
        self.told += 1


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
    """The answers of a saved session, by participant; ``remaining`` counts them all."""

    def __init__(
        self, answers: list[tuple[str, dict[str, Any]]], ids: list[str | None] | None = None
    ) -> None:
        self.by_participant: dict[str, list[dict[str, Any]]] = {}
        # Answers saved with the id of their question are given to that question: answers
        # to questions asked at once may have come in any order.
        self.by_id: dict[str, dict[str, Any]] = {}
        for index, (who, values) in enumerate(answers):
            query_id = ids[index] if ids is not None and index < len(ids) else None
            if query_id:
                self.by_id[query_id] = values
            else:
                self.by_participant.setdefault(who, []).append(values)
        self.remaining = len(answers)

    @property
    def replaying(self) -> bool:
        return self.remaining > 0


class Replaying:
    """Answers from a saved log first, then from the live participant."""

    def __init__(self, log: ReplayLog, who: str, live: Participant | None) -> None:
        self.log = log
        self.stored = log.by_participant.get(who, [])
        self.live = live

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | Pending | None:
        found = self.log.by_id.pop(query.id, None) if query.id else None
        if found is not None:
            self.log.remaining -= 1
            return found
        if self.stored:
            self.log.remaining -= 1
            return self.stored.pop(0)
        return self.live.ask(query, stream) if self.live is not None else None

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return (
            self.live is not None
            and not self.log.replaying
            and self.live.rejected(query, answer, reason)
        )

    def tell(self, record: dict[str, Any]) -> None:
        if self.live is not None and not self.log.replaying:
            self.live.tell(record)
