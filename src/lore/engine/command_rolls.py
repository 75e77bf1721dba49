"""Dice commands rolled by rules: ``roll("2D6+3>=10")``, ``actor.roll("NJ7@2")``.

A text given to ``roll`` is a dice command: first one of the program's own system
commands (``lore.engine.system_commands``: a rule system's ``Command`` values), else one
of BCDice's commands (``lore.dice``). Either gives a ``Roll`` like the one of dice, with
BCDice's (or the system's) result text, the total (or count of successes), every die's
face and its sides, and the flags: ``success``, ``failure``, ``critical``, ``fumble``,
``secret``. The dice come from the rolling handler's own stream (``Runtime.roll``), so a
step run again, a replay and a restored session roll the same; each command is written
to the transcript as a ``dice`` record (``how``: ``command``), once however often its
step runs. A text that is no command is a rule error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lore.dice import DiceError, RollResult, evaluate
from lore.engine import rolls
from lore.runtime.dice import Dice
from lore.runtime.errors import LimitExceeded, RuleError
from lore.runtime.values import LoreObject, TypedString, show

if TYPE_CHECKING:
    from lore.engine.session import Runtime
    from lore.runtime.compiler import CompiledProgram

FLAGS = ("success", "failure", "critical", "fumble", "secret")


def install(program: CompiledProgram) -> None:
    """Give the prelude's forms these native rules (``natives.prepare`` does, once per
    program)."""
    methods = program.form_by_name["Roll"].methods
    methods.setdefault("withText", with_text)
    methods.setdefault("withTotal", with_total)
    methods.setdefault("judged", judged)


def is_command(value: Any) -> bool:
    return isinstance(value, str) and (not isinstance(value, TypedString) or value.kind == "string")


def roll_command(
    rt: Runtime, who: str, seat: str, text: Any, actor: LoreObject | None = None
) -> LoreObject:
    """Roll the dice command ``text`` for ``who`` (played from ``seat``; ``actor``, the
    actor rolling, if one is): a Roll, recorded."""
    from lore.engine import system_commands

    command = str(text)
    made = system_commands.roll_in_rules(rt, who, seat, command)
    if made is None:
        made = roll_of_result(rt, who, seat, command, bcdice(rt, command))
    if actor is not None:
        made = copy_roll(rt, made, rolledBy=(actor,))
    record_command(rt, made)
    return made


def bcdice(rt: Runtime, command: str) -> RollResult:
    """BCDice's roll of ``command`` from the handler's stream; a rule error when it is none."""
    try:
        result = evaluate(command, rt)
    except DiceError as error:
        raise LimitExceeded(f"the dice command '{command}': {error}") from None
    if result is None:
        raise RuleError(
            f"'{command}' is not a dice command",
            "write a BCDice command such as 2D6+3>=10, 5B10>=8 or 7R10[10]>=8, or one of"
            " the rule system's commands",
        )
    return result


def roll_of_result(
    rt: Runtime, who: str, seat: str, command: str, result: RollResult
) -> LoreObject:
    """The Roll of a BCDice result: its text, total, dice and flags."""
    faces = [die.value for die in result.dice]
    kinds = [die.sides for die in result.dice]
    made = rolls.make_roll(rt, dice_of(kinds), who, seat, faces, kinds)
    values = made.values
    values["total"] = result.total if result.total is not None else 0
    values["text"] = result.text
    values["command"] = command
    for flag in FLAGS:
        values[flag] = bool(getattr(result, flag))
    return made


def dice_of(kinds: list[int]) -> Dice:
    """The dice rolled, grouped by sides in the order rolled (``4D10+1D10`` stays apart)."""
    groups: list[tuple[int, int]] = []
    for sides in kinds:
        if groups and groups[-1][1] == sides:
            groups[-1] = (groups[-1][0] + 1, sides)
        else:
            groups.append((1, sides))
    return Dice(tuple(groups), 0)


def record_command(rt: Runtime, made: LoreObject) -> None:
    """The ``dice`` record of a command: the dice record of a roll with the command, its
    result text and its flags."""
    values = made.values
    extra: dict[str, Any] = {"command": values["command"], "text": values["text"]}
    extra.update({flag: True for flag in FLAGS if values[flag]})
    rolls.record(rt, made, "command", extra)


def copy_roll(rt: Runtime, made: LoreObject, **changes: Any) -> LoreObject:
    values = dict(made.values)
    values.update(changes)
    return LoreObject(made.form, values, rt.session.new_oid())


def with_text(rt: Runtime, made: LoreObject, text: Any) -> LoreObject:
    if not isinstance(text, str):
        raise RuleError(f"a roll's text is a text, not {show(text)}")
    return copy_roll(rt, made, text=str(text))


def with_total(rt: Runtime, made: LoreObject, total: Any) -> LoreObject:
    if not isinstance(total, int) or isinstance(total, bool):
        raise RuleError(f"a roll's total is a whole number, not {show(total)}")
    return copy_roll(rt, made, total=total)


def judged(rt: Runtime, made: LoreObject, success: Any, critical: Any, fumble: Any) -> LoreObject:
    for value in (success, critical, fumble):
        if not isinstance(value, bool):
            raise RuleError(f"a roll is judged with true or false, not {show(value)}")
    return copy_roll(
        rt, made, success=success, failure=not success, critical=critical, fumble=fumble
    )
