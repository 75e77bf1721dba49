"""A running session: game time, events, two-phase steps, participants.

Events wait in a queue ordered by ``(ticks, priority, seq)``. All events of the same
``(ticks, priority)`` form one step:

- *fire phase*: each handler runs, in event order, against the state as it was when the
  step began. Calls of alters are recorded as requests, ``schedule.add`` is recorded,
  messages and queries go out at once.
- *update phase*: the requests are grouped by (object, alter) in the order of their
  first request; each alter runs once with the list of the values requested and its
  modifications apply. Then the scheduled events join the queue.

A rule that goes wrong (a bad value, a limit passed) ends in a ``RuleError`` with its
Lore location; the GM is told, the step's effects are discarded and the session goes on.
The engine does no I/O: participants and the transcript are given to it.
"""

from __future__ import annotations

import heapq
import itertools
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from lore.engine import natives, world_natives
from lore.engine.participants import Participants
from lore.engine.queries import AnswerError, fill
from lore.engine.randomness import Stream
from lore.engine.transcript import Record, Transcript
from lore.runtime.compiler import CompiledProgram
from lore.runtime.errors import Frame, LimitExceeded, RuleError
from lore.runtime.ops import Closure
from lore.runtime.quantity import Quantity
from lore.runtime.values import FormInfo, LoreObject, RuntimeType, TypedString, show
from lore.syntax.recursion import collector_paused
from lore.world.model import World

CHOICES_SALT = 0x5DEECE66D  # sets the bots' random stream apart from the dice


@dataclass(frozen=True)
class Limits:
    max_ops: int = 1_000_000  # rule calls and list steps of one handler
    max_depth: int = 150  # nested rule calls
    max_steps: int | None = None
    max_ticks: int | None = None


class Suspend(Exception):
    """A body waits for an answer that will come later (its question id)."""


Key = tuple[Any, ...]


