"""A rule system's own chat commands: the program's ``Command`` values.

A rule system written in Lore defines its commands as BCDice's game systems do: a
pattern players type (``NJ{pool}(@{difficulty=1})?``, see ``lore.dice.patterns``) and
the Lore function that rolls it, which gets the pattern's numbers and gives a ``Roll``.
Every top-level ``Command`` value of the program counts, those of imported libraries
too, in the order of the program's values; the first whose pattern matches the line's
first word rolls it.

- In rules, ``roll("NJ7@2")`` (and ``actor.roll``, ``GM.roll``) tries the commands
  before BCDice's: ``roll_in_rules``. The handler runs as part of the rule, drawing from
  the rule's own random stream, its dice rolled in the roller's name.
- In the chat, the session server calls ``chat_roll(session, line, seat, source)``: the
  handler runs between steps, with dice from ``source``, and may only roll: a handler that
  sends a message, asks, changes an object, schedules an event or decides the outcome is
  a rule error, and none of it happens. The result is a ``lore.dice.RollResult`` (the
  Roll's text, total and flags, and every die the handler rolled), as for BCDice's own
  commands, which ``chat_roll`` rolls when no system command matches.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lore.dice import DiceError, RandomSource, RollResult, evaluate
from lore.dice.patterns import CommandPattern, Matched, PatternError, match_line, parse_pattern
from lore.dice.source import MAX_RANDS, Die, die_of
from lore.dice.systems import evaluate_in
from lore.engine.rollers import speaking
from lore.engine.session import Runtime
from lore.runtime.errors import Frame, LimitExceeded, RuleError
from lore.runtime.values import LoreObject, show

if TYPE_CHECKING:
    from lore.engine.session import Session


@dataclass(frozen=True, slots=True)
class SystemCommand:
    """One command of the rule system: its pattern, help and handler (a Lore function)."""

    label: str  # the value's name in the program (rules.nj)
    pattern: CommandPattern
    help: str
    handler: Any
    place: Frame  # where the value is written (for errors of the command as a whole)


_TABLES: weakref.WeakKeyDictionary[Session, tuple[SystemCommand, ...]] = weakref.WeakKeyDictionary()


def commands(session: Session) -> tuple[SystemCommand, ...]:
    """The session's system commands, in the order of the program's values."""
    found = _TABLES.get(session)
    if found is None:
        if not session.rt.g:
            return ()  # the session has not started: no values yet
        found = prepare(session)
    return found


def prepare(session: Session) -> tuple[SystemCommand, ...]:
    """Read the program's commands once its values exist; a command that cannot be read
    (a pattern with a mistake, no handler) is told to the GM with its place, and left out."""
    found: list[SystemCommand] = []
    form = session.program.form_by_name["Command"]
    for symbol, index, _ in session.program.values:
        value = session.rt.g[index]
        if not (
            isinstance(value, LoreObject)
            and value.form is not None
            and value.form.is_subform_of(form)
        ):
            continue
        place = Frame(f"value {symbol.qualified_name}", symbol.source, symbol.span)
        try:
            found.append(read_command(symbol.qualified_name, value, place))
        except RuleError as error:
            error.frames = [place]
            session.report(error)
    table = _TABLES[session] = tuple(found)
    return table


def read_command(label: str, value: LoreObject, place: Frame) -> SystemCommand:
    pattern_text = value.values.get("pattern")
    if not isinstance(pattern_text, str):
        raise RuleError(f"the command {label} has no pattern", 'give it pattern = "NJ{pool}";')
    try:
        pattern = parse_pattern(str(pattern_text))
    except PatternError as error:
        raise RuleError(
            f"the pattern of the command {label} ({str(pattern_text)!r}), at character"
            f" {error.column}: {error.message}"
        ) from None
    handler = value.values.get("handler")
    if not callable(handler):
        raise RuleError(
            f"the command {label} has no handler",
            "give it handler = @(n : list<integer>) : Roll { ... };",
        )
    return SystemCommand(label, pattern, str(value.values.get("help") or ""), handler, place)


def match(session: Session, line: str) -> tuple[SystemCommand, Matched] | None:
    """The first system command the line is, and what it matched."""
    for command in commands(session):
        matched = match_line(command.pattern, line)
        if matched is not None:
            return command, matched
    return None


def call_handler(rt: Runtime, command: SystemCommand, matched: Matched) -> LoreObject:
    made = command.handler(rt, matched.numbers)
    roll_form = rt.session.program.form_by_name["Roll"]
    if not (
        isinstance(made, LoreObject)
        and made.form is not None
        and made.form.is_subform_of(roll_form)
    ):
        raise RuleError(
            f"the handler of the command {command.label} must give a Roll, not {show(made)}",
            "end it with result = roll(...); or result = someone.roll(...);",
        )
    return made


# ------------------------------------------------------------ in rules


def roll_in_rules(rt: Runtime, who: str, seat: str, line: str) -> LoreObject | None:
    """``roll(line)`` in a rule, when ``line`` is a system command (else None): the
    handler's Roll, as rolled by ``who``, with the command and its secrecy."""
    found = match(rt.session, line)
    if found is None:
        return None
    command, matched = found
    before = rt.roller
    rt.roller = (who, seat)
    try:
        made = call_handler(rt, command, matched)
    finally:
        rt.roller = before
    values = dict(made.values)
    values.update(by=who, seat=seat, command=matched.command)
    values["secret"] = bool(values.get("secret")) or matched.secret
    return LoreObject(made.form, values, rt.session.new_oid())


