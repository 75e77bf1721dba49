"""The update phase of a step: each requested alter runs once with all the values requested
for it, and their modifications apply together, in the order of the alters' first requests.
Alters that request alters run in further rounds of the same update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from lore.engine import happenings, world_natives
from lore.runtime.errors import LimitExceeded
from lore.runtime.ops import GROUPED
from lore.runtime.values import FormInfo, LoreObject

if TYPE_CHECKING:
    from lore.engine.session import Session

_MISSING = object()  # a member that had no value (to undo its modification)


def update(session: Session) -> None:
    """Run each requested alter once with all values requested for it; their
    modifications apply together, in the order of the alters' first requests (so
    when two alters modify one member, the one requested later stands).

    Alters that request alters (``addKnownSecret`` in an alter, say) start a further
    round of the same update phase, after the modifications of this one; past
    ``Limits.max_alter_rounds`` rounds the step is dropped, with a ``LimitExceeded``.
    """
    rt = session.rt
    first = rt.first_request
    if first is not GROUPED and first is not None and not session.hooks:
        # One request (most steps): its alter runs as ``alter_one`` runs it, with no
        # dict made for it; a plain one (no place, it writes itself) as ``singles``
        # runs it.
        obj, alter, value = first
        apply = obj.form.plain_table.get(alter)
        if apply is None:
            alter_one(session, rt.take_requests())
            return
        rt.first_request = None
        apply(rt, obj, (value,))
        if alter not in obj.altered:
            note_altered(session, ((obj, alter),))
        return
    requests: dict[tuple[LoreObject, str], Any] = rt.take_requests()
    if len(requests) != 1 or session.hooks:
        if session.hooks or not session.plain_round(requests):
            rounds(session, requests)
        return
    alter_one(session, requests)


def plain_round(session: Session, requests: dict[tuple[LoreObject, str], Any]) -> bool:
    """The update of a step whose alters all have a value function (plain alters that
    modify one member each: they neither request alters nor roll, ask or move), with
    no hooks: each runs with its values, then the values are written in the order of
    the requests (the later of two alters modifying one member stands), as ``rounds``
    would. False, with nothing written, when an alter has none (a value function
    does nothing but compute its value: the caller runs them all again in
    ``rounds``)."""
    rt = session.rt
    results: list[tuple[str, Any]] = []  # each alter's member and its new value
    add = results.append
    for (obj, alter), values in requests.items():
        found = obj.form.value_table.get(alter)  # type: ignore[union-attr]
        if found is None:
            return False
        add((found[1], found[0](rt, obj, tuple(values))))
    for (obj, alter), (member, value) in zip(requests, results, strict=True):
        obj.values[member] = value
        if alter not in obj.altered:
            note_altered(session, ((obj, alter),))
    return True


def alter_one(session: Session, requests: dict[tuple[LoreObject, str], Any]) -> None:
    """The update of a step that requested one alter (most steps), with no hooks: it
    runs at once, and applies at once when it requests no further alter (what it
    requests goes to the runtime). (A step that goes wrong clears ``alter_index``.)"""
    rt = session.rt
    key, values = requests.popitem()
    obj, alter = key
    form = obj.form
    assert form is not None
    rt.alter_index = 0
    rt.index = session.step_size
    rt.state = None
    rt.ops = 0
    apply = form.apply_table.get(alter)
    if apply is None:
        run = form.vtable.get(alter) or form.resolve()[alter]
        modifications = run(rt, obj, tuple(values))
    elif (modifications := apply(rt, obj, tuple(values))) is None:  # written already
        rt.alter_index = None
        if alter not in obj.altered:
            note_altered(session, (key,))
        return
    rt.alter_index = None
    altered_one(session, key, modifications)


def altered_one(
    session: Session, key: tuple[LoreObject, str], modifications: dict[str, Any]
) -> None:
    """After the one alter of ``alter_one`` ran: its modifications, applied now when
    it requested no further alter (those the runtime holds)."""
    rt = session.rt
    obj, alter = key
    if rt.first_request is not None:
        rounds(session, rt.take_requests(), {key: modifications})
        return
    moves = "location" in modifications
    before = obj.values.get("location") if moves else None
    obj.values.update(modifications)
    if alter not in obj.altered:
        note_altered(session, (key,))
    if moves:
        world_natives.after_moves(session, [(obj, before)])


def rounds(
    session: Session,
    requests: dict[tuple[LoreObject, str], Any],
    done: dict[tuple[LoreObject, str], Any] | None = None,
) -> None:
    """The rounds of an update, from ``requests``; ``done``: a first round that
    already ran (each alter with what it modifies, not applied yet), when
    ``requests`` are what it requested."""
    rt = session.rt
    rt.depth = 0
    first = session.step_size  # the alters' places in the step come after the handlers'
    ran = len(done or ())  # alters run so far in this update: each has its own place
    # Each round: each (object, alter) with its requested values, replaced by what
    # the alter modifies once it ran (so a big step holds the values no longer).
    rounds: list[dict[tuple[LoreObject, str], Any]] = [done] if done else []
    undo: list[tuple[LoreObject, dict[str, Any]]] = []  # what earlier rounds changed
    moved: dict[LoreObject, Any] | None = None  # actors moved, with where they were
    try:
        if done:
            moved = apply(session, done, undo, moved)
        while requests:
            if len(rounds) >= session.limits.max_alter_rounds:
                raise LimitExceeded(
                    f"alters kept requesting alters for more than"
                    f" {session.limits.max_alter_rounds} rounds of one update",
                    "an alter probably requests itself, or two alters each other",
                )
            rounds.append(requests)
            for key, values in requests.items():
                obj, alter = key
                form: FormInfo = obj.form  # type: ignore[assignment]
                if alter not in form.plain_table:  # (a plain alter uses none of these)
                    rt.alter_index = ran
                    rt.index = first + ran
                    rt.state = None
                    rt.ops = 0  # each alter has its own budget
                ran += 1
                fn = form.vtable.get(alter) or form.resolve()[alter]
                requests[key] = fn(rt, obj, tuple(values))
            if session.hooks:
                happenings.after_alters(session, requests)
            # What these alters requested: the next round.
            done, requests = requests, rt.take_requests()
            if requests:
                moved = apply(session, done, undo, moved)
            elif len(rounds) == 1:
                moved = apply(session, done, None, moved, note=True)  # (noted as it goes)
                rounds.clear()
            else:
                moved = apply(session, done, None, moved)
    except BaseException:
        for obj, before in reversed(undo):
            for name, value in before.items():
                if value is _MISSING:
                    obj.values.pop(name, None)
                else:
                    obj.values[name] = value
        raise
    finally:
        rt.alter_index = None
    for done_round in rounds:
        note_altered(session, done_round)
    if moved:
        world_natives.after_moves(session, list(moved.items()))


def apply(
    session: Session,
    changes: dict[tuple[LoreObject, str], dict[str, Any]],
    undo: list[tuple[LoreObject, dict[str, Any]]] | None,
    moved: dict[LoreObject, Any] | None,
    note: bool = False,
) -> dict[LoreObject, Any] | None:
    """Apply a round's modifications; keep in ``undo`` what they replace (when a
    further round follows, which may fail), and note the alters that ran when
    ``note`` (see ``note_altered``); the actors moved, with where they were."""
    for (obj, alter), modifications in changes.items():
        if "location" in modifications:
            moved = moved if moved is not None else {}
            moved.setdefault(obj, obj.values.get("location"))
        if undo is not None:
            undo.append((obj, {k: obj.values.get(k, _MISSING) for k in modifications}))
        obj.values.update(modifications)
        if note and alter not in obj.altered:
            note_altered(session, ((obj, alter),))
    return moved


def note_altered(session: Session, requests: Iterable[tuple[LoreObject, str]]) -> None:
    """Note which alters ran on which objects (for the state shown in saves), on the
    object itself: the session keeps no list of them, so an object nothing else
    holds is freed (``changed`` finds the others)."""
    for obj, alter in requests:
        names = obj.altered
        if not names:
            # One tuple per alter name, shared by the objects it changed.
            shared = session.alter_names.get(alter)
            obj.altered = shared or session.alter_names.setdefault(alter, (alter,))
        elif alter not in names:
            obj.altered = (*names, alter)
