"""How a simulation's bots answer: at random, greedily, or by Monte Carlo playouts.

A seat's policy comes from ``lore sim --policy`` (for every seat, or ``SEAT=POLICY`` for
one), else from the rules' ``SimBot`` values (``lib/prelude.lore``), else it is random.
A ``SimBot`` also says what a seat's bot maximises: its ``score``, a lambda scoring the
session as it stands.

A random bot answers at once (``engine.participants.Bot``). The others use the engine's
determinism: their seats answer later, so the session stops at each of their questions;
the bot takes a snapshot, and for each answer it may give (every choice, or a sample of
``candidates`` of them when there are more), restores a copy, answers, and lets the copy
run on with random bots everywhere. A greedy bot runs the copy to the end of the step
(the update phase applies the answer's effects) and reads the score there; a Monte Carlo
bot then plays ``playouts`` copies on for ``horizon`` more steps, each with dice and bots
of its own seed, and takes the mean of their scores. The best answer wins (the first of
equals); the session goes on with it. Everything is drawn from streams of the session's
seed, so a run gives the same figures every time, in any process.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lore.engine.participants import PENDING, Bot, Participant, Participants, Pending
from lore.engine.queries import Input, Query
from lore.engine.randomness import Stream, mix, stream_key
from lore.engine.session import CHOICES_SALT, Limits, Session
from lore.engine.transcript import Record, Transcript
from lore.errors import LoreError
from lore.runtime.compiler import CompiledProgram
from lore.runtime.errors import RuleError
from lore.runtime.ops import callee
from lore.runtime.values import EnumValue, FormInfo, LoreObject

POLICIES = ("random", "greedy", "montecarlo")
ALL_SEATS = ""
# The bounds of a planning bot's work per question (each costs a copy of the session).
DEFAULT_CANDIDATES = 16
DEFAULT_PLAYOUTS = 4
DEFAULT_HORIZON = 40
MAX_CANDIDATES = 256
MAX_PLAYOUTS = 64
MAX_HORIZON = 10_000
# Questions of planning bots one session may ask: past it the simulation stops with an
# error rather than run for hours.
MAX_PLANNED = 5_000
CANDIDATES_SALT = 0x6A09E667F3BCC908
PLAYOUT_SALT = 0xBB67AE8584CAA73B


class PolicyError(LoreError):
    """A policy cannot be used as asked (no score for its seat, a score that fails)."""


@dataclass(frozen=True)
class Policies:
    """The policies asked for on the command line, and the bounds of planning bots."""

    default: str | None = None  # for every seat; None: as the rules say (else random)
    seats: tuple[tuple[str, str], ...] = ()  # (seat, policy), which win over ``default``
    candidates: int = DEFAULT_CANDIDATES
    playouts: int = DEFAULT_PLAYOUTS
    horizon: int = DEFAULT_HORIZON

    @classmethod
    def parse(cls, texts: Iterable[str], **bounds: int) -> Policies:
        """``--policy`` values: ``greedy`` (every seat) or ``SEAT=greedy`` (one seat);
        ValueError with a message for a user when one is wrong."""
        default: str | None = None
        seats: dict[str, str] = {}
        for text in texts:
            seat, _, name = text.rpartition("=")
            if name not in POLICIES:
                raise ValueError(
                    f"--policy {text!r}: no policy {name!r} (one of {', '.join(POLICIES)},"
                    " or SEAT=POLICY)"
                )
            if "=" in text and not seat:
                raise ValueError(f"--policy {text!r}: no seat before '='")
            if seat:
                seats[seat] = name
            else:
                default = name
        found = cls(default, tuple(seats.items()), **bounds)
        found.check_bounds()
        return found

    def check_bounds(self) -> None:
        for name, value, most in (
            ("--candidates", self.candidates, MAX_CANDIDATES),
            ("--playouts", self.playouts, MAX_PLAYOUTS),
            ("--horizon", self.horizon, MAX_HORIZON),
        ):
            if not 1 <= value <= most:
                raise ValueError(f"{name} must be from 1 to {most:,} (got {value})")

    @property
    def all_random(self) -> bool:
        """Whether every seat is random whatever the rules say (no planning at all)."""
        return self.default == "random" and all(name == "random" for _, name in self.seats)

    def to_json(self) -> dict[str, Any]:
        return {
            "default": self.default,
            "seats": dict(self.seats),
            "candidates": self.candidates,
            "playouts": self.playouts,
            "horizon": self.horizon,
        }


# ---------------------------------------------------------------- the rules' SimBots


@dataclass(frozen=True)
class SimBot:
    seat: str
    policy: str
    score: Any  # the lambda (of the session it was read from)


def sim_bots(session: Session) -> dict[str, SimBot]:
    """The rules' SimBot values by seat (``ALL_SEATS`` for the one naming none; the
    first of a seat counts)."""
    program = session.program
    form = program.form_by_name.get("SimBot")
    found: dict[str, SimBot] = {}
    if form is None or not session.rt.g:
        return found
    for index in _sim_bot_places(session, form):
        value = session.rt.g[index]
        values = value.values
        seat = values.get("seat")
        policy = values.get("policy")
        name = policy.name if isinstance(policy, EnumValue) else "random"
        key = seat if isinstance(seat, str) else ALL_SEATS
        found.setdefault(key, SimBot(key, name, values.get("score")))
    return found


# Of each program (by id, with the program, so that an id used again is not mistaken):
# the indexes of its top-level SimBot values, found in its first session.
_PLACES: dict[int, tuple[CompiledProgram, tuple[int, ...]]] = {}


def _sim_bot_places(session: Session, form: FormInfo) -> tuple[int, ...]:
    program = session.program
    kept = _PLACES.get(id(program))
    if kept is not None and kept[0] is program:
        return kept[1]
    values = session.rt.g
    places = tuple(
        index
        for _, index, _ in program.values
        if isinstance(value := values[index], LoreObject)
        and value.form is not None
        and value.form.is_subform_of(form)
    )
    _PLACES[id(program)] = (program, places)
    return places


@dataclass
class Plan:
    """The policy and score of each seat of one session (worked out as seats are asked)."""

    policies: Policies
    bots: dict[str, SimBot] | None = None
    chosen: dict[str, str] = field(default_factory=dict)

    def policy_of(self, session: Session, seat: str) -> str:
        found = self.chosen.get(seat)
        if found is None:
            found = self.chosen[seat] = self._policy(session, seat)
        return found

    def _policy(self, session: Session, seat: str) -> str:
        asked = dict(self.policies.seats).get(seat, self.policies.default)
        if asked is not None:
            policy = asked
        else:
            bot = self.bot_of(session, seat)
            policy = bot.policy if bot is not None else "random"
        if policy != "random" and self.bot_of(session, seat) is None:
            raise PolicyError(
                f"seat {seat} is to play {policy}, but the rules declare no score for it: "
                f'add a SimBot value (seat = "{seat}", or no seat for every seat) with a '
                "score (see 'Bots for lore sim' in docs/language.md)"
            )
        return policy

    def bot_of(self, session: Session, seat: str) -> SimBot | None:
        if self.bots is None:
            self.bots = sim_bots(session)
        return self.bots.get(seat) or self.bots.get(ALL_SEATS)


# ---------------------------------------------------------------- playing


class Asked:
    """A seat whose questions a planning bot answers: the session stops at them."""

    __slots__ = ()
    draws = False
    listens = False
    answers_later = True

    def ask(self, query: Query, stream: Stream) -> Pending:
        return PENDING

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return False

    def tell(self, record: dict[str, Any]) -> None:
        pass


class Silent(Transcript):
    """A copy's transcript: nothing kept."""

    def add(self, record: Record) -> None:
        pass


