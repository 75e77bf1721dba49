"""Dice that show their faces: ``GM.roll(d)``, ``actor.roll(d)`` and the ``Roll`` they give.

A ``Roll`` is an object of the prelude's form ``Roll``: what was rolled, who rolled it,
every die's face in the order rolled, the total, and the faces as text (``[8 7 1 1 8]``).
Its rules (``count``, ``explode``, ``keepHighest`` ...) are here. The dice come from the
rolling handler's own stream (``Runtime.roll``), so a handler run again rolls the same
faces; each roll (and each explode or reroll, which rolls more dice) is written to the
transcript as a ``dice`` record, once, however often its step is run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lore.runtime.dice import MAX_DICE, Dice
from lore.runtime.errors import LimitExceeded, RuleError
from lore.runtime.lists import work
from lore.runtime.values import LoreObject, show

if TYPE_CHECKING:
    from lore.engine.session import Runtime
    from lore.runtime.compiler import CompiledProgram

MAX_EXPLOSIONS = 100  # rounds of dice added by explode
# The marks of a die on a roll's card (``Roll.marks``: face, sides, these flags).
DROPPED, REROLLED, EXPLODED = 1, 2, 4
Test = Callable[[Any, int], Any]  # a Lore function of a face, called as fn(rt, face)


def install(program: CompiledProgram) -> None:
    """Give the prelude's forms these native rules (``natives.prepare`` does, once per
    program)."""
    forms = program.form_by_name
    forms["Participant"].methods.setdefault("roll", participant_roll)
    forms["Actor"].methods.setdefault("roll", actor_roll)
    methods = forms["Roll"].methods
    for name, fn in _ROLL_RULES.items():
        methods.setdefault(name, fn)


def participant_roll(rt: Runtime, obj: LoreObject, dice: Any) -> LoreObject:
    who = "GM" if obj.label == "GM" else (obj.label or "GM")
    return roll(rt, who, who, dice)


def actor_roll(rt: Runtime, actor: LoreObject, dice: Any) -> LoreObject:
    from lore.engine.natives import recipient

    name = actor.values.get("name")
    who = str(name) if isinstance(name, str) and name else repr(actor)
    return roll(rt, who, recipient(actor), dice, actor)


def roll(
    rt: Runtime, who: str, seat: str, dice: Any, actor: LoreObject | None = None
) -> LoreObject:
    """Roll ``dice`` (or a dice command) for ``who`` (played from ``seat``; ``actor``,
    the actor rolling, if one is): a Roll, recorded. While a system command runs, its
    dice are rolled in the name of the one who rolls the command."""
    if rt.roller is not None:
        who, seat = rt.roller
    if not isinstance(dice, Dice):
        from lore.engine import command_rolls

        if command_rolls.is_command(dice):
            return command_rolls.roll_command(rt, who, seat, dice, actor)
        raise RuleError(f'roll takes dice (3d6) or a dice command ("2D6+3>=10"), not {show(dice)}')
    faces: list[int] = []
    kinds: list[int] = []  # each die's sides, negative for a die that is subtracted
    work(rt, dice.count())  # each die counts as an operation of the handler
    for count, sides in dice.groups:
        for _ in range(abs(count)):
            faces.append(rt.roll(sides))
            kinds.append(sides if count > 0 else -sides)
    made = make_roll(rt, dice, who, seat, faces, kinds, actor)
    record(rt, made, "roll")
    return made


def make_roll(
    rt: Runtime,
    dice: Dice,
    who: str,
    seat: str,
    faces: list[int],
    kinds: list[int],
    actor: LoreObject | None = None,
) -> LoreObject:
    total = dice.bonus + sum(f if k > 0 else -f for f, k in zip(faces, kinds, strict=True))
    marks: list[int] = []
    for face, sides in zip(faces, kinds, strict=True):
        marks += (face, sides, 0)
    values = {
        "rolled": dice,
        "by": who,
        "seat": seat,
        "faces": tuple(faces),
        "kinds": tuple(kinds),
        "total": total,
        "text": "[" + " ".join(map(str, faces)) + "]",
        "command": "",
        "success": False,
        "failure": False,
        "critical": False,
        "fumble": False,
        "secret": False,
        # (rolls at the table: ``lore.engine.shown_rolls``)
        "title": "",
        "modifiers": (),
        "target": 0,
        "audience": "",
        "ruling": "",  # (how the GM ruled on it: ``lore.engine.roll_rulings``)
        "marks": tuple(marks),
        "rolledBy": (actor,) if actor is not None else (),
    }
    return LoreObject(rt.session.program.form_by_name["Roll"], values, rt.session.new_oid())


def record(rt: Runtime, made: LoreObject, how: str, extra: dict[str, Any] | None = None) -> None:
    """The ``dice`` record of a roll (once per step, however often the step is run; none
    for a roll of a chat command, which the chat keeps)."""
    if not rt.records_dice:
        return
    session = rt.session
    key = rt.next_key("d")
    if key in session.told:
        return
    session.told.add(key)
    values = made.values
    entry = {
        "tick": session.ticks,
        "kind": "dice",
        "by": values["by"],
        "seat": values["seat"],
        "dice": str(values["rolled"]),
        "how": how,
        "faces": list(values["faces"]),
        "total": values["total"],
    }
    if extra:
        entry.update(extra)
    session.transcript.add(entry)


# ------------------------------------------------------------ the rules of a Roll


def _parts(made: LoreObject) -> tuple[list[int], list[int]]:
    return list(made.values["faces"]), list(made.values["kinds"])


def _again(
    rt: Runtime, made: LoreObject, faces: list[int], kinds: list[int], marks: list[int]
) -> LoreObject:
    """A plain roll of these faces, still for what ``made`` was for (its title, modifiers,
    target and audience), with ``marks``: every die rolled, as its card shows them."""
    values = made.values
    again = make_roll(rt, values["rolled"], values["by"], values["seat"], faces, kinds)
    fresh = again.values
    for name in ("title", "modifiers", "target", "audience", "rolledBy"):
        fresh[name] = values[name]
    fresh["total"] += sum(values["modifiers"])
    fresh["marks"] = tuple(marks)
    return again


def _live(marks: list[int]) -> list[int]:
    """Where the dice that count are in ``marks`` (triples of face, sides, flags): those
    neither dropped nor rolled again, in the order of the roll's faces."""
    return [i for i in range(0, len(marks), 3) if not marks[i + 2] & (DROPPED | REROLLED)]


