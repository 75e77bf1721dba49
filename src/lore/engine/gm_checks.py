"""The GM's improvised checks: a rule system's check, called by the GM at the table.

A rule system declares its check as a top-level ``GMCheck`` value (ORM's
``orm.improvisedCheck``: a 行為判定 with an ability, a modifier and a 目標値). The GM
picks one of them, an actor, one of its abilities, a modifier and a target; the handler
runs between steps as a chat command's does (``lore.engine.system_commands``: dice from
the server's source, every die kept, nothing told, asked, changed or scheduled), in the
actor's name, and gives a Roll. Its card (``lore.engine.shown_rolls.card``) goes to the
seats that see the actor, marked as the GM's ruling; the session server keeps the card in
its log, so a replay shows it again without rolling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lore.dice import RandomSource
from lore.engine.shown_rolls import card
from lore.engine.system_commands import ChatRuntime, rolls_only
from lore.engine.table_decls import values_of
from lore.engine.table_view import actor_id
from lore.engine.views import GM, actors_of
from lore.runtime.errors import Frame, RuleError
from lore.runtime.values import LoreObject, show

if TYPE_CHECKING:
    from lore.engine.session import Session

MAX_MODIFIER = 1_000  # the size of a modifier or a target the GM gives


@dataclass(frozen=True, slots=True)
class GMCheck:
    """A declared check: its id (the value's name), labels, abilities and handler."""

    id: str
    label: str
    label_ja: str
    abilities: tuple[str, ...]
    handler: Any
    place: Frame

    def describe(self) -> dict[str, Any]:
        """As the GM's client offers it."""
        return {
            "id": self.id,
            "label": self.label,
            "labelJa": self.label_ja or self.label,
            "abilities": list(self.abilities),
        }


class CheckError(ValueError):
    """A check the GM called that cannot be made: why, in plain words."""


def gm_checks(session: Session) -> list[GMCheck]:
    """The program's ``GMCheck`` values, in the order of its values."""
    found = []
    for symbol, value in values_of(session, "GMCheck"):
        values = value.values
        abilities = tuple(str(a) for a in values.get("abilities") or () if isinstance(a, str))
        found.append(
            GMCheck(
                symbol.qualified_name,
                _text(values.get("label")) or symbol.name,
                _text(values.get("labelJa")),
                abilities,
                values.get("handler"),
                Frame(f"value {symbol.qualified_name}", symbol.source, symbol.span),
            )
        )
    return found


def improvised_check(
    session: Session,
    check_id: str,
    actor: str,
    ability: str,
    modifier: int,
    target: int,
    source: RandomSource,
    secret: bool = False,
) -> dict[str, Any]:
    """Roll the GM's check ``check_id`` for the actor ``actor`` (its id, as its sheet and
    token have it): the roll's card record, ``to`` the seats that see the actor (the GM
    alone when ``secret``). CheckError says why it cannot be made; RuleError when the
    rules' handler goes wrong (its ``render()`` says where)."""
    if session.ended is not None:
        raise CheckError("the session is over")
    found = next((c for c in gm_checks(session) if c.id == check_id), None)
    if found is None:
        names = ", ".join(c.id for c in gm_checks(session)) or "none"
        raise CheckError(f"the rules declare no check '{check_id}' (they declare {names})")
    who = next((a for a in actors_of(session, GM) if actor_id(a) == actor), None)
    if who is None:
        raise CheckError(f"there is no actor '{actor}'")
    if ability not in found.abilities:
        raise CheckError(f"'{ability}' is none of {', '.join(found.abilities)}")
    for name, number in (("the modifier", modifier), ("the target", target)):
        if not -MAX_MODIFIER <= number <= MAX_MODIFIER:
            raise CheckError(f"{name} is from {-MAX_MODIFIER} to {MAX_MODIFIER}, not {number}")
    from lore.engine.natives import recipient

    session.settle()
    rt = ChatRuntime(session, source)
    named = who.values.get("name")
    rt.roller = (str(named) if isinstance(named, str) and named else actor, recipient(who))
    made = rolls_only(
        rt,
        f"the check {check_id}",
        found.place,
        lambda: found.handler(rt, who, ability, modifier, target),
    )
    roll_form = session.program.form_by_name["Roll"]
    if not (isinstance(made, LoreObject) and made.form is not None):
        raise RuleError(f"the check {check_id} must give a Roll, not {show(made)}")
    if not made.form.is_subform_of(roll_form):
        raise RuleError(f"the check {check_id} must give a Roll, not {show(made)}")
    record = card(session, made)
    record["ruling"] = "check"
    if secret:
        record["to"] = [GM]
        record["secret"] = True
        record["audience"] = "GM"
    return record


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
