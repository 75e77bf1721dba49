"""The GM's rulings at the terminal: ``lore run``'s one person types them at any prompt.

A line that begins with ``/`` at a prompt is a ruling of the GM's, not an answer:

- ``/set OBJECT MEMBER VALUE`` (``secret`` after it: told to the GM alone): a member a
  sheet shows set over the rules (``lore.engine.rulings``); VALUE is read as JSON (``5``,
  ``true``, ``"text"``), else as the text it is;
- ``/check ACTOR ABILITY [MODIFIER [TARGET]]``: the rules' improvised check
  (``lore.engine.gm_checks``; the first the rules declare);
- ``/end OUTCOME`` (or ``/end SCENE OUTCOME``): a scene ended by ruling;
- ``/add KIND`` (or ``/add ARRIVAL KIND``; ``secret`` after it): bring an actor in by
  ruling (``lore.engine.arrivals``: an enemy joining the fight);
- ``/rolls on`` or ``/rolls off``: rule on every roll the rules let the GM rule on;
- ``/undo``: take back the last ruling on a value or a scene, while nothing followed;
- ``/help``: these.

The question waits meanwhile (the terminal answers it later, ``PENDING``); the ruling is
made between runs, and the question is asked again.
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING

from lore.dice import system
from lore.engine.arrivals import arrivals, bring_in
from lore.engine.gm_checks import CheckError, gm_checks, improvised_check
from lore.engine.roll_rulings import set_rule_rolls
from lore.engine.rulings import RulingError, end_scene, scenes, take_back
from lore.runtime.errors import RuleError

if TYPE_CHECKING:
    from lore.engine.session import Session

HELP = """   GM rulings (type at any prompt):
   /set OBJECT MEMBER VALUE [secret]   set a member a sheet shows (HP, an ability)
   /check ACTOR ABILITY [MODIFIER [TARGET]]   the rules' improvised check
   /end [SCENE] OUTCOME                end a scene by ruling (a fight: won, lost)
   /add [ARRIVAL] KIND [secret]        bring an actor in by ruling (an enemy joins)
   /rolls on|off                       rule on every check the rules let the GM rule on
   /undo                               take back the last ruling, while nothing followed
   /help                               these lines"""


def is_command(line: str) -> bool:
    """Whether a line typed at a GM's prompt is a ruling."""
    return line.strip().startswith("/")


def apply(session: Session, line: str) -> str:
    """Make the ruling ``line`` in ``session``: what to tell the GM (why it was refused,
    or the help)."""
    try:
        words = shlex.split(line.strip()[1:])
    except ValueError as error:
        return f"   cannot read the ruling: {error}"
    if not words or words[0] == "help":
        return HELP
    name, rest = words[0], words[1:]
    try:
        if name == "set" and len(rest) in (3, 4) and rest[3:] in ([], ["secret"]):
            session.rule_value(rest[0], rest[1], _value(rest[2]), secret=len(rest) == 4)
            return ""
        if name == "check" and 2 <= len(rest) <= 4:
            return _check(session, rest)
        if name == "end" and len(rest) in (1, 2):
            found = [scene for scene, _ in scenes(session)]
            scene = rest[0] if len(rest) == 2 else (found[0] if found else "")
            end_scene(session, scene, rest[-1])
            return ""
        if name == "add" and rest:
            return _add(session, rest)
        if name == "undo" and not rest:
            take_back(session)
            return ""
        if name == "rolls" and rest in (["on"], ["off"]):
            set_rule_rolls(session, rest == ["on"])
            return f"   every check is ruled on from the next step: {rest[0]}"
    except (RulingError, CheckError) as error:
        return f"   ruling refused: {error}"
    except RuleError as error:
        return f"   the rules' check went wrong: {error.message} ({error.location()})"
    return f"   not a ruling: {line.strip()}\n{HELP}"


def _check(session: Session, words: list[str]) -> str:
    numbers = []
    for word in words[2:]:
        try:
            numbers.append(int(word))
        except ValueError:
            return f"   the modifier and the target are whole numbers, not {word!r}"
    declared = gm_checks(session)
    if not declared:
        return "   ruling refused: the rules declare no improvised check"
    modifier, target = [*numbers, 0, 0][:2]
    card = improvised_check(session, declared[0].id, words[0], words[1], modifier, target, system())
    session.transcript.add(card)
    return ""


def _add(session: Session, words: list[str]) -> str:
    secret = words[-1] == "secret" and len(words) > 1
    words = words[:-1] if secret else words
    found = [arrival for arrival, _ in arrivals(session)]
    if len(words) == 1 and found:
        words = [found[0], words[0]]
    if len(words) != 2:
        return "   ruling refused: the rules declare nothing the GM may bring in"
    bring_in(session, words[0], words[1], secret)
    return ""


def _value(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text
