"""Python's own errors, in the words of a rule author.

A value the checker only knows as ``any`` can meet an operation it does not support at
run time (``"a" - 1``). Python then says ``unsupported operand type(s) for -: 'str' and
'int'``; the rule author reads ``cannot use - on a string and an integer``. An error not
recognised here keeps Python's words after its kind.
"""

from __future__ import annotations

import re

# Python's names of the runtime's types -> how the reference names their values.
TYPE_WORDS = {
    "int": "an integer",
    "float": "a real",
    "str": "a string",
    "bool": "a boolean",
    "tuple": "a list",
    "list": "a list",
    "NoneType": "nothing",
    "LoreObject": "an object",
    "Quantity": "a quantity",
    "Dice": "dice",
    "TypedString": "a typed string",
    "Closure": "a lambda",
    "function": "a rule",
    "EnumValue": "an enum value",
    "Range": "a range",
    "RuntimeType": "a type",
    "InputMarker": "an input",
}

# (Python's message, the rule author's words, which of its groups are names of types)
_PATTERNS: list[tuple[re.Pattern[str], str, tuple[int, ...]]] = [
    (
        re.compile(r"unsupported operand type\(s\) for (\S+): '(\w+)' and '(\w+)'"),
        "cannot use {0} on {1} and {2}",
        (1, 2),
    ),
    (
        re.compile(r"'(\S+)' not supported between instances of '(\w+)' and '(\w+)'"),
        "cannot compare {1} and {2} with {0}",
        (1, 2),
    ),
    (re.compile(r"bad operand type for unary (\S+): '(\w+)'"), "cannot use {0} on {1}", (1,)),
    (re.compile(r"'(\w+)' object is not callable"), "{0} cannot be called: it is no rule", (0,)),
    (re.compile(r"object of type '(\w+)' has no len\(\)"), "{0} has no length", (0,)),
    (re.compile(r"'(\w+)' object is not iterable"), "{0} is not a list", (0,)),
    (
        re.compile(r"'(\w+)' object has no attribute '\w+'"),
        "{0} is not an object of a form",
        (0,),
    ),
]


def type_words(name: str) -> str:
    return TYPE_WORDS.get(name, f"a value ({name})")


def plain_message(error: BaseException) -> str:
    """What went wrong, for a rule author."""
    text = str(error)
    if isinstance(error, TypeError | AttributeError):
        for pattern, words, types in _PATTERNS:
            found = pattern.fullmatch(text)
            if found is not None:
                parts = [
                    type_words(part) if index in types else part
                    for index, part in enumerate(found.groups())
                ]
                return words.format(*parts)
    return f"{type(error).__name__}: {text}"
