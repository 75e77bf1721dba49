"""Parsed files of the bundled library kept between processes.

Every program loads the prelude (and most import ``basic.lore``), so every ``lore check``
would parse the same text again: about a tenth of its start-up. The syntax tree and the
comments of a bundled library file that parsed without a problem are kept in the user's
cache folder (``lore.cache``; an empty ``LORE_CACHE_DIR`` turns it off) and read back by
later processes.

A cache file holds two pickles: a header, then the tree and comments. The header is the
format of the file, Lore's version, Python's version, the shape of the syntax tree's
classes (each class's fields and their types), the length and CRC-32 of the second
pickle, and the file's whole text: the second pickle is read only when the header equals
the one this process would write, so an edited library file, another Lore or a changed
syntax tree means parsing the file again (and keeping the new tree). A file that cannot
be read, is not the user's own, or does not unpickle is treated the same way: the cache
can make ``lore check`` faster, never wrong or broken.
"""

from __future__ import annotations

import io
import pickle
import sys
import zlib
from functools import cache
from typing import Any

from lore import __version__
from lore import cache as user_cache
from lore.records import fields
from lore.syntax import ast
from lore.syntax.parser import ParseResult, parse
from lore.syntax.source import SourceFile, Span
from lore.syntax.tokens import Comment

FORMAT = 1


@cache
def tree_shape() -> str:
    """The classes of the syntax tree and their fields, as text (part of the key)."""
    parts = [f"Comment{Comment._fields}"]
    for value in (*vars(ast).values(), Span):
        if isinstance(value, type) and "__record_fields__" in value.__dict__:
            shown = ",".join(f"{item.name}:{item.type}" for item in fields(value))
            parts.append(f"{value.__name__}({shown})")
    return ";".join(parts)


def cache_name(source: SourceFile) -> str:
    return f"parsed-{source.name.rsplit('/', 1)[-1]}-{sys.implementation.cache_tag}.pickle"


def _header(source: SourceFile, body: bytes) -> tuple[Any, ...]:
    return (
        FORMAT,
        __version__,
        sys.version,
        tree_shape(),
        len(body),
        zlib.crc32(body),
        source.text,
    )


def parsed(source: SourceFile) -> ParseResult:
    """``parse(source)``, read from the cache when it holds a tree of this very text."""
    name = cache_name(source)
    data = user_cache.read(name)
    if data is not None:
        try:
            stream = io.BytesIO(data)
            header = pickle.load(stream)
            body = stream.read()
            if header == _header(source, body):
                module, comments = pickle.loads(body)
                if isinstance(module, ast.Module) and isinstance(comments, list):
                    return ParseResult(module, comments, [], source)
        except Exception:  # a corrupt or foreign file: parse anew (and replace it)
            pass
    result = parse(source)
    if not result.diagnostics:
        body = pickle.dumps((result.module, result.comments), protocol=pickle.HIGHEST_PROTOCOL)
        header = pickle.dumps(_header(source, body), protocol=pickle.HIGHEST_PROTOCOL)
        user_cache.write(name, header + body)
    return result