class Stop(Exception):
    """Ends the run (no answer left, interrupted)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class Runtime:
    """What compiled rules see as ``rt``: the session, and the handler being run."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.g: list[Any] = []
        self.GM: LoreObject | None = None
        self.schedule: LoreObject | None = None
        self.system: LoreObject | None = None
        self.depth = 0
        self.ops = 0
        self.max_depth = session.limits.max_depth
        self.max_ops = session.limits.max_ops
        self.seq = 0
        self._random: Stream | None = None
        self.now: Quantity | None = None  # the time of the step, as schedule.current
        # Where a handler is, for naming its questions and messages: the event (or alter),
        # the foreach elements it is in, and how many of each it made there.
        self.context: Any = 0
        self.path: tuple[int, ...] = ()
        self.counts: dict[Key, int] | None = None
        self._choices: tuple[int, Stream] | None = None

    # -- per handler

    def reset(self, seq: int) -> None:
        self.depth = 0
        self.ops = 0
        self.seq = self.context = seq
        self._random = None
        self.path = ()
        self.counts = None

    def next_key(self, kind: str) -> Key:
        """The name of the next question or message of this handler: the same on every
        re-run of the step, so a re-run neither asks nor tells anything twice."""
        counts = self.counts
        if counts is None:
            counts = self.counts = {}
        where = (kind, self.context, self.path)
        number = counts.get(where, 0)
        counts[where] = number + 1
        return (*where, number)

    def roll(self, sides: int) -> int:
        """One die of ``sides`` sides, from this handler's stream."""
        stream = self._random
        if stream is None:
            stream = self._random = Stream(self.session.seed, self.seq)
        return stream.randint(1, sides)

    def add_event(self, event: Any) -> None:
        """``schedule.add(event)``."""
        assert self.schedule is not None
        natives.schedule_add(self, self.schedule, event)

    @property
    def random(self) -> Stream:
        if self._random is None:
            self._random = Stream(self.session.seed, self.seq)
        return self._random

    @property
    def choices(self) -> Stream:
        """What a bot answering this handler's queries draws from. It is apart from the
        dice, so that replaying the answers from a log rolls the same dice."""
        kept = self._choices
        if kept is None or kept[0] != self.seq:
            kept = self._choices = (self.seq, Stream(self.session.seed ^ CHOICES_SALT, self.seq))
        return kept[1]

    def limit(self, at_entry: bool = True) -> None:
        """Raise the limit passed (called as a rule is entered, or by a list step)."""
        if self.depth > self.max_depth:
            raise LimitExceeded(
                f"rules call each other more than {self.max_depth} deep",
                "a rule probably calls itself without end",
                at_entry,
            )
        raise LimitExceeded(
            f"one handler ran more than {self.max_ops} rule calls and list steps",
            "a rule probably runs without end",
            at_entry,
        )

    def count_op(self) -> None:
        self.ops += 1
        if self.ops > self.max_ops:
            self.limit(at_entry=False)

    # -- objects

    def new(self, form: FormInfo, values: dict[str, Any]) -> LoreObject:
        session = self.session
        obj = LoreObject(form, values, next(session.oids))
        defaults = session._defaults.get(form)
        if defaults is None:
            defaults = session.defaults(form)
        for name, default in defaults:
            if name not in values:
                values[name] = default(self, obj)
        return obj

    def anon(self, values: dict[str, Any]) -> LoreObject:
        return LoreObject(None, values, next(self.session.oids))

    def method(self, obj: Any, name: str, *args: Any) -> Any:
        form = obj.form if isinstance(obj, LoreObject) else None
        if form is None:
            raise RuleError(f"{show(obj)} has no rule '{name}'")
        fn = form.vtable.get(name) or form.resolve().get(name)
        if fn is None:
            raise RuleError(f"{obj!r} has no rule '{name}'")
        return fn(self, obj, *args)

    def call_field(self, obj: Any, name: str, *args: Any) -> Any:
        if not isinstance(obj, LoreObject):
            raise RuleError(f"{show(obj)} has no member '{name}'")
        fn = obj.values.get(name)
        if fn is not None:
            return fn(self, *args)
        form = obj.form
        native = (form.vtable.get(name) or form.resolve().get(name)) if form is not None else None
        if native is None:
            raise RuleError(
                f"{obj!r} has no value for '{name}'",
                "give it a function where the object is written",
            )
        return native(self, obj, *args)

    def request(self, obj: Any, alter: str, value: Any) -> None:
        form = obj.form if isinstance(obj, LoreObject) else None
        if form is None or (alter not in form.alters and not form.is_alter(alter)):
            raise RuleError(f"{show(obj)} has no alter '{alter}'")
        # Grouped as they come, by (object, alter) in the order of the first request
        # (objects compare by identity).
        requests = self.session.requests
        key = (obj, alter)
        values = requests.get(key)
        if values is None:
            requests[key] = [value]
        else:
            values.append(value)

    def foreach(self, items: Iterable[Any], fn: Callable[..., Any]) -> None:
        """Run ``fn`` for every element, all at once: a body waiting for an answer does not
        keep the next ones from starting (and asking); the call ends when all are done."""
        base = self.path
        waiting: Suspend | None = None
        for index, item in enumerate(items):
            self.count_op()
            self.path = (*base, index)
            try:
                fn(self, item)
            except Suspend as suspend:
                waiting = suspend
        self.path = base
        if waiting is not None:
            raise waiting

    def type_of(self, value: Any) -> RuntimeType:
        if isinstance(value, LoreObject) and value.form is not None:
            return RuntimeType("form", value.form.name, form=value.form)
        if isinstance(value, Quantity):
            return RuntimeType("unit", f"unit[{value.unit}]", unit=value.unit, family=value.family)
        if isinstance(value, bool):
            return RuntimeType("prim", "boolean")
        if isinstance(value, int):
            return RuntimeType("prim", "integer")
        if isinstance(value, float):
            return RuntimeType("prim", "real")
        if isinstance(value, TypedString):
            return RuntimeType("prim", value.kind)
        if isinstance(value, str):
            return RuntimeType("prim", "string")
        return RuntimeType("any", "any")

    def engine_value(self, name: str) -> Any:
        raise RuleError(f"the engine provides no value '{name}'")


