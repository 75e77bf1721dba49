"""What the builtin members of lists, ranges, dictionaries and texts do when rules run.

Lists are tuples and dictionaries :class:`LoreDict` values: a member that "changes" one
gives a new one. Work is counted against the handler's operations limit by its size, so
that a quadratic rule (``xs.filter(@(x) ys.contains(x))`` on long lists) is stopped like
a loop that never ends: a rule call or a step with a lambda counts 1, every 64 elements
copied 1, every 16 elements compared 1 (roughly what each costs next to a rule call).

The functions that run Lore code (a lambda) take the runtime ``rt`` first; those that
only count their work take it last (the compiler tells the two apart by that). They
call a lambda's code directly (``fn.code(rt, fn.captured, x)``),
not through the closure object, so that deep recursion through them stays in Python's
own frames (see ``lore.runtime.ops.Closure``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from lore.runtime.errors import LimitExceeded, RuleError
from lore.runtime.values import LoreDict, LoreObject, Range, show

MAX_LIST = 1_000_000
MAX_TEXT = 10_000_000  # characters
COPY = 64  # elements copied per operation counted
COMPARE = 16  # elements compared per operation counted


def work(rt: Any, amount: int) -> None:
    """Count ``amount`` operations of work against the handler's limit."""
    ops = rt.ops = rt.ops + amount
    if ops > rt.max_ops:
        rt.limit(at_entry=False)


