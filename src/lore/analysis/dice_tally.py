"""Dice over simulated sessions: the checks each rule made, and the totals each dice
command gave beside its exact odds (``lore.dice.odds``).

A **check** is a roll with a verdict: a dice command with a target (``1D100<=50``: the
transcript's ``dice`` record has ``success`` or ``failure``), or a roll's card with an
``outcome`` (``aki.roll(2d6).withTarget(8).show``). A check belongs to the rule that made it:
the innermost Lore rule on the call stack when its record was written, a helper
``function`` on the way (``via``) not counted as the rule. A roll that a rule judges by
itself (``if (3d6.roll.total >= 12)``) has no verdict the engine knows of: it is no check.

The **totals** of a command are kept as written (``2D6``, ``1D100<=50``, the dice of
``3d6.roll`` as ``3D6``): the sum, or the count of successes for a pool (``5B10>=8``).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from types import FrameType
from typing import TYPE_CHECKING, Any

from lore.analysis.intervals import wilson
from lore.dice.odds import Odds, odds
from lore.runtime.errors import Frame

if TYPE_CHECKING:
    from lore.engine.session import Session

# Commands whose totals are kept (the first met), and exact outcomes up to which odds are given.
MAX_COMMANDS = 40
MAX_EXACT = 400
PRELUDE = "<lore>/prelude.lore"
UNKNOWN = ("(no rule)", "<rule>", "")

Place = tuple[str, str, str]  # the rule, its file:line:col, the function it called (or "")


class DiceTally:
    """The checks and totals of one session, fed its transcript's records."""

    def __init__(self) -> None:
        self.session: Session | None = None  # set once the session is made
        self.checks: dict[Place, list[int]] = {}  # -> [made, succeeded]
        self.totals: dict[str, Counter[int]] = {}
        self._places: dict[tuple[Any, int, int], Frame | None] = {}

    def note(self, record: dict[str, Any]) -> None:
        kind = record["kind"]
        if kind == "dice" and record.get("how") in ("roll", "command"):
            command = str(record.get("command") or record.get("dice"))
            total = record.get("total")
            if isinstance(total, int) and (
                command in self.totals or len(self.totals) < MAX_COMMANDS
            ):
                self.totals.setdefault(command, Counter())[total] += 1
            if "success" in record or "failure" in record:
                self._check(bool(record.get("success")))
        elif kind == "roll" and "outcome" in record and "command" not in record:
            self._check(record["outcome"] == "success")  # (a command's: counted by its dice)

    def _check(self, success: bool) -> None:
        counts = self.checks.setdefault(self.place(sys._getframe(2)), [0, 0])
        counts[0] += 1
        counts[1] += success

    def place(self, frame: FrameType | None) -> Place:
        """The rule on the Lore call stack from ``frame`` out, and where it rolled."""
        session = self.session
        if session is None:
            return UNKNOWN
        line_maps = session.program.line_maps
        found: list[Frame] = []
        while frame is not None:
            code = frame.f_code
            if code.co_filename in line_maps:
                key = (code, frame.f_lineno or 0, frame.f_lasti)
                if key not in self._places:
                    self._places[key] = session.frame_at(*key)
                one = self._places[key]
                if one is not None and one.source.name != PRELUDE:
                    found.append(one)
            frame = frame.f_back
        if not found:
            return UNKNOWN
        chosen = next((one for one in found if not one.rule.startswith("function ")), found[0])
        via = found[0].rule if chosen is not found[0] else ""
        pos = chosen.source.position(chosen.span.start)
        return chosen.rule, f"{chosen.source.name}:{pos.line}:{pos.column}", via

    def check_counts(self) -> tuple[tuple[str, str, str, int, int], ...]:
        return tuple((*place, made, won) for place, (made, won) in self.checks.items())

    def total_counts(self) -> tuple[tuple[str, int, int], ...]:
        return tuple(
            (command, total, times)
            for command, counts in self.totals.items()
            for total, times in sorted(counts.items())
        )


@dataclass(frozen=True)
class CheckRate:
    """The checks one rule made at one place over the sessions, and how many succeeded."""

    rule: str
    where: str
    via: str
    checks: int
    successes: int
    sessions: int  # the sessions in which it made one

    @property
    def key(self) -> str:
        return f"{self.rule} @ {self.where}"

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"rule": self.rule, "where": self.where}
        if self.via:
            found["via"] = self.via
        found.update(
            checks=self.checks,
            successes=self.successes,
            sessions=self.sessions,
            **wilson(self.successes, self.checks).to_json(),
        )
        return found


@dataclass(frozen=True)
class DiceOutcomes:
    """The totals one dice command gave over the sessions, and its exact odds (none for a
    command the odds code cannot count: a system's own, a choice, too many outcomes)."""

    command: str
    totals: dict[int, int]  # total -> rolls
    exact: Odds | None

    @property
    def rolls(self) -> int:
        return sum(self.totals.values())

    @property
    def mean(self) -> float:
        return sum(total * n for total, n in self.totals.items()) / self.rolls

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "rolls": self.rolls,
            "mean": self.mean,
            "totals": {str(total): n for total, n in self.totals.items()},
        }
        exact = self.exact
        if exact is None:
            found["exact"] = None
            return found
        mean = exact.mean()
        found["exact"] = {
            "measure": exact.measure,
            "tail": exact.tail,  # when set, the last outcome means "that many or more"
            "mean": None if mean is None else float(mean),
            "outcomes": {str(value): float(chance) for value, chance in exact.outcomes},
        }
        if exact.success is not None:
            found["exact"]["success"] = float(exact.success)
        return found


@lru_cache(maxsize=256)
def exact_odds(command: str) -> Odds | None:
    """The exact odds of a command as written, when the odds code counts them."""
    try:
        found = odds(command)
    except (ArithmeticError, ValueError, RecursionError, MemoryError):
        return None
    except Exception as error:  # OddsError, DiceError: the command has no odds
        if type(error).__module__.startswith("lore.dice"):
            return None
        raise
    return found if len(found.outcomes) <= MAX_EXACT else None


def check_rates(runs: list[tuple[tuple[str, str, str, int, int], ...]]) -> tuple[CheckRate, ...]:
    """Every rule's checks over the sessions, the most made first."""
    made: Counter[Place] = Counter()
    won: Counter[Place] = Counter()
    sessions: Counter[Place] = Counter()
    for checks in runs:
        for rule, where, via, n, k in checks:
            place = (rule, where, via)
            made[place] += n
            won[place] += k
            sessions[place] += 1
    ordered = sorted(made, key=lambda place: (-made[place], place))
    return tuple(CheckRate(*place, made[place], won[place], sessions[place]) for place in ordered)


def dice_outcomes(runs: list[tuple[tuple[str, int, int], ...]]) -> tuple[DiceOutcomes, ...]:
    """Every command's totals over the sessions (commands in the order first met)."""
    found: dict[str, Counter[int]] = {}
    for totals in runs:
        for command, total, times in totals:
            if command in found or len(found) < MAX_COMMANDS:
                found.setdefault(command, Counter())[total] += times
    return tuple(
        DiceOutcomes(command, dict(sorted(counts.items())), exact_odds(command))
        for command, counts in found.items()
    )
