"""The signature of a builtin member: what the checker checks, and what the reference shows.

A builtin (``xs.length``, ``d.roll``, ``integer.input``) is described once, here, by its
parameters (with names), its result, a sentence of what it does and notes on its effects
and limits. The checker checks calls against it and ``lore.semantics.reference`` renders
the member tables of the language reference from the same objects, so the two cannot
drift apart. How each member runs is the compiler's (``lore.runtime.builtin_code``).
"""

from __future__ import annotations

from collections.abc import Callable

from lore.records import record
from lore.semantics.types import (
    DATE,
    STRING,
    DictT,
    FuncT,
    ListT,
    Type,
    TypeParam,
    UnitT,
    is_lenient,
    is_numeric,
)


@record(slots=False)
class Builtin:
    """A builtin member: its parameters and result (None: a rule, no value).

    ``names`` names the parameters (for messages and the reference); ``min_args`` allows
    trailing optional parameters; ``variadic`` repeats the last parameter. ``refine``
    computes a better result type from the argument types (``map`` gives ``list<U>``) and
    ``check`` names what is wrong with them (``sortBy`` needs a key that can be ordered).
    ``pure``: the member only gives a value (computing it and dropping it does nothing,
    which the checker warns of). ``note`` tells its effects and limits.
    """

    params: tuple[Type, ...]
    result: Type | None
    doc: str
    names: tuple[str, ...] = ()
    min_args: int | None = None
    refine: Callable[[list[Type]], Type] | None = None
    check: Callable[[list[Type]], str | None] | None = None
    variadic: bool = False
    pure: bool = True
    note: str = ""

    @property
    def required(self) -> int:
        return len(self.params) if self.min_args is None else self.min_args


def orderable(t: Type) -> bool:
    """Whether values of ``t`` can be put in order (``<``, ``sort``, ``min``)."""
    return is_numeric(t) or isinstance(t, UnitT | TypeParam) or t in (STRING, DATE) or is_lenient(t)


def equatable(t: Type) -> bool:
    """Whether values of ``t`` can be dictionary keys (a dictionary cannot)."""
    if isinstance(t, ListT):
        return equatable(t.element)
    return not isinstance(t, DictT)


def needs_order(what: str) -> Callable[[Type], str | None]:
    def problem(t: Type) -> str | None:
        if orderable(t):
            return None
        return f"{what} must be numbers, quantities, texts or dates to be put in order, not {t}"

    return problem


def key_problem(args: list[Type]) -> str | None:
    """A key function's result must be orderable (``sortBy``, ``minBy``); each key's,
    where several are given (``sortBy(a, b)``)."""
    for arg in args:
        if isinstance(arg, FuncT) and arg.result is not None:
            problem = needs_order("the key's values")(arg.result)
            if problem is not None:
                return problem
    return None
