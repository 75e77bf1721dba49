"""The objects a session still holds: those its rules can still reach.

An object no value, engine object or waiting event leads to can no longer change nor be
seen, so the engine keeps no list of the objects it made or changed (a long session's
memory would grow with its history); what needs them (the state a save shows) finds
them by following references from the session's roots.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from lore.runtime.ops import Closure
from lore.runtime.values import LoreObject


def reachable(roots: Iterable[Any]) -> Iterator[LoreObject]:
    """Every object reached from ``roots`` through member values, lists, tuples,
    dictionaries and the values lambdas captured; each once, in no set order."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        item = stack.pop()
        if isinstance(item, LoreObject):
            if id(item) not in seen:
                seen.add(id(item))
                yield item
                stack.extend(item.values.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, Closure):
            stack.append(item.captured)  # its values, or the object of a bound rule
