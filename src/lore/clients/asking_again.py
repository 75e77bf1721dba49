"""What a terminal says when a typed answer does not fit, in the same words for ``lore
run`` and ``lore join``: what was expected, then that the question is asked again.

A menu asks for a number (``type a number from 1 to 3``), or several for a pick of
several; a typed value for one of its type (``type an integer``, ``type y or n``); an
answer the rules (or the server) refused gives their reason. ``<`` typed at a prompt
goes back (``GO_BACK``): the answer before the question is taken back.
"""

from __future__ import annotations

from lore.syntax.diagnostics import with_article

GO_BACK = "<"  # typed at a prompt: take back the answer before this question
BACK_HINT = f"   (type {GO_BACK} at a prompt to take back your last answer)"


def ask_again(reason: str) -> str:
    """The line said before a question (or one of its inputs) is asked again."""
    return f"   {reason}; please answer again"


def menu_span(count: int, several: bool, least: int = 1, most: int | None = None) -> str:
    """What a menu's prompt shows it takes: ``[1-3]``, or how many of them."""
    if not several:
        return f"[1-{count}]"
    upto = most if most is not None else count
    return f"[{least} to {upto} of 1-{count}, separated by spaces]"


def menu_reason(count: int, several: bool) -> str:
    """What a menu expected."""
    if several:
        return f"type numbers from 1 to {count}, separated by spaces"
    return f"type a number from 1 to {count}"


def value_reason(type_name: str) -> str:
    """What a typed value of the type ``type_name`` (``integer``, ``unit[m]``) must be."""
    if type_name == "boolean":
        return "type y or n"
    return f"type {with_article(type_name)}"
