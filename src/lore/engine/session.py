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

from lore.engine import happenings, natives, randomness, world_natives
from lore.engine.participants import Participants
from lore.engine.queries import AnswerError, fill
from lore.engine.randomness import GOLDEN, LIMITS, M1, M2, MASK, WORDS, Stream, mix
from lore.engine.transcript import Record, Transcript
from lore.runtime.compiler import CompiledProgram
from lore.runtime.dice import RandomSource
from lore.runtime.errors import Frame, LimitExceeded, RuleError
from lore.runtime.ops import MAX_LIST, Closure, Handler, rule_of, run_entry
from lore.runtime.python_errors import plain_message
from lore.runtime.quantity import Quantity
from lore.runtime.values import FormInfo, LoreObject, RuntimeType, TypedString, show
from lore.syntax.recursion import collector_paused
from lore.world.model import World

CHOICES_SALT = 0x5DEECE66D  # sets the bots' random stream apart from the dice
ALTERS_SALT = 0xA17E5  # and the streams of the alters' questions apart from the handlers'


@dataclass(frozen=True)
class Limits:
    max_ops: int = 1_000_000  # rule calls and list steps of one handler
    max_depth: int = 150  # nested rule calls
    max_steps: int | None = None
    max_ticks: int | None = None
    # Steps at one game time: events that keep scheduling events at the same time would
    # otherwise run forever without the time moving on.
    max_steps_at_once: int = 100_000
    # Events waiting at once: events that each schedule several more would otherwise fill
    # the memory.
    max_events: int = 1_000_000
    # Questions asked in one step: no table answers ten thousand at once, and events that
    # multiply, each asking, would otherwise keep bots (or people) busy for minutes.
    max_questions: int = 10_000
    # Messages sent in one step, for the same reason (a million printed take a minute).
    max_messages: int = 10_000


class Suspend(Exception):
    """A body waits for an answer that will come later (its question id)."""


