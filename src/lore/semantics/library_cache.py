"""Parsed files of the bundled library kept between processes.

Every program loads the prelude (and most import ``basic.lore``), so every ``lore check``
would parse the same text again: about a tenth of its start-up. The syntax tree and the
comments of a bundled library file that parsed without a problem are kept in the user's
cache folder (``lore.cache``; an empty ``LORE_CACHE_DIR`` turns it off) and read back by
later processes.

A cache file is the CRC-32 of the rest, then one ``marshal`` value (no ``pickle``:
reading a cache file never runs code, and ``lore check`` need not import ``pickle``): a
header, then the tree as nested lists and tuples (a node is ``[class number, field
values...]``), then the comments. The header is the format of the file, Lore's version,
Python's version, the shape of the syntax tree (each node class's fields and their
types, which also numbers the classes) and the file's whole text: the tree is rebuilt
only when the header equals the one this process would write, so an edited library
file, another Lore or a changed node class means parsing the file again (and keeping
the new tree). A file that cannot be read, is not the user's own, fails its CRC or does
not decode into nodes of the right shape is treated the same way: the cache can make
``lore check`` faster, never broken.
"""

from __future__ import annotations

import marshal
import sys
import zlib
from functools import cache
from typing import Any

from lore import __version__
from lore import cache as user_cache
from lore.records import field_names, fields
from lore.syntax import ast
from lore.syntax.parser import ParseResult, parse
from lore.syntax.source import SourceFile, Span
from lore.syntax.tokens import Comment

FORMAT = 2


class Unkept(Exception):
    """A tree holds a value the cache does not keep (it is then not kept)."""


@cache
def node_classes() -> tuple[type, ...]:
    """The classes of the syntax tree's nodes (and spans), numbered by their place."""
    found = [
        value
        for value in vars(ast).values()
        if isinstance(value, type) and "__record_fields__" in value.__dict__
    ]
    return (*found, Span)


@cache
def tree_shape() -> str:
    """The classes of the syntax tree and their fields, as text (part of the header)."""
    parts = [f"Comment{Comment._fields}"]
    for kind in node_classes():
        shown = ",".join(f"{item.name}:{item.type}" for item in fields(kind))
        parts.append(f"{kind.__name__}({shown})")
    return ";".join(parts)


def cache_name(source: SourceFile) -> str:
    return f"parsed-{source.name.rsplit('/', 1)[-1]}-{sys.implementation.cache_tag}.marshal"


def _header(source: SourceFile) -> tuple[Any, ...]:
    return (FORMAT, __version__, sys.version, tree_shape(), source.text)


def encode(tree: ast.Module) -> Any:
    """``tree`` as lists, tuples and plain values; raises ``Unkept`` for anything else."""
    numbers = {kind: index for index, kind in enumerate(node_classes())}

    def encoded(value: Any) -> Any:
        kind = value.__class__
        if kind is tuple:
            return tuple([encoded(item) for item in value])
        if kind in (str, int, float, bool, type(None)):
            return value
        number = numbers.get(kind)
        if number is None:
            raise Unkept(f"a {kind.__name__} in a syntax tree")
        return [number, *[encoded(getattr(value, name)) for name in field_names(kind)]]

    return encoded(tree)


def decode(data: Any) -> Any:
    """The tree ``encode`` gave ``data`` for; raises ``ValueError`` (or ``TypeError``,
    ``IndexError``) for what it never gives."""
    classes = [(kind, len(fields(kind)) + 1) for kind in node_classes()]
    nested = (list, tuple)

    def decoded(item: Any) -> Any:
        if item.__class__ is tuple:
            return tuple([decoded(part) if part.__class__ in nested else part for part in item])
        node_class, length = classes[item[0]]
        if item.__class__ is not list or len(item) != length:
            raise ValueError(f"not a {node_class.__name__}")
        return node_class(
            *[decoded(value) if value.__class__ in nested else value for value in item[1:]]
        )

    return decoded(data)


def _checked(data: bytes) -> bytes:
    """The marshalled value of a cache file, after its CRC-32."""
    if len(data) < 4 or zlib.crc32(data[4:]) != int.from_bytes(data[:4], "big"):
        raise ValueError("damaged")
    return data[4:]


def parsed(source: SourceFile) -> ParseResult:
    """``parse(source)``, read from the cache when it holds a tree of this very text."""
    name = cache_name(source)
    data = user_cache.read(name)
    if data is not None:
        try:
            header, tree, comments = marshal.loads(_checked(data))
            if header == _header(source):
                module = decode(tree)
                if isinstance(module, ast.Module):
                    return ParseResult(module, [Comment(*item) for item in comments], [], source)
        except Exception:  # a corrupt or foreign file: parse anew (and replace it)
            pass
    result = parse(source)
    if not result.diagnostics:
        try:
            comments = [tuple(comment) for comment in result.comments]
            kept = (_header(source), encode(result.module), comments)
            data = marshal.dumps(kept)
            user_cache.write(name, zlib.crc32(data).to_bytes(4, "big") + data)
        except (Unkept, ValueError):  # a value marshal or the cache does not keep
            pass
    return result
