"""Participants as people know them: by the names of the actors they play.

A participant is an id (``"GM"``, or a player's jid such as ``aki@example.org``); the
session server labels each player's seat with the names of that player's actors
(``Aki``, or ``Aki, Ren`` for two), and the web client and ``lore join`` show the label.
``lore run`` shows the same labels. Transcripts and answers files keep the ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from lore.runtime.values import LoreObject

if TYPE_CHECKING:
    from lore.engine.session import Session

GM = "GM"


def actor_name(actor: LoreObject) -> str:
    """An actor's ``name``, or its label when it has none."""
    name = actor.values.get("name")
    return str(name) if name is not None else (actor.label or "")


def seat_label(names: Iterable[str]) -> str:
    """The label of a seat that plays actors of these names."""
    return ", ".join(names)


def seat_labels(session: Session) -> dict[str, str]:
    """Each participant's label, by id: the GM's is ``GM``; a player's, its actors'
    names (its id when they have none). Empty before the session's values are made."""
    from lore.engine.natives import recipient

    system = session.rt.system
    actors = system.values.get("allPC", ()) if system is not None else ()
    names: dict[str, list[str]] = {}
    for actor in actors:
        if isinstance(actor, LoreObject) and (seat := recipient(actor)) != GM:
            names.setdefault(seat, []).append(actor_name(actor))
    labels = {GM: GM}
    for seat, found in names.items():
        labels[seat] = seat_label(found) or seat
    return labels


def label_of(session: Session | None, participant: str) -> str:
    """One participant's label (its id when the session has none for it, or is None)."""
    if session is None:
        return participant
    return seat_labels(session).get(participant, participant)
