"""Rolls at the table: a ``Roll``'s card, and the seats that see it.

A rule shows a roll with ``r.show``: a ``roll`` record goes to the transcript, once however
often its step is run, for the seats that may see it (``to``: the GM first). By default
those are the seats that see the rolling actor: the GM, the actor's own seat, and the
players whose actors are in the actor's area and perceive it (the actor not hidden from
them by a secret); a roll of the GM's own (no actor) is the GM's alone. A rule may say
otherwise: ``r.forGM`` (the GM alone), ``r.forRoller`` (the roller's seat and the GM),
``r.forTable`` (every seat).

The record is the roll's card: who rolled (``by``, ``seat``), for what (``title``), every
die (``dice``: ``face`` and ``sides``, and ``dropped``, ``rerolled``, ``exploded`` for a
die kept out, rolled again, or added by an explode), the ``modifiers``, the ``total``,
the ``target``, the ``outcome`` (``success`` or ``failure``, for a roll with a target or
a dice command that has one), ``critical`` and ``fumble``,
and ``text``: BCDice's result text for a dice command, or the rule system's own. A
secret roll's card says ``secret`` and its ``audience`` (``GM`` or ``roller``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lore.engine.command_rolls import copy_roll
from lore.engine.rolls import DROPPED, EXPLODED, REROLLED
from lore.runtime.errors import RuleError
from lore.runtime.values import LoreObject, show

if TYPE_CHECKING:
    from lore.engine.session import Runtime, Session
    from lore.runtime.compiler import CompiledProgram

GM = "GM"
# What ``audience`` a rule may give a roll, and the card's ``secret`` for it.
SECRET = {"GM": "GM", "roller": "roller"}


def install(program: CompiledProgram) -> None:
    """Give the prelude's ``Roll`` these native rules (``natives.prepare`` does, once per
    program, before the forms' rule tables are built)."""
    methods = program.form_by_name["Roll"].methods
    methods["titled"] = titled
    methods["withTarget"] = with_target
    methods["plus"] = plus
    methods["forGM"] = for_gm
    methods["forRoller"] = for_roller
    methods["forTable"] = for_table
    methods["show"] = show_roll


def _whole(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RuleError(f"{what} is a whole number, not {show(value)}")
    return value


def titled(rt: Runtime, made: LoreObject, title: Any) -> LoreObject:
    if not isinstance(title, str):
        raise RuleError(f"a roll is titled with a text, not {show(title)}")
    return copy_roll(rt, made, title=str(title))


def with_target(rt: Runtime, made: LoreObject, target: Any) -> LoreObject:
    return copy_roll(rt, made, target=_whole(target, "a roll's target"))


def plus(rt: Runtime, made: LoreObject, modifier: Any) -> LoreObject:
    n = _whole(modifier, "a roll's modifier")
    values = made.values
    return copy_roll(rt, made, total=values["total"] + n, modifiers=(*values["modifiers"], n))


def for_gm(rt: Runtime, made: LoreObject) -> LoreObject:
    return copy_roll(rt, made, audience="GM")


def for_roller(rt: Runtime, made: LoreObject) -> LoreObject:
    return copy_roll(rt, made, audience="roller")


def for_table(rt: Runtime, made: LoreObject) -> LoreObject:
    return copy_roll(rt, made, audience="table")


def show_roll(rt: Runtime, made: LoreObject) -> None:
    """``r.show``: the roll's card to the seats that may see it (once per step)."""
    from lore.engine.natives import told_first

    if told_first(rt, "r", "shows rolls"):  # (not again when its step runs again)
        rt.session.transcript.add(card(rt.session, made))


def card(session: Session, made: LoreObject) -> dict[str, Any]:
    """The ``roll`` record of a roll: its card, ``to`` the seats that see it."""
    values = made.values
    record: dict[str, Any] = {
        "tick": session.ticks,
        "kind": "roll",
        "to": seats(session, made),
        "by": values["by"],
        "seat": values["seat"],
    }
    if values["title"]:
        record["title"] = values["title"]
    if values["command"]:
        record["command"] = values["command"]
    record["dice"] = dice_of(values["marks"])
    if values["modifiers"]:
        record["modifiers"] = list(values["modifiers"])
    record["total"] = values["total"]
    if values["target"]:
        record["target"] = values["target"]
    if values["target"] or values["command"]:  # (a verdict means nothing without a target)
        if values["success"] or values["failure"]:
            record["outcome"] = "success" if values["success"] else "failure"
        elif values["target"]:  # (not judged: a total that reaches the target meets it)
            record["outcome"] = "success" if values["total"] >= values["target"] else "failure"
    for flag in ("critical", "fumble"):
        if values[flag]:
            record[flag] = True
    record["text"] = values["text"]
    if values.get("ruling"):
        record["ruling"] = values["ruling"]  # (the GM ruled on it)
    secret = SECRET.get(values["audience"]) or ("roller" if values["secret"] else None)
    if secret is not None:
        record["secret"] = True
        record["audience"] = secret
    return record


def dice_of(marks: tuple[int, ...]) -> list[dict[str, Any]]:
    """Every die of a card: its face and sides, and how it fared."""
    dice = []
    for at in range(0, len(marks), 3):
        face, sides, flags = marks[at : at + 3]
        die: dict[str, Any] = {"face": face, "sides": abs(sides)}
        if sides < 0:
            die["subtracted"] = True
        if flags & DROPPED:
            die["dropped"] = True
        if flags & REROLLED:
            die["rerolled"] = True
        if flags & EXPLODED:
            die["exploded"] = True
        dice.append(die)
    return dice


def seats(session: Session, made: LoreObject) -> list[str]:
    """The seats that see a roll's card, the GM first."""
    values = made.values
    audience = values["audience"]
    roller = str(values["seat"])
    if audience == "GM":
        return [GM]
    if audience == "roller" or values["secret"]:
        return _unique([GM, roller])
    if audience == "table":
        return _unique([GM, *player_seats(session)])
    rolled_by = values["rolledBy"]
    if not rolled_by:
        return _unique([GM, roller])
    return _unique([GM, roller, *watchers(session, rolled_by[0])])


def watchers(session: Session, actor: LoreObject) -> list[str]:
    """The seats that see ``actor``: its own, and those whose actors are in its area
    and may know of it (it is not hidden from them by a secret)."""
    from lore.engine.natives import recipient
    from lore.engine.views import actors_of, is_hidden, known_keys

    found = [recipient(actor)]
    area = _area_of(session, actor)
    if area is None:
        return found
    for seat in player_seats(session):
        if seat in found:
            continue
        theirs = actors_of(session, seat)
        if any(_area_of(session, a) == area for a in theirs) and not is_hidden(
            actor, known_keys(theirs)
        ):
            found.append(seat)
    return found


def _area_of(session: Session, obj: LoreObject) -> str | None:
    world = session.world
    location = obj.values.get("location")
    if world is None or location is None:
        return None
    try:
        return world.resolve(location).area.path
    except RuleError:
        return None


def player_seats(session: Session) -> list[str]:
    from lore.engine.natives import recipient

    system = session.rt.system
    found: list[str] = []
    for actor in system.values.get("allPC") or () if system is not None else ():
        seat = recipient(actor)
        if seat != GM and seat not in found:
            found.append(seat)
    return found


def _unique(seats: list[str]) -> list[str]:
    return list(dict.fromkeys(seats))
