"""Members of builtin types that Lore cannot declare in Lore itself (they are generic).

Forms like Event or Actor are declared in the prelude (``lib/prelude.lore``); what is
here is what needs a type parameter: lists, ranges, dictionaries, dice, numbers,
quantities, texts and types used as values, and the builtin functions ``min`` and
``max``. The signatures live in :mod:`.builtin_lists` and :mod:`.builtin_scalars`;
:data:`FAMILIES` lists them for the language reference, which is generated from them.
"""

from __future__ import annotations

from collections.abc import Callable

from lore.records import record
from lore.semantics.builtin_lists import (
    dict_members,
    integer_range_members,
    list_members,
    range_members,
)
from lore.semantics.builtin_scalars import (
    DICE_MEMBERS,
    GLOBALS,
    STRING_MEMBERS,
    URL_MEMBERS,
    enum_type_members,
    number_members,
    quantity_members,
    type_members,
)
from lore.semantics.signatures import Builtin
from lore.semantics.types import (
    BOOLEAN,
    DICE,
    URL,
    DictT,
    ListT,
    Prim,
    RangeT,
    Type,
    TypeOf,
    TypeParam,
    UnitT,
    is_numeric,
)
from lore.semantics.units import UnitFamily

__all__ = ["FAMILIES", "GLOBALS", "Builtin", "Family", "family_of", "member", "members"]


def member(receiver: Type, name: str) -> Builtin | None:
    """The builtin member ``name`` of a value of type ``receiver``, if there is one."""
    if name == "type":
        return _value_type(receiver)
    return members(receiver).get(name)


def _value_type(receiver: Type | None = None) -> Builtin:
    return Builtin((), TypeOf(receiver or T), "the value's type, as a value (`x.type`)")


def family_of(receiver: Type) -> str | None:
    """Which kind of builtin members a value of type ``receiver`` has (the compiler's key
    for how they run): ``list``, ``range``, ``dict``, ``quantity``, ``number``, ``dice``,
    ``string`` or ``type``."""
    if isinstance(receiver, ListT):
        return "list"
    if isinstance(receiver, RangeT):
        return "range"
    if isinstance(receiver, DictT):
        return "dict"
    if isinstance(receiver, UnitT):
        return "quantity"
    if is_numeric(receiver):
        return "number"
    if receiver == DICE:
        return "dice"
    if isinstance(receiver, Prim) and receiver != BOOLEAN:
        return "string"
    if isinstance(receiver, TypeOf):
        return "type"
    return None


def members(receiver: Type) -> dict[str, Builtin]:
    family = family_of(receiver)
    if isinstance(receiver, ListT):
        return list_members(receiver.element)
    if isinstance(receiver, RangeT):
        return range_members(receiver.element)
    if isinstance(receiver, DictT):
        return dict_members(receiver.key, receiver.value)
    if family == "quantity":
        return quantity_members(receiver)
    if family == "number":
        return number_members(receiver)
    if family == "dice":
        return DICE_MEMBERS
    if receiver == URL:
        return {**URL_MEMBERS, **STRING_MEMBERS}
    if family == "string":
        return STRING_MEMBERS
    if isinstance(receiver, TypeOf):
        return type_members(receiver.type)
    return {}


# ---------------------------------------------------------------- for the reference

T = TypeParam("T")
U = TypeParam("U")
K = TypeParam("K")
V = TypeParam("V")
N = TypeParam("N")
_UNIT = UnitT(UnitFamily("U", integer=False, factors={}), "U")
_ENUM = TypeParam("E")


@record(slots=False)
class Family:
    """A table of the reference: builtin members of one kind of value.

    ``receiver`` is how a value of the kind is written in the table (``xs : list<T>``);
    ``members`` gives the signatures (from the same functions the checker uses, with
    stand-ins such as ``T`` for the element type).
    """

    key: str
    title: str
    receiver: str
    members: Callable[[], dict[str, Builtin]]
    intro: str = ""


def _only_new(more: dict[str, Builtin], base: dict[str, Builtin]) -> dict[str, Builtin]:
    return {name: b for name, b in more.items() if name not in base}


FAMILIES: tuple[Family, ...] = (
    Family("lists", "Lists", "xs : list<T>", lambda: list_members(T)),
    Family(
        "lists-of-lists",
        "Lists of lists",
        "xss : list<list<T>>",
        lambda: _only_new(list_members(ListT(T)), list_members(T)),
    ),
    Family("ranges", "Ranges", "r : range<T>", lambda: range_members(T)),
    Family(
        "integer-ranges",
        "Ranges of whole numbers",
        "r : range<integer>",
        integer_range_members,
        "A range of whole numbers, such as `1,...,6`, also reads as the list of its numbers.",
    ),
    Family("dicts", "Dictionaries", "d : dict<K, V>", lambda: dict_members(K, V)),
    Family(
        "numbers",
        "Numbers",
        "x : N",
        lambda: number_members(N),
        "`N` is `integer`, `real` or `number`.",
    ),
    Family("quantities", "Quantities", "q : unit[U]", lambda: quantity_members(_UNIT)),
    Family("dice", "Dice", "d : dice", lambda: dict(DICE_MEMBERS)),
    Family(
        "strings",
        "Texts",
        "s : string",
        lambda: dict(STRING_MEMBERS),
        "Typed strings (`url`, `loc`, `jid`, `html`, `xml`, `date`) have the same members.",
    ),
    Family("urls", "URLs", "u : url", lambda: dict(URL_MEMBERS)),
    Family("types", "Types as values", "T", lambda: type_members(T)),
    Family(
        "list-types",
        "List types",
        "list<T>",
        lambda: _only_new(type_members(ListT(T)), type_members(T)),
    ),
    Family(
        "dict-types",
        "Dictionary types",
        "dict<K, V>",
        lambda: _only_new(type_members(DictT(K, V)), type_members(T)),
    ),
    Family(
        "unit-types",
        "Unit types",
        "unit[U]",
        lambda: _only_new(type_members(_UNIT), type_members(T)),
    ),
    Family(
        "enum-types",
        "Enum types",
        "E",
        lambda: enum_type_members(_ENUM),
        "`E` is an enum, such as `Action`; its values come first, those of the enum it "
        "extends included.",
    ),
    Family("functions", "Builtin functions", "", lambda: dict(GLOBALS)),
    Family("values", "Every value", "x : T", lambda: {"type": _value_type()}),
)
