"""A span-free, comparable picture of an AST, for golden files and round-trip tests."""

from __future__ import annotations

from typing import Any

from lore.records import fields
from lore.syntax import ast
from lore.syntax.recursion import deeper
from lore.syntax.source import Span

_SKIPPED = frozenset(("span", "name_span", "kind_span"))


def dump(node: Any) -> Any:
    """Nested tuples of ``(NodeName, field=value, ...)`` with every span left out."""
    with deeper():
        return _dump(node)


def _dump(node: Any) -> Any:
    if isinstance(node, ast.Node):
        shown = tuple(
            (f.name, _dump(getattr(node, f.name))) for f in fields(node) if f.name not in _SKIPPED
        )
        return (type(node).__name__, *shown)
    if isinstance(node, tuple | list):
        return tuple(_dump(item) for item in node)
    if isinstance(node, Span):
        return None
    return node


def dump_text(node: Any, indent: int = 0) -> str:
    """:func:`dump` as indented text, one field a line (the golden-file format)."""
    return "\n".join(_lines(dump(node), indent)) + "\n"


def _lines(value: Any, indent: int) -> list[str]:
    pad = "  " * indent
    if (
        isinstance(value, tuple)
        and value
        and isinstance(value[0], str)
        and all(isinstance(item, tuple) and len(item) == 2 for item in value[1:])
    ):
        out = [f"{pad}{value[0]}"]
        for name, item in value[1:]:
            if _is_leaf(item):
                out.append(f"{pad}  {name}: {item!r}")
            else:
                out.append(f"{pad}  {name}:")
                out.extend(_lines(item, indent + 2))
        return out
    if isinstance(value, tuple):
        if not value:
            return [f"{pad}()"]
        out = []
        for item in value:
            out.extend(_lines(item, indent) if not _is_leaf(item) else [f"{pad}- {item!r}"])
        return out
    return [f"{pad}{value!r}"]


def _is_leaf(value: Any) -> bool:
    return not isinstance(value, tuple) or value == ()
