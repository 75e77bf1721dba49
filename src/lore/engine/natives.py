"""The rules the engine itself provides: the members the prelude declares with a
function type (``message``, ``query``, ``add``) and the engine's values (``GM``,
``schedule``, ``system``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from lore.engine import (
    command_rolls,
    continuation,
    happenings,
    map_queries,
    odds_values,
    roll_rulings,
    rollers,
    rolls,
    shown_rolls,
    withdrawal,
    world_natives,
)
from lore.engine.participants import NO_STREAM, PENDING, Back, Pending, Refusal
from lore.engine.queries import (
    MAX_CACHED_SHAPES,
    AnswerError,
    InputCache,
    Query,
    ShapeCache,
    fill,
    fill_answered,
    make_query,
    plain,
    shape_of,
    shaped_query,
)
from lore.engine.saves import Answer
from lore.runtime.errors import LimitExceeded, RuleError
from lore.runtime.ops import handler_call, ticks_of
from lore.runtime.quantity import Quantity
from lore.runtime.values import FormInfo, LoreObject, RuntimeType, TypedString, show
from lore.semantics.units import UnitFamily

if TYPE_CHECKING:
    from lore.engine.session import Runtime, Session
    from lore.runtime.compiler import CompiledProgram


@dataclass(frozen=True, eq=False)
class Prepared:
    """What every session of a compiled program shares, worked out once per program.

    A compiled program is a value shared by any number of sessions: nothing a session does
    changes it. ``prepare`` gives the prelude's forms their native rules and builds every
    form's table of rules before the first session, and keeps here what each session
    would otherwise work out again: the names of the program's values, each form's member
    defaults, and the forms that are actors, areas, triggers or schedules.
    """

    labels: tuple[str, ...]  # the qualified name of each of program.values, in order
    defaults: dict[FormInfo, list[tuple[str, Any]]]
    actors: frozenset[FormInfo]
    areas: frozenset[FormInfo]
    triggers: frozenset[FormInfo]
    schedules: frozenset[FormInfo]
    # The inputs of plain markers its questions made (``queries.InputCache``): made once.
    inputs: InputCache
    # The shapes of its described questions (``queries.ShapeCache``): made once each.
    shapes: ShapeCache


_PREPARING = threading.Lock()


def prepare(program: CompiledProgram) -> Prepared:
    """The program made ready for sessions (once; later calls return the same)."""
    found: Prepared | None = program.engine
    if found is not None:
        return found
    with _PREPARING:  # two threads may start the first sessions of a program at once
        if program.engine is None:
            program.engine = _prepared(program)
        ready: Prepared = program.engine
        return ready


def _prepared(program: CompiledProgram) -> Prepared:
    forms = program.form_by_name
    participant, actor, schedule = forms["Participant"], forms["Actor"], forms["Schedule"]
    participant.methods.setdefault("message", participant_message)
    participant.methods.setdefault("query", participant_query)
    actor.methods.setdefault("message", actor_message)
    actor.methods.setdefault("query", actor_query)
    schedule.methods.setdefault("add", schedule_add)
    world_natives.install(program)
    rolls.install(program)
    rollers.install(program)
    command_rolls.install(program)
    shown_rolls.install(program)
    roll_rulings.install(program)
    odds_values.install(program)
    happenings.install(program)
    map_queries.install(program)
    actor.methods["addKnownSecret"] = add_known_secret  # each key kept once
    every = list(program.forms.values())
    for form in every:
        form.vtable = {}  # built again below, with the native rules
    for form in every:
        form.resolve()

    def kinds(base: FormInfo) -> frozenset[FormInfo]:
        return frozenset(form for form in every if form.is_subform_of(base))

    return Prepared(
        labels=tuple(symbol.qualified_name for symbol, _, _ in program.values),
        defaults={form: list(form.all_defaults().items()) for form in every},
        actors=kinds(actor),
        areas=kinds(forms["Area"]),
        triggers=kinds(forms["Trigger"]),
        schedules=kinds(schedule),
        inputs={},
        shapes={},
    )


def install(session: Session) -> UnitFamily:
    """Give the session its engine values (``GM``, ``schedule``, ``system``); the
    program is prepared for sessions first if it is not yet."""
    prepare(session.program)
    forms = session.program.form_by_name
    rt = session.rt
    rt.GM = LoreObject(forms["Participant"], {}, 0, "GM")
    time = session.program.result.checker.units.units["sec"]
    rt.schedule = LoreObject(
        forms["Schedule"],
        {"ticks": Quantity(0, "sec", time), "priority": 0, "events": ()},
        0,
        "schedule",
    )
    rt.system = LoreObject(
        forms["System"], {"allPC": (), "gmSeat": happenings.GM_SEAT}, 0, "system"
    )
    rt.now = rt.schedule.values["ticks"]
    return time


def add_known_secret(rt: Runtime, actor: LoreObject, keys: tuple[Any, ...]) -> dict[str, Any]:
    """The alter ``Actor.addKnownSecret`` (the prelude declares it): the keys not known
    yet join ``knownSecrets``, each once, in the order requested."""
    known = actor.values.get("knownSecrets") or ()
    added: list[Any] = []
    for key in keys:
        if key not in known and key not in added:
            added.append(key)
    return {"knownSecrets": (*known, *added)}


def after_values(session: Session) -> None:
    """Once the program's values exist: ``system.allPC`` is every actor among them."""
    prepared = prepare(session.program)
    actors = tuple(
        value
        for value in session.rt.g
        if isinstance(value, LoreObject) and value.form in prepared.actors
    )
    assert session.rt.system is not None
    session.rt.system.values["allPC"] = actors
    session.world = world_natives.build(session, prepared)
    from lore.engine import system_commands  # (it builds on the session module)

    system_commands.prepare(session)