def _test(rt: Runtime, fn: Test, face: int) -> bool:
    rt.count_op()
    accepted = fn(rt, face)
    if not isinstance(accepted, bool):
        raise RuleError(
            f"the function given to a Roll must give true or false, not {show(accepted)}"
        )
    return accepted


def count(rt: Runtime, made: LoreObject, fn: Test) -> int:
    return sum(1 for face in made.values["faces"] if _test(rt, fn, face))


def at_least(rt: Runtime, made: LoreObject, face: int) -> int:
    return sum(1 for f in made.values["faces"] if f >= face)


def at_most(rt: Runtime, made: LoreObject, face: int) -> int:
    return sum(1 for f in made.values["faces"] if f <= face)


def count_of(rt: Runtime, made: LoreObject, face: int) -> int:
    return sum(1 for f in made.values["faces"] if f == face)


def explode(rt: Runtime, made: LoreObject, fn: Test) -> LoreObject:
    """Each die whose face ``fn`` accepts adds a die of its kind; so do the added dice,
    for at most ``MAX_EXPLOSIONS`` rounds."""
    faces, kinds = _parts(made)
    first = len(faces)
    fresh = list(range(len(faces)))
    for _ in range(MAX_EXPLOSIONS):
        exploding = [i for i in fresh if _test(rt, fn, faces[i])]
        if not exploding:
            break
        if len(faces) + len(exploding) > MAX_DICE:
            raise LimitExceeded(f"exploding dice passed the limit of {MAX_DICE} dice in one roll")
        fresh = []
        for i in exploding:
            sides = kinds[i]
            faces.append(rt.roll(abs(sides)))
            kinds.append(sides)
            fresh.append(len(faces) - 1)
    else:
        if fresh and any(_test(rt, fn, faces[i]) for i in fresh):
            raise LimitExceeded(
                f"dice kept exploding for {MAX_EXPLOSIONS} rounds",
                "explode on faces that a die does not always show",
            )
    marks = list(made.values["marks"])
    for i in range(first, len(faces)):
        marks += (faces[i], kinds[i], EXPLODED)
    again = _again(rt, made, faces, kinds, marks)
    if len(faces) > len(made.values["faces"]):
        record(rt, again, "explode")
    return again


