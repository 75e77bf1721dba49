"""The builtin members of collections: lists, ranges and dictionaries.

A list is a value: every member that "changes" a list gives a new list and leaves the
old one as it was (keep the new one: ``xs = xs.add(x);``). Members that walk the elements
count against the handler's operations limit by how many elements they touch.
"""

from __future__ import annotations

from lore.semantics.signatures import Builtin, equatable, key_problem, needs_order
from lore.semantics.types import (
    ANY,
    BOOLEAN,
    DICE,
    INTEGER,
    NUMBER,
    STRING,
    AnonFormT,
    DictT,
    FuncT,
    ListT,
    Type,
    TypeParam,
    UnitT,
    is_lenient,
    is_numeric,
)

# What the notes of the reference say (the reference explains them once).
WALKS = "one operation per element"
COPIES = "work counted by length"
RANDOM = "draws dice"


def _map_result(args: list[Type]) -> Type:
    if args and isinstance(args[0], FuncT) and args[0].result is not None:
        return ListT(args[0].result)
    return ListT(ANY)


def _summable(element: Type) -> bool:
    return (
        is_numeric(element)
        or isinstance(element, UnitT | TypeParam)
        or element in (STRING, DICE)
        or is_lenient(element)
    )


def list_members(element: Type) -> dict[str, Builtin]:
    found = {**_reading(element), **_changing(element), **_walking(element)}
    found.update(_ordering(element))
    found.update(_combining(element))
    if isinstance(element, ListT):
        found["flatten"] = Builtin(
            (), element, "one list of the elements of the inner lists, in order", note=COPIES
        )
    return found


def _reading(element: Type) -> dict[str, Builtin]:
    return {
        "length": Builtin((), INTEGER, "the number of elements"),
        "isEmpty": Builtin((), BOOLEAN, "whether the list has no elements"),
        "get": Builtin(
            (INTEGER,),
            element,
            "the element at an index (0 is the first)",
            ("index",),
            note="an index outside the list stops the rule",
        ),
        "get1st": Builtin((), element, "the first element", note="an empty list stops the rule"),
        "last": Builtin((), element, "the last element", note="an empty list stops the rule"),
        "contains": Builtin(
            (element,), BOOLEAN, "whether an element equals x", ("x",), note=COPIES
        ),
        "indexOf": Builtin(
            (element,),
            INTEGER,
            "the index of the first element equal to x, or -1",
            ("x",),
            note=COPIES,
        ),
        "slice": Builtin(
            (INTEGER, INTEGER),
            ListT(element),
            "the elements from index `from` up to, not including, index `to` (indexes "
            "past either end count as the end)",
            ("from", "to"),
            note=COPIES,
        ),
        "take": Builtin(
            (INTEGER,), ListT(element), "the first n elements (all, if fewer)", ("n",), note=COPIES
        ),
        "drop": Builtin(
            (INTEGER,), ListT(element), "the elements after the first n", ("n",), note=COPIES
        ),
    }


def _changing(element: Type) -> dict[str, Builtin]:
    listed = ListT(element)
    return {
        "add": Builtin(
            (element,), listed, "a new list with x added at the end", ("x",), note=COPIES
        ),
        "addAll": Builtin(
            (listed,), listed, "a new list with the elements of both", ("others",), note=COPIES
        ),
        "insertAt": Builtin(
            (INTEGER, element),
            listed,
            "a new list with x inserted before index i (the length: at the end)",
            ("i", "x"),
            note=COPIES,
        ),
        "removeAt": Builtin(
            (INTEGER,),
            listed,
            "a new list without the element at index i",
            ("i",),
            note=COPIES,
        ),
        "remove": Builtin(
            (element,), listed, "a new list without the elements equal to x", ("x",), note=COPIES
        ),
        "removeFirst": Builtin(
            (element,),
            listed,
            "a new list without the first element equal to x",
            ("x",),
            note=COPIES,
        ),
        "reverse": Builtin((), listed, "the elements in the opposite order", note=COPIES),
        "distinct": Builtin(
            (), listed, "the elements without repeats (the first of equal ones)", note=COPIES
        ),
        "distinctBy": Builtin(
            (FuncT((element,), ANY),),
            listed,
            "the elements without repeats of the key function's value (the first of each)",
            ("key",),
            note=WALKS,
        ),
        "shuffle": Builtin((), listed, "the elements in a random order", pure=False, note=RANDOM),
        "pick": Builtin(
            (),
            element,
            "one element chosen at random",
            pure=False,
            note=RANDOM + "; an empty list stops the rule",
        ),
    }


