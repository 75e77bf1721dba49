"""The GM's rulings on rolls: a roll the GM approves, sets or has made again.

Seed 003 lets the GM set a roll's result without rolling and void a roll made without
approval, having it made again. In Lore a rule says where a roll may be ruled on:

- ``r.approvedByGM`` always asks the GM (a roll the rules mark for approval);
- ``r.ruled`` asks the GM when the table rules on every roll (the GM's setting,
  ``Session.rule_rolls``), and is the roll as it is otherwise.

The GM is asked an engine's own question (purpose ``ruling``) that shows the roll as
its card would (who, for what, the faces, the modifiers, the total, the target): accept
it; set its faces (a roll of plain dice: each die within its sides); set its total; set
its outcome (a dice command, or a roll with a target); or have it made again (from the
rolling handler's own stream, so a step run again rolls the same; the GM is then asked
about the new roll). Both give the roll as ruled, marked (``ruling``: ``faces``,
``total``, ``success``, ``failure``, ``again``) so that its card says the GM ruled.

The ruling is an answer, so it is an entry of the session's log: saves, snapshots and
replays give it again exactly, and a GM who answers later makes the step wait as any
question does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lore.engine.command_rolls import copy_roll
from lore.engine.queries import Input, Query
from lore.runtime.errors import RuleError
from lore.runtime.values import Range, RuntimeType

if TYPE_CHECKING:
    from lore.engine.session import Runtime, Session
    from lore.runtime.compiler import CompiledProgram
    from lore.runtime.values import LoreObject

MAX_AGAIN = 20  # rolls made again for one ruling (then the last one stands, accepted)
PURPOSE = "ruling"
# The GM's choices, captioned in both languages (the clients title the question itself).
CHOICES = {
    "accept": "認める (accept)",
    "faces": "出目を決める (set the faces)",
    "total": "合計を決める (set the total)",
    "success": "成功にする (make it a success)",
    "failure": "失敗にする (make it a failure)",
    "again": "振り直させる (have it made again)",
}


def install(program: CompiledProgram) -> None:
    """Give the prelude's ``Roll`` these native accessors (``natives.prepare`` does)."""
    methods = program.form_by_name["Roll"].methods
    methods["ruled"] = ruled
    methods["approvedByGM"] = approved_by_gm


def ruled(rt: Runtime, made: LoreObject) -> LoreObject:
    """``r.ruled``: the GM's ruling when the table rules on every roll, else ``r``."""
    if not rt.records_dice or not rules_rolls(rt.session):
        return made  # (a chat command's roll, or the GM's own improvised check: not asked)
    return approved_by_gm(rt, made)


def rules_rolls(session: Session) -> bool:
    """Whether the GM rules on every roll in the step running now. A change of the
    setting counts from the next step on: the step that waits for answers as it is
    made runs again as it began (its questions stay the same)."""
    setting, since, before = session.rule_rolls
    return setting if session.steps > since else before


def set_rule_rolls(session: Session, every: bool) -> None:
    """The table's setting: the GM rules on every roll marked ``ruled`` (or not)."""
    session.rule_rolls = (every, session.steps, rules_rolls(session))


def approved_by_gm(rt: Runtime, made: LoreObject) -> LoreObject:
    """``r.approvedByGM``: the roll as the GM rules on it (asked always)."""
    from lore.engine.natives import ask_query

    for _ in range(MAX_AGAIN):
        query = question(made)
        values = ask_query(rt, query).values
        choice = values["ruling"]
        if choice == "accept":
            return made
        if choice == "again":
            made = again(rt, made)
            continue
        return ruled_as(rt, made, str(choice), values)
    return made


