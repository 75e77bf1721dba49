"""Visiting every node of a tree, without recursion (trees can be deep)."""

from __future__ import annotations

from collections.abc import Iterator

from lore.records import fields
from lore.syntax import ast


def walk(node: ast.Node) -> Iterator[ast.Node]:
    """``node`` and every node below it, in source order."""
    stack: list[ast.Node] = [node]
    while stack:
        current = stack.pop()
        yield current
        children: list[ast.Node] = []
        for field in fields(current):
            value = getattr(current, field.name)
            if isinstance(value, ast.Node):
                children.append(value)
            elif isinstance(value, tuple):
                children.extend(item for item in value if isinstance(item, ast.Node))
        stack.extend(reversed(children))