def _walking(element: Type) -> dict[str, Builtin]:
    predicate = FuncT((element,), BOOLEAN)
    return {
        "foreach": Builtin(
            (FuncT((element,), None),),
            None,
            "runs the function for every element, all at once: when each asks a player "
            "something, everyone is asked together",
            ("f",),
            note=WALKS,
        ),
        "find1st": Builtin(
            (predicate,),
            element,
            "the first element the function accepts",
            ("test",),
            note=WALKS + "; stops the rule when there is none (check with any)",
        ),
        "filter": Builtin(
            (predicate,), ListT(element), "the elements the function accepts", ("test",), note=WALKS
        ),
        "count": Builtin(
            (predicate,), INTEGER, "how many elements the function accepts", ("test",), note=WALKS
        ),
        "any": Builtin(
            (predicate,),
            BOOLEAN,
            "whether the function accepts some element",
            ("test",),
            note=WALKS,
        ),
        "all": Builtin(
            (predicate,),
            BOOLEAN,
            "whether the function accepts every element",
            ("test",),
            note=WALKS,
        ),
        "map": Builtin(
            (FuncT((element,), ANY),),
            ListT(ANY),
            "the list of the function's results, in order",
            ("f",),
            refine=_map_result,
            note=WALKS,
        ),
    }


def _ordering(element: Type) -> dict[str, Builtin]:
    listed = ListT(element)
    key = FuncT((element,), ANY)
    ordered = needs_order("the elements")

    def own(args: list[Type]) -> str | None:
        return ordered(element)

    found = {
        "sort": Builtin(
            (FuncT((element,), NUMBER),),
            listed,
            "the elements in order (of the key function's number, if given); equal ones "
            "keep their order",
            ("key",),
            min_args=0,
            check=lambda args: None if args else ordered(element),
            note=COPIES,
        ),
        "sortBy": Builtin(
            (key,),
            listed,
            "the elements in order of the key function's value (a number, quantity, text "
            "or date); with several keys, by the first, then the next among equal ones "
            "(`sortBy(@(c) c.dex, @(c) c.name)`); equal ones keep their order",
            ("key",),
            check=key_problem,
            variadic=True,
            note=WALKS,
        ),
        "sortByDescending": Builtin(
            (key,),
            listed,
            "the elements in order of the key function's value, largest first; with "
            "several keys, by each in turn, largest first; equal ones keep their order",
            ("key",),
            check=key_problem,
            variadic=True,
            note=WALKS,
        ),
        "min": Builtin(
            (),
            element,
            "the smallest element",
            check=own,
            note="an empty list stops the rule",
        ),
        "max": Builtin(
            (),
            element,
            "the largest element",
            check=own,
            note="an empty list stops the rule",
        ),
        "minBy": Builtin(
            (key,),
            element,
            "the first element with the smallest key",
            ("key",),
            check=key_problem,
            note=WALKS + "; an empty list stops the rule",
        ),
        "maxBy": Builtin(
            (key,),
            element,
            "the first element with the largest key",
            ("key",),
            check=key_problem,
            note=WALKS + "; an empty list stops the rule",
        ),
    }
    return found


