"""Every builtin member the checker knows has code the compiler writes for it."""

from __future__ import annotations

import pytest

from lore.runtime.builtin_code import GLOBAL_CODE, code_for
from lore.semantics import builtins
from lore.semantics.types import (
    DICE,
    INTEGER,
    PRIMITIVES,
    REAL,
    STRING,
    DictT,
    ListT,
    RangeT,
    Type,
    UnitT,
)
from lore.semantics.units import UnitFamily

RECEIVERS: list[Type] = [
    ListT(INTEGER),
    ListT(ListT(INTEGER)),
    RangeT(INTEGER),
    RangeT(REAL),
    DictT(STRING, INTEGER),
    INTEGER,
    REAL,
    UnitT(UnitFamily("m", integer=False, factors={}), "m"),
    DICE,
    STRING,
    PRIMITIVES["url"],
    PRIMITIVES["jid"],
]


@pytest.mark.parametrize("receiver", RECEIVERS, ids=str)
def test_every_member_has_code(receiver: Type) -> None:
    family = builtins.family_of(receiver)
    assert family is not None
    missing = [name for name in builtins.members(receiver) if code_for(family, name) is None]
    assert missing == []


def test_every_builtin_function_has_code() -> None:
    assert set(builtins.GLOBALS) == set(GLOBAL_CODE)