class Session:
    def __init__(
        self,
        program: CompiledProgram,
        seed: int = 0,
        participants: Participants | None = None,
        limits: Limits | None = None,
        transcript: Transcript | None = None,
    ) -> None:
        self.program = program
        self.seed = seed
        self.participants = participants or Participants()
        self.limits = limits or Limits()
        self.transcript = transcript or Transcript()
        self.queue: list[tuple[int, int, int, LoreObject]] = []
        self.seqs = itertools.count()
        self.oids = itertools.count(1)
        self.ticks = 0
        self.priority = 0
        self.steps = 0
        # The alters requested in this step: (object, alter) -> the values requested.
        self.requests: dict[tuple[LoreObject, str], list[Any]] = {}
        self.adds: list[LoreObject] = []
        self.answers: list[tuple[str, dict[str, Any]]] = []
        self.answer_ids: list[str] = []  # the question each answer answered
        # A step waiting for answers: its events (to run again once answers come), the
        # answers it has, what it already asked and told, and its open questions by id.
        self.waiting: tuple[list[int], list[Any]] | None = None  # seqs and handlers
        self.answered = False
        self.step_answers: dict[Key, dict[str, Any]] = {}
        self.asked: set[Key] = set()
        self.told: set[Key] = set()
        self.open: dict[str, tuple[Key, Any, Any]] = {}
        self.errors: list[RuleError] = []
        # Objects changed by alters, with the names of the members changed (for saves).
        self.changed: dict[int, tuple[LoreObject, set[str]]] = {}
        self.ended: str | None = None
        self.rt = Runtime(self)
        self._defaults: dict[FormInfo, list[tuple[str, Any]]] = {}
        self.world: World | None = None
        self.triggers: list[LoreObject] = []
        self.time = natives.install(self)

    # ------------------------------------------------------------ setup

    def defaults(self, form: FormInfo) -> list[tuple[str, Any]]:
        found = self._defaults.get(form)
        if found is None:
            found = list(form.all_defaults().items())
            self._defaults[form] = found
        return found

    def start(self) -> None:
        """Evaluate the program's values, then queue its top-level events."""
        rt = self.rt
        rt.g = [None] * len(self.program.value_index)
        try:
            for symbol, index, init in self.program.values:
                rt.reset(0)
                value = init(rt)
                rt.g[index] = value
                if isinstance(value, LoreObject) and value.label is None:
                    value.label = symbol.qualified_name
        except Exception as error:
            raise self.rule_error(error, sys.exc_info()[2]) from None
        natives.after_values(self)
        stored = self.stored_schedule()
        if stored is None:
            for index in self.program.events:
                self.enqueue(rt.g[index])
            return
        # A saved session (the paper's `_auto_stored` format): its schedule replaces the
        # scenario's start. Events before the stored time are history and do not run.
        ticks = stored.values.get("ticks")
        self.ticks = ticks.to_int() if isinstance(ticks, Quantity) else int(ticks or 0)
        self.priority = int(stored.values.get("priority") or 0)
        for event in stored.values.get("events") or ():
            when = event.values.get("ticks") if isinstance(event, LoreObject) else None
            when = when.to_int() if isinstance(when, Quantity) else when
            if isinstance(when, int) and when >= self.ticks:
                self.enqueue(event)

    def stored_schedule(self) -> LoreObject | None:
        schedule = self.program.form_by_name["Schedule"]
        for symbol, index, _ in self.program.values:
            value = self.rt.g[index]
            if (
                symbol.qualified_name == "_auto_stored.schedule"
                and isinstance(value, LoreObject)
                and value.form is not None
                and value.form.is_subform_of(schedule)
            ):
                return value
        return None

    def enqueue(self, event: Any) -> None:
        if not isinstance(event, LoreObject):
            raise RuleError(f"{show(event)} is not an Event")
        ticks = event.values.get("ticks")
        priority = event.values.get("priority", 0)
        if isinstance(ticks, Quantity):
            ticks = ticks.to_int()
        if not isinstance(ticks, int) or not isinstance(priority, int):
            raise RuleError(f"{event!r} needs whole ticks and priority")
        heapq.heappush(self.queue, (ticks, priority, next(self.seqs), event))

    # ------------------------------------------------------------ running

    def run(self) -> str:
        """Run until the queue is empty or the run stops; returns the end reason."""
        try:
            if self.ended is None and not self.steps and not self.queue:
                self.start()
            while self.queue or self.waiting is not None:
                if self.waiting is not None:
                    if not self.answered:
                        return "waiting"  # for Session.answer; not an end
                    self.step()
                    continue
                limits = self.limits
                if limits.max_steps is not None and self.steps >= limits.max_steps:
                    return self.end("stopped", "max-steps")
                if limits.max_ticks is not None and self.queue[0][0] > limits.max_ticks:
                    return self.end("stopped", "max-ticks")
                with collector_paused():  # a step makes many objects and few cycles
                    self.step()
        except Stop as stop:
            return self.end(stop.reason, stop.detail)
        except RuleError as error:
            self.report(error)
            return self.end("error", error.message)
        except KeyboardInterrupt:
            return self.end("stopped", "interrupted")
        return self.end("no-events")

    def end(self, reason: str, detail: str = "") -> str:
        if self.ended is None:
            self.ended = reason
            record: Record = {"tick": self.ticks, "kind": "end", "reason": reason}
            if reason == "error" and detail:
                record["message"] = detail  # why the run could not go on (a bad answer ...)
            self.transcript.add(record)
            self.detail = detail
        return reason

    def step(self) -> None:
        queue = self.queue
        events = self.waiting
        if events is None:
            ticks, priority = queue[0][0], queue[0][1]
            self.ticks, self.priority = ticks, priority
            self.steps += 1
            natives.set_time(self, ticks, priority)
            pop = heapq.heappop
            # Only what a run of the step needs is kept: the events themselves are freed.
            step_seqs: list[int] = []
            handlers: list[Any] = []
            while queue and queue[0][0] == ticks and queue[0][1] == priority:
                _, _, seq, event = pop(queue)
                step_seqs.append(seq)
                handlers.append(event.values.get("handler"))
            events = (step_seqs, handlers)
            self.step_answers, self.asked, self.told, self.open = {}, set(), set(), {}
        self.waiting = None
        self.answered = False
        self.requests = {}
        self.adds = []
        rt = self.rt
        suspended = False
        try:
            for seq, handler in zip(*events, strict=True):
                # rt.reset(seq), written out: this runs for every event.
                rt.depth = 0
                rt.ops = 0
                rt.seq = rt.context = seq
                rt._random = None
                rt.path = ()
                rt.counts = None
                try:
                    if handler.__class__ is Closure:
                        handler.code(rt, handler.captured)  # handler(rt), one call less
                    elif handler is not None:
                        handler(rt)
                except Suspend:
                    suspended = True  # its answer comes later: start the others meanwhile
            if suspended:
                # The step runs again, from its start, when answers come; nothing of this
                # run is kept but what was asked and told (not asked or told again).
                self.waiting = events
                self.requests = {}
                self.adds = []
                return
            if self.requests:
                self.update()
        except BaseException as error:
            # The step is one whole: its effects and its waiting questions go with it.
            self.open = {}
            if isinstance(error, Stop) or not isinstance(error, Exception):
                raise
            rule_error = self.rule_error(error, sys.exc_info()[2])
            self.report(rule_error)
            return
        push, seqs = heapq.heappush, self.seqs
        for event in self.adds:
            # self.enqueue(event), written out for the usual event: whole ticks and priority.
            values = event.values
            when: Any = values.get("ticks")
            order: Any = values.get("priority", 0)
            if (
                when.__class__ is Quantity
                and when.value.__class__ is int
                and order.__class__ is int
            ):
                push(queue, (when.value, order, next(seqs), event))
            else:
                self.enqueue(event)

    def update(self) -> None:
        """Run each requested alter once with all values requested for it."""
        changes: list[tuple[LoreObject, dict[str, Any]]] = []
        rt = self.rt
        # Requests made while alters run (an alter calling one) are not applied.
        requests, self.requests = self.requests, {}
        for index, ((obj, alter), values) in enumerate(requests.items()):
            form = obj.form
            assert form is not None
            rt.depth = 0
            rt.context, rt.path, rt.counts = ("alter", index), (), None
            fn = form.vtable.get(alter) or form.resolve()[alter]
            changes.append((obj, fn(rt, obj, tuple(values))))
        moved: list[tuple[LoreObject, Any]] = []
        changed = self.changed
        for obj, modifications in changes:
            if "location" in modifications:
                moved.append((obj, obj.values.get("location")))
            obj.values.update(modifications)
            entry = changed.get(id(obj))
            if entry is None:
                changed[id(obj)] = (obj, set(modifications))
            else:
                entry[1].update(modifications)
        if moved:
            world_natives.after_moves(self, moved)

    def open_questions(self) -> list[Any]:
        """The questions the waiting step asked and has no answer to yet."""
        return [query for _, query, _ in self.open.values()]

    def answer(self, query_id: str, values: dict[str, Any]) -> str | None:
        """Give the answer to an open question; the reason when it does not fit.

        The next ``run()`` runs the waiting step again from its start, with this answer.
        """
        entry = self.open.get(query_id)
        if entry is None:
            return f"there is no open question '{query_id}'"
        key, query, spec = entry
        try:
            fill(query, spec, values)
        except AnswerError as error:
            return str(error)
        del self.open[query_id]
        natives.record_answer(self, query, key, values)
        self.answered = True
        return None

    def fire_soon(self, trigger: LoreObject, actor: LoreObject) -> None:
        """Run ``trigger``'s handler for ``actor`` in a step right after this one."""

        def handler(rt: Runtime) -> None:
            rt.call_field(trigger, "handler", actor)

        event = self.rt.new(
            self.program.form_by_name["Event"],
            {"ticks": self.ticks, "priority": self.priority, "handler": handler},
        )
        self.adds.append(event)

    # ------------------------------------------------------------ errors

    def rule_error(self, error: BaseException, trace: TracebackType | None) -> RuleError:
        if isinstance(error, RuleError):
            found = error
        elif isinstance(error, RecursionError):
            found = LimitExceeded(
                "rules call each other too deeply", "a rule probably calls itself without end"
            )
        elif isinstance(error, ZeroDivisionError):
            found = RuleError("division by zero")
        elif isinstance(error, OverflowError | MemoryError):
            found = LimitExceeded(f"a value grew too large ({type(error).__name__})")
        else:
            found = RuleError(f"{type(error).__name__}: {error}")
        if not found.frames:
            found.frames = self.frames(trace)
            if isinstance(found, LimitExceeded) and found.at_entry and len(found.frames) > 1:
                found.frames.pop()  # the rule just entered: the call that entered it is the place
        return found

    def frames(self, trace: TracebackType | None) -> list[Frame]:
        frames: list[Frame] = []
        maps = self.program.line_maps
        while trace is not None:
            code = trace.tb_frame.f_code
            line_map = maps.get(code.co_filename)
            if line_map is not None:
                index = trace.tb_lineno - 1
                span = line_map.spans[index] if 0 <= index < len(line_map.spans) else None
                if span is None:
                    span = next((s for s in reversed(line_map.spans[:index]) if s), None)
                if span is not None:
                    frames.append(Frame(line_map.rule, line_map.source, span))
            trace = trace.tb_next
        return frames

    def report(self, error: RuleError) -> None:
        self.errors.append(error)
        record: Record = {
            "tick": self.ticks,
            "kind": "error",
            "to": "GM",
            "message": error.message,
            "where": error.location(),
        }
        self.transcript.add(record)
        gm = self.participants.get("GM")
        if gm is not None:
            gm.tell(record)
