"""The builtin members of single values: numbers, quantities, dice, texts and types used
as values (``integer.input``, ``unit[R].ceil(x)``), and the builtin functions ``min`` and
``max``."""

from __future__ import annotations

from lore.semantics.signatures import Builtin, needs_order
from lore.semantics.types import (
    ANY,
    BOOLEAN,
    DICE,
    INTEGER,
    REAL,
    STRING,
    XML,
    DictT,
    EnumT,
    FuncT,
    InputT,
    ListT,
    RangeT,
    Type,
    UnitT,
    common_type,
)

TEXT_LIMIT = "at most 10^7 characters"


def number_members(receiver: Type) -> dict[str, Builtin]:
    return {
        "toReal": Builtin((), REAL, "the value as a real number"),
        "toInt": Builtin((), INTEGER, "the value rounded half up to an integer"),
        "abs": Builtin((), receiver, "the absolute value"),
        "in": Builtin((RangeT(receiver),), BOOLEAN, "whether the value lies in the range", ("r",)),
        "round": Builtin((), INTEGER, "the nearest integer (halves round up)"),
        "ceil": Builtin((), INTEGER, "the smallest integer not below the value"),
        "floor": Builtin((), INTEGER, "the largest integer not above the value"),
    }


def quantity_members(receiver: Type) -> dict[str, Builtin]:
    return {
        "toReal": Builtin((), REAL, "the magnitude in the family's base unit, as a real"),
        "toInt": Builtin((), INTEGER, "the magnitude in the base unit, rounded half up"),
        "abs": Builtin((), receiver, "the absolute value"),
        "in": Builtin((RangeT(receiver),), BOOLEAN, "whether the value lies in the range", ("r",)),
    }


DICE_MEMBERS = {
    "roll": Builtin(
        (),
        INTEGER,
        "rolls the dice and gives the total",
        pure=False,
        note="draws dice; at most 10,000 dice of at most 10^6 sides",
    ),
    "min": Builtin((), INTEGER, "the smallest total the dice can give"),
    "max": Builtin((), INTEGER, "the largest total the dice can give"),
    "mean": Builtin((), REAL, "the average total"),
}

STRING_MEMBERS = {
    "length": Builtin((), INTEGER, "the number of characters"),
    "isEmpty": Builtin((), BOOLEAN, "whether the text has no characters"),
    "contains": Builtin((STRING,), BOOLEAN, "whether the text contains another text", ("t",)),
    "indexOf": Builtin(
        (STRING,),
        INTEGER,
        "where another text first starts in this one (0 is the first character), or -1",
        ("t",),
    ),
    "startsWith": Builtin((STRING,), BOOLEAN, "whether the text starts with another", ("t",)),
    "endsWith": Builtin((STRING,), BOOLEAN, "whether the text ends with another", ("t",)),
    "slice": Builtin(
        (INTEGER, INTEGER),
        STRING,
        "the characters from index `from` up to, not including, index `to` (indexes past "
        "either end count as the end)",
        ("from", "to"),
    ),
    "take": Builtin((INTEGER,), STRING, "the first n characters (all, if fewer)", ("n",)),
    "drop": Builtin((INTEGER,), STRING, "the characters after the first n", ("n",)),
    "split": Builtin(
        (STRING,),
        ListT(STRING),
        "the parts between the separators (one part when there is none)",
        ("separator",),
    ),
    "trim": Builtin((), STRING, "the text without white space at its start and end"),
    "replace": Builtin(
        (STRING, STRING),
        STRING,
        "the text with every `old` replaced by `new`",
        ("old", "new"),
        note=TEXT_LIMIT,
    ),
}

URL_MEMBERS = {
    "loadXML": Builtin(
        (),
        XML,
        "the XML document the url names (relative to the file)",
        note="read when checked: the url written out, its file existing and well-formed",
    ),
}


def type_members(type_: Type) -> dict[str, Builtin]:
    """Members of a type used as a value: ``integer.input``, ``list<T>.empty``."""
    from lore.semantics.builtin_lists import dict_type_members
    from lore.semantics.types import DictT

    found = {
        "input": Builtin(
            (ANY, ANY),
            InputT(type_),
            "in a query: a control where the participant gives a value of this type (with "
            "an allowed range of numbers or quantities, and a default)",
            ("allowed", "default"),
            min_args=0,
            check=lambda args: unanswerable(type_),
            note="an empty allowed range is refused",
        ),
    }
    found["choice"] = Builtin(
        (ListT(type_), type_),
        InputT(type_),
        "in a query: the participant picks one of the options (optionally: the default)",
        ("options", "default"),
        min_args=1,
        note="an empty list of options, or a default not among them, is refused",
    )
    found["choices"] = Builtin(
        (ListT(type_), INTEGER, INTEGER),
        InputT(ListT(type_)),
        "in a query: the participant picks some of the options, each once (optionally: at "
        "least, at most; 0 to all by default)",
        ("options", "least", "most"),
        min_args=1,
    )
    if isinstance(type_, ListT):
        found["empty"] = Builtin((), type_, "the empty list of this type")
    if isinstance(type_, DictT):
        found.update(dict_type_members(type_.key, type_.value))
    if isinstance(type_, UnitT):
        for name, doc in (
            ("ceil", "rounded up to"),
            ("floor", "rounded down to"),
            ("round", "rounded half up to"),
        ):
            found[name] = Builtin(
                (UnitT(type_.family, type_.family.base),),
                type_,
                f"the quantity {doc} a whole number of this unit",
                ("x",),
            )
    if isinstance(type_, EnumT):
        found.update(enum_type_members(type_))
    return found


def unanswerable(type_: Type) -> str | None:
    """Why no participant can give a value of ``type_`` in a query (None: one can)."""
    if isinstance(type_, ListT):
        return (
            f"a participant cannot give a list in a query ({type_}.input); "
            "let them pick several of a list of options with T.choices(options)"
        )
    if isinstance(type_, RangeT | DictT | FuncT) or type_ == DICE:
        return f"a participant cannot give a value of type {type_} in a query"
    return None


def enum_type_members(enum: Type) -> dict[str, Builtin]:
    return {
        "values": Builtin(
            (), ListT(enum), "every value of the enum, in order (those it extends first)"
        )
    }


def _extreme(word: str) -> Builtin:
    def joined(args: list[Type]) -> Type:
        found: Type | None = args[0] if args else ANY
        for arg in args[1:]:
            found = common_type(found, arg) if found is not None else None
        return found if found is not None else ANY

    def problem(args: list[Type]) -> str | None:
        kind = joined(args)
        if len(args) > 1 and kind == ANY and all(a != ANY for a in args):
            shown = ", ".join(str(a) for a in args)
            return f"{word} compares values of one kind, not {shown}"
        return needs_order(f"the values of {word}")(kind)

    return Builtin(
        (ANY, ANY),
        ANY,
        f"the {'smallest' if word == 'min' else 'largest'} of its arguments (two or more "
        "numbers, quantities of one family, texts or dates)",
        ("a", "b"),
        variadic=True,
        refine=joined,
        check=problem,
    )


GLOBALS = {"min": _extreme("min"), "max": _extreme("max")}

VALUE_TYPE = Builtin((), ANY, "the value's type, as a value (`x.type`)")
