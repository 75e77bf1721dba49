"""Where each name of a checked program is defined and used.

A definition is keyed by its place (the name of its file and the span of its name), so
the uses found in an earlier check of an unchanged file still point at the same
definition in a later one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from lore.semantics.symbols import (
    Container,
    EnumSymbol,
    FormSymbol,
    LocalSymbol,
    SectionSymbol,
    Symbol,
)
from lore.semantics.types import EnumT, FormT, Type, TypeOf
from lore.syntax import ast
from lore.syntax.source import SourceFile, Span

if TYPE_CHECKING:
    from lore.semantics.expressions import Ref

Key = tuple[str, int, int]  # a definition: its file's name, the start and end of its name


class Occurrence:
    """A name written in a file: where, what it stands for, and the type found there."""

    __slots__ = ("is_definition", "key", "span", "symbol", "type")

    def __init__(
        self,
        span: Span,
        key: Key,
        symbol: Symbol,
        type_: Type | None = None,
        is_definition: bool = False,
    ) -> None:
        self.span = span
        self.key = key
        self.symbol = symbol
        self.type = type_
        self.is_definition = is_definition


def name_span(symbol: Symbol) -> Span:
    """The span of the name in a symbol's definition (a parameter's span covers its
    type, an enum value's its members, a section's its body)."""
    span = symbol.span
    if not symbol.name or span.end - span.start == len(symbol.name):
        return span
    at = symbol.source.text.find(symbol.name, span.start, span.end)
    if at < 0:
        return span
    return Span(at, at + len(symbol.name))


def key_of(symbol: Symbol) -> Key:
    span = name_span(symbol)
    return (symbol.source.name, span.start, span.end)


def name_uses(
    resolved: Iterable[tuple[SourceFile, ast.Name | ast.Member]],
    refs: dict[int, Ref],
    types: dict[int, Type],
) -> dict[str, list[Occurrence]]:
    """The uses of names in bodies, as the checker resolved them, by file name; a local
    name's definition (its parameter or binding) with its first use."""
    found: dict[str, list[Occurrence]] = {}
    locals_seen: set[Key] = set()
    for source, node in resolved:
        ref = refs.get(id(node))
        if ref is None or ref.symbol is None or not ref.symbol.name:
            continue
        span = node.span if isinstance(node, ast.Name) else node.name_span
        key = key_of(ref.symbol)
        uses = found.setdefault(source.name, [])
        uses.append(Occurrence(span, key, ref.symbol, types.get(id(node))))
        if isinstance(ref.symbol, LocalSymbol) and key not in locals_seen:
            locals_seen.add(key)
            where = Span(key[1], key[2])
            uses.append(Occurrence(where, key, ref.symbol, ref.symbol.type, is_definition=True))
    return found


def named_type_uses(
    named: Iterable[tuple[SourceFile, Span, Type]],
) -> dict[str, list[Occurrence]]:
    """The forms and enums named in types (``x : PC``, ``list<Item>``), by file name."""
    found: dict[str, list[Occurrence]] = {}
    for source, span, type_ in named:
        shown = type_.type if isinstance(type_, TypeOf) else type_
        if not isinstance(shown, FormT | EnumT):
            continue
        symbol = shown.symbol
        text = source.text[span.start : span.end]
        at = text.rfind(symbol.name)
        if at < 0:
            continue
        where = Span(span.start + at, span.start + at + len(symbol.name))
        found.setdefault(source.name, []).append(Occurrence(where, key_of(symbol), symbol, type_))
    return found


class Index:
    """The occurrences of names in every file of a program, by file name."""

    def __init__(self) -> None:
        self.by_file: dict[str, list[Occurrence]] = {}
        self.definitions: dict[Key, Symbol] = {}
        self.sources: dict[str, SourceFile] = {}

    def add_uses(self, source: SourceFile, uses: Iterable[Occurrence]) -> None:
        self.sources[source.name] = source
        self.by_file.setdefault(source.name, []).extend(uses)

    def add_definitions(self, root: Container) -> None:
        """Every definition below ``root`` (depth first, without recursion)."""
        pending: list[Symbol] = list(root.members.values())
        while pending:
            symbol = pending.pop()
            if not symbol.name or symbol.span == Span(0, 0):
                continue
            key = key_of(symbol)
            if key in self.definitions:
                continue
            self.definitions[key] = symbol
            span = Span(key[1], key[2])
            self.add_uses(symbol.source, [Occurrence(span, key, symbol, is_definition=True)])
            if isinstance(symbol, SectionSymbol | FormSymbol | EnumSymbol):
                pending.extend(symbol.members.values())
            if isinstance(symbol, EnumSymbol):
                pending.extend(symbol.values.values())

    def at(self, source_name: str, offset: int) -> Occurrence | None:
        """The occurrence under ``offset`` (its end included: a cursor after a name)."""
        best: Occurrence | None = None
        for occurrence in self.by_file.get(source_name, []):
            span = occurrence.span
            if span.start <= offset <= span.end and (
                best is None or span.end - span.start < best.span.end - best.span.start
            ):
                best = occurrence
        return best

    def uses_of(self, key: Key) -> list[tuple[str, Occurrence]]:
        """Every occurrence of the definition ``key`` (the definition included), by file,
        each place once."""
        seen: set[tuple[str, int, int]] = set()
        found: list[tuple[str, Occurrence]] = []
        for name, occurrences in self.by_file.items():
            for occurrence in occurrences:
                place = (name, occurrence.span.start, occurrence.span.end)
                if occurrence.key == key and place not in seen:
                    seen.add(place)
                    found.append((name, occurrence))
        return found
