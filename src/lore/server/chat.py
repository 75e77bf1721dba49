"""Chat lines, dice rolled from the chat, and the HTML of rule messages made safe.

Players and the GM type plain text; it is always shown as text, never as HTML. A line
that starts with ``/roll`` (or ``/r``) is a dice roll: ``/roll 2D6+3``, ``/roll
1D100<=65``. The GM may roll secretly: the result goes to the GM alone, the others see
that a secret roll was made. Rolls are made once, on arrival, and kept in the session's
log with their result, so a restored session shows the same rolls.

``roll_dice`` is the one place chat dice are rolled: the BCDice commands of ``lore.dice``
take its place when they come; until then it understands sums of ``NdS`` and whole
numbers with an optional comparison, and (as BCDice) takes what follows a space as a
comment.

Messages that rules send as ``html`` are cleaned by nh3 (the Rust *ammonia* sanitizer):
no scripts, no event attributes, no styles, no links but http(s); an image may only name
a file of the session's bundle, which the server serves.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import nh3

MAX_CHAT = 2000  # characters of a chat line
MAX_DICE = 100  # dice of one roll
MAX_SIDES = 10_000

TAGS = set(nh3.ALLOWED_TAGS) | {"big"}
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title", "width", "height"}}
ROLL_RE = re.compile(r"^/(?:roll|r)(?:\s+(.*))?$", re.IGNORECASE | re.DOTALL)
TERM_RE = re.compile(r"([+-]?)\s*(?:(\d*)[dD](\d+)|(\d+))\s*")
COMPARE_RE = re.compile(r"(<=|>=|<>|=|<|>)\s*(-?\d+)\s*$")


@dataclass(frozen=True, slots=True)
class Roll:
    command: str
    dice: list[int]
    total: int
    success: bool | None  # with a comparison: whether it holds
    comment: str = ""  # what followed the command after a space

    def text(self) -> str:
        shown = f"({self.command}) > [{','.join(map(str, self.dice))}] > {self.total}"
        if self.success is not None:
            shown += " > " + ("成功 success" if self.success else "失敗 failure")
        return f"{shown} {self.comment}" if self.comment else shown

    def record(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "dice": self.dice,
            "total": self.total,
            "success": self.success,
        }


class RollError(ValueError):
    pass


def roll_command(text: str) -> str | None:
    """The dice command of a chat line (``/roll 2D6`` gives ``2D6``), or None when the
    line is no roll."""
    found = ROLL_RE.match(text.strip())
    if found is None:
        return None
    return (found.group(1) or "").strip()


def roll_dice(command: str, draw: Callable[[int], int] | None = None) -> Roll:
    """Roll a command like ``2D6+3`` or ``1D100<=65`` (RollError when it is not one).
    ``draw(sides)`` rolls one die (a fair system random die by default)."""
    die = draw or (lambda sides: secrets.randbelow(sides) + 1)
    command, _, comment = command.strip().partition(" ")
    body = command
    comparison = COMPARE_RE.search(body)
    if comparison is not None:
        body = body[: comparison.start()]
    if not body:
        raise RollError("write a roll like 2D6+3 or 1D100<=65")
    position, total, dice, count = 0, 0, [], 0
    while position < len(body):
        term = TERM_RE.match(body, position)
        if term is None or term.end() == position:
            raise RollError(f"cannot read '{body[position:]}': write a roll like 2D6+3")
        sign = -1 if term.group(1) == "-" else 1
        if position > 0 and not term.group(1):
            raise RollError(f"a + or - is missing before '{body[position:]}'")
        if term.group(3) is not None:
            number = int(term.group(2) or 1)
            sides = int(term.group(3))
            count += number
            if count > MAX_DICE or not 1 <= sides <= MAX_SIDES:
                raise RollError(f"at most {MAX_DICE} dice of at most {MAX_SIDES} sides")
            rolled = [die(sides) for _ in range(number)]
            dice.extend(rolled)
            total += sign * sum(rolled)
        else:
            total += sign * int(term.group(4))
        position = term.end()
    success = None
    if comparison is not None:
        success = _compare(total, comparison.group(1), int(comparison.group(2)))
    return Roll(command, dice, total, success, comment.strip())


def _compare(total: int, op: str, target: int) -> bool:
    return {
        "<=": total <= target,
        ">=": total >= target,
        "<>": total != target,
        "=": total == target,
        "<": total < target,
        ">": total > target,
    }[op]


def clean_html(html: str, image_base: str) -> str:
    """A rule's HTML message made safe to show; images must be files of the bundle (they
    are served under ``image_base``)."""

    def keep(element: str, attribute: str, value: str) -> str | None:
        if element == "img" and attribute == "src":
            parts = urlsplit(value)
            if parts.scheme or parts.netloc or value.startswith("/") or ".." in value:
                return None
            return f"{image_base}/{quote(parts.path)}"
        return value

    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        attribute_filter=keep,
        url_schemes={"http", "https"},
        clean_content_tags={"script", "style", "head", "title"},
    )
