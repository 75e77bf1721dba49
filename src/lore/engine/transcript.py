"""The transcript of a session: one JSON object per happening, in order.

Every record has ``tick`` and ``kind``: ``message`` (to, text, format), ``query`` (to,
title, inputs), ``answer`` (from, values), ``error`` (message, where), ``end`` (reason).
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
    listeners: list[Callable[[Record], None]] = field(default_factory=list)

    def add(self, record: Record) -> None:
        self.records.append(record)
        if self.listeners:  # (most transcripts have none: no loop is started then)
            for listener in self.listeners:
                listener(record)

    def lines(self) -> list[str]:
        return [dumps(record) for record in self.records]


def dumps(record: Record) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
