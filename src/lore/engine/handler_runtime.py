"""What compiled rules see as ``rt``: the session, and the handler being run.

A ``Runtime`` holds what one handler of a step uses as it runs: its dice (its place in the
step and its stream, see ``engine/randomness.py``), the limits it counts, the requests and
events it makes for the update, and where it is (for naming its questions and messages).
``GivenDice`` is one whose dice come from a given source (a test's fixed faces).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from lore.dice import RandomSource as DiceSource
from lore.engine import natives, randomness
from lore.engine.event_queue import NARROW_BIAS, entries_of
from lore.engine.randomness import (
    GOLDEN,
    GROUP_BITS,
    LIMITS,
    M1,
    M2,
    MASK,
    STRIDE,
    WORDS,
    Stream,
    mix,
)
from lore.runtime.dice import RandomSource
from lore.runtime.errors import LimitExceeded, RuleError
from lore.runtime.ops import (
    GROUPED,
    MAX_LIST,
    Closure,
    callee,
    field_callee,
    rule_of,
    run_entry,
)
from lore.runtime.quantity import Quantity
from lore.runtime.values import FormInfo, LoreObject, RuntimeType, TypedString, show

if TYPE_CHECKING:
    from lore.engine.session import Session

CHOICES_SALT = 0x5DEECE66D  # sets the bots' random stream apart from the dice
ALTERS_SALT = 0xA17E5  # and the streams of the alters' questions apart from the handlers'
# A word below FLOOR is below the dice limit of any number of sides up to FLOOR_SIDES (the
# limit, WORDS - WORDS % sides, is more than WORDS - sides): no draw again.
FLOOR_SIDES = 1 << 32
FLOOR = WORDS - FLOOR_SIDES


class Suspend(Exception):
    """A body waits for an answer that will come later (its question id)."""


class Stop(Exception):
    """Ends the run (no answer left, interrupted)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


Key = tuple[Any, ...]