def recipient(obj: LoreObject) -> str:
    """Who is told or asked for an object: its player, or the GM."""
    player = obj.values.get("player")
    if type(player) is TypedString:  # a jid, most often
        return player.text or "GM"
    if isinstance(player, TypedString | str) and str(player):
        return str(player)
    return "GM"


def told_first(rt: Runtime, kind: str, what: str) -> bool:
    """Whether the handler's next message (or card) of ``kind`` is told now, not in an
    earlier run of its step; a LimitExceeded past the step's limit of messages (``what``
    the handler does, for the hint)."""
    session = rt.session
    key = rt.next_key(kind)
    told = session.told
    if key in told:
        return False
    if len(told) >= session.limits.max_messages:
        raise LimitExceeded(
            f"more than {session.limits.max_messages} messages in one step",
            f"a handler probably {what} in a loop, or events that do multiply",
        )
    told.add(key)
    return True


def tell(rt: Runtime, to: str, text: Any) -> None:
    if type(text) is str:
        fmt = "text"
    elif isinstance(text, TypedString) and text.kind == "html":
        fmt, text = "html", str(text)
    elif isinstance(text, str | TypedString):
        fmt, text = "text", str(text)
    else:
        raise RuleError(f"a message is a text, not {show(text)}")
    session = rt.session
    if not told_first(rt, "m", "sends messages"):
        return  # told in an earlier run of this step
    record = {"tick": session.ticks, "kind": "message", "to": to, "text": text, "format": fmt}
    session.transcript.add(record)
    participants = session.participants
    participant = participants.members.get(to) or participants.get(to)
    if participant is not None and getattr(participant, "listens", True):
        participant.tell(record)


def participant_message(rt: Runtime, obj: LoreObject, text: Any) -> None:
    tell(rt, "GM" if obj.label == "GM" else recipient(obj), text)


def actor_message(rt: Runtime, obj: LoreObject, text: Any) -> None:
    player = obj.values.get("player")  # (``recipient`` of a jid written out: most are)
    tell(rt, (player.text or "GM") if type(player) is TypedString else recipient(obj), text)


def participant_query(rt: Runtime, obj: LoreObject, title: Any, spec: Any) -> LoreObject:
    return ask(rt, "GM" if obj.label == "GM" else recipient(obj), title, spec)


