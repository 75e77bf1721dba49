"""Members of builtin types that Lore cannot declare in Lore itself (they are generic).

Forms like Event or Actor are declared in the prelude (``lib/prelude.lore``); what is
here is what needs a type parameter: list, range, dice, numbers, quantities, typed
strings and types used as values.
"""

from __future__ import annotations

from collections.abc import Callable

from lore.records import record
from lore.semantics.types import (
    ANY,
    BOOLEAN,
    DICE,
    INTEGER,
    NUMBER,
    REAL,
    STRING,
    URL,
    XML,
    EnumT,
    FuncT,
    InputT,
    ListT,
    Prim,
    RangeT,
    Type,
    TypeOf,
    UnitT,
    is_numeric,
)


@record(slots=False)
class Builtin:
    """A builtin member: its parameters and result (None: a rule, no value).

    ``min_args`` allows trailing optional parameters; ``refine`` computes a better
    result type from the argument types (``map`` gives ``list<U>``).
    """

    params: tuple[Type, ...]
    result: Type | None
    doc: str
    min_args: int | None = None
    refine: Callable[[list[Type]], Type] | None = None
    variadic: bool = False

    @property
    def required(self) -> int:
        return len(self.params) if self.min_args is None else self.min_args


def _map_result(args: list[Type]) -> Type:
    if args and isinstance(args[0], FuncT) and args[0].result is not None:
        return ListT(args[0].result)
    return ListT(ANY)


def _list_members(element: Type) -> dict[str, Builtin]:
    listed = ListT(element)
    predicate = FuncT((element,), BOOLEAN)
    return {
        "length": Builtin((), INTEGER, "the number of elements"),
        "isEmpty": Builtin((), BOOLEAN, "whether the list has no elements"),
        "get": Builtin((INTEGER,), element, "the element at an index (0 is the first)"),
        "get1st": Builtin((), element, "the first element"),
        "sum": Builtin((), element, "the sum of the elements (numbers or quantities)"),
        "add": Builtin((element,), listed, "a new list with one more element at the end"),
        "addAll": Builtin((listed,), listed, "a new list with the elements of both"),
        "remove": Builtin((element,), listed, "a new list without the elements equal to x"),
        "contains": Builtin((element,), BOOLEAN, "whether an element equals x"),
        "foreach": Builtin(
            (FuncT((element,), None),), None, "run the function for every element, all at once"
        ),
        "find1st": Builtin((predicate,), element, "the first element the function accepts"),
        "filter": Builtin((predicate,), listed, "the elements the function accepts"),
        "any": Builtin((predicate,), BOOLEAN, "whether the function accepts some element"),
        "all": Builtin((predicate,), BOOLEAN, "whether the function accepts every element"),
        "map": Builtin(
            (FuncT((element,), ANY),),
            ListT(ANY),
            "the list of the function's results",
            refine=_map_result,
        ),
        "sort": Builtin(
            (FuncT((element,), NUMBER),),
            listed,
            "the elements in order (of the key function's value, if given)",
            min_args=0,
        ),
    }


def _number_members(receiver: Type) -> dict[str, Builtin]:
    return {
        "toReal": Builtin((), REAL, "the value as a real number"),
        "toInt": Builtin((), INTEGER, "the value rounded half up to an integer"),
        "abs": Builtin((), receiver, "the absolute value"),
        "in": Builtin((RangeT(receiver),), BOOLEAN, "whether the value lies in the range"),
        "round": Builtin((), INTEGER, "the nearest integer (halves round up)"),
        "ceil": Builtin((), INTEGER, "the smallest integer not below the value"),
        "floor": Builtin((), INTEGER, "the largest integer not above the value"),
    }


def _quantity_members(receiver: UnitT) -> dict[str, Builtin]:
    return {
        "toReal": Builtin((), REAL, "the magnitude in the family's base unit, as a real"),
        "toInt": Builtin((), INTEGER, "the magnitude in the base unit, rounded half up"),
        "abs": Builtin((), receiver, "the absolute value"),
        "in": Builtin((RangeT(receiver),), BOOLEAN, "whether the value lies in the range"),
    }


_DICE_MEMBERS = {
    "roll": Builtin((), INTEGER, "roll the dice (from the session's random stream)"),
    "min": Builtin((), INTEGER, "the smallest total the dice can give"),
    "max": Builtin((), INTEGER, "the largest total the dice can give"),
    "mean": Builtin((), REAL, "the average total"),
}

_STRING_MEMBERS = {
    "length": Builtin((), INTEGER, "the number of characters"),
    "contains": Builtin((STRING,), BOOLEAN, "whether the text contains another text"),
}

_URL_MEMBERS = {
    "loadXML": Builtin((), XML, "the XML document the url names (relative to the file)"),
    **_STRING_MEMBERS,
}


def member(receiver: Type, name: str) -> Builtin | None:
    """The builtin member ``name`` of a value of type ``receiver``, if there is one."""
    if name == "type":
        return Builtin((), TypeOf(receiver), "the value's type")
    return members(receiver).get(name)


def members(receiver: Type) -> dict[str, Builtin]:
    if isinstance(receiver, ListT):
        return _list_members(receiver.element)
    if isinstance(receiver, RangeT):
        element = receiver.element
        return {
            "match": Builtin((element,), BOOLEAN, "whether a value lies in the range"),
            "low": Builtin((), element, "the lower end"),
            "high": Builtin((), element, "the upper end"),
        }
    if isinstance(receiver, UnitT):
        return _quantity_members(receiver)
    if is_numeric(receiver):
        return _number_members(receiver)
    if receiver == DICE:
        return _DICE_MEMBERS
    if receiver == URL:
        return _URL_MEMBERS
    if isinstance(receiver, Prim) and receiver != BOOLEAN:
        return _STRING_MEMBERS
    if isinstance(receiver, TypeOf):
        return type_members(receiver.type)
    return {}


def type_members(type_: Type) -> dict[str, Builtin]:
    """Members of a type used as a value: ``integer.input``, ``list<T>.empty``."""
    found = {
        "input": Builtin(
            (ANY, ANY),
            InputT(type_),
            "a query member the participant fills in with a value of this type "
            "(optionally: the allowed range, the default)",
            min_args=0,
        ),
    }
    found["choice"] = Builtin(
        (ListT(type_), type_),
        InputT(type_),
        "a query member the participant fills in by picking one of the options "
        "(optionally: the default)",
        min_args=1,
    )
    found["choices"] = Builtin(
        (ListT(type_), INTEGER, INTEGER),
        InputT(ListT(type_)),
        "a query member the participant fills in by picking some of the options, each "
        "once (optionally: at least, at most; 0 to all by default)",
        min_args=1,
    )
    if isinstance(type_, ListT):
        found["empty"] = Builtin((), type_, "the empty list of this type")
    if isinstance(type_, UnitT):
        for name, doc in (
            ("ceil", "rounded up to"),
            ("floor", "rounded down to"),
            ("round", "rounded half up to"),
        ):
            found[name] = Builtin(
                (UnitT(type_.family, type_.family.base),),
                type_,
                f"a quantity {doc} a whole number of this unit",
            )
    if isinstance(type_, EnumT):
        found["values"] = Builtin((), ListT(type_), "every value of the enum, in order")
    return found