def question(made: LoreObject) -> Query:
    """The GM's question about a roll: the roll as its card shows it, and the choices
    that fit it (its faces only for plain dice; its outcome for a command or a target)."""
    values = made.values
    plain = _plain(made)
    choices = ["accept"]
    inputs: list[Input] = []
    if plain:
        choices.append("faces")
    if not values["command"]:
        choices.append("total")
    if values["command"] or values["target"]:
        choices += ["success", "failure"]
    if plain or values["command"]:
        choices.append("again")
    captions = tuple(CHOICES[c] for c in choices)
    inputs.append(
        Input("ruling", RuntimeType("prim", "string"), tuple(choices), None, "accept", captions)
    )
    if plain:
        marks = values["marks"]
        for number, at in enumerate(range(0, len(marks), 3), 1):
            sides = abs(marks[at + 1])
            inputs.append(
                Input(
                    f"die{number}", RuntimeType("prim", "integer"), None, Range(1, sides), marks[at]
                )
            )
    if not values["command"]:
        inputs.append(Input("total", RuntimeType("prim", "integer"), None, None, values["total"]))
    texts = (("roll", describe(made)),)
    named = [("ruling", "裁定 (ruling)"), ("total", "合計 (total)")]
    for item in inputs:
        if item.name.startswith("die") and item.allowed is not None:
            which, sides = item.name[3:], item.allowed.high
            named.append((item.name, f"{which}個目の出目 (die {which}, d{sides})"))
    return Query(
        "GM", "ruling on a roll", texts, tuple(inputs), captions=tuple(named), purpose=PURPOSE
    )


def describe(made: LoreObject) -> str:
    """The roll as the GM reads it before ruling: who, for what, the dice, the total."""
    values = made.values
    parts = [str(values["by"])]
    if values["title"]:
        parts.append(str(values["title"]))
    if values["command"]:
        parts.append(str(values["command"]))
    parts.append(str(values["text"]))
    modifiers = values["modifiers"]
    if modifiers:
        parts.append(" ".join(f"{m:+d}" for m in modifiers))
    parts.append(f"= {values['total']}")
    if values["target"]:
        parts.append(f"(目標値 / target {values['target']})")
    return " ".join(parts)


def ruled_as(rt: Runtime, made: LoreObject, choice: str, answer: dict[str, Any]) -> LoreObject:
    """The roll with the GM's ruling ``choice`` applied (``answer``: the question's values)."""
    values = made.values
    if choice == "faces":
        marks = list(values["marks"])
        faces = []
        for number, at in enumerate(range(0, len(marks), 3), 1):
            face = answer[f"die{number}"]
            marks[at] = face
            faces.append(face)
        kinds = values["kinds"]
        total = values["rolled"].bonus + sum(
            f if k > 0 else -f for f, k in zip(faces, kinds, strict=True)
        )
        total += sum(values["modifiers"])
        text = "[" + " ".join(map(str, faces)) + "]"
        return copy_roll(
            rt, made, faces=tuple(faces), marks=tuple(marks), total=total, text=text, ruling="faces"
        )
    if choice == "total":
        return copy_roll(rt, made, total=answer["total"], ruling="total")
    if choice in ("success", "failure"):
        success = choice == "success"
        return copy_roll(
            rt,
            made,
            success=success,
            failure=not success,
            critical=False,
            fumble=False,
            ruling=choice,
        )
    raise RuleError(f"'{choice}' is no ruling on a roll")  # (the question offers no other)


def again(rt: Runtime, made: LoreObject) -> LoreObject:
    """The roll made again, for what it was for (its title, modifiers, target, audience)."""
    from lore.engine import command_rolls
    from lore.engine.rolls import roll

    values = made.values
    actor = values["rolledBy"][0] if values["rolledBy"] else None
    what = values["command"] or values["rolled"]
    if values["command"] and not command_rolls.is_command(what):
        raise RuleError(f"the roll of {what!r} cannot be made again")
    fresh = roll(rt, str(values["by"]), str(values["seat"]), what, actor)
    kept = {name: values[name] for name in ("title", "target", "audience")}
    fresh = copy_roll(rt, fresh, ruling="again", **kept)
    if values["modifiers"] and not values["command"]:
        total = fresh.values["total"] + sum(values["modifiers"])
        fresh = copy_roll(rt, fresh, total=total, modifiers=values["modifiers"])
    return fresh


def _plain(made: LoreObject) -> bool:
    """A roll of plain dice as rolled: no command, no die dropped, rolled again or added."""
    values = made.values
    marks = values["marks"]
    return not values["command"] and not any(marks[at + 2] for at in range(0, len(marks), 3))
