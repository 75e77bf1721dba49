"""The GM brings actors in by ruling: an enemy joins a fight.

A rule system or a scenario declares what the GM may bring in as a top-level
``Arrival`` value (its ``kinds``, and a ``handler`` that makes one of a kind and takes it
in: ORM's fight adds it to the battle with its 先制値). The GM's pick is a ruling like
the others (the session server's ``arrival`` entry; ``/add`` at ``lore run``): told to
every seat, or to the GM alone when secret, and the handler runs with the kind in a
step right after, at the same time (after the step that waits for answers, when one
does), so what it makes is made as any rule makes it: on the map, with a sheet, in the
views, replayed from a save or a snapshot the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lore.engine.rulings import chosen, declared, labelled, noted_ruling
from lore.engine.shown_rolls import player_seats
from lore.engine.views import GM
from lore.runtime.values import LoreObject

if TYPE_CHECKING:
    from lore.engine.session import Session


def arrivals(session: Session) -> list[tuple[str, LoreObject]]:
    """The program's ``Arrival`` values, by name."""
    return declared(session, "Arrival")


def describe_arrival(name: str, arrival: LoreObject) -> dict[str, Any]:
    """An arrival as the GM's client offers it."""
    return labelled(name, arrival, "kinds")


def bring_in(session: Session, arrival_id: str, kind: str, secret: bool = False) -> None:
    """The GM brings in one of ``kind`` by the arrival ``arrival_id``: its handler runs
    with the kind in a step right after this one (RulingError: why it cannot)."""
    from lore.engine.session import trigger_handler

    unknown = f"no arrival '{arrival_id}' brings actors in"
    arrival, shown = chosen(session, arrivals(session), arrival_id, kind, "kinds", unknown)
    session.settle()
    # (A step of the handler with the kind: trigger_handler calls a field "handler".)
    session.rt.adds.append((session.ticks, session.priority, trigger_handler, (arrival, kind)))
    session.queue(session.rt.adds)
    record: dict[str, Any] = {
        "tick": session.ticks,
        "kind": "ruling",
        "ruling": "arrival",
        "to": [GM] if secret else [GM, *player_seats(session)],
        "object": arrival_id,
        "label": shown["label"],
        "labelJa": shown["labelJa"],
        "arrival": kind,
    }
    if secret:
        record["secret"] = True
    session.transcript.add(record)
    noted_ruling(session, arrival, "kinds", None, record, set_off=True)