def _combining(element: Type) -> dict[str, Builtin]:
    def zipped(args: list[Type]) -> Type:
        other = args[0].element if args and isinstance(args[0], ListT) else ANY
        return ListT(AnonFormT((("first", element), ("second", other))))

    def summable(args: list[Type]) -> str | None:
        if _summable(element):
            return None
        return f"only numbers, quantities, dice and texts can be summed, not {element}"

    return {
        "sum": Builtin(
            (),
            element,
            "the sum of the elements (numbers, quantities, dice; texts are joined); 0 for "
            "an empty list",
            check=summable,
            note=COPIES,
        ),
        "join": Builtin(
            (STRING,),
            STRING,
            "the elements as texts, with the separator between them",
            ("separator",),
            note=COPIES + "; at most 10^7 characters",
        ),
        "zip": Builtin(
            (ListT(ANY),),
            ListT(AnonFormT((("first", element), ("second", ANY)))),
            "pairs of the elements at the same index, `{first = x; second = y;}`, as long as "
            "the shorter list",
            ("others",),
            refine=zipped,
            note=COPIES,
        ),
        "toDict": Builtin(
            (FuncT((element,), ANY),),
            DictT(ANY, element),
            "a dictionary of the elements by the key function's value (a later element "
            "replaces an earlier one of the same key)",
            ("key",),
            refine=lambda args: DictT(
                args[0].result if args and isinstance(args[0], FuncT) and args[0].result else ANY,
                element,
            ),
            check=lambda args: (
                "a dictionary's keys cannot be dictionaries"
                if args
                and isinstance(args[0], FuncT)
                and args[0].result is not None
                and not equatable(args[0].result)
                else None
            ),
            note=WALKS,
        ),
    }


def range_members(element: Type) -> dict[str, Builtin]:
    found = {
        "match": Builtin((element,), BOOLEAN, "whether a value lies in the range", ("x",)),
        "low": Builtin((), element, "the lower end"),
        "high": Builtin((), element, "the upper end"),
    }
    if element == INTEGER:
        found.update(integer_range_members())
    return found


def integer_range_members() -> dict[str, Builtin]:
    """What a range of whole numbers adds: it can be walked like the list of its numbers."""
    listed = ListT(INTEGER)
    predicate = FuncT((INTEGER,), BOOLEAN)
    return {
        "toList": Builtin((), listed, "the whole numbers in the range, in order", note=COPIES),
        "length": Builtin((), INTEGER, "how many whole numbers the range holds"),
        "map": Builtin(
            (FuncT((INTEGER,), ANY),),
            ListT(ANY),
            "the list of the function's results for each number, in order",
            ("f",),
            refine=_map_result,
            note=WALKS,
        ),
        "filter": Builtin(
            (predicate,), listed, "the numbers the function accepts", ("test",), note=WALKS
        ),
        "foreach": Builtin(
            (FuncT((INTEGER,), None),),
            None,
            "runs the function for every number, all at once (as a list's foreach)",
            ("f",),
            note=WALKS,
        ),
        "pick": Builtin(
            (),
            INTEGER,
            "a number of the range chosen at random",
            pure=False,
            note=RANDOM + "; an empty range stops the rule",
        ),
    }


def dict_members(key: Type, value: Type) -> dict[str, Builtin]:
    mapping = DictT(key, value)
    return {
        "length": Builtin((), INTEGER, "the number of keys"),
        "isEmpty": Builtin((), BOOLEAN, "whether the dictionary has no keys"),
        "has": Builtin((key,), BOOLEAN, "whether the key has a value", ("k",)),
        "get": Builtin(
            (key,),
            value,
            "the value of the key",
            ("k",),
            note="stops the rule when the key has none (check with has, or use getOr)",
        ),
        "getOr": Builtin(
            (key, value), value, "the value of the key, or the default", ("k", "default")
        ),
        "put": Builtin(
            (key, value),
            mapping,
            "a new dictionary where the key has the value",
            ("k", "v"),
            note=COPIES,
        ),
        "remove": Builtin((key,), mapping, "a new dictionary without the key", ("k",), note=COPIES),
        "keys": Builtin((), ListT(key), "the keys, in the order they were first put", note=COPIES),
        "values": Builtin((), ListT(value), "the values, in the order of their keys", note=COPIES),
        "entries": Builtin(
            (),
            ListT(AnonFormT((("key", key), ("value", value)))),
            "the pairs `{key = k; value = v;}`, in order",
            note=COPIES,
        ),
    }


def dict_type_members(key: Type, value: Type) -> dict[str, Builtin]:
    """Members of a dictionary type used as a value: ``dict<string, integer>.empty``."""
    return {
        "empty": Builtin((), DictT(key, value), "the empty dictionary of this type"),
    }
