"""Rules that go on after a step, hooks, outcomes and seats.

- ``schedule.then(handler)``: the handler runs in a step right after this step's update
  phase, at the same time and priority (with the events this step added for them).
- ``system.on(name, handler)`` / ``system.signal(name, value)``: a signal's subscribers
  run, each with the value, in a step right after the step that sent it.
- ``system.onAlter(name, handler)``: after an update phase in which the alter ``name``
  changed objects, the handler runs for each of them, in a step right after it.
- ``system.onCreate(form, handler)`` / ``system.onRemove(form, handler)``: after the
  update phase of a step that made objects of the form (or of a form extending it), or
  removed them with ``system.remove(obj)``, the handler runs for each, in a step right
  after it.
- ``system.end(outcome)``, ``system.count(name, n)``, ``system.record(name, x)``: the
  session's outcome and statistics, which ``lore sim`` sums up.
- ``system.messagePlayers(text)``: one message to every player seat; ``system.gmSeat``.
- ``system.messageEveryone(text)``: one message to the GM and to every player seat.

Subscriptions, statistics and the outcome belong to the step that made them: when the
step goes wrong (or waits for an answer and runs again), they go with it. They are plain
session fields: lists of tuples of the step's number, names, numbers and handlers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lore.runtime.errors import RuleError
from lore.runtime.ops import handler_call
from lore.runtime.values import LoreObject, TypedString, show

if TYPE_CHECKING:
    from lore.engine.session import Runtime, Session
    from lore.runtime.compiler import CompiledProgram

GM_SEAT = TypedString("jid", "GM")


def install(program: CompiledProgram) -> None:
    """Give the prelude's forms these native rules (``natives.prepare`` does, once per
    program)."""
    forms = program.form_by_name
    forms["Schedule"].methods.setdefault("then", then)
    methods = forms["System"].methods
    for name, fn in _SYSTEM_RULES.items():
        methods.setdefault(name, fn)


def then(rt: Runtime, schedule: LoreObject, handler: Any) -> None:
    fn, arg = handler_call(handler)
    rt.adds.append((rt.tick, rt.session.priority, fn, arg))
    if len(rt.adds) > rt.max_adds:
        rt.too_many_adds()


# ------------------------------------------------------------ hooks


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str | TypedString) or not str(value):
        raise RuleError(f"{what} is named by a text, not {show(value)}")
    return str(value)


def on(rt: Runtime, system: LoreObject, name: Any, handler: Any) -> None:
    session = rt.session
    session.hooks.append((session.steps, "signal", _name(name, "a signal"), handler))


def on_alter(rt: Runtime, system: LoreObject, name: Any, handler: Any) -> None:
    session = rt.session
    session.hooks.append((session.steps, "alter", _name(name, "an alter"), handler))


def _form_named(rt: Runtime, value: Any) -> str:
    """The qualified name of the form a hook names (``"Card"`` or ``"game.Card"``)."""
    name = _name(value, "a form")
    forms = rt.session.program.form_by_name
    if name in forms:
        return name
    found = [known for known in forms if known.rsplit(".", 1)[-1] == name]
    if len(found) == 1:
        return found[0]
    if found:
        raise RuleError(f"'{name}' names several forms: {', '.join(sorted(found))}")
    raise RuleError(f"there is no form named '{name}'", 'name a form of the program: "Actor"')


def on_create(rt: Runtime, system: LoreObject, form: Any, handler: Any) -> None:
    session = rt.session
    session.hooks.append((session.steps, "create", _form_named(rt, form), handler))


def on_remove(rt: Runtime, system: LoreObject, form: Any, handler: Any) -> None:
    session = rt.session
    session.hooks.append((session.steps, "remove", _form_named(rt, form), handler))


def remove(rt: Runtime, system: LoreObject, obj: Any) -> None:
    form = obj.form if isinstance(obj, LoreObject) else None
    program = rt.session.program
    if form is None or not (
        form.is_subform_of(program.form_by_name["Actor"])
        or form.is_subform_of(program.form_by_name["Item"])
    ):
        raise RuleError(f"only actors and items are removed, not {show(obj)}")
    if rt.alter_index is not None:
        raise RuleError("an alter cannot remove objects", "remove it in a rule's handler")
    if obj not in rt.removing:
        rt.removing.append(obj)
        rt.rare = True  # (see Runtime.rare)


def after_step(session: Session) -> None:
    """At the end of a step's update phase: put the objects made with a location on the
    map (``Session.made``), take the removed objects off it and out of ``system.allPC``,
    then queue the handlers of the objects made and removed (made
    first, each in the order made or removed)."""
    rt = session.rt
    created, removing = rt.created, rt.removing
    rt.created, rt.removing = [], []
    system = rt.system
    session.made.extend(obj for obj in created if "location" in obj.values)
    if removing and system is not None:
        gone = set(map(id, removing))
        actors = system.values.get("allPC")
        if actors and any(id(actor) in gone for actor in actors):
            system.values["allPC"] = tuple(a for a in actors if id(a) not in gone)
        for obj in removing:
            obj.values.pop("location", None)
        if any(id(obj) in gone for obj in session.made):
            session.made = [obj for obj in session.made if id(obj) not in gone]
    forms = session.program.form_by_name
    for kind, objects in (("create", created), ("remove", removing)):
        hooks = [(forms[name], handler) for _, k, name, handler in session.hooks if k == kind]
        for obj in objects if hooks else ():
            for form, handler in hooks:
                if obj.form is not None and obj.form.is_subform_of(form):
                    rt.adds.append((session.ticks, session.priority, _run_hook, (handler, obj)))


def _run_hook(rt: Runtime, arg: tuple[Any, Any]) -> None:
    handler, value = arg
    handler(rt, value)


def signal(rt: Runtime, system: LoreObject, name: Any, value: Any) -> None:
    wanted = _name(name, "a signal")
    session = rt.session
    for _, kind, hooked, handler in session.hooks:
        if kind == "signal" and hooked == wanted:
            rt.adds.append((rt.tick, session.priority, _run_hook, (handler, value)))


def after_alters(session: Session, altered: Any) -> None:
    """Queue the handlers subscribed to the alters that ran (in the order they ran)."""
    rt = session.rt
    for obj, alter in altered:
        for _, kind, hooked, handler in session.hooks:
            if kind == "alter" and hooked == alter:
                rt.adds.append((session.ticks, session.priority, _run_hook, (handler, obj)))


def discard_step(session: Session) -> None:
    """Forget what the step being run subscribed, counted and decided (it went wrong, or
    it runs again once its answers have come)."""
    step = session.steps
    rt = session.rt
    if rt.created:  # (an empty list is left as it is: most steps make none)
        rt.created = []
    if rt.removing:
        rt.removing = []
    while session.hooks and session.hooks[-1][0] == step:
        session.hooks.pop()
    while session.stats and session.stats[-1][0] == step:
        session.stats.pop()
    if session.outcome is not None and session.outcome[0] == step:
        session.outcome = None


# ------------------------------------------------------------ outcomes


def end(rt: Runtime, system: LoreObject, outcome: Any) -> None:
    session = rt.session
    text = _name(outcome, "an outcome")
    if session.outcome is not None and session.outcome[0] == session.steps:
        if session.outcome[1] != text:
            raise RuleError(
                f"the session cannot end both '{session.outcome[1]}' and '{text}'",
                "decide the outcome in one place",
            )
        return
    session.outcome = (session.steps, text)
    rt.rare = True  # (see Runtime.rare)


def _number(value: Any, name: str) -> float | int:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RuleError(f"'{name}' counts numbers, not {show(value)}")
    return value


def count(rt: Runtime, system: LoreObject, name: Any, amount: Any) -> None:
    key = _name(name, "a counter")
    rt.session.stats.append((rt.session.steps, "count", key, _number(amount, key)))


def record(rt: Runtime, system: LoreObject, name: Any, value: Any) -> None:
    key = _name(name, "a value")
    rt.session.stats.append((rt.session.steps, "value", key, _number(value, key)))


def statistics(session: Session) -> dict[str, float | int]:
    """The session's counters (summed) and values (the last recorded), by name."""
    found: dict[str, float | int] = {}
    for _, kind, name, value in session.stats:
        found[name] = found.get(name, 0) + value if kind == "count" else value
    return found


# ------------------------------------------------------------ seats


def message_players(rt: Runtime, system: LoreObject, text: Any) -> None:
    from lore.engine.natives import recipient, tell

    seats: list[str] = []
    for actor in system.values.get("allPC") or ():
        seat = recipient(actor)
        if seat != "GM" and seat not in seats:
            seats.append(seat)
    for seat in seats:
        tell(rt, seat, text)


def message_everyone(rt: Runtime, system: LoreObject, text: Any) -> None:
    from lore.engine.natives import tell

    tell(rt, "GM", text)
    message_players(rt, system, text)


_SYSTEM_RULES: dict[str, Callable[..., Any]] = {
    "messagePlayers": message_players,
    "messageEveryone": message_everyone,
    "end": end,
    "count": count,
    "record": record,
    "on": on,
    "signal": signal,
    "onAlter": on_alter,
    "onCreate": on_create,
    "onRemove": on_remove,
    "remove": remove,
}
