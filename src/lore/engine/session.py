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
import math
import sys
from collections.abc import Iterable
from sys import getrefcount
from types import CodeType, TracebackType
from typing import Any

from lore.dice import RandomSource as DiceSource
from lore.engine import (
    answering,
    continuation,
    event_queue,
    happenings,
    natives,
    reach,
    rule_errors,
    single_steps,
    step_failures,
    update_phase,
    world_natives,
)
from lore.engine.event_queue import (
    BIAS,
    KEY_SHIFT,
    NARROW_BIAS,
    NARROW_SHIFT,
    Bucket,
    Entry,
    entries_of,
)
from lore.engine.handler_runtime import CHOICES_SALT, GivenDice, Key, Runtime, Stop, Suspend
from lore.engine.limits import Limits
from lore.engine.participants import Participants
from lore.engine.queries import Query
from lore.engine.saves import Answer
from lore.engine.single_steps import HELD_NOW
from lore.engine.step_failures import MAX_ASKED_AGAIN
from lore.engine.transcript import Record, Transcript
from lore.runtime.compiler import CompiledProgram
from lore.runtime.errors import Frame, RuleError
from lore.runtime.quantity import Quantity
from lore.runtime.values import FormInfo, LoreObject
from lore.syntax.recursion import collector_paused, room_for
from lore.world.model import World

# Names other modules import from here (defined in the modules of their concepts).
__all__ = [
    "BIAS",
    "CHOICES_SALT",
    "KEY_SHIFT",
    "MAX_ASKED_AGAIN",
    "NARROW_SHIFT",
    "Bucket",
    "Entry",
    "GivenDice",
    "Key",
    "Limits",
    "Runtime",
    "Session",
    "Stop",
    "Suspend",
    "entries_of",
    "trigger_handler",
]

# Python frames one nested Lore call may take: the rule's own, and a list member and
# lambda on the way (`xs.map(@(x) f(x))`).
FRAMES_PER_CALL = 4
PAUSE_AT = 64  # steps of this many events or more run with the cyclic collector paused


def trigger_handler(rt: Runtime, call: tuple[LoreObject, LoreObject]) -> None:
    """The handler of a step that fires a trigger for an actor (``Session.fire_soon``)."""
    trigger, actor = call
    rt.call_field(trigger, "handler", actor)