def participants(plan: Plan, session_of: list[Session]) -> Participants:
    """The participants of a planned session: random bots, and ``Asked`` for the seats
    whose bots plan (``session_of`` holds the session once it is made)."""

    def make(seat: str) -> Participant:
        if plan.policy_of(session_of[0], seat) == "random":
            return Bot()
        return Asked()

    return Participants(default=make)


def play(session: Session, plan: Plan) -> str:
    """Run a session whose planning seats stop it at their questions to its end."""
    planned = 0
    while (reason := session.run()) == "waiting":
        questions = session.open_questions()
        if not questions:
            raise PolicyError("the session waits for answers no seat was asked")
        data = session.snapshot()
        for query in questions:
            planned += 1
            if planned > MAX_PLANNED:
                raise PolicyError(
                    f"the planning bots answered {MAX_PLANNED:,} questions in one session "
                    f"(seed {session.seed}): lower --max-steps"
                )
            answer = choose(session, data, query, plan)
            problem = session.answer(query.id, answer)
            if problem is not None:  # (a candidate is a valid answer: a bug if not)
                raise PolicyError(f"a bot's answer to {query.title!r} did not fit: {problem}")
    return reason


def choose(session: Session, data: bytes, query: Query, plan: Plan) -> dict[str, Any]:
    """The best answer to ``query`` by its seat's policy (``data``: the session's
    snapshot, taken while it waits)."""
    policy = plan.policy_of(session, query.to)
    key = stream_key(session.seed, CHOICES_SALT ^ CANDIDATES_SALT)
    stream = Stream(key, session.answer_count)
    options = candidates(query, stream, plan.policies.candidates)
    if len(options) == 1:
        return options[0]
    best, best_score = options[0], -math.inf
    for option in options:
        score = evaluate(session, data, query, option, policy, plan)
        if score > best_score:
            best, best_score = option, score
    return best


def candidates(query: Query, stream: Stream, limit: int) -> list[dict[str, Any]]:
    """The answers a bot weighs: every combination of the inputs' options when there
    are at most ``limit``, else ``limit`` drawn at random (without repeats)."""
    per_input = [options_of(item, stream, limit) for item in query.inputs]
    total = math.prod(len(options) for options in per_input)
    names = [item.name for item in query.inputs]
    if total <= limit:
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*per_input)]
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for _ in range(limit * 4):
        combo = [options[stream.randint(0, len(options) - 1)] for options in per_input]
        mark = repr(combo)
        if mark not in seen:
            seen.add(mark)
            found.append(dict(zip(names, combo, strict=True)))
            if len(found) == limit:
                break
    return found