class Runtime:
    """What compiled rules see as ``rt``: the session, and the handler being run."""

    # Slotted: compiled rules and the steps read and write these many times an event.
    __slots__ = (
        "GM", "adds", "alter_index", "block", "choices_key", "counts",
        "created", "depth", "first_request", "first_step", "firsts", "g", "index",
        "kept_choices", "max_adds", "max_depth", "max_ops", "now", "ops", "path",
        "path_key", "pausable", "rare", "removing", "requests", "roller", "schedule",
        "seq", "session", "state", "suspended", "system", "tick",
    )  # fmt: skip
    # Whether rolls are written to the transcript (a chat command's are kept by the chat).
    records_dice = True
    own_dice = True  # dice from the seed's streams (not from a source a subclass gives)
    # What a snapshot keeps of it (the rest is the handler being run, or derived).
    SAVED = ("GM", "schedule", "system", "now", "tick")
    # The engine's rules that compiled rules call as ``rt.<name>(obj, ...)`` when nothing
    # else can answer for them (``compiler.NATIVE_METHODS``): with no look-up per call.
    actor_message = natives.actor_message
    actor_query = natives.actor_query
    participant_message = natives.participant_message
    participant_query = natives.participant_query

    def __init__(self, session: Session) -> None:
        self.session = session
        # Who rolls while a system command runs (its dice are the roller's).
        self.roller: tuple[str, str] | None = None
        # Whether the handler run now runs in the session's worker, where a question
        # that waits keeps it (see ``engine/continuation.py``).
        self.pausable = False
        self.g: list[Any] = []
        self.GM: LoreObject | None = None
        self.schedule: LoreObject | None = None
        self.system: LoreObject | None = None
        self.depth = 0
        self.ops = 0
        self.max_depth = session.limits.max_depth
        self.max_ops = session.limits.max_ops
        # The length ``adds`` may reach before the handler run now has scheduled more than
        # ``Limits.max_adds`` (set as each handler of a step starts).
        self.max_adds = session.limits.max_adds
        self.seq = 0  # the event whose handler runs
        # The handler's dice: its place in the step, and the state of its stream (None
        # before its first draw, which is word `index` of the step's block).
        self.index = 0
        self.state: int | None = None
        self.block: Sequence[int] | None = None
        # The first words of the first places of a group of steps, from step
        # ``first_step`` on (see ``word``; none yet: any step reads past the end).
        self.first_step = 0
        self.firsts: Sequence[int] = ()
        self.choices_key = randomness.stream_key(session.seed, CHOICES_SALT)
        self.now: Quantity | None = None  # the time of the step, as schedule.current
        self.tick = 0  # the same, in ticks
        # What the step's handlers ask for: alter requests grouped by (object, alter) in
        # the order of the first request (objects compare by identity), and new events
        # as (ticks, priority, fn, arg). The first request waits alone, as (object,
        # alter, value), in ``first_request`` (most steps make one): a second one groups
        # it in ``requests`` and leaves ``GROUPED`` there (see ``take_requests``).
        self.first_request: Any = None
        self.requests: dict[tuple[LoreObject, str], list[Any]] = {}
        self.adds: list[tuple[int, int, Any, Any]] = []
        # Objects the step made while hooks were subscribed or that have a location (they
        # join the map: ``Session.made``), and the objects it removes (see
        # happenings.after_step).
        self.created: list[LoreObject] = []
        self.removing: list[LoreObject] = []
        # Where a handler is, for naming its questions and messages: the event (or, while
        # alters run, the alter's place in the update), the foreach elements it is in,
        # and how many of each it made there.
        self.alter_index: int | None = None
        self.path: tuple[int, ...] = ()
        self.path_key = 0  # the key of the dice stream of the body at ``path`` (see foreach)
        self.counts: dict[Key, int] | None = None
        # Set when a step does what a run of steps of one event must stop after (it asks or
        # tells, makes objects hooks see, removes objects, or ends the session): the
        # step's end looks at this alone (see ``Session.singles``).
        self.rare = False
        # The stream ``choices`` gave last, with its owner (see ``choices``).
        self.kept_choices: tuple[Any, Stream] | None = None
        self.suspended = False  # whether a body of the step run now waits for an answer

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

    def rest(self) -> None:
        """Clear what a step cut short leaves behind (its requests and additions, the
        depth and the ``foreach`` place of the handler that stopped)."""
        self.first_request = None
        # (New containers only for those holding something: a handler kept where it
        # asked has most often asked for nothing yet, and an empty one is left as it is.)
        if self.requests:
            self.requests = {}
        if self.adds:
            self.adds = []
        self.depth = 0
        self.path = ()
        self.alter_index = None
        self.suspended = False

    def next_key(self, kind: str) -> Key:
        """The name of the next question or message of this handler: the same on every
        re-run of the step, so a re-run neither asks nor tells anything twice."""
        counts = self.counts
        if counts is None:
            counts = self.counts = {}
            self.rare = True
        owner = self.seq if self.alter_index is None else ("alter", self.alter_index)
        path = self.path
        where = (kind, owner, path)
        number = counts.get(where, 0)
        counts[where] = number + 1
        return (kind, owner, path, number)

    def word(self, index: int) -> int:
        """The first word of place ``index`` of the step (see ``engine/randomness.py``):
        place 0's from the block of its group of steps, the others' from the step's own
        block (made, or made longer, when first needed)."""
        session = self.session
        steps = session.steps
        if not index:
            group = steps >> GROUP_BITS
            first = group << GROUP_BITS
            if first != self.first_step or not self.firsts:
                # As Python numbers: the first die of most steps reads one.
                self.firsts = list(randomness.first_words(session.seed, group))
                self.first_step = first
            return self.firsts[steps - first]
        found = self.block
        if found is None or index >= len(found):
            size = max(index + 1, 2 * len(found) if found else session.step_size)
            found = self.block = randomness.block(session.seed, steps, size)
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
            if self.index:
                index = self.index
                try:
                    z = state = self.block[index]  # type: ignore[index]
                except (TypeError, IndexError):  # no block yet (None), or too short
                    z = state = self.word(index)
            else:  # the first die of a step's first handler (most dice)
                # ``steps`` never goes down while a runtime lives (a restore makes a new
                # session), so the index is never below 0: past the end, a new group.
                try:
                    z = state = self.firsts[self.session.steps - self.first_step]
                except IndexError:
                    z = state = self.word(0)
        else:
            state = (state + GOLDEN) & MASK
            z = ((state ^ (state >> 30)) * M1) & MASK
            z = ((z ^ (z >> 27)) * M2) & MASK
            z ^= z >> 31
        if z >= FLOOR or sides > FLOOR_SIDES:  # (else below the limit, WORDS - WORDS % sides)
            limit = LIMITS.get(sides) or WORDS - WORDS % sides
            while z >= limit:
                state = (state + GOLDEN) & MASK
                z = ((state ^ (state >> 30)) * M1) & MASK
                z = ((z ^ (z >> 27)) * M2) & MASK
                z ^= z >> 31
        self.state = state
        return 1 + z % sides

    def rolls(self, count: int, sides: int) -> int:
        """The sum of ``count`` dice of ``sides`` sides: the same dice as ``count`` calls
        of ``roll``, drawn in one loop (a pool of 10,000 dice costs a few milliseconds)."""
        if count < 1:
            return 0
        total = self.roll(sides)  # starts the stream when it is not yet
        if not self.own_dice:
            return total + sum(self.roll(sides) for _ in range(count - 1))
        state = self.state
        assert state is not None
        limit = LIMITS.get(sides) or WORDS - WORDS % sides
        for _ in range(count - 1):
            while True:
                state = (state + GOLDEN) & MASK
                z = ((state ^ (state >> 30)) * M1) & MASK
                z = ((z ^ (z >> 27)) * M2) & MASK
                z ^= z >> 31
                if z < limit:
                    break
            total += 1 + z % sides
        self.state = state
        return total

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
        if not -NARROW_BIAS <= priority < NARROW_BIAS:
            self.session.fit(priority)
        self.adds.append((ticks, priority, fn, arg))
        if len(self.adds) > self.max_adds:
            self.too_many_adds()

    def pending_events(self) -> tuple[LoreObject, ...]:
        """``schedule.events``: the events waiting, in the order they will run, as Event
        objects (made when asked; those added in this step join after it)."""
        session = self.session
        if session.pending() > MAX_LIST and session.count_waiting() > MAX_LIST:
            raise LimitExceeded(f"more than {MAX_LIST} events wait: too many to list")
        event = session.program.form_by_name["Event"]
        found = []
        for key in sorted(session.buckets):
            ticks, priority = session.key_parts(key)
            for _, fn, arg in entries_of(session.buckets[key]):
                values = {
                    "ticks": Quantity(ticks, "sec", session.time),
                    "priority": priority,
                    "handler": Closure(run_entry, (fn, arg), 0),
                }
                found.append(LoreObject(event, values, session.new_oid()))
        return tuple(found)

    @property
    def choices(self) -> Stream:
        """What a bot answering this handler's queries draws from. It is apart from the
        dice, so that replaying the answers from a log rolls the same dice. A handler's
        stream is numbered by its event's seq; an alter's by its step and place."""
        owner = self.choices_owner()
        kept = self.kept_choices
        if kept is None or kept[0] != owner:
            if self.alter_index is None:
                key = self.choices_key
                number = self.seq
            else:
                key = randomness.stream_key(self.session.seed, CHOICES_SALT ^ self.session.steps)
                key, number = randomness.mix(key ^ ALTERS_SALT), self.index
            if self.path:  # a foreach body: a stream of its own
                key = randomness.path_key(key, self.path)
            kept = self.kept_choices = (owner, Stream(key, number))
        return kept[1]

    def choices_owner(self) -> Any:
        """Whose stream ``choices`` gives now: the handler's (or the alter's) at its path."""
        if self.alter_index is not None:
            return ("alter", self.session.steps, self.index, self.path)
        return (self.seq, self.path)

    def unused_choices(self) -> None:
        """A participant that draws nothing was asked (``choices`` not read): the stream
        kept is dropped when ``choices`` would have replaced it, so that a bot asked next
        draws as it would had ``choices`` been read."""
        kept = self.kept_choices
        if kept is not None and kept[0] != self.choices_owner():
            self.kept_choices = None

    def limit(self, at_entry: bool = True) -> None:
        """Raise the limit passed (called as a rule is entered, or by a list step)."""
        if self.depth > self.max_depth:
            raise LimitExceeded(
                f"rules call each other more than {self.max_depth} deep",
                "a rule probably calls itself without end (to walk a long list, use for or"
                " a list member: they do not nest)",
                at_entry,
            )
        raise LimitExceeded(
            f"one handler ran more than {self.max_ops} rule calls, list steps and dice",
            "a rule probably runs without end",
            at_entry,
        )

    def too_many_adds(self) -> None:
        """The handler run now scheduled past ``Limits.max_adds`` (its step is dropped)."""
        raise LimitExceeded(
            f"one handler scheduled more than {self.session.limits.max_adds} events",
            "a rule probably schedules events in a loop without end, or rules that each"
            " schedule call each other in loops",
        )

    def count_op(self) -> None:
        self.ops += 1
        if self.ops > self.max_ops:
            self.limit(at_entry=False)

    # -- objects

    def new(self, form: FormInfo, values: dict[str, Any]) -> LoreObject:
        session = self.session
        oid = session.next_oid
        session.next_oid = oid + 1
        obj = LoreObject(form, values, oid)
        defaults = session._defaults.get(form)
        if defaults is None:
            defaults = session.defaults(form)
        for name, default in defaults:
            if name not in values:
                values[name] = default(self, obj)
        if session.hooks or "location" in values:
            self.created.append(obj)
            self.rare = True
        return obj

    def anon(self, values: dict[str, Any]) -> LoreObject:
        session = self.session
        oid = session.next_oid  # (``new_oid`` written out: most questions make one)
        session.next_oid = oid + 1
        return LoreObject(None, values, oid)

    def method(self, obj: Any, name: str, *args: Any) -> Any:
        return _fixed(rule_of(obj, name), self, obj, args)

    def call_field(self, obj: Any, name: str, *args: Any) -> Any:
        """Call the function member ``name`` of ``obj`` (a lambda it holds, or the
        engine's rule)."""
        code, first = field_callee(obj, name)
        return _fixed(code, self, first, args)

    def request(self, obj: Any, alter: str, value: Any) -> None:
        form = obj.form if isinstance(obj, LoreObject) else None
        if form is None or not form.is_alter(alter):
            raise RuleError(f"{show(obj)} has no alter '{alter}'")
        first = self.first_request
        if first is None:
            self.first_request = (obj, alter, value)
            return
        if first is not GROUPED:
            self.group_requests()
        requests = self.requests
        key = (obj, alter)
        values = requests.get(key)
        if values is None:
            requests[key] = [value]
        else:
            values.append(value)

    def group_requests(self) -> None:
        """Move the request waiting alone in ``first_request`` to ``requests`` (a second
        request came, or the update takes them)."""
        first = self.first_request
        if first is not None and first is not GROUPED:
            obj, alter, value = first
            self.requests[(obj, alter)] = [value]  # the first: ``requests`` was empty
            self.first_request = GROUPED

    def take_requests(self) -> dict[tuple[LoreObject, str], list[Any]]:
        """The requests made since the last take, grouped by (object, alter) in the
        order of their first request; none are left."""
        if self.first_request is None:
            return {}
        self.group_requests()
        requests = self.requests
        self.requests = {}
        self.first_request = None
        return requests

    def foreach(self, items: Iterable[Any], fn: Callable[..., Any]) -> None:
        """Run ``fn`` for every element, all at once: a body waiting for an answer does not
        keep the next ones from starting (and asking); the call ends when all are done.

        Each body rolls its dice from a stream of its own (made from the handler's first
        word and the body's place), and the handler's stream is left as it was: what a
        body rolls never depends on what the bodies before it rolled, nor on whether
        they are still waiting for an answer."""
        base = self.path
        outer = self.state
        # The key of the stream at ``base``: the enclosing body's (kept as it ran), or the
        # handler's first word outside any body. Each body's is made from it in one step
        # (``randomness.path_key`` of the whole path, step by step), so a body as deep as
        # the depth limit costs no more than one at the top.
        base_key = self.path_key if base else self.word(self.index)
        waiting: Suspend | None = None
        code, first = callee(fn)
        for index, item in enumerate(items):
            self.count_op()
            self.path = (*base, index)
            self.state = self.path_key = mix((base_key + (index + 1) * STRIDE) & MASK)
            try:
                code(self, first, item)
            except Suspend as suspend:
                waiting = suspend
        self.path = base
        self.path_key = base_key
        self.state = outer
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


def _fixed(code: Callable[..., Any], rt: Runtime, first: Any, args: tuple[Any, ...]) -> Any:
    """``code(rt, first, *args)`` written out for the usual numbers of arguments: a call
    with ``*args`` goes through the machine's stack, a plain one does not (see
    ``ops.callee``)."""
    if not args:
        return code(rt, first)
    if len(args) == 1:
        return code(rt, first, args[0])
    if len(args) == 2:
        return code(rt, first, args[0], args[1])
    return code(rt, first, *args)


class GivenDice(Runtime):
    """A runtime whose dice come from a given source (``lore.dice.FixedSource`` in a
    test: the faces in the order the rules roll them) instead of the seed's streams."""

    own_dice = False

    def __init__(self, session: Session, source: DiceSource) -> None:
        super().__init__(session)
        self.source = source

    def roll(self, sides: int) -> int:
        return self.source.roll(sides)

    def randint(self, low: int, high: int) -> int:
        return low - 1 + self.source.roll(high - low + 1)
