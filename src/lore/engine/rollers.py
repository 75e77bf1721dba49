"""Who rolls a rule system's command, and for which table: ``system.roller``,
``participant.actors`` and ``system.language``.

A command of the rule system (``lore.engine.system_commands``: the program's ``Command``
values) is always rolled by someone: the player, or the GM, who typed it in the chat, or
in rules the one whose ``roll(...)`` runs it (``actor.roll("NJ7@2")``: the actor's
player). Its handler's dice are rolled in that one's name (``rolls.roll`` reads
``Runtime.roller``); these two accessors let the handler read who it is, so that it can
name them in the Roll's text, read their actors' features, or tell them something when
it runs in rules:

- ``system.roller``: the ``Participant`` of the seat that rolls the command being run
  (the GM's own ``GM`` for the GM's seat, and outside a command);
- ``participant.actors``: the actors that participant plays now, in the order of
  ``system.allPC`` (the GM's: those without a player, or handed to ``system.gmSeat``).

A command's result is a text the whole table reads, in the table's language:
``system.language`` is ``"ja"`` or ``"en"``, Japanese unless ``set_language`` says
otherwise for the session (``lore.engine.system_commands.chat_roll`` sets it for one
chat command).

The prelude declares them as accessors (with a placeholder body); the engine's rules
here replace them, as it does for ``Actor.addKnownSecret``.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from lore.runtime.values import LoreObject, TypedString

if TYPE_CHECKING:
    from lore.engine.session import Runtime, Session
    from lore.runtime.compiler import CompiledProgram

LANGUAGES = ("ja", "en")  # what system.language may be, the default first
_LANGUAGE: weakref.WeakKeyDictionary[Session, str] = weakref.WeakKeyDictionary()


def install(program: CompiledProgram) -> None:
    """Give the prelude's forms these native accessors (``natives.prepare`` does, once
    per program, before the forms' rule tables are built)."""
    forms = program.form_by_name
    forms["System"].methods["roller"] = roller
    forms["System"].methods["language"] = language
    forms["Participant"].methods["actors"] = actors


def participant(rt: Runtime, seat: str) -> LoreObject:
    """The participant of a seat: ``GM`` for the GM's, else one told, asked and rolling
    as that player (it is made when read; two of the same seat are alike)."""
    if seat == "GM" and rt.GM is not None:
        return rt.GM
    form = rt.session.program.form_by_name["Participant"]
    return LoreObject(form, {"player": TypedString("jid", seat)}, 0, seat)


def roller(rt: Runtime, system: LoreObject) -> LoreObject:
    """``system.roller``: who rolls the command being run (the GM outside one)."""
    seat = rt.roller[1] if rt.roller is not None else "GM"
    return participant(rt, seat)


def actors(rt: Runtime, who: LoreObject) -> tuple[Any, ...]:
    """``participant.actors``: the actors the participant plays now."""
    from lore.engine.natives import recipient  # (natives installs this module)

    seat = "GM" if who.label == "GM" else recipient(who)
    system = rt.system
    found = system.values.get("allPC") if system is not None else None
    return tuple(actor for actor in found or () if recipient(actor) == seat)


def set_language(session: Session, chosen: str) -> None:
    """Make ``chosen`` (``"ja"`` or ``"en"``) the language of the session's table."""
    if chosen not in LANGUAGES:
        raise ValueError(f"a table reads {' or '.join(LANGUAGES)}, not {chosen!r}")
    _LANGUAGE[session] = chosen


@contextmanager
def speaking(session: Session, chosen: str | None) -> Iterator[None]:
    """The session's table reads ``chosen`` for a while (None: the language it has)."""
    if chosen is None:
        yield
        return
    before = _LANGUAGE.get(session)
    set_language(session, chosen)
    try:
        yield
    finally:
        if before is None:
            del _LANGUAGE[session]
        else:
            _LANGUAGE[session] = before


def language_of(session: Session) -> str:
    """The language of the session's table (Japanese unless set)."""
    return _LANGUAGE.get(session, LANGUAGES[0])


def language(rt: Runtime, system: LoreObject) -> str:
    """``system.language``: the language of the table."""
    return language_of(rt.session)
