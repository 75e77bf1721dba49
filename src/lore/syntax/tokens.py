"""Token kinds of the Lore lexer."""

from __future__ import annotations

from typing import NamedTuple

# Kinds that are not the token's own text. Punctuation and keywords use their text.
IDENT = "IDENT"
INT = "INT"
REAL = "REAL"
STRING = "STRING"  # "..." or '...'
LONGSTRING = "LONGSTRING"  # [[...]], [=[...]=], ...
DICE = "DICE"  # 3D6, d6, 4d, D
UNIT = "UNIT"  # [m], [m/sec], [R]
EOF = "EOF"

KEYWORDS = frozenset(
    """docinfo encoding version desc author history reviser import section private enum
    extends form override list unit range string url jid html xml date loc dice number
    integer real rule function alter result select case as default self constant
    true false if else for""".split()
)

# Keywords that name builtin types and can stand where a type or a type value is expected.
TYPE_KEYWORDS = frozenset("string url jid html xml date loc dice number integer real".split())

# Type keywords that can follow a string literal after ':' to type it.
STRING_TYPES = frozenset("url loc xml html jid date".split())

RANGE_OPERATORS = {
    ",...,": (False, False),
    "<...,": (True, False),
    ",...<": (False, True),
    "<...<": (True, True),
}


# Binary operators and their binding power, loosest first (higher binds tighter).
BINARY_POWER = {
    "|": 1,
    "&": 2,
    "==": 3,
    "!=": 3,
    "<": 3,
    ">": 3,
    "<=": 3,
    ">=": 3,
    "+": 4,
    "-": 4,
    "*": 5,
    "/": 5,
    "%": 5,
}
RELATION_POWER = 3  # relations do not chain: `a < b < c` is an error


# Written in the functional form, with the types themselves: the class form's annotations
# are strings here (``from __future__ import annotations``), which ``NamedTuple`` compiles
# one by one (about 1.5 ms of every start-up for these two classes).
Token = NamedTuple("Token", [("kind", str), ("text", str), ("start", int), ("end", int)])  # noqa: UP014

# own_line: nothing but white space before the comment on its line.
_CommentFields = NamedTuple(  # noqa: UP014
    "_CommentFields", [("text", str), ("start", int), ("end", int), ("own_line", bool)]
)


class Comment(_CommentFields):
    __slots__ = ()

    @property
    def is_block(self) -> bool:
        return self.text.startswith("/*")


def describe(token: Token) -> str:
    """How a token is named in messages: ``'x'``, ``end of input``, ``number 3``."""
    if token.kind == EOF:
        return "end of input"
    if token.kind == IDENT:
        return f"name '{token.text}'"
    if token.kind in (INT, REAL):
        return f"number {token.text}"
    if token.kind in (STRING, LONGSTRING):
        return "string"
    if token.kind == DICE:
        return f"dice {token.text}"
    if token.kind == UNIT:
        return f"unit {token.text}"
    if token.kind in KEYWORDS:
        return f"keyword '{token.text}'"
    return f"'{token.text}'"
