"""Go to definition, find references and rename, across the files of a program."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lore.lsp.model import Checked
from lore.lsp.occurrences import Key, Occurrence
from lore.lsp.positions import UTF16, span_range
from lore.semantics.program import LIBRARY_DIR
from lore.syntax.source import SourceFile, Span

_NAME_START = frozenset("_")


def occurrence_at(checked: Checked, offset: int) -> Occurrence | None:
    return checked.index.at(checked.root.source.name, offset)


def uri_of(source: SourceFile) -> str | None:
    return source.path.resolve().as_uri() if source.path is not None else None


def _location(source: SourceFile, span: Span, encoding: str) -> types.Location | None:
    uri = uri_of(source)
    if uri is None:
        return None
    return types.Location(uri, span_range(source, span, encoding))


def definition(checked: Checked, offset: int, encoding: str = UTF16) -> list[types.Location]:
    found = occurrence_at(checked, offset)
    if found is None:
        return []
    source = checked.index.sources.get(found.key[0], found.symbol.source)
    place = _location(source, Span(found.key[1], found.key[2]), encoding)
    return [place] if place is not None else []


def references(
    checked: Checked, offset: int, include_declaration: bool, encoding: str = UTF16
) -> list[types.Location]:
    found = occurrence_at(checked, offset)
    if found is None:
        return []
    places: list[types.Location] = []
    for name, occurrence in checked.index.uses_of(found.key):
        if occurrence.is_definition and not include_declaration:
            continue
        place = _location(checked.index.sources[name], occurrence.span, encoding)
        if place is not None:
            places.append(place)
    return places


class RenameRefused(Exception):
    """A rename that cannot be done (the message says why)."""


def is_name(text: str) -> bool:
    return (
        bool(text)
        and (text[0].isalpha() or text[0] in _NAME_START)
        and all(char.isalnum() or char == "_" for char in text)
    )


def prepare_rename(checked: Checked, offset: int, encoding: str = UTF16) -> types.Range | None:
    found = occurrence_at(checked, offset)
    if found is None or _in_library(checked, found.key):
        return None
    return span_range(checked.root.source, found.span, encoding)


def _in_library(checked: Checked, key: Key) -> bool:
    source = checked.index.sources.get(key[0])
    return source is None or source.path is None or source.path.resolve().parent == LIBRARY_DIR


def rename(
    checked: Checked, offset: int, new_name: str, encoding: str = UTF16
) -> types.WorkspaceEdit | None:
    """Every occurrence of the name under ``offset`` renamed, in every file of the
    program; raises ``RenameRefused`` for a name of Lore's own library or a new name
    that is not a name."""
    found = occurrence_at(checked, offset)
    if found is None:
        return None
    if not is_name(new_name):
        raise RenameRefused(f"'{new_name}' is not a name")
    if _in_library(checked, found.key):
        raise RenameRefused(f"'{found.symbol.name}' is defined in Lore's library")
    changes: dict[str, list[types.TextEdit]] = {}
    for name, occurrence in checked.index.uses_of(found.key):
        source = checked.index.sources[name]
        uri = uri_of(source)
        if uri is None:
            continue
        edit = types.TextEdit(span_range(source, occurrence.span, encoding), new_name)
        changes.setdefault(uri, []).append(edit)
    return types.WorkspaceEdit(changes=changes)


def path_of(uri: str) -> Path:
    from urllib.parse import unquote, urlsplit

    return Path(unquote(urlsplit(uri).path))
