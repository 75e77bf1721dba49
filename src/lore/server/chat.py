"""Chat lines, dice rolled from the chat, and the HTML of rule messages made safe.

Players and the GM type plain text; it is always shown as text, never as HTML. Dice are
BCDice commands (``lore.dice``), as on other online tabletops: a line that is a command
(``2D6+3>=10``, ``1D100<=65 回避``, ``x3 2D6``) is rolled, and so is what follows ``/roll``
or ``/r`` (which must be a command). A command starting with ``S`` (``S2D6``), or sent
with the secret flag, is a secret roll: its result goes to the roller and the GM, the
others see that a secret roll was made. The session's rule system may add its own commands
(``NJ7@2``, ``ORM3+4>=12``), rolled by its Lore rules. Rolls are made once, on arrival,
with the system's random source, and kept in the session's log with their result, so a
restored session shows the same rolls.

A line typed with a Japanese input method on has full-width letters, digits, signs and
spaces (``２Ｄ６　攻撃``): they are read as their ASCII forms to find the command
(``read_command``). What follows the command is a comment (``1D100<=50 鍵開け``),
kept as it was typed and shown with the roll (``comment_of``).

Messages that rules send as ``html`` are cleaned by nh3 (the Rust *ammonia* sanitizer):
no scripts, no event attributes, no styles, no links but http(s); an image may only name
a file of the session's bundle, which the server serves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import nh3

from lore.dice import DiceError, RandomSource, RollResult, evaluate, system
from lore.dice.systems import GameSystem, evaluate_in
from lore.engine import system_commands
from lore.engine.session import Session
from lore.runtime.errors import RuleError

MAX_CHAT = 2000  # characters of a chat line

TAGS = set(nh3.ALLOWED_TAGS) | {"big"}
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title", "width", "height"}}
ROLL_RE = re.compile(r"^/(?:roll|r)(?:\s+(.*))?$", re.IGNORECASE | re.DOTALL)
# Full-width ASCII (U+FF01 to U+FF5E) and the ideographic space, as ASCII: one character
# for one, so that a place in the line read is the same place in the line typed.
HALF_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
WORD_END = re.compile(r"[ \t\n\v\f\r]+")
REPEAT_RE = re.compile(r"s?(?:repeat|rep|x)[0-9]+$", re.IGNORECASE)
CHOICE_WORDS_RE = re.compile(r"s?choice[0-9]*$", re.IGNORECASE)  # (``choice A B``: all words)


class RollError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class ChatRoll:
    """A line's roll, and its comment as typed ("" when it has none)."""

    result: RollResult
    comment: str


def read_command(text: str) -> str:
    """The line as a command is read from it: full-width ASCII and spaces made ASCII."""
    return text.translate(HALF_WIDTH)


def comment_of(line: str, read: str) -> str:
    """What follows the command in ``line`` (``read``: the line as ``read_command`` made
    it, the same length): the words after its first, as typed; after the first two for
    a repeat (``x3 2D6 攻撃``); none for a choice of words (``choice 剣 槍``)."""
    start = len(read) - len(read.lstrip())
    words = 2 if REPEAT_RE.match(WORD_END.split(read[start:], maxsplit=1)[0]) else 1
    for _ in range(words):
        found = WORD_END.search(read, start)
        if found is None:
            return ""
        if CHOICE_WORDS_RE.match(read[start : found.start()]):
            return ""
        start = found.end()
    return line[start:].strip()


def chat_roll(
    text: str,
    source: RandomSource | None = None,
    session: Session | None = None,
    seat: str = "GM",
    game: str | None = None,
    language: str | None = None,
) -> RollResult | None:
    """The roll a chat line makes, or None when it is a plain line (RollError when it
    is ``/roll`` with no command after it, or a command that cannot be rolled).

    With the ``session``, the line may also be one of its rule system's commands
    (``NJ7@2``: ``lore.engine.system_commands``), rolled for ``seat``, its result in the
    table's ``language`` (``"ja"``, ``"en"``; None: the session's); call it on the
    engine's side (it runs the command's Lore rule). ``game`` is a BCDice game system's
    id (``lore.dice.systems``): its commands are tried before the common ones."""
    found = ROLL_RE.match(read_command(text).strip())
    command = (found.group(1) or "").strip() if found is not None else read_command(text).strip()
    dice = source or system()
    try:
        if not command:
            result = None
        elif session is not None:
            result = system_commands.chat_roll(session, command, seat, dice, game, language)
        elif game is not None:
            result = evaluate_in(game, command, dice)
        else:
            result = evaluate(command, dice)
    except DiceError as error:
        raise RollError(str(error)) from None
    except RuleError as error:
        raise RollError(f"{error.message} ({error.location()})") from None
    if result is None and found is not None:
        raise RollError(f"'{command}' is no dice command: write one like 2D6+3>=10")
    return result


def chat_line_roll(
    text: str,
    source: RandomSource | None = None,
    session: Session | None = None,
    seat: str = "GM",
    game: str | None = None,
    language: str | None = None,
) -> ChatRoll | None:
    """``chat_roll`` of a line typed in the chat, with the comment after its command."""
    result = chat_roll(text, source, session, seat, game, language)
    if result is None:
        return None
    line = text.strip()
    found = ROLL_RE.match(read_command(line))
    if found is not None:  # (the command after ``/roll``)
        line = line[found.start(1) :] if found.group(1) is not None else ""
    return ChatRoll(result, comment_of(line, read_command(line)))


def dice_json(system: GameSystem) -> dict[str, Any]:
    """A dice system as the start page offers it (``GET /api/dice``) and a welcome names it."""
    return {
        "id": system.id,
        "name": system.name,
        "english": system.english,
        "commands": list(system.commands),
    }


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