def reroll(rt: Runtime, made: LoreObject, fn: Test) -> LoreObject:
    faces, kinds = _parts(made)
    old = list(made.values["marks"])
    live = _live(old)
    marks: list[int] = []
    shown = 0  # the next mark not yet copied to ``marks``
    changed = False
    for i, face in enumerate(faces):
        if _test(rt, fn, face):
            faces[i] = rt.roll(abs(kinds[i]))
            changed = True
            at = live[i]
            marks += old[shown : at + 3]
            marks[-1] |= REROLLED
            marks += (faces[i], kinds[i], old[at + 2] & EXPLODED)
            shown = at + 3
    marks += old[shown:]
    again = _again(rt, made, faces, kinds, marks)
    if changed:
        record(rt, again, "reroll")
    return again


def _kept(rt: Runtime, made: LoreObject, n: int, highest: bool, keep: bool) -> LoreObject:
    faces, kinds = _parts(made)
    if n < 0:
        raise RuleError(f"cannot keep or drop {n} dice")
    # The dice in order of face (highest first when asked), ties by the order rolled.
    order = sorted(range(len(faces)), key=lambda i: (-faces[i] if highest else faces[i], i))
    chosen = set(order[:n])
    indexes = [i for i in range(len(faces)) if (i in chosen) == keep]
    marks = list(made.values["marks"])
    kept = set(indexes)
    for i, at in enumerate(_live(marks)):
        if i not in kept:
            marks[at + 2] |= DROPPED
    return _again(rt, made, [faces[i] for i in indexes], [kinds[i] for i in indexes], marks)


def keep_highest(rt: Runtime, made: LoreObject, n: int) -> LoreObject:
    return _kept(rt, made, n, highest=True, keep=True)


def keep_lowest(rt: Runtime, made: LoreObject, n: int) -> LoreObject:
    return _kept(rt, made, n, highest=False, keep=True)


def drop_highest(rt: Runtime, made: LoreObject, n: int) -> LoreObject:
    return _kept(rt, made, n, highest=True, keep=False)


def drop_lowest(rt: Runtime, made: LoreObject, n: int) -> LoreObject:
    return _kept(rt, made, n, highest=False, keep=False)


def remap(rt: Runtime, made: LoreObject, fn: Callable[[Any, int], Any]) -> LoreObject:
    faces, kinds = _parts(made)
    mapped = []
    for face in faces:
        rt.count_op()
        value = fn(rt, face)
        if not isinstance(value, int) or isinstance(value, bool):
            raise RuleError(f"remap must give every face a whole number, not {show(value)}")
        mapped.append(value)
    marks = list(made.values["marks"])
    for value, at in zip(mapped, _live(marks), strict=True):
        marks[at] = value
    return _again(rt, made, mapped, kinds, marks)


_ROLL_RULES: dict[str, Callable[..., Any]] = {
    "count": count,
    "atLeast": at_least,
    "atMost": at_most,
    "countOf": count_of,
    "explode": explode,
    "reroll": reroll,
    "keepHighest": keep_highest,
    "keepLowest": keep_lowest,
    "dropHighest": drop_highest,
    "dropLowest": drop_lowest,
    "remap": remap,
}
