"""Zones of cards as each seat may see them (``view.zones``), and card options named so.

The rules keep cards in zones (``cards.lore``: ``Zone`` and ``Card``); each zone says
what its owners' seats and the other seats see of it (every face, the face-up ones, the
top card, backs, the count, nothing). A seat is sent the faces it may see and nothing
else: a card it may not see is a back with an id made for that seat from the zone, the
zone's shuffles and the card's place (never from the card), so the id tells nothing of
which card it is, and is another after each shuffle. A card the seat sees is named by its
face (``♠A``; ``♠A#2`` for a second one). A question whose options are cards names and
captions them the same way for the seat asked, so a client can answer it by the card
drawn. The GM sees every face.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from lore.engine.natives import recipient
from lore.engine.queries import Input, Query
from lore.runtime.values import EnumValue, FormInfo, LoreObject

if TYPE_CHECKING:
    from lore.engine.session import Session

GM = "GM"
ZONE_FORM = "cards.Zone"
CARD_FORM = "cards.Card"
RANKS = {1: "A", 11: "J", 12: "Q", 13: "K", 0: "Joker"}
BACK = "🂠"


def zone_form(session: Session) -> FormInfo | None:
    return session.program.form_by_name.get(ZONE_FORM)


def card_form(session: Session) -> FormInfo | None:
    return session.program.form_by_name.get(CARD_FORM)


def is_card(value: Any, form: FormInfo) -> bool:
    return (
        isinstance(value, LoreObject) and value.form is not None and value.form.is_subform_of(form)
    )


def zones_of(session: Session) -> list[LoreObject]:
    """The session's zones: the program's values that are zones, and the zones held by
    their members (a player's hand) or in their lists, in the order they are written.
    (Found once a session: the program's values stay the same objects.)"""
    globals_ = session.rt.g
    kept = _FOUND.get(session)
    if kept is not None and kept[0] == len(globals_):
        return kept[1]
    form = zone_form(session)
    found: list[LoreObject] = []
    if form is not None:
        seen: set[int] = set()
        for value in globals_:
            if isinstance(value, LoreObject) and not _take(value, form, seen, found):
                for member in value.values.values():
                    _take_all(member, form, seen, found)
            else:
                _take_all(value, form, seen, found)
    _FOUND[session] = (len(globals_), found)
    return found


_FOUND: WeakKeyDictionary[Session, tuple[int, list[LoreObject]]] = WeakKeyDictionary()


def _take(value: Any, form: FormInfo, seen: set[int], found: list[LoreObject]) -> bool:
    """Keep ``value`` when it is a zone (whether it is one)."""
    if not (isinstance(value, LoreObject) and value.form is not None):
        return False
    if not value.form.is_subform_of(form):
        return False
    if id(value) not in seen:
        seen.add(id(value))
        found.append(value)
    return True


def _take_all(value: Any, form: FormInfo, seen: set[int], found: list[LoreObject]) -> None:
    if isinstance(value, tuple | list):
        for item in value:
            _take(item, form, seen, found)
    else:
        _take(value, form, seen, found)


def zone_key(zone: LoreObject) -> str:
    name = zone.values.get("name")
    label = (zone.label or "").rsplit(".", 1)[-1]
    return label or (str(name) if name is not None else f"zone{zone.oid}")


def _enum(value: Any, fallback: str) -> str:
    return value.name if isinstance(value, EnumValue) else fallback


def seen_as(session: Session, zone: LoreObject, seat: str) -> str:
    """What ``seat`` sees of the zone: a ``Visibility`` value's name."""
    if seat == GM:
        return "all"
    owners = zone.values.get("owners") or ()
    mine = any(isinstance(o, LoreObject) and recipient(o) == seat for o in owners)
    return _enum(zone.values.get("mine" if mine else "others"), "open")


def face_text(card: LoreObject) -> str:
    suit = card.values.get("suit")
    rank = card.values.get("rank")
    mark = suit.members.get("caption", suit.name) if isinstance(suit, EnumValue) else "?"
    return f"{mark}{RANKS.get(rank, str(rank)) if isinstance(rank, int) else rank}"


def _face_shown(how: str, card: LoreObject, top: bool) -> bool:
    up = bool(card.values.get("faceUp"))
    return how == "all" or (how == "open" and up) or (how == "top" and top and up)


def _hidden_id(session: Session, seat: str, zone: LoreObject, place: int) -> str:
    made = f"{session.seed}|{seat}|{zone_key(zone)}|{zone.values.get('shuffles')}|{place}"
    return "x" + hashlib.blake2b(made.encode(), digest_size=6).hexdigest()


class SeatCards:
    """Every card of the zones as one seat sees them: its id for the seat, its face (None
    when hidden) and its zone, by the card object's identity."""

    def __init__(self, session: Session, seat: str) -> None:
        self.seat = seat
        self.zones: list[tuple[LoreObject, str]] = []
        self.cards: dict[int, tuple[str, str | None, LoreObject]] = {}
        counts: dict[str, int] = {}
        for zone in zones_of(session):
            how = seen_as(session, zone, seat)
            self.zones.append((zone, how))
            cards = list(zone.values.get("cards") or ())
            for place, card in enumerate(cards):
                if not isinstance(card, LoreObject):
                    continue
                if _face_shown(how, card, place == len(cards) - 1):
                    face: str | None = face_text(card)
                    assert face is not None
                    counts[face] = counts.get(face, 0) + 1
                    cid = face if counts[face] == 1 else f"{face}#{counts[face]}"
                else:
                    face, cid = None, _hidden_id(session, seat, zone, place)
                self.cards[id(card)] = (cid, face, zone)

    def describe(self) -> list[dict[str, Any]]:
        """The zones the seat sees, as ``view.zones`` sends them."""
        found = []
        for zone, how in self.zones:
            if how == "none":
                continue
            values = zone.values
            cards = [c for c in values.get("cards") or () if isinstance(c, LoreObject)]
            described: dict[str, Any] = {
                "id": zone_key(zone),
                "name": str(values.get("name", "")),
                "kind": _enum(values.get("kind"), "other"),
                "owners": [  # (as the view's actors are named)
                    o.label or f"#{o.oid}"
                    for o in values.get("owners") or ()
                    if isinstance(o, LoreObject)
                ],
                "shown": how,
                "count": len(cards),
            }
            if how != "count":
                described["cards"] = [self.card(card) for card in cards]
            found.append(described)
        return found

    def card(self, card: LoreObject) -> dict[str, Any]:
        cid, face, _ = self.cards[id(card)]
        values = card.values
        shown: dict[str, Any] = {"id": cid}
        if face is None:
            shown["back"] = True
        else:
            suit = values.get("suit")
            shown["suit"] = _enum(suit, "")
            shown["rank"] = values.get("rank")
            shown["face"] = face
            shown["red"] = bool(suit.members.get("red")) if isinstance(suit, EnumValue) else False
        if values.get("turned"):
            shown["turned"] = True
        counters = values.get("counters")
        if counters:
            shown["counters"] = counters
        return shown

    def named(self, card: LoreObject, place: int) -> tuple[str, str]:
        """An option's id and caption for a card (one in no zone: by its place among
        the options, hidden)."""
        found = self.cards.get(id(card))
        if found is None:
            return f"card{place + 1}", BACK
        cid, face, _ = found
        return cid, face if face is not None else BACK


def zone_views(session: Session, seat: str) -> list[dict[str, Any]]:
    return SeatCards(session, seat).describe()


def zones_key(session: Session) -> tuple[Any, ...]:
    """What the zones' views are made of (the server makes the views again when it
    changes)."""
    found: list[Any] = []
    for zone in zones_of(session):
        values = zone.values
        cards = values.get("cards") or ()
        found.append((id(zone), values.get("shuffles"), values.get("owners")))
        for card in cards:
            if isinstance(card, LoreObject):
                v = card.values
                found.append((id(card), v.get("faceUp"), v.get("turned"), v.get("counters")))
        found.append(len(cards))
    return tuple(found)


def masked(session: Session, query: Query) -> Query:
    """The question as its seat is asked it: options that are cards named and captioned
    as the seat sees them (a hidden card by its back). The same question when none is."""
    form = card_form(session)
    if form is None:
        return query
    seat_cards: SeatCards | None = None
    inputs: list[Input] = []
    changed = False
    for item in query.inputs:
        values = item.values
        if values is None or not any(is_card(v, form) for v in values):
            inputs.append(item)
            continue
        if seat_cards is None:
            seat_cards = SeatCards(session, query.to)
        ids, captions = [], []
        for place, value in enumerate(values):
            if is_card(value, form):
                cid, caption = seat_cards.named(value, place)
            else:
                cid = (item.choices or ())[place]
                caption = (item.captions or item.choices or ())[place]
            ids.append(cid)
            captions.append(caption)
        inputs.append(replace(item, choices=tuple(ids), captions=tuple(captions)))
        changed = True
    if not changed:
        return query
    made: Query = replace(query, inputs=tuple(inputs))
    return made
