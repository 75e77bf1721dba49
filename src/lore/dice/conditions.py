"""Face conditions for criticals and fumbles: ``[6]>=2`` (two or more 6s), ``[1]=all``
(every die shows 1), ``[9,10]>=1``, ``[1-3]=0``.

A condition counts the dice showing one of the faces in brackets and compares the count
with a number, or with ``all`` (the number of dice rolled). It is read by a small
hand-written scanner::

    condition := "[" face ("," face)* "]" CMP (NUMBER | "all")
    face      := NUMBER ("-" NUMBER)?
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.dice.distribution import OddsError
from lore.dice.lexer import compare, format_cmp, normalize_cmp

_PART = re.compile(
    r"\s*(?:(?P<number>[0-9]{1,9})|(?P<cmp>[<>!=]+)|(?P<word>[A-Za-z]+)|(?P<char>\S))"
)
EXAMPLE = "[6]>=2 (two or more 6s) or [1]=all (every die a 1)"


@dataclass(frozen=True, slots=True)
class Condition:
    faces: frozenset[int]
    op: str
    count: int | None  # None: all the dice rolled

    def holds(self, shown: int, dice: int) -> bool:
        """Whether ``shown`` dice of ``dice`` rolled showing the faces meet it."""
        return compare(shown, self.op, dice if self.count is None else self.count)

    def __str__(self) -> str:
        faces = ",".join(map(str, sorted(self.faces)))
        count = "all" if self.count is None else str(self.count)
        return f"[{faces}]{format_cmp(self.op)}{count}"


def parse_condition(text: str) -> Condition:
    """Read a condition; ``OddsError`` says what is wrong."""
    parts = []
    for match in _PART.finditer(text):
        kind = match.lastgroup
        assert kind is not None
        parts.append((kind, match.group(kind)))
    if text.strip() and "".join(value for _, value in parts) != "".join(text.split()):
        raise OddsError(f"cannot read the condition {text!r}: write it like {EXAMPLE}")
    position = 0

    def take(kind: str, value: str | None = None) -> str:
        nonlocal position
        if position >= len(parts) or parts[position][0] != kind:
            raise OddsError(f"cannot read the condition {text!r}: write it like {EXAMPLE}")
        found = parts[position][1]
        if value is not None and found != value:
            raise OddsError(f"cannot read the condition {text!r}: write it like {EXAMPLE}")
        position += 1
        return found

    take("char", "[")
    faces: set[int] = set()
    while True:
        first = int(take("number"))
        last = first
        if position < len(parts) and parts[position] == ("char", "-"):
            position += 1
            last = int(take("number"))
        if last < first:
            raise OddsError(f"the faces {first}-{last} in {text!r} run backwards")
        faces.update(range(first, min(last, first + 100_000) + 1))
        if position < len(parts) and parts[position] == ("char", ","):
            position += 1
            continue
        take("char", "]")
        break
    op = normalize_cmp(take("cmp"))
    if op is None:
        raise OddsError(f"{text!r} has no comparison: write it like {EXAMPLE}")
    count: int | None
    if position < len(parts) and parts[position][0] == "word":
        if take("word").lower() != "all":
            raise OddsError(f"cannot read the condition {text!r}: write it like {EXAMPLE}")
        count = None
    else:
        count = int(take("number"))
    if position != len(parts):
        raise OddsError(f"unexpected text after the condition {text!r}")
    return Condition(frozenset(faces), op, count)