def options_of(item: Input, stream: Stream, limit: int) -> list[Any]:
    """What one input may be answered with: each choice; a few picks of a several-choice
    input or of a number (a whole number's every value when there are few)."""
    if item.choices and not item.multiple:
        return list(item.choices)
    kind, name = item.type.kind, item.type.name
    whole = name == "integer" or (kind == "unit" and item.type.family.integer)
    if not item.choices and whole:
        first, last = _whole_bounds(item)
        if last - first < limit:
            return list(range(first, last + 1))
    if item.choices or whole or kind == "unit" or name in ("real", "number", "boolean"):
        found: list[Any] = []
        for _ in range(limit):
            pick = Bot.pick(item, stream)
            if pick not in found:
                found.append(pick)
        return found
    return [Bot.pick(item, stream)]  # a text: one answer is as good as another


def _whole_bounds(item: Input) -> tuple[int, int]:
    """The whole numbers a bot may answer (as ``Bot.pick`` draws them): its lowest and
    highest."""
    return int(Bot.pick(item, _Edge(False))), int(Bot.pick(item, _Edge(True)))


class _Edge(Stream):
    """A "stream" that always draws the lowest (or the highest) number asked for."""

    __slots__ = ("high",)

    def __init__(self, high: bool) -> None:
        super().__init__(0, 0)
        self.high = high

    def randint(self, low: int, high: int) -> int:
        return high if self.high else low


def evaluate(
    session: Session, data: bytes, query: Query, answer: dict[str, Any], policy: str, plan: Plan
) -> float:
    """The score of giving ``answer``: after the step (greedy), or the mean after random
    playouts from there (Monte Carlo)."""
    program = session.program
    bots = Participants(default=_random_bot)
    copy = Session.restore(
        program,
        data,
        participants=bots,
        transcript=Silent(),
        limits=_limits(session.limits, session.steps + 1),
    )
    if copy.answer(query.id, answer) is not None:
        return -math.inf  # (not a valid answer: never chosen)
    copy.reopen()  # (the step's other open questions go to the random bots)
    copy.run()
    if policy == "greedy" or copy.ended not in ("stopped", None):
        return score(copy, query.to, plan)
    after = copy.snapshot()
    total = 0.0
    for number in range(plan.policies.playouts):
        playout = Session.restore(
            program,
            after,
            participants=Participants(default=_random_bot),
            transcript=Silent(),
            limits=_limits(session.limits, copy.steps + plan.policies.horizon),
        )
        reseed(playout, mix(session.seed ^ PLAYOUT_SALT ^ (copy.steps << 8) ^ number))
        playout.run()
        total += score(playout, query.to, plan)
    return total / plan.policies.playouts


def _random_bot(seat: str) -> Participant:
    return Bot()


def _limits(limits: Limits, max_steps: int) -> Limits:
    if limits.max_steps is not None:
        max_steps = min(max_steps, limits.max_steps)
    return Limits(
        max_ops=limits.max_ops,
        max_depth=limits.max_depth,
        max_steps=max_steps,
        max_ticks=limits.max_ticks,
    )


def reseed(session: Session, seed: int) -> None:
    """Give a restored session (between steps) dice and bot choices of another seed: a
    playout of its own. (The dice read the seed as they roll; the bots' stream key is
    made from it when the runtime is.)"""
    session.seed = seed
    session.rt.choices_key = stream_key(seed, CHOICES_SALT)


def score(session: Session, seat: str, plan: Plan | None) -> float:
    """The seat's score of the session as it stands (read from this session's SimBot)."""
    bots = sim_bots(session)
    bot = bots.get(seat) or bots.get(ALL_SEATS)
    if bot is None:
        raise PolicyError(f"seat {seat} has no score")
    try:
        code, first = callee(bot.score)
        value = code(session.rt, first)
    except RuleError as error:
        located = session.rule_error(error, error.__traceback__)
        raise PolicyError(
            f"{located.location()}: the score of seat {seat} failed: {located.message}"
        ) from None
    except LoreError as error:
        raise PolicyError(f"the score of seat {seat} failed: {error}") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PolicyError(f"the score of seat {seat} is not a number: {value!r}")
    return float(value)


def final_scores(session: Session) -> tuple[tuple[str, float], ...]:
    """Each seat's score as the session stands (at its end), for the seats a SimBot
    scores; none when the rules have no SimBot or a score fails (a planning seat would
    have said so)."""
    bots = sim_bots(session)
    if not bots:
        return ()
    try:
        seats = session.seats()
    except LoreError:
        return ()
    found = []
    for seat in seats:
        if seat in bots or ALL_SEATS in bots:
            try:
                found.append((seat, score(session, seat, None)))
            except PolicyError:
                return ()
    return tuple(found)
