"""What rule authors bring from other languages, and the Lore way to write it.

The parser meets ``while``, ``return``, ``+=``, ``c ? a : b`` and the like where Lore has
no such construct. Rather than a token error (``expected ';', found name 'x'``), it says
what Lore has instead. This module holds those words, so the parser only decides where.
"""

from __future__ import annotations

from lore.records import record


@record
class Foreign:
    """A construct Lore does not have: what to say, and what to write instead.

    ``before``: the tokens that must follow the word for it to be that construct (empty:
    any token but one after which the word is a name, such as ``=``).
    """

    message: str
    hint: str
    before: frozenset[str] = frozenset()


_DECLARE = "Lore declares a local by giving it a value"
_DECLARE_HINT = "write x = ...; or, with its type, x : T = ...;"
LOOP_HINT = "walk a list or range: for (x in xs) { ... } or for (i in 1,...,n) { ... }"

# Words that start a statement in other languages, by the word.
STATEMENTS = {
    "while": Foreign(
        "Lore has no while loop: a loop walks a list or a range, so it always ends",
        LOOP_HINT + "; to wait for something, schedule an event that looks again later",
        frozenset("("),
    ),
    "do": Foreign("Lore has no do-while loop", LOOP_HINT, frozenset("{")),
    "return": Foreign(
        "Lore has no return: a function's value is what 'result' holds when its body ends",
        "set it with result = ...; and use if/else to leave the rest out",
    ),
    "break": Foreign(
        "Lore has no break: a for loop walks every element",
        "find an element with find1st or any, or walk only what you need: "
        "for (x in xs.filter(...)) or xs.take(n)",
    ),
    "continue": Foreign(
        "Lore has no continue", "put the rest of the loop's body in an if (...) { ... }"
    ),
    "switch": Foreign(
        "Lore has no switch",
        "choose with select(x) { case(v) { ... } default { ... } }",
        frozenset("("),
    ),
    "var": Foreign(_DECLARE, _DECLARE_HINT, frozenset(("IDENT",))),
    "let": Foreign(_DECLARE, _DECLARE_HINT, frozenset(("IDENT",))),
    "const": Foreign(_DECLARE, _DECLARE_HINT, frozenset(("IDENT",))),
    "elif": Foreign("Lore writes 'else if'", "write } else if (...) { ... }", frozenset("(")),
}

# Words after which the word is a name after all (`return = 3;` defines a local).
NAME_FOLLOWERS = frozenset(("=", ":=", ".", ":", "(", ")", ",", "]"))

C_FOR = Foreign(
    "Lore's for walks a list or a range: it has no start, test and step",
    "write for (i in 0,...<n) { ... } or for (x in xs) { ... }",
)


def compound(op: str) -> Foreign:
    """``x += e``, ``x -= e`` ...: Lore assigns with ``=`` only."""
    return Foreign(f"Lore has no '{op}='", f"write x = x {op} ...;")


def doubled(op: str) -> Foreign:
    """``x++``, ``a && b``, ``a || b``."""
    if op == "+":
        return Foreign("Lore has no '++'", "write x = x + 1;")
    if op == "-":
        return Foreign("Lore has no '--'", "write x = x - 1;")
    word = "and" if op == "&" else "or"
    return Foreign(f"Lore's '{word}' is a single '{op}'", f"write a {op} b")


CONDITIONAL_OPERATOR = Foreign(
    "Lore has no '? :' operator", "write the conditional expression if (c) a else b"
)

ASSIGN_IN_CONDITION = Foreign("'=' gives a value; a condition compares", "compare with '=='")