Key = tuple[Any, ...]
Entry = tuple[int, Handler, Any]  # an event waiting: seq, fn, arg (run as fn(rt, arg))


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
        self.seq = 0  # the event whose handler runs
        # The handler's dice: its place in the step, and the state of its stream (None
        # before its first draw, which is word `index` of the step's block).
        self.index = 0
        self.state: int | None = None
        self.block: list[int] | None = None
        self.choices_key = randomness.stream_key(session.seed, CHOICES_SALT)
        self.now: Quantity | None = None  # the time of the step, as schedule.current
        self.tick = 0  # the same, in ticks
        # What the step's handlers ask for: alter requests grouped by (object, alter) in
        # the order of the first request (objects compare by identity), and new events
        # as (ticks, priority, fn, arg).
        self.requests: dict[tuple[LoreObject, str], list[Any]] = {}
        self.adds: list[tuple[int, int, Any, Any]] = []
        # Where a handler is, for naming its questions and messages: the event (or, while
        # alters run, the alter's place in the update), the foreach elements it is in,
        # and how many of each it made there.
        self.alter_index: int | None = None
        self.path: tuple[int, ...] = ()
        self.counts: dict[Key, int] | None = None
        self._choices: tuple[Any, Stream] | None = None

    # -- per handler

    def reset(self, seq: int, index: int = 0) -> None:
        self.depth = 0
        self.ops = 0
        self.seq = seq
        self.index = index
        self.state = None
        self.alter_index = None
        self.path = ()
        self.counts = None

    def next_key(self, kind: str) -> Key:
        """The name of the next question or message of this handler: the same on every
        re-run of the step, so a re-run neither asks nor tells anything twice."""
        counts = self.counts
        if counts is None:
            counts = self.counts = {}
        owner = self.seq if self.alter_index is None else ("alter", self.alter_index)
        where = (kind, owner, self.path)
        number = counts.get(where, 0)
        counts[where] = number + 1
        return (*where, number)

    def word(self, index: int) -> int:
        """Word ``index`` of the step's block of random words (made, or made longer, when
        first needed)."""
        found = self.block
        if found is None or index >= len(found):
            size = max(index + 1, 2 * len(found) if found else self.session.step_size)
            found = self.block = randomness.block(self.session.seed, self.session.steps, size)
        return found[index]

    def draw(self) -> int:
        """The next 64-bit word of this handler's stream."""
        state = self.state
        if state is None:
            self.state = z = self.word(self.index)
            return z
        state = self.state = (state + GOLDEN) & MASK
        return mix(state)

    def roll(self, sides: int) -> int:
        """One die of ``sides`` sides (``randint(1, sides)`` written out: this is the
        path of most dice rolled)."""
        state = self.state
        if state is None:
            block, index = self.block, self.index
            z = state = block[index] if block and index < len(block) else self.word(index)
        else:
            state = (state + GOLDEN) & MASK
            z = ((state ^ (state >> 30)) * M1) & MASK
            z = ((z ^ (z >> 27)) * M2) & MASK
            z ^= z >> 31
        limit = LIMITS.get(sides) or WORDS - WORDS % sides
        while z >= limit:
            state = (state + GOLDEN) & MASK
            z = ((state ^ (state >> 30)) * M1) & MASK
            z = ((z ^ (z >> 27)) * M2) & MASK
            z ^= z >> 31
        self.state = state
        return 1 + z % sides

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in [low, high] from this handler's stream."""
        return low + randomness.below(self.draw, high - low + 1)

    @property
    def random(self) -> RandomSource:
        """This handler's random stream (what ``Dice.roll`` draws from)."""
        return self

    def add_event(self, event: Any) -> None:
        """``schedule.add(event)``."""
        assert self.schedule is not None
        natives.schedule_add(self, self.schedule, event)

    def add_at(self, ticks: int, priority: int, fn: Any, arg: Any) -> None:
        """``schedule.add`` of an event written in place: its handler runs as
        ``fn(rt, arg)`` at ``(ticks, priority)``."""
        if ticks < self.tick:
            raise RuleError(
                f"cannot schedule an event in the past (at {ticks}, now is {self.tick})"
            )
        self.adds.append((ticks, priority, fn, arg))

    def pending_events(self) -> tuple[LoreObject, ...]:
        """``schedule.events``: the events waiting, in the order they will run, as Event
        objects (made when asked; those added in this step join after it)."""
        session = self.session
        if session.pending() > MAX_LIST:
            raise LimitExceeded(f"more than {MAX_LIST} events wait: too many to list")
        event = session.program.form_by_name["Event"]
        found = []
        for ticks, priority in sorted(session.buckets):
            for _, fn, arg in session.buckets[(ticks, priority)]:
                values = {
                    "ticks": Quantity(ticks, "sec", session.time),
                    "priority": priority,
                    "handler": Closure(run_entry, (fn, arg), 0),
                }
                found.append(LoreObject(event, values, next(session.oids)))
        return tuple(found)

    @property
    def choices(self) -> Stream:
        """What a bot answering this handler's queries draws from. It is apart from the
        dice, so that replaying the answers from a log rolls the same dice. A handler's
        stream is numbered by its event's seq; an alter's by its step and place."""
        owner: Any = self.seq
        if self.alter_index is not None:
            owner = ("alter", self.session.steps, self.index)
        kept = self._choices
        if kept is None or kept[0] != owner:
            if self.alter_index is None:
                stream = Stream(self.choices_key, self.seq)
            else:
                key = randomness.stream_key(self.session.seed, CHOICES_SALT ^ self.session.steps)
                stream = Stream(randomness.mix(key ^ ALTERS_SALT), self.index)
            kept = self._choices = (owner, stream)
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
        return rule_of(obj, name)(self, obj, *args)

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
        if form is None or not form.is_alter(alter):
            raise RuleError(f"{show(obj)} has no alter '{alter}'")
        requests = self.requests
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
        # The events waiting: the (ticks, priority) of each step in a heap, and each
        # step's events in seq order (seqs only grow, so appending keeps the order).
        # An event is (seq, fn, arg): its handler runs as fn(rt, arg).
        self.keys: list[tuple[int, int]] = []
        self.buckets: dict[tuple[int, int], list[Entry]] = {}
        self.seqs = itertools.count()
        self.oids = itertools.count(1)
        self.ticks = 0
        self.priority = 0
        self.steps = 0
        self.step_size = 0  # how many handlers the step being run has
        self.at_once = 0  # steps run so far at the time of the step being run
        self.queued = 0  # events waiting in the buckets
        self.answers: list[tuple[str, dict[str, Any]]] = []
        self.answer_ids: list[str] = []  # the question each answer answered
        # A step waiting for answers: its events (to run again once answers come), the
        # answers it has, what it already asked and told, and its open questions by id.
        self.waiting: list[Entry] | None = None
        self.answered = False
        self.step_answers: dict[Key, dict[str, Any]] = {}
        self.asked: set[Key] = set()
        self.told: set[Key] = set()
        self.open: dict[str, tuple[Key, Any, Any]] = {}
        self.errors: list[RuleError] = []
        # The alters that have run, by object (for the state shown in saves).
        self.altered: set[tuple[LoreObject, str]] = set()
        self.ended: str | None = None
        # What rules subscribed to (step, "signal" or "alter", name, handler), counted or
        # recorded (step, "count" or "value", name, number), and the outcome that ends
        # the session (step, outcome): see engine/happenings.py.
        self.hooks: list[tuple[int, str, str, Any]] = []
        self.stats: list[tuple[int, str, str, float | int]] = []
        self.outcome: tuple[int, str] | None = None
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
        rt.block = None
        self.step_size = len(self.program.values)
        try:
            for place, (symbol, index, init) in enumerate(self.program.values):
                rt.reset(0, place)
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
        """Queue an Event object (one of the program's values, or a stored schedule's)."""
        self.push(*natives.event_parts(self, event))

    def push(self, ticks: int, priority: int, fn: Any, arg: Any) -> None:
        key = (ticks, priority)
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = []
            heapq.heappush(self.keys, key)
        bucket.append((next(self.seqs), fn, arg))
        self.queued += 1

    def pending(self) -> int:
        """How many events wait (not counting a step that waits for answers)."""
        return self.queued

    # ------------------------------------------------------------ running

    def run(self) -> str:
        """Run until the queue is empty or the run stops; returns the end reason."""
        try:
            if self.ended is None and not self.steps and not self.keys:
                self.start()
            while self.keys or self.waiting is not None:
                if self.waiting is not None:
                    if not self.answered:
                        return "waiting"  # for Session.answer; not an end
                    self.step()
                    continue
                limits = self.limits
                if limits.max_steps is not None and self.steps >= limits.max_steps:
                    return self.end("stopped", "max-steps")
                if limits.max_ticks is not None and self.keys[0][0] > limits.max_ticks:
                    return self.end("stopped", "max-ticks")
                with collector_paused():  # a step makes many objects and few cycles
                    self.step()
                if self.outcome is not None and self.waiting is None:
                    return self.end("ended", self.outcome[1])
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
            if reason == "ended":
                record["outcome"] = detail  # what a rule ended the session with
            self.transcript.add(record)
            self.detail = detail
        return reason

    def step(self) -> None:
        entries = self.waiting
        if entries is None:
            key = heapq.heappop(self.keys)
            entries = self.buckets.pop(key)
            self.queued -= len(entries)
            self.at_once = self.at_once + 1 if self.steps and key[0] == self.ticks else 1
            self.ticks, self.priority = key
            self.steps += 1
            natives.set_time(self, *key)
            self.step_answers, self.asked, self.told, self.open = {}, set(), set(), {}
            if self.at_once > self.limits.max_steps_at_once:
                self.drop_runaway(entries)
                return
        self.waiting = None
        self.answered = False
        rt = self.rt
        rt.requests = {}
        adds: list[tuple[int, int, Any, Any]] = []
        rt.adds = adds
        rt.depth = 0
        rt.path = ()
        rt.counts = None
        rt.alter_index = None
        rt.block = None
        self.step_size = len(entries)
        suspended = False
        # Events this step may add before the waiting limit: past it, the step stops at
        # once (a step of half a million handlers that each add three would otherwise run
        # to its end, and hold all it added, before being dropped).
        room = self.limits.max_events - self.queued
        try:
            for index, (seq, fn, arg) in enumerate(entries):
                # What rt.reset(seq, index) does that is not already so (a body restores
                # the depth and the foreach path it changed).
                rt.seq = seq
                rt.index = index
                rt.ops = 0
                rt.state = None
                try:
                    fn(rt, arg)
                except Suspend:
                    suspended = True  # its answer comes later: start the others meanwhile
                    rt.depth = 0
                if len(adds) > room:
                    break
            if len(adds) + self.queued > self.limits.max_events:
                dropped = self.drop_waiting({fn for _, fn, _ in entries} | {a[2] for a in adds})
                error = LimitExceeded(
                    f"more than {self.limits.max_events} events would wait: events keep"
                    f" scheduling more events (this step and the {dropped:,} waiting events"
                    " of its handlers are dropped)",
                    "a handler probably schedules several events that each do the same",
                )
                error.frames = self.handler_frames(entries)
                raise error
            if suspended:
                # The step runs again, from its start, when answers come; nothing of this
                # run is kept but what was asked and told (not asked or told again).
                self.waiting = entries
                rt.requests = {}
                rt.adds = []
                happenings.discard_step(self)
                return
            del entries  # the step's events are done with: freed before the update
            if rt.requests:
                self.update()
        except BaseException as error:
            # The step is one whole: its effects and its waiting questions go with it.
            self.open = {}
            rt.requests = {}
            rt.adds = []
            happenings.discard_step(self)
            if isinstance(error, Stop) or not isinstance(error, Exception):
                raise
            rule_error = self.rule_error(error, sys.exc_info()[2])
            self.report(rule_error)
            return
        # self.push for each new event, written out: this runs for most events.
        buckets, keys, seqs = self.buckets, self.keys, self.seqs
        last: tuple[int, int] | None = None
        bucket: list[Entry] = []
        for ticks, priority, fn, arg in adds:
            if last is None or ticks != last[0] or priority != last[1]:
                last = (ticks, priority)
                found = buckets.get(last)
                if found is None:
                    found = buckets[last] = []
                    heapq.heappush(keys, last)
                bucket = found
            bucket.append((next(seqs), fn, arg))
        self.queued += len(adds)

    def drop_runaway(self, entries: list[Entry]) -> None:
        """Drop a step past the limit of steps at one time (its events do not run, so the
        chain of events that keeps the time from moving on ends); the GM is told."""
        error = LimitExceeded(
            f"more than {self.limits.max_steps_at_once} steps at {self.ticks}[sec]: events"
            " keep scheduling events at the same time",
            "an event's handler probably schedules itself at schedule.current; give it a delay",
        )
        error.frames = self.handler_frames(entries)
        self.report(error)
        self.at_once = 0

    def drop_waiting(self, handlers: set[Any]) -> int:
        """Drop the waiting events whose handler is one of ``handlers`` (events that
        multiply: dropping only the step that passed the limit would leave the others
        to multiply again); how many were dropped."""
        dropped = 0
        for key in list(self.buckets):
            bucket = self.buckets[key]
            kept = [entry for entry in bucket if entry[1] not in handlers]
            dropped += len(bucket) - len(kept)
            if kept:
                self.buckets[key] = kept
            else:
                del self.buckets[key]
        if dropped:
            self.keys = list(self.buckets)
            heapq.heapify(self.keys)
            self.queued -= dropped
        return dropped

    def handler_frames(self, entries: list[Entry]) -> list[Frame]:
        """Where the first handler of a step is written (for an error of the whole step)."""
        for _, fn, _ in entries[:1]:
            code = getattr(fn, "__code__", None)
            line_map = self.program.line_maps.get(code.co_filename) if code else None
            span = next((s for s in line_map.spans if s is not None), None) if line_map else None
            if line_map is not None and span is not None:
                return [Frame(line_map.rule, line_map.source, span)]
        return []

    def update(self) -> None:
        """Run each requested alter once with all values requested for it."""
        changes: list[tuple[LoreObject, dict[str, Any]]] = []
        rt = self.rt
        # Requests made while alters run (an alter calling one) are not applied.
        requests, rt.requests = rt.requests, {}
        rt.depth = 0
        first = self.step_size  # the alters' places in the step come after the handlers'
        for index, ((obj, alter), values) in enumerate(requests.items()):
            form = obj.form
            assert form is not None
            rt.alter_index = index
            rt.index = first + index
            rt.state = None
            rt.ops = 0  # each alter has its own budget
            fn = form.vtable.get(alter) or form.resolve()[alter]
            changes.append((obj, fn(rt, obj, tuple(values))))
        rt.alter_index = None
        self.altered.update(requests)
        if self.hooks:
            happenings.after_alters(self, requests)
        moved: list[tuple[LoreObject, Any]] = []
        for obj, modifications in changes:
            if "location" in modifications:
                moved.append((obj, obj.values.get("location")))
            obj.values.update(modifications)
        if moved:
            world_natives.after_moves(self, moved)

    def changed(self) -> list[tuple[LoreObject, dict[str, Any]]]:
        """The objects alters have changed, in the order they were made, each with the
        members its alters modify (as they are now)."""
        names: dict[LoreObject, set[str]] = {}
        for obj, alter in self.altered:
            assert obj.form is not None
            names.setdefault(obj, set()).update(obj.form.modified_by(alter) or ())
        return [
            (obj, {name: obj.values[name] for name in sorted(members) if name in obj.values})
            for obj, members in sorted(names.items(), key=lambda item: item[0].oid)
        ]

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

        def handler(rt: Runtime, _: object) -> None:
            rt.call_field(trigger, "handler", actor)

        self.rt.adds.append((self.ticks, self.priority, handler, None))

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
        elif isinstance(error, KeyError) and (owner := self.reader_of(trace)) is not None:
            # A rule read a member of its own object (``_v[name]``) that has no value.
            found = RuleError(
                f"{owner!r} has no value for {error.args[0]!r}",
                "give it a value where the object is written",
            )
        else:
            found = RuleError(plain_message(error))
        if not found.frames:
            found.frames = self.frames(trace)
            if isinstance(found, LimitExceeded) and found.at_entry and len(found.frames) > 1:
                found.frames.pop()  # the rule just entered: the call that entered it is the place
        return found

    def reader_of(self, trace: TracebackType | None) -> LoreObject | None:
        """The object whose rule raised the error, if it was raised by generated code
        itself (not by something it called)."""
        if trace is None:
            return None
        while trace.tb_next is not None:
            trace = trace.tb_next
        frame = trace.tb_frame
        if frame.f_code.co_filename not in self.program.line_maps:
            return None
        owner = frame.f_locals.get("self")
        return owner if isinstance(owner, LoreObject) else None

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
