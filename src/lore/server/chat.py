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

Messages that rules send as ``html`` are cleaned by nh3 (the Rust *ammonia* sanitizer):
no scripts, no event attributes, no styles, no links but http(s); an image may only name
a file of the session's bundle, which the server serves.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

import nh3

from lore.dice import DiceError, RandomSource, RollResult, evaluate, system
from lore.engine import system_commands
from lore.engine.session import Session
from lore.runtime.errors import RuleError

MAX_CHAT = 2000  # characters of a chat line

TAGS = set(nh3.ALLOWED_TAGS) | {"big"}
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title", "width", "height"}}
ROLL_RE = re.compile(r"^/(?:roll|r)(?:\s+(.*))?$", re.IGNORECASE | re.DOTALL)


class RollError(ValueError):
    pass


def chat_roll(
    text: str,
    source: RandomSource | None = None,
    session: Session | None = None,
    seat: str = "GM",
) -> RollResult | None:
    """The roll a chat line makes, or None when it is a plain line (RollError when it
    is ``/roll`` with no command after it, or a command that cannot be rolled).

    With the ``session``, the line may also be one of its rule system's commands
    (``NJ7@2``: ``lore.engine.system_commands``), rolled for ``seat``; call it on the
    engine's side (it runs the command's Lore rule)."""
    found = ROLL_RE.match(text.strip())
    command = (found.group(1) or "").strip() if found is not None else text.strip()
    dice = source or system()
    try:
        if not command:
            result = None
        elif session is not None:
            result = system_commands.chat_roll(session, command, seat, dice)
        else:
            result = evaluate(command, dice)
    except DiceError as error:
        raise RollError(str(error)) from None
    except RuleError as error:
        raise RollError(f"{error.message} ({error.location()})") from None
    if result is None and found is not None:
        raise RollError(f"'{command}' is no dice command: write one like 2D6+3>=10")
    return result


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