class Session:
    """A running session. Driving it from another program (a server): see
    ``docs/design.md``, "Driving a session from another program"."""

    # What a snapshot does not hold: what is given again at restore, or rebuilt from the
    # rest (TRANSIENT), and the history the transcript and the save keep (HISTORY).
    # Every other attribute is saved, whatever it is named (see ``engine/snapshot.py``).
    TRANSIENT = frozenset(
        {
            "program",
            "participants",
            "limits",
            "transcript",
            "rt",
            "_defaults",
            "world",
            "triggers",
            "time",
            "ended",
            "detail",
            "running",
            "stop_requested",
            "alter_names",
            "step_filled",
            "resumable",
            "worker",
            "keep_answers",
            "shift",
            "bias",
        }
    )
    HISTORY = frozenset({"answers", "errors", "answers_before"})
    # The step in progress: saved only while a step waits (a step that ran to its end
    # leaves them behind until the next one begins).
    STEP = frozenset({"step_answers", "answered", "asked", "told", "open", "step_oid"})

    def __init__(
        self,
        program: CompiledProgram,
        seed: int = 0,
        participants: Participants | None = None,
        limits: Limits | None = None,
        transcript: Transcript | None = None,
        dice: DiceSource | None = None,
        *,
        resumable: bool = False,
        keep_answers: bool = True,
    ) -> None:
        self.program = program
        self.seed = seed
        self.participants = participants or Participants()
        self.limits = limits or Limits()
        self.transcript = transcript or Transcript()
        # The events waiting: the (ticks, priority) of each step in a heap, and each
        # step's events: its one event, or a list of them in seq order (seqs only grow,
        # so appending keeps the order). An event is (seq, fn, arg): its handler runs as
        # fn(rt, arg). A step of one event so costs no list (most steps have one).
        self.keys: list[int] = []  # each step's (ticks, priority) as one number (see KEY_SHIFT)
        self.buckets: dict[int, Bucket] = {}
        self.shift, self.bias = NARROW_SHIFT, NARROW_BIAS  # the keys' layout
        self.seqs = itertools.count()
        self.next_oid = 1  # the id of the next object made
        self.ticks = 0
        self.priority = 0
        self.steps = 0
        self.step_size = 0  # how many handlers the step being run has
        self.at_once = 0  # steps run so far at the time of the step being run
        self.queued = 0  # events waiting in the buckets
        # The answers given (who, values, and the question's id and title), for a save;
        # none with ``keep_answers`` off (a server: its store's log has them), then only
        # counted. ``answers_before``: the answers given that ``answers`` does not hold
        # (before a restore, or not kept); ``answer_count`` is all of them.
        self.keep_answers = keep_answers
        self.answers: list[Answer] = []
        self.answers_before = 0
        # A step waiting for answers: its events (to run again once answers come), the
        # answers it has, what it already asked and told, and its open questions by id.
        # ``rerun``: run it again at the next ``run()`` (an answer came, or the run
        # stopped in the middle of it). ``step_oid``: the first object id of the step
        # (a step run again makes its objects with the same ids).
        self.waiting: list[Entry] | None = None
        self.rerun = False
        # Whether the GM rules on every roll the rules mark ``ruled`` (the table's
        # setting, not only on those ``approvedByGM``: ``lore.engine.roll_rulings``): the
        # setting, the step it was set in, and the setting that step began with.
        self.rule_rolls = (False, 0, False)
        # The GM's last ruling on a value, what taking it back needs (``rulings``).
        self.last_ruling: tuple[Any, ...] | None = None
        self.asked_again = (0, 0)  # the step that went wrong after answers, how often
        self.step_oid = 1
        self.step_answers: dict[Key, dict[str, Any]] = {}
        # Of each answer of the step: who, the title, what the step had told, the
        # questions open then (what going back needs: engine/withdrawal.py).
        self.answered: dict[Key, tuple[str, str, int, tuple[str, ...]]] = {}
        self.asked: set[Key] = set()
        self.told: set[Key] = set()
        self.open: dict[str, tuple[Key, Any, Any]] = {}
        self.step_filled: dict[Key, tuple[dict[str, Any], dict[str, Any]]] = {}  # see natives
        self.errors: list[RuleError] = []
        self.alter_names: dict[str, tuple[str, ...]] = {}  # see note_altered
        self.ended: str | None = None
        self.detail = ""
        self.running = False
        # Set (by a signal handler, say) to stop the run before the next step.
        self.stop_requested = False
        # What rules subscribed to (step, "signal" or "alter", name, handler), counted or
        # recorded (step, "count" or "value", name, number), and the outcome that ends
        # the session (step, outcome): see engine/happenings.py.
        self.hooks: list[tuple[int, str, str, Any]] = []
        self.stats: list[tuple[int, str, str, float | int]] = []
        # The objects with a location that rules made (in the order made), on the map as
        # the program's values are until removed (see views.placed_objects).
        self.made: list[LoreObject] = []
        self.outcome: tuple[int, str] | None = None
        # The rules' dice: the seed's streams, or a given source (a test's fixed faces).
        self.rt = Runtime(self) if dice is None else GivenDice(self, dice)
        self.world: World | None = None
        self.triggers: list[LoreObject] = []
        # ``resumable``: a step of one handler that waits for an answer is kept where it
        # asked, in ``worker``, and goes on from there when the answer comes (the same as
        # running it again; see engine/continuation.py). For a server, whose participants
        # answer later; the others answer at once and never wait.
        self.resumable = resumable
        self.worker: continuation.Worker | None = None
        self.time = natives.install(self)  # prepares the program, once for all its sessions
        # Each form's member defaults: worked out once per program, shared, never changed.
        self._defaults: dict[FormInfo, list[tuple[str, Any]]] = self.program.engine.defaults

    # ------------------------------------------------------------ setup

    def defaults(self, form: FormInfo) -> list[tuple[str, Any]]:
        found = self._defaults.get(form)
        if found is None:  # a form that is not the program's: not kept
            found = list(form.all_defaults().items())
        return found

    def start(self) -> None:
        """Evaluate the program's values, then queue its top-level events."""
        rt = self.rt
        rt.g = [None] * len(self.program.value_index)
        rt.block = None
        self.step_size = len(self.program.values)
        try:
            labels = self.program.engine.labels  # the values' names, worked out once
            for place, (_, index, init) in enumerate(self.program.values):
                rt.reset(0, place)
                value = init(rt)
                rt.g[index] = value
                if isinstance(value, LoreObject) and value.label is None:
                    value.label = labels[place]
        except Exception as error:
            raise self.rule_error(error, sys.exc_info()[2]) from None
        finally:
            rt.rest()  # a value requests and schedules nothing (the steps begin with none)
            rt.created = []  # (the values' objects are on the map as values: not ``made``)
        natives.after_values(self)
        stored = self.stored_schedule()
        if stored is None:
            queued: set[int] = set()
            for index in self.program.events:
                event = rt.g[index]
                if id(event) not in queued:  # one Event bound to two names runs once
                    queued.add(id(event))
                    self.enqueue(event)
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
        """The schedule of a save in the paper's format. Its slot then holds the live
        schedule: the stored events' handlers, written inside ``_auto_stored``, name it
        ``schedule`` too, and must read the clock as it is when they run."""
        prepared = self.program.engine
        for place, (_, index, _) in enumerate(self.program.values):
            value = self.rt.g[index]
            if (
                prepared.labels[place] == "_auto_stored.schedule"
                and isinstance(value, LoreObject)
                and value.form in prepared.schedules
            ):
                self.rt.g[index] = self.rt.schedule
                return value
        return None

    def enqueue(self, event: Any) -> None:
        """Queue an Event object (one of the program's values, or a stored schedule's)."""
        self.push(*natives.event_parts(self, event))

    def push(self, ticks: int, priority: int, fn: Any, arg: Any) -> None:
        event_queue.push(self, ticks, priority, fn, arg)

    def fit(self, priority: int) -> None:
        event_queue.fit(self, priority)

    def key_parts(self, key: int) -> tuple[int, int]:
        return event_queue.key_parts(self, key)

    def rekey(self, shift: int, bias: int) -> None:
        event_queue.rekey(self, shift, bias)

    def wide_queue(self) -> tuple[list[int], dict[int, Bucket]]:
        return event_queue.wide_queue(self)

    def narrow_restored(self) -> None:
        event_queue.narrow_restored(self)

    def new_oid(self) -> int:
        """The id of an object made now."""
        oid = self.next_oid
        self.next_oid = oid + 1
        return oid

    def pending(self) -> int:
        return event_queue.pending(self)

    def count_waiting(self) -> int:
        return event_queue.count_waiting(self)

    @property
    def answer_count(self) -> int:
        """How many answers were given since the session's start (kept or not)."""
        return self.answers_before + len(self.answers)

    # ------------------------------------------------------------ running

    def run(self) -> str:
        """Run until the queue is empty or the run stops; returns the end reason, or
        ``"waiting"`` when the step waits for answers that come later."""
        self.running = True
        room = FRAMES_PER_CALL * self.limits.max_depth + 1_000
        try:
            if self.resumable and self.rt.own_dice:
                return continuation.run(self, room)  # (run_steps, in the session's worker)
            with room_for(room):
                return self.run_steps()
        finally:
            self.running = False

    def run_steps(self) -> str:
        try:
            if self.ended is None and not self.steps and not self.keys and not self.rt.g:
                self.start()
            limits = self.limits
            max_steps = math.inf if limits.max_steps is None else limits.max_steps
            max_ticks = math.inf if limits.max_ticks is None else limits.max_ticks
            while True:
                # (An outcome of the last step, stepped by ``step`` or one that waited.)
                if self.outcome is not None and self.waiting is None:
                    return self.end("ended", self.outcome[1])
                if self.stop_requested:
                    if not self.keys and self.waiting is None:
                        break
                    self.settle()
                    self.stop_requested = False
                    return self.end("stopped", "interrupted")
                if self.waiting is not None:
                    if not self.rerun:
                        return "waiting"  # for Session.answer; not an end
                    self.step()  # (the step that waited: its outcome is looked for above)
                    continue
                keys = self.keys
                if not keys:
                    break
                if self.steps >= max_steps:
                    return self.end("stopped", "max-steps")
                if keys[0] >> self.shift > max_ticks:
                    return self.end("stopped", "max-ticks")
                if self.resumable:
                    worker = self.worker
                    if worker is not None:
                        # (Set by a resume of this step, not by one of a step run again
                        # above, in the waiting branch: that one looked for an outcome.)
                        worker.resumed = False
                    # (``step`` and ``begin`` written out: no step waits here. Its steps of
                    # one handler run in its worker.)
                    key = heapq.heappop(keys)
                    bucket = self.buckets.pop(key)  # (``entries_of`` written out)
                    if isinstance(bucket, list):
                        if self.opened(key, bucket):
                            self.run_step(bucket)
                    elif self.opened(key, entries := [bucket]):
                        # (``run_step`` of a step of one handler written out: most.)
                        self.rerun = False
                        rt = self.rt
                        rt.block = None
                        rt.counts = None
                        rt.suspended = False
                        self.step_size = 1
                        if rt.own_dice:
                            continuation.fire_one(self, entries)
                        else:
                            self.run_step(entries)
                    worker = self.worker
                    if worker is not None and worker.resumed:
                        # It went on where it asked (continuation.wait_here): as after a
                        # step run again, its outcome (if any) ends the session now.
                        worker.resumed = False
                else:
                    self.singles(max_steps, max_ticks)
                if self.outcome is not None and self.waiting is None:
                    return self.end("ended", self.outcome[1])
        except Stop as stop:
            return self.end(stop.reason, stop.detail)
        except RuleError as error:
            self.report(error)
            return self.end("error", error.message)
        except KeyboardInterrupt:
            # (Between two lines of ``singles``: the key of its step may still top the heap.)
            while self.keys and self.keys[0] not in self.buckets:
                heapq.heappop(self.keys)
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
        """Run the next step, or the waiting one again."""
        entries = self.waiting
        if entries is None:
            key = heapq.heappop(self.keys)
            self.begin(key, entries_of(self.buckets.pop(key)))
            return
        # (A step kept where it asked goes on there: see continuation.run.)
        # Run again: its objects get the ids they got the first time.
        self.next_oid = self.step_oid
        self.waiting = None
        self.run_step(entries)

    def begin(self, key: int, entries: list[Entry]) -> None:
        """Run the step of ``key`` (its events just taken from the queue)."""
        if self.opened(key, entries):
            self.run_step(entries)

    def opened(self, key: int, entries: list[Entry]) -> bool:
        """Start the step of ``key``, with ``entries`` just taken from the queue: its time,
        its count; whether it runs (not when it is one too many at one time)."""
        self.queued -= len(entries)
        shift = self.shift  # (``key_parts`` written out)
        ticks = key >> shift
        priority = (key & ((1 << shift) - 1)) - self.bias
        self.at_once = self.at_once + 1 if ticks == self.ticks and self.steps else 1
        self.ticks, self.priority = ticks, priority
        self.steps += 1
        # The time of the step (what schedule.current and schedule.ticks read): the
        # clock's quantity moved on in place when nothing else holds it (as ``singles``
        # does: no rule can tell), else a new one.
        rt = self.rt
        clock = rt.schedule.values  # type: ignore[union-attr]
        now: Any = rt.now
        if now is not None and clock["ticks"] is now and getrefcount(now) == HELD_NOW:
            now.value = ticks
        else:
            now = rt.now = clock["ticks"] = Quantity(ticks, "sec", self.time)
        clock["priority"] = priority
        rt.tick = ticks
        if self.step_answers or self.asked or self.told or self.open:
            # What the last step asked and was answered (made anew only when it was not
            # empty: most steps ask nothing).
            self.step_answers, self.asked, self.told, self.open = {}, set(), set(), {}
            self.answered = {}
        self.step_oid = self.next_oid
        rt.max_adds = self.limits.max_adds  # a step of one event (fire sets it per handler)
        if self.at_once > self.limits.max_steps_at_once:
            self.drop_runaway(entries)
            return False
        return True

    def run_step(self, entries: list[Entry]) -> None:
        """The step's handlers, update and new events. What a step leaves behind when it
        goes wrong or waits (the requests, additions, depth and place of a handler cut
        short) is cleared on that path (``Runtime.rest``), not before every step."""
        rt = self.rt
        self.rerun = False
        rt.block = None
        rt.counts = None
        rt.suspended = False
        self.step_size = len(entries)
        if self.resumable and len(entries) == 1 and rt.own_dice:
            continuation.fire_one(self, entries)
        elif len(entries) < PAUSE_AT:
            self.fire(entries)  # a small step: pausing the collector costs more than it saves
        else:
            with collector_paused():  # a big step makes many objects and few cycles
                self.fire(entries)

    def singles(self, max_steps: float, max_ticks: float) -> None:
        single_steps.singles(self, max_steps, max_ticks)

    def fire(self, entries: list[Entry]) -> None:
        """The two phases of a step: its handlers, the update, then its new events."""
        rt = self.rt
        adds = rt.adds  # empty between steps
        suspended = False
        # Events this step may add before the waiting limit: past it, the step stops at
        # once (a step of half a million handlers that each add three would otherwise run
        # to its end, and hold all it added, before being dropped).
        room = self.limits.max_events - self.queued
        max_adds = self.limits.max_adds
        budget = len(adds) + max_adds  # the length adds may reach in the next handler
        past = room + max_adds  # (budget > past: more than ``room`` added)
        try:
            for index, (seq, fn, arg) in enumerate(entries):
                # What rt.reset(seq, index) does that is not already so (a body restores
                # the depth and the foreach path it changed).
                rt.seq = seq
                rt.index = index
                rt.ops = 0
                rt.max_adds = budget
                rt.state = None
                try:
                    fn(rt, arg)
                except Suspend:
                    suspended = True  # its answer comes later: start the others meanwhile
                    rt.depth = 0
                budget = len(adds) + max_adds
                if budget > past:
                    break
            if not self.fired(entries, suspended):
                return
        except BaseException as error:
            self.cut_short(entries, error)
            return
        if adds:
            self.queue(adds)

    def fired(self, entries: list[Entry], suspended: bool) -> bool:
        """After the handlers of a step: the update (False when a handler waits for an
        answer instead); raises what goes wrong. Then the caller queues the new events."""
        rt = self.rt
        if len(rt.adds) + self.queued > self.limits.max_events:
            self.too_many(entries)
        if suspended:
            self.wait_for_answers(entries)
            return False
        if rt.first_request is not None:
            self.update()
        if rt.created or rt.removing:
            happenings.after_step(self)
        return True

    def wait_for_answers(self, entries: list[Entry]) -> None:
        """A handler of the step waits for an answer: the step runs again, from its start,
        when answers come; nothing of this run is kept but what was asked and told (not
        asked or told again)."""
        self.waiting = entries
        self.rt.rest()
        happenings.discard_step(self)

    def too_many(self, entries: list[Entry]) -> None:
        step_failures.too_many(self, entries)

    def cut_short(self, entries: list[Entry], error: BaseException) -> None:
        step_failures.cut_short(self, entries, error)

    def ask_again(self, entries: list[Entry]) -> bool:
        return step_failures.ask_again(self, entries)

    def queue(self, adds: list[tuple[int, int, Any, Any]]) -> None:
        event_queue.queue(self, adds)

    def drop_runaway(self, entries: list[Entry]) -> None:
        step_failures.drop_runaway(self, entries)

    def drop_waiting(self, handlers: set[Any]) -> int:
        return event_queue.drop_waiting(self, handlers)

    def handler_frames(self, entries: list[Entry]) -> list[Frame]:
        return rule_errors.handler_frames(self, entries)

    def update(self) -> None:
        update_phase.update(self)

    def plain_round(self, requests: dict[tuple[LoreObject, str], Any]) -> bool:
        return update_phase.plain_round(self, requests)

    def alter_one(self, requests: dict[tuple[LoreObject, str], Any]) -> None:
        update_phase.alter_one(self, requests)

    def altered_one(self, key: tuple[LoreObject, str], modifications: dict[str, Any]) -> None:
        update_phase.altered_one(self, key, modifications)

    def rounds(
        self,
        requests: dict[tuple[LoreObject, str], Any],
        done: dict[tuple[LoreObject, str], Any] | None = None,
    ) -> None:
        update_phase.rounds(self, requests, done)

    def apply(
        self,
        changes: dict[tuple[LoreObject, str], dict[str, Any]],
        undo: list[tuple[LoreObject, dict[str, Any]]] | None,
        moved: dict[LoreObject, Any] | None,
        note: bool = False,
    ) -> dict[LoreObject, Any] | None:
        return update_phase.apply(self, changes, undo, moved, note)

    def note_altered(self, requests: Iterable[tuple[LoreObject, str]]) -> None:
        update_phase.note_altered(self, requests)

    def changed(self) -> list[tuple[LoreObject, dict[str, Any]]]:
        """The objects alters have changed that the session still holds (reached from its
        values, engine objects, hooks and waiting events), in the order they were made,
        each with the members its alters modify (as they are now)."""
        rt = self.rt
        roots: list[Any] = [rt.g, rt.GM, rt.schedule, rt.system, self.hooks, self.made]
        roots.extend(self.buckets.values())
        roots.append(self.waiting or ())
        names: dict[LoreObject, set[str]] = {}
        for obj in reach.reachable(roots):
            if obj.altered and obj.form is not None:
                for alter in obj.altered:
                    # ("=hp": a member the GM ruled on, ``lore.engine.rulings``)
                    members = (alter[1:],) if alter[0] == "=" else obj.form.modified_by(alter)
                    names.setdefault(obj, set()).update(members or ())
        return [
            (obj, {name: obj.values[name] for name in sorted(members) if name in obj.values})
            for obj, members in sorted(names.items(), key=lambda item: item[0].oid)
        ]

    def open_questions(self) -> list[Query]:
        return answering.open_questions(self)

    def answer(
        self, query_id: str, values: dict[str, Any], *, seat: str | None = None
    ) -> str | None:
        return answering.answer(self, query_id, values, seat=seat)

    def back(self, query_id: str, *, seat: str | None = None) -> str | None:
        return answering.back(self, query_id, seat=seat)

    def place_problem(self, text: str) -> str | None:
        return answering.place_problem(self, text)

    def reopen(self) -> None:
        answering.reopen(self)

    def settle(self) -> None:
        answering.settle(self)

    # ------------------------------------------------------------ snapshots

    def snapshot(self) -> bytes:
        """The whole state of the session as bytes (between ``run()`` calls, also while a
        step waits for answers): ``Session.restore`` goes on from it exactly."""
        from lore.engine import snapshot

        if self.running:
            raise snapshot.SnapshotError("a snapshot is taken between run() calls")
        return snapshot.take(self)

    @classmethod
    def restore(
        cls,
        program: CompiledProgram,
        data: bytes,
        *,
        participants: Participants | None = None,
        transcript: Transcript | None = None,
        limits: Limits | None = None,
        resumable: bool = False,
        keep_answers: bool = True,
    ) -> Session:
        """The session of a snapshot (``snapshot()``), for ``program`` compiled from the
        same files (else ``SnapshotError`` names the files that differ). It rolls the same
        dice and makes the same transcript from there on as the session it was taken of.
        """
        from lore.engine import snapshot

        decoded = snapshot.header(data)
        changed = snapshot.changed_files(decoded.get("files"), program)
        if changed:
            raise snapshot.SnapshotError(
                "the snapshot was made from other files: " + ", ".join(changed)
            )
        seed = snapshot.seed_of(decoded)
        session = cls(
            program,
            seed,
            participants,
            limits,
            transcript,
            resumable=resumable,
            keep_answers=keep_answers,
        )
        snapshot.restore_into(session, decoded)
        if session.rt.g:
            prepared = natives.prepare(program)
            session.world = world_natives.build(session, prepared, report=False)
        return session

    def seats(self) -> list[str]:
        """Who takes part: ``"GM"``, then the player of each actor of the program (its
        values are made first if the session has not started; RuleError if one fails)."""
        if not self.rt.g:
            self.start()
        found = ["GM"]
        system = self.rt.system
        for actor in system.values.get("allPC", ()) if system is not None else ():
            if isinstance(actor, LoreObject) and (seat := natives.recipient(actor)) not in found:
                found.append(seat)
        return found

    def rule_value(self, object_id: str, member: str, value: Any, secret: bool = False) -> None:
        """The GM's ruling: ``member`` of the object ``object_id`` is ``value`` from now on
        (``lore.engine.rulings``; RulingError says why it cannot be, and nothing changed)."""
        from lore.engine import rulings

        rulings.set_value(self, object_id, member, value, secret)

    def fire_soon(self, trigger: LoreObject, actor: LoreObject) -> None:
        """Run ``trigger``'s handler for ``actor`` in a step right after this one."""
        self.settle()
        self.rt.adds.append((self.ticks, self.priority, trigger_handler, (trigger, actor)))

    # ------------------------------------------------------------ errors

    def rule_error(self, error: BaseException, trace: TracebackType | None) -> RuleError:
        return rule_errors.rule_error(self, error, trace)

    def reader_of(self, trace: TracebackType | None) -> LoreObject | None:
        return rule_errors.reader_of(self, trace)

    def frames(self, trace: TracebackType | None) -> list[Frame]:
        return rule_errors.frames(self, trace)

    def frame_at(self, code: CodeType, line: int, instruction: int) -> Frame | None:
        return rule_errors.frame_at(self, code, line, instruction)

    def report(self, error: RuleError, again: bool = False) -> None:
        rule_errors.report(self, error, again)