def actor_query(rt: Runtime, obj: LoreObject, title: Any, spec: Any) -> LoreObject:
    player = obj.values.get("player")  # (``recipient`` of a jid written out: most are)
    to = (player.text or "GM") if type(player) is TypedString else recipient(obj)
    return ask(rt, to, title, spec, obj.label or "")


def ask(rt: Runtime, to: str, title: Any, spec: Any, actor: str = "") -> LoreObject:
    session = rt.session
    key = rt.next_key("q")
    known = session.step_answers.get(key)
    if known is not None:  # the step runs again: the question is not described again
        return answered(session, key, known, to, title, spec)
    engine = session.program.engine
    # (The id as ``query_id`` makes it, written here for a question asked outside any
    # foreach body: most are.)
    name = f"{key[1]}//{key[3]}" if not key[2] else query_id(key)
    values = spec.values if spec.__class__ is LoreObject else None
    try:
        shown = title if type(title) is str else show(title)  # (most titles are texts)
        if values is not None:  # a question of a shape asked before: its inputs as made
            shape = engine.shapes.get(tuple(values))
            if shape is not None:
                query = shaped_query(to, shown, values, shape, name, actor)
                if query is not None:
                    return ask_new(rt, key, query, spec, (to, title), shape.offered)
        objects = partial(_visible, session, to)  # (``visible_to`` written out)
        if values is not None and to != "GM":
            spec = _unhidden(session, to, spec)
        query = _masked(session, make_query(to, shown, spec, objects, name, actor, engine.inputs))
    except AnswerError as error:
        raise RuleError(str(error)) from None
    shapes = engine.shapes
    if values is not None and len(shapes) < MAX_CACHED_SHAPES:
        made = shape_of(values, query)
        if made is not None:
            shapes[tuple(values)] = made
    return ask_new(rt, key, query, spec, (to, title))


def answered(
    session: Session, key: Any, known: dict[str, Any], to: str, title: Any, spec: Any
) -> LoreObject:
    """The spec of a question ``ask`` asked earlier in the step, filled in by its answer
    ``known``."""
    kept = session.step_filled.get(key)
    if kept is not None and kept[0] is known and isinstance(spec, LoreObject):
        filled = LoreObject(None, {**spec.values, **kept[1]}, 0)
        filled.oid = session.new_oid()
        return filled
    objects = visible_to(session, to)
    try:
        if isinstance(spec, LoreObject) and to != "GM":
            spec = _unhidden(session, to, spec)
        filled = fill_answered(
            show(title),
            spec,
            known,
            objects,
            place_check(session),
            partial(_masked_for, session, to),
        )
    except AnswerError as error:
        raise RuleError(str(error)) from None
    filled.oid = session.new_oid()
    return filled


def visible_to(session: Session, to: str) -> Callable[[RuntimeType], tuple[Any, ...]]:
    """The objects of a form that ``to`` may see (what an input of that form offers).
    (A partial: one is made per question, and few questions need it.)"""
    return partial(_visible, session, to)


def _visible(session: Session, to: str, rtype: RuntimeType) -> tuple[Any, ...]:
    from lore.engine.views import visible_objects

    return visible_objects(session, to, rtype.form)


def _masked(session: Session, query: Query) -> Query:
    from lore.engine.zones import masked

    return masked(session, query)


def _masked_for(session: Session, to: str, query: Query) -> Query:
    return _masked(session, replace(query, to=to))


def _unhidden(session: Session, to: str, spec: LoreObject) -> LoreObject:
    from lore.engine.views import unhidden_spec

    return unhidden_spec(session, to, spec)


def query_id(key: Any) -> str:
    """A question's id, from its key (``Runtime.next_key``): "<event>/<foreach path>/<n>"."""
    path = key[2]
    if not path:  # (most questions are asked outside any foreach body)
        return f"{key[1]}//{key[3]}"
    return f"{key[1]}/{'.'.join(map(str, path))}/{key[3]}"


