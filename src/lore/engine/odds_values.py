"""Exact odds for rules: ``odds("7R10[10]>=8").atLeast(3)``, the ``Odds`` form's rules.

``system.odds(command)`` (and the prelude's ``odds(command)``) works out the odds of a
BCDice command with ``lore.dice.odds`` and gives an ``Odds`` object: its outcomes and
their chances as reals, and rules for the chance of n or more, of a face condition
(``"[6]>=2"``: a critical), of beating another command. Chances are worked out exactly
(fractions); the ``...Exact`` rules give the fraction as text. Odds of one command are
worked out once per process (they depend on the text alone).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from lore.dice.distribution import OddsError
from lore.dice.odds import Odds, odds, opposed
from lore.runtime.errors import RuleError
from lore.runtime.values import LoreObject, show

if TYPE_CHECKING:
    from lore.engine.session import Runtime
    from lore.runtime.compiler import CompiledProgram

HIDDEN = "odds:"  # the worked-out odds, kept in the object (no Lore name can reach it)


def install(program: CompiledProgram) -> None:
    """Give the prelude's forms these native rules (``natives.prepare`` does, once per
    program)."""
    forms = program.form_by_name
    forms["System"].methods.setdefault("odds", system_odds)
    methods = forms["Odds"].methods
    for name, fn in _ODDS_RULES.items():
        methods.setdefault(name, fn)


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise RuleError(f"{what} is a text, not {show(value)}")
    return str(value)


@lru_cache(maxsize=512)
def worked_out(command: str, critical: str | None = None) -> Odds:
    return odds(command, critical=critical)


def _odds(command: str, critical: str | None = None) -> Odds:
    try:
        return worked_out(command, critical)
    except OddsError as error:
        raise RuleError(
            f"no odds of '{command}': {error}",
            "odds are worked out for BCDice's sums and pools (2D6+3>=10, 5B10>=8, 7R10[10]>=8)",
        ) from None


def system_odds(rt: Runtime, system: LoreObject, command: Any) -> LoreObject:
    found = _odds(_text(command, "a dice command"))
    values: dict[str, Any] = {
        "command": found.command,
        "measure": found.measure,
        "outcomes": tuple(value for value, _ in found.outcomes),
        "chances": tuple(float(chance) for _, chance in found.outcomes),
        "mean": float(found.mean() or 0),
        "success": float(found.success or 0),
        "text": table(found),
        HIDDEN: found,
    }
    return LoreObject(rt.session.program.form_by_name["Odds"], values, rt.session.new_oid())


def table(found: Odds) -> str:
    lines = []
    for value, chance in found.outcomes:
        last = found.tail is not None and value >= found.tail
        shown = f"{value}+" if last else str(value)
        lines.append(f"{shown}: {fraction(chance)} ({float(chance) * 100:.2f}%)")
    return "\n".join(lines)


def fraction(chance: Fraction) -> str:
    return f"{chance.numerator}/{chance.denominator}"


def _found(made: LoreObject) -> Odds:
    found = made.values.get(HIDDEN)
    if not isinstance(found, Odds):
        raise RuleError("these odds were not worked out by odds(command)")
    return found


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RuleError(f"an outcome is a whole number, not {show(value)}")
    return value


def _exact(rt: Runtime, made: LoreObject, ask: Callable[[Odds], Fraction]) -> Fraction:
    try:
        return ask(_found(made))
    except OddsError as error:
        raise RuleError(f"no odds of that for '{_found(made).command}': {error}") from None


def at_least(rt: Runtime, made: LoreObject, n: Any) -> float:
    count = _count(n)
    return float(_exact(rt, made, lambda found: found.at_least(count)))


def at_least_exact(rt: Runtime, made: LoreObject, n: Any) -> str:
    count = _count(n)
    return fraction(_exact(rt, made, lambda found: found.at_least(count)))


def exactly(rt: Runtime, made: LoreObject, n: Any) -> float:
    count = _count(n)
    return float(_exact(rt, made, lambda found: found.exactly(count)))


def at_most(rt: Runtime, made: LoreObject, n: Any) -> float:
    count = _count(n)
    return float(_exact(rt, made, lambda found: 1 - found.at_least(count + 1)))


def _condition(made: LoreObject, condition: Any) -> Fraction:
    found = _found(made)
    chance = _odds(found.command, _text(condition, "a face condition")).critical
    assert chance is not None
    return chance


def chance_of(rt: Runtime, made: LoreObject, condition: Any) -> float:
    return float(_condition(made, condition))


def chance_of_exact(rt: Runtime, made: LoreObject, condition: Any) -> str:
    return fraction(_condition(made, condition))


@lru_cache(maxsize=512)
def _against(active: str, passive: str) -> tuple[Fraction, Fraction]:
    match = opposed(active, passive)
    return match.higher, match.equal


def _opposed(made: LoreObject, other: Any) -> tuple[Fraction, Fraction]:
    passive = _text(other, "a dice command")
    try:
        return _against(_found(made).command, passive)
    except OddsError as error:
        raise RuleError(
            f"no odds of '{_found(made).command}' against '{passive}': {error}"
        ) from None


def beats(rt: Runtime, made: LoreObject, other: Any) -> float:
    return float(_opposed(made, other)[0])


def ties(rt: Runtime, made: LoreObject, other: Any) -> float:
    return float(_opposed(made, other)[1])


_ODDS_RULES: dict[str, Callable[..., Any]] = {
    "atLeast": at_least,
    "atLeastExact": at_least_exact,
    "exactly": exactly,
    "atMost": at_most,
    "chanceOf": chance_of,
    "chanceOfExact": chance_of_exact,
    "beats": beats,
    "ties": ties,
}