# ------------------------------------------------------------ in the chat


class ChatRuntime(Runtime):
    """Runs a chat command's handler between steps: dice from the chat's source, every
    die kept, nothing told, asked, changed or scheduled."""

    records_dice = False
    own_dice = False

    def __init__(self, session: Session, source: RandomSource) -> None:
        super().__init__(session)
        main = session.rt
        self.g = main.g
        self.GM, self.schedule, self.system = main.GM, main.schedule, main.system
        self.now, self.tick = main.now, main.tick
        self.source = source
        self.dice: list[Die] = []

    def roll(self, sides: int) -> int:
        if len(self.dice) >= MAX_RANDS:
            raise LimitExceeded(f"a chat command rolls at most {MAX_RANDS:,} dice")
        value = self.source.roll(sides)
        self.dice.append(die_of(sides, value))
        return value

    def randint(self, low: int, high: int) -> int:
        return low - 1 + self.roll(high - low + 1)

    def next_key(self, kind: str) -> tuple[Any, ...]:
        if kind == "d":
            return super().next_key(kind)
        doing = "send a message" if kind == "m" else "ask a question"
        raise RuleError(
            f"a chat command only rolls dice: it cannot {doing}",
            "give the text to show with the Roll (withText) instead",
        )


def chat_roll(
    session: Session,
    line: str,
    seat: str,
    source: RandomSource,
    game: str | None = None,
    language: str | None = None,
) -> RollResult | None:
    """The roll a chat line makes in this session: one of the rule system's commands, or
    else one of BCDice's (those of the BCDice game system ``game``, an id such as
    ``Cthulhu7th``, then the common ones); None when the line is no command (a plain
    chat line).

    ``seat`` is who typed it (a player's jid, or "GM"); ``source`` gives the dice (the
    server's own random source; the result is kept in the chat's log). ``language``
    (``"ja"`` or ``"en"``) is the table's, in which the command writes its result
    (``system.language``; None: the session's, Japanese unless set). Raises
    ``RuleError`` (its ``render()`` says what and where) when the command's handler goes
    wrong or tries to do more than roll, and ``lore.dice.DiceError`` when a BCDice command
    rolls too many dice."""
    found = match(session, line)
    if found is None:
        return evaluate(line, source) if game is None else evaluate_in(game, line, source)
    command, matched = found
    session.settle()  # a step kept waiting runs again after the command's rules
    rt = ChatRuntime(session, source)
    rt.roller = (seat, seat)
    with speaking(session, language):
        made = run_alone(rt, command, matched)
    values = made.values
    total = values.get("total")
    return RollResult(
        str(values.get("text", "")),
        total if isinstance(total, int) and not isinstance(total, bool) else None,
        tuple(rt.dice),
        bool(values.get("secret")) or matched.secret,
        bool(values.get("success")),
        bool(values.get("failure")),
        bool(values.get("critical")),
        bool(values.get("fumble")),
    )


def run_alone(rt: ChatRuntime, command: SystemCommand, matched: Matched) -> LoreObject:
    """Run a command's handler between steps (see ``rolls_only``)."""
    made: LoreObject = rolls_only(
        rt,
        f"the command {command.label}",
        command.place,
        lambda: call_handler(rt, command, matched),
    )
    return made


def rolls_only(rt: ChatRuntime, what: str, place: Frame, call: Callable[[], Any]) -> Any:
    """Run ``call`` (a handler of ``what``: a chat command, the GM's check) between steps;
    whatever it did besides rolling is undone and is a rule error (placed at ``place``
    when no rule is to blame)."""
    session = rt.session
    hooks, stats, outcome = len(session.hooks), len(session.stats), session.outcome
    try:
        made = call()
        changed = len(session.hooks) != hooks or len(session.stats) != stats
        requested = rt.first_request is not None
        if requested or rt.adds or rt.removing or changed or session.outcome != outcome:
            raise RuleError(
                f"{what} only rolls dice: it cannot change objects,"
                " schedule events, subscribe, count or end the session",
                "do that in the rules its result leads to, not in its handler",
            )
        return made
    except Exception as error:
        if isinstance(error, DiceError):
            error = LimitExceeded(f"{what}: {error}")
        found = session.rule_error(error, sys.exc_info()[2])
        if not found.frames:
            found.frames = [place]
        raise found from None
    finally:
        del session.hooks[hooks:]
        del session.stats[stats:]
        session.outcome = outcome


def help_lines(session: Session) -> list[tuple[str, str]]:
    """The session's system commands for a client's help: (pattern, help) each."""
    return [(command.pattern.text, command.help) for command in commands(session)]