def ask_query(rt: Runtime, query: Query, spec: Any = None) -> LoreObject:
    """Ask ``query``; the spec (if any) with the inputs filled in by the answer."""
    key = rt.next_key("q")
    return ask_key(rt, key, replace(query, id=query_id(key)), spec)


def ask_key(
    rt: Runtime, key: Any, query: Query, spec: Any = None, asked: tuple[str, Any] | None = None
) -> LoreObject:
    """Ask ``query``, named ``key``; the spec (if any) with the inputs filled in by the
    answer. ``asked``: the participant and title ``ask`` asked it with (its answer is
    then filled in as ``ask`` fills an answered question in).

    A question is named by where its handler asks it, so when a step runs again (after an
    answer that came later) the questions it already asked are answered from what the step
    has, and those still open make the body wait again; nothing is asked twice.
    """
    known = rt.session.step_answers.get(key)
    if known is not None:
        return answered_key(rt.session, query, spec, known)
    return ask_new(rt, key, query, spec, asked)


def ask_new(
    rt: Runtime,
    key: Any,
    query: Query,
    spec: Any = None,
    asked: tuple[str, Any] | None = None,
    offered: dict[str, list[str]] | None = None,
) -> LoreObject:
    """``ask_key`` of a question the step has no answer to yet. ``offered``: the choices
    its inputs offer (``Query.offered``), when known."""
    session = rt.session
    if query.id in session.open:
        rt.suspended = True
        raise _suspend(query.id)
    to = query.to
    if key not in session.asked:
        if len(session.asked) >= session.limits.max_questions:
            raise LimitExceeded(
                f"more than {session.limits.max_questions} questions in one step",
                "a handler probably asks in a loop, or events that ask multiply",
            )
        session.asked.add(key)
        record: dict[str, Any] = {
            "tick": session.ticks,
            "kind": "query",
            "to": to,
            "title": query.title,
        }
        if query.purpose:  # (an engine's own question: clients title it in their language)
            record["purpose"] = query.purpose
        if offered is None:
            offered = query.offered()
        if offered:
            record["choices"] = offered
        session.transcript.add(record)
    participants = session.participants
    participant = participants.members.get(to) or participants.get(to)
    if participant is None:
        raise _stop("no-answer", f"nobody answers for {to}")
    # (A participant that answers later, the server's, draws nothing: its stream is not
    # made. ``Runtime.unused_choices`` leaves the stream kept for bots as ``choices``
    # would.)
    if getattr(participant, "draws", True):
        stream = rt.choices
    else:
        stream = NO_STREAM
        if rt.kept_choices is not None:
            rt.unused_choices()
    # (One that always answers later, the server's, is not asked: it would say PENDING.)
    later = getattr(participant, "answers_later", False)
    try:
        while True:
            answer = PENDING if later else participant.ask(query, stream)
            if answer is None:
                raise _stop("no-answer", f"{to} has no answer left")
            if isinstance(answer, Pending):
                session.open[query.id] = (key, query, spec)
                rt.suspended = True
                resumed = continuation.wait_here(rt, key) if rt.pausable else False
                if resumed is False:
                    raise _suspend(query.id)
                if resumed is not True:  # the spec as Session.answer filled it in
                    resumed.oid = oid = session.next_oid  # (``new_oid`` written out)
                    session.next_oid = oid + 1
                    return resumed
                # Kept here until the answer came: filled in as the step run again would.
                known = session.step_answers[key]
                if asked is not None:
                    return answered(session, key, known, *asked, spec)
                return answered_key(session, query, spec, known)
            if isinstance(answer, Back):  # the last answer taken back: the step runs again
                problem = withdrawal.withdraw(session, query, key)
                if problem is None:
                    rt.suspended = True
                    raise _suspend(query.id)
                if participant.rejected(query, {}, f"cannot go back: {problem}"):
                    continue
                raise _stop("error", f"{to} cannot go back at '{query.title}': {problem}")
            try:
                filled = fill(query, spec, answer, session.place_problem)
            except AnswerError as error:
                if participant.rejected(query, answer, str(error)):
                    continue
                raise _stop("error", f"answer of {to} to '{query.title}': {error}") from None
            break
    except Refusal as refusal:
        raise _stop("error", str(refusal)) from None
    record_answer(session, query, key, answer)
    filled.oid = session.new_oid()
    return filled


