"""The transcript of a session: one JSON object per happening, in order.

Every record has ``tick`` and ``kind``: ``message`` (to, text, format), ``query`` (to,
title, purpose of an engine's own question, inputs), ``answer`` (from, values), ``back``
(from, title: an answer taken back, ``engine/withdrawal.py``), ``ruling`` (to, object,
member, before, after: a GM's ruling, ``engine/rulings.py``), ``error`` (message, where),
``end`` (reason).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Record = dict[str, Any]


@dataclass
class Transcript:
    records: list[Record] = field(default_factory=list)
    # Called with each record added (``listen`` adds one: a tuple, so that none is added
    # past ``add``'s notice).
    listeners: tuple[Callable[[Record], None], ...] = ()

    def __post_init__(self) -> None:
        if not self.listeners and type(self).add is Transcript.add:
            # Nobody listens (most transcripts): ``add`` is the list's own append, with no
            # call of a Python function (a session adds a few records an answer).
            self.__dict__["add"] = self.records.append

    def add(self, record: Record) -> None:
        self.records.append(record)
        for listener in self.listeners:
            listener(record)

    def listen(self, listener: Callable[[Record], None]) -> None:
        """Call ``listener`` with each record added from now on."""
        self.listeners = (*self.listeners, listener)
        self.__dict__.pop("add", None)  # (``add`` calls them)

    def lines(self) -> list[str]:
        return [dumps(record) for record in self.records]


class Streamed(Transcript):
    """A transcript whose records go to its listeners only, none kept (a long run's
    memory stays bounded): it counts those made, the end left out."""

    def __init__(self) -> None:
        super().__init__()
        self.made = 0

    def add(self, record: Record) -> None:
        if record["kind"] != "end":
            self.made += 1
        for listener in self.listeners:
            listener(record)


def dumps(record: Record) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