def copying(rt: Any, size: int) -> None:
    if size >= COPY:
        work(rt, size // COPY)


def comparing(rt: Any, size: int) -> None:
    if size >= COMPARE:
        work(rt, size // COMPARE)


def checked_list(items: tuple[Any, ...]) -> tuple[Any, ...]:
    if len(items) > MAX_LIST:
        raise LimitExceeded(f"a list of more than {MAX_LIST} elements")
    return items


def checked_text(text: str) -> str:
    if len(text) > MAX_TEXT:
        raise LimitExceeded(f"a text of more than {MAX_TEXT} characters")
    return text


def _caller(fn: Any) -> tuple[Callable[..., Any], Any]:
    """How to call a function value ``fn`` as ``code(rt, first, x)``."""
    code = getattr(fn, "code", None)
    if code is not None:
        return code, fn.captured
    if fn is None or not callable(fn):
        raise RuleError(f"{show(fn)} is not a function")
    return (lambda rt, _, *args: fn(rt, *args)), None


# ------------------------------------------------------------ reading


def list_get(items: tuple[Any, ...], index: int) -> Any:
    if not 0 <= index < len(items):
        raise RuleError(f"index {index} is outside the list (it has {_elements(len(items))})")
    return items[index]


def _elements(count: int) -> str:
    return "1 element" if count == 1 else f"{count} elements"


def list_first(items: tuple[Any, ...]) -> Any:
    if not items:
        raise RuleError("the list is empty: it has no first element")
    return items[0]


def list_last(items: tuple[Any, ...]) -> Any:
    if not items:
        raise RuleError("the list is empty: it has no last element")
    return items[-1]


def list_contains(items: tuple[Any, ...], item: Any, rt: Any) -> bool:
    comparing(rt, len(items))
    return item in items


def list_index(items: tuple[Any, ...], item: Any, rt: Any) -> int:
    comparing(rt, len(items))
    for index, found in enumerate(items):
        if found == item:
            return index
    return -1


def _bounds(size: int, start: int, stop: int) -> tuple[int, int]:
    start = min(max(start, 0), size)
    return start, min(max(stop, start), size)


def list_slice(items: tuple[Any, ...], start: int, stop: int, rt: Any) -> tuple[Any, ...]:
    start, stop = _bounds(len(items), start, stop)
    copying(rt, stop - start)
    return items[start:stop]


def list_take(items: tuple[Any, ...], count: int, rt: Any) -> tuple[Any, ...]:
    return list_slice(items, 0, count, rt)


def list_drop(items: tuple[Any, ...], count: int, rt: Any) -> tuple[Any, ...]:
    return list_slice(items, count, len(items), rt)


# ------------------------------------------------------------ new lists


def list_add(items: tuple[Any, ...], item: Any, rt: Any) -> tuple[Any, ...]:
    copying(rt, len(items))
    return checked_list((*items, item))


def list_add_all(items: tuple[Any, ...], more: tuple[Any, ...], rt: Any) -> tuple[Any, ...]:
    copying(rt, len(items) + len(more))
    return checked_list(items + more)


def list_insert(items: tuple[Any, ...], index: int, item: Any, rt: Any) -> tuple[Any, ...]:
    if not 0 <= index <= len(items):
        raise RuleError(
            f"cannot insert at index {index}: the list has {_elements(len(items))}",
            "insert at an index from 0 to the length",
        )
    copying(rt, len(items))
    return checked_list((*items[:index], item, *items[index:]))


def list_remove_at(items: tuple[Any, ...], index: int, rt: Any) -> tuple[Any, ...]:
    if not 0 <= index < len(items):
        raise RuleError(f"index {index} is outside the list (it has {_elements(len(items))})")
    copying(rt, len(items))
    return items[:index] + items[index + 1 :]


def list_remove(items: tuple[Any, ...], item: Any, rt: Any) -> tuple[Any, ...]:
    comparing(rt, len(items))
    return tuple(x for x in items if x != item)


def list_remove_first(items: tuple[Any, ...], item: Any, rt: Any) -> tuple[Any, ...]:
    comparing(rt, len(items))
    for index, found in enumerate(items):
        if found == item:
            return items[:index] + items[index + 1 :]
    return items


def list_reverse(items: tuple[Any, ...], rt: Any) -> tuple[Any, ...]:
    copying(rt, len(items))
    return items[::-1]


def list_distinct(items: tuple[Any, ...], rt: Any) -> tuple[Any, ...]:
    return _first_of_each(rt, items, items)


def list_distinct_by(rt: Any, items: tuple[Any, ...], fn: Any) -> tuple[Any, ...]:
    """The first element of each value of the key function, in order."""
    return _first_of_each(rt, items, _keys(rt, items, fn))


def _first_of_each(rt: Any, items: Sequence[Any], keys: Sequence[Any]) -> tuple[Any, ...]:
    """The elements whose key no element before them had."""
    comparing(rt, len(items))
    kept: list[Any] = []
    seen: set[Any] = set()
    unhashable: list[Any] = []
    for item, key in zip(items, keys, strict=True):
        try:
            if key in seen:
                continue
            seen.add(key)
        except TypeError:  # a list or dictionary: compared one by one
            if key in unhashable:
                continue
            comparing(rt, len(unhashable))
            unhashable.append(key)
        kept.append(item)
    return tuple(kept)


def list_flatten(items: tuple[tuple[Any, ...], ...], rt: Any) -> tuple[Any, ...]:
    flat: list[Any] = []
    for inner in items:
        copying(rt, len(inner))
        flat.extend(inner)
        if len(flat) > MAX_LIST:
            raise LimitExceeded(f"a list of more than {MAX_LIST} elements")
    return tuple(flat)


def list_zip(items: tuple[Any, ...], others: tuple[Any, ...], rt: Any) -> tuple[Any, ...]:
    copying(rt, min(len(items), len(others)))
    return tuple(
        LoreObject(None, {"first": a, "second": b}, 0) for a, b in zip(items, others, strict=False)
    )


def list_shuffle(items: tuple[Any, ...], rt: Any) -> tuple[Any, ...]:
    """A random order (Fisher-Yates, drawing from the handler's dice stream)."""
    copying(rt, len(items))
    shuffled = list(items)
    for last in range(len(shuffled) - 1, 0, -1):
        other = rt.randint(0, last)
        shuffled[last], shuffled[other] = shuffled[other], shuffled[last]
    return tuple(shuffled)


def list_pick(items: tuple[Any, ...], rt: Any) -> Any:
    if not items:
        raise RuleError("the list is empty: there is nothing to pick")
    return items[rt.randint(0, len(items) - 1)]


# ------------------------------------------------------------ sums and texts


def list_sum(items: tuple[Any, ...], rt: Any) -> Any:
    copying(rt, len(items))
    if not items:
        return 0
    first = items[0]
    if isinstance(first, str):
        return list_join(items, "", rt)
    total = first
    for item in items[1:]:
        total = total + item
    return total


def list_join(items: tuple[Any, ...], separator: str, rt: Any) -> str:
    copying(rt, len(items))
    size = len(separator) * max(len(items) - 1, 0)
    parts = []
    for item in items:
        part = item if isinstance(item, str) else show(item)
        size += len(part)
        if size > MAX_TEXT:
            raise LimitExceeded(f"a text of more than {MAX_TEXT} characters")
        parts.append(part)
    return separator.join(parts)


# ------------------------------------------------------------ walking with a lambda


def list_find(rt: Any, items: Iterable[Any], fn: Any) -> Any:
    code, first = _caller(fn)
    for item in items:
        rt.count_op()
        if code(rt, first, item):
            return item
    raise RuleError("no element of the list was found", "check with .any first")


def list_filter(rt: Any, items: Iterable[Any], fn: Any) -> tuple[Any, ...]:
    code, first = _caller(fn)
    kept = []
    for item in items:
        rt.count_op()
        if code(rt, first, item):
            kept.append(item)
    return tuple(kept)


def list_count(rt: Any, items: Iterable[Any], fn: Any) -> int:
    code, first = _caller(fn)
    count = 0
    for item in items:
        rt.count_op()
        if code(rt, first, item):
            count += 1
    return count


def list_map(rt: Any, items: Iterable[Any], fn: Any) -> tuple[Any, ...]:
    code, first = _caller(fn)
    mapped = []
    for item in items:
        rt.count_op()
        mapped.append(code(rt, first, item))
    return checked_list(tuple(mapped))


def list_any(rt: Any, items: Iterable[Any], fn: Any) -> bool:
    code, first = _caller(fn)
    for item in items:
        rt.count_op()
        if code(rt, first, item):
            return True
    return False


def list_all(rt: Any, items: Iterable[Any], fn: Any) -> bool:
    code, first = _caller(fn)
    for item in items:
        rt.count_op()
        if not code(rt, first, item):
            return False
    return True


def _keys(rt: Any, items: tuple[Any, ...], fn: Any) -> list[Any]:
    code, first = _caller(fn)
    keys = []
    for item in items:
        rt.count_op()
        keys.append(code(rt, first, item))
    return keys


def list_sort(rt: Any, items: tuple[Any, ...], fn: Any = None) -> tuple[Any, ...]:
    """The elements in order of themselves, or of the key function's values; equal ones
    keep their order (Python's sort is stable)."""
    comparing(rt, len(items) * max(len(items).bit_length(), 1))
    try:
        if fn is None:
            return tuple(sorted(items))
        keys = _keys(rt, items, fn)
        order = sorted(range(len(items)), key=keys.__getitem__)
        return tuple(items[i] for i in order)
    except TypeError:
        raise RuleError("these elements cannot be put in order") from None


def list_sort_by(rt: Any, items: tuple[Any, ...], descending: bool, *fns: Any) -> tuple[Any, ...]:
    """The elements in order of the first key function's values, then the next's among
    equal ones; largest first when ``descending``. Equal ones keep their order."""
    comparing(rt, len(items) * max(len(items).bit_length(), 1) * len(fns))
    columns = [_keys(rt, items, fn) for fn in fns]
    try:
        order = sorted(
            range(len(items)),
            key=lambda i: tuple(column[i] for column in columns),
            reverse=descending,  # Python's sort stays stable when reversed
        )
    except TypeError:
        raise RuleError("these keys cannot be put in order") from None
    return tuple(items[i] for i in order)


def list_extreme(rt: Any, items: tuple[Any, ...], largest: bool, fn: Any = None) -> Any:
    """``min``, ``max`` (``fn`` None) or ``minBy``, ``maxBy``: the first of the extremes."""
    if not items:
        word = "largest" if largest else "smallest"
        raise RuleError(f"the list is empty: it has no {word} element")
    keys = list(items) if fn is None else _keys(rt, items, fn)
    comparing(rt, len(items))
    best = 0
    try:
        for index in range(1, len(items)):
            if (keys[index] > keys[best]) if largest else (keys[index] < keys[best]):
                best = index
    except TypeError:
        raise RuleError("these values cannot be put in order") from None
    return items[best]


def list_to_dict(rt: Any, items: tuple[Any, ...], fn: Any) -> LoreDict:
    keys = _keys(rt, items, fn)
    try:
        return LoreDict(dict(zip(keys, items, strict=True)))
    except TypeError:
        raise RuleError("a dictionary cannot be a key") from None


# ------------------------------------------------------------ ranges of whole numbers


def range_numbers(bounds: Range) -> range:
    """The whole numbers of a range (of integers), as Python's ``range``."""
    low, high = bounds.low, bounds.high
    if not isinstance(low, int) or not isinstance(high, int):
        raise RuleError(f"the range {bounds} is not a range of whole numbers")
    return range(low + bounds.low_open, high + 1 - bounds.high_open)


def range_list(bounds: Range, rt: Any) -> tuple[int, ...]:
    numbers = range_numbers(bounds)
    if len(numbers) > MAX_LIST:
        raise LimitExceeded(f"a list of more than {MAX_LIST} elements")
    copying(rt, len(numbers))
    return tuple(numbers)


def range_length(bounds: Range) -> int:
    return len(range_numbers(bounds))


def range_pick(bounds: Range, rt: Any) -> int:
    numbers = range_numbers(bounds)
    if not numbers:
        raise RuleError(f"the range {bounds} is empty: there is nothing to pick")
    index: int = rt.randint(0, len(numbers) - 1)
    return numbers[index]


# ------------------------------------------------------------ dictionaries


def dict_get(mapping: LoreDict, key: Any) -> Any:
    try:
        return mapping.items[key]
    except KeyError:
        raise RuleError(
            f"the dictionary has no value for {show(key)}", "check with .has, or use .getOr"
        ) from None
    except TypeError:
        raise RuleError("a dictionary cannot be a key") from None


def dict_has(mapping: LoreDict, key: Any) -> bool:
    try:
        return key in mapping.items
    except TypeError:
        return False


def dict_get_or(mapping: LoreDict, key: Any, default: Any) -> Any:
    try:
        return mapping.items.get(key, default)
    except TypeError:
        return default


def dict_put(mapping: LoreDict, key: Any, value: Any, rt: Any) -> LoreDict:
    copying(rt, len(mapping.items))
    try:
        changed = {**mapping.items, key: value}
    except TypeError:
        raise RuleError("a dictionary cannot be a key") from None
    if len(changed) > MAX_LIST:
        raise LimitExceeded(f"a dictionary of more than {MAX_LIST} keys")
    return LoreDict(changed)


def dict_remove(mapping: LoreDict, key: Any, rt: Any) -> LoreDict:
    copying(rt, len(mapping.items))
    if not dict_has(mapping, key):
        return mapping
    return LoreDict({k: v for k, v in mapping.items.items() if k != key})


def dict_entries(mapping: LoreDict, rt: Any) -> tuple[LoreObject, ...]:
    copying(rt, len(mapping.items))
    return tuple(
        LoreObject(None, {"key": key, "value": value}, 0) for key, value in mapping.items.items()
    )


def dict_keys(mapping: LoreDict, rt: Any) -> tuple[Any, ...]:
    copying(rt, len(mapping.items))
    return tuple(mapping.items)


def dict_values(mapping: LoreDict, rt: Any) -> tuple[Any, ...]:
    copying(rt, len(mapping.items))
    return tuple(mapping.items.values())


EMPTY_DICT = LoreDict({})


# ------------------------------------------------------------ texts


def text_slice(value: Any, start: int, stop: int) -> str:
    text = str(value)
    start, stop = _bounds(len(text), start, stop)
    return text[start:stop]


def text_take(text: Any, count: int) -> str:
    return text_slice(text, 0, count)


def text_drop(value: Any, count: int) -> str:
    text = str(value)
    return text_slice(text, count, len(text))


def text_split(text: Any, separator: str, rt: Any) -> tuple[str, ...]:
    if not separator:
        raise RuleError("the separator of split is empty", "give a text to split at")
    parts = tuple(str(text).split(separator))
    copying(rt, len(parts))
    return checked_list(parts)


def text_replace(value: Any, old: str, new: str) -> str:
    text = str(value)
    if old and new and len(new) > len(old):
        grown = len(text) + text.count(old) * (len(new) - len(old))
        if grown > MAX_TEXT:
            raise LimitExceeded(f"a text of more than {MAX_TEXT} characters")
    if not old:
        raise RuleError("replace needs a text to look for, not an empty one")
    return text.replace(old, new)