def _stop(reason: str, detail: str) -> Exception:
    """The run stops (``Session``'s ``Stop``: imported only then, as the session module
    builds on this one)."""
    from lore.engine.session import Stop

    return Stop(reason, detail)


def _suspend(query_id: str) -> Exception:
    """The body waits for the answer to ``query_id`` (``Suspend``)."""
    from lore.engine.session import Suspend

    return Suspend(query_id)


def answered_key(session: Session, query: Query, spec: Any, known: dict[str, Any]) -> LoreObject:
    """The spec of a question ``ask_key`` asked earlier in the step, filled in by its
    answer ``known``."""
    filled = fill(query, spec, known, place_check(session))
    filled.oid = session.new_oid()
    return filled


def place_check(session: Session) -> Callable[[str], str | None]:
    """How an answer's location is checked: the reason it names no place of the
    session's world, or None when it does (``Session.place_problem``)."""
    return session.place_problem


def place_problem(session: Session, text: str) -> str | None:
    world = session.world
    if world is None or world.root is None:
        return "the session has no places"
    try:
        world.resolve(TypedString("loc", text))
    except RuleError as error:
        return error.message
    return None


def record_answer(
    session: Session,
    query: Query,
    key: Any,
    answer: dict[str, Any],
    filled: LoreObject | None = None,
) -> None:
    """Keep an answer for the step, in the session's log and in the transcript.

    ``filled``, the spec filled in by the answer (when it was checked before it was
    given), is kept for the step's next run as the values of the inputs, when they are
    plain values (no choice among options, which may be objects the run makes again):
    filling the answer in again would give the same. The session forgets them in a
    snapshot; a restored session fills the answers in again."""
    answers = session.step_answers
    answers[key] = answer
    # What taking it back needs: who gave it, the title, what the step had told, the
    # questions open (``withdrawal.refusal``).
    session.answered[key] = (query.to, query.title, len(session.told), tuple(session.open))
    kept = session.step_filled
    if kept:
        for old in [k for k, (given, _) in kept.items() if answers.get(k) is not given]:
            del kept[old]  # of an earlier step
    if filled is not None:
        inputs = query.inputs
        for item in inputs:
            if item.values is not None:
                break
        else:
            values = filled.values
            kept[key] = (answer, {item.name: values[item.name] for item in inputs})
    if session.keep_answers:
        session.answers.append(Answer(query.to, answer, query.id, query.title))
    else:
        session.answers_before += 1  # counted only (see Session.keep_answers)
    shown = {}
    for name, value in answer.items():  # (``plain`` of each; most are texts)
        shown[name] = value if type(value) is str else plain(value)
    session.transcript.add(
        {"tick": session.ticks, "kind": "answer", "from": query.to, "values": shown}
    )


def schedule_add(rt: Runtime, schedule: LoreObject, event: Any) -> None:
    rt.add_at(*event_parts(rt.session, event))


def event_parts(session: Session, event: Any) -> tuple[int, int, Any, Any]:
    """An Event object as the queue keeps it: (ticks, priority, fn, arg)."""
    event_form = session.program.form_by_name["Event"]
    form = event.form if isinstance(event, LoreObject) else None
    if form is not event_form and (form is None or not form.is_subform_of(event_form)):
        raise RuleError(f"schedule.add takes an Event, not {show(event)}")
    ticks = ticks_of(event.values.get("ticks"))
    priority = event.values.get("priority", 0)
    if not isinstance(priority, int):
        raise RuleError(f"the event's priority must be a whole number, not {show(priority)}")
    fn, arg = handler_call(event.values.get("handler"))
    return ticks, priority, fn, arg
