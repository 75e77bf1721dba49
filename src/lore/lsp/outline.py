"""The outline of a file (document symbols) and its semantic tokens."""

from __future__ import annotations

from collections.abc import Iterable

from lsprotocol import types

from lore.lsp.model import Checked
from lore.lsp.positions import UTF16, length, span_range
from lore.syntax import ast
from lore.syntax.lexer import tokenize
from lore.syntax.source import SourceFile, Span
from lore.syntax.tokens import (
    DICE,
    IDENT,
    INT,
    KEYWORDS,
    LONGSTRING,
    REAL,
    STRING,
    TYPE_KEYWORDS,
    UNIT,
)

_SYMBOL_KIND = {
    ast.SectionDef: types.SymbolKind.Namespace,
    ast.FormDef: types.SymbolKind.Class,
    ast.EnumDef: types.SymbolKind.Enum,
    ast.EnumValue: types.SymbolKind.EnumMember,
    ast.RuleDef: types.SymbolKind.Function,
    ast.FunctionDef: types.SymbolKind.Function,
    ast.AccessorDef: types.SymbolKind.Property,
    ast.AlterDef: types.SymbolKind.Method,
    ast.VarDef: types.SymbolKind.Variable,
    ast.FieldDecl: types.SymbolKind.Field,
    ast.UnitDef: types.SymbolKind.Constant,
}


def _name_of(node: ast.Node) -> tuple[str, Span]:
    if isinstance(node, ast.SectionDef):
        return ".".join(node.path), node.span
    if isinstance(node, ast.UnitDef):
        return f"[{node.unit}]", node.span
    if isinstance(node, ast.EnumValue):
        return node.name, Span(node.span.start, node.span.start + len(node.name))
    name_span: Span = getattr(node, "name_span", node.span)
    return str(getattr(node, "name", "")), name_span


def _children(node: ast.Node) -> tuple[ast.Node, ...]:
    if isinstance(node, ast.EnumDef):
        return (*node.values, *node.members)
    if isinstance(node, ast.SectionDef | ast.FormDef | ast.EnumValue):
        return node.members
    return ()


def document_symbols(
    source: SourceFile, tree: ast.Module, encoding: str = UTF16
) -> list[types.DocumentSymbol]:
    def symbols(nodes: Iterable[ast.Node]) -> list[types.DocumentSymbol]:
        found: list[types.DocumentSymbol] = []
        for node in nodes:
            kind = _SYMBOL_KIND.get(type(node))
            if kind is None:
                continue
            name, name_span = _name_of(node)
            if not name:
                continue
            found.append(
                types.DocumentSymbol(
                    name=name,
                    kind=kind,
                    range=span_range(source, node.span, encoding),
                    selection_range=span_range(source, name_span, encoding),
                    children=symbols(_children(node)) or None,
                )
            )
        return found

    return symbols(tree.body)


TOKEN_TYPES = [
    "keyword",
    "string",
    "number",
    "comment",
    "type",
    "enum",
    "enumMember",
    "function",
    "variable",
    "property",
    "parameter",
    "namespace",
    "macro",
    "method",
]
_INDEX = {name: index for index, name in enumerate(TOKEN_TYPES)}
_BY_SYMBOL = {
    "rule": "function",
    "function": "function",
    "accessor": "property",
    "alter": "method",
    "value": "variable",
    "field": "property",
    "form": "type",
    "enum": "enum",
    "enum value": "enumMember",
    "section": "namespace",
    "type": "type",
    "local": "parameter",
}


def semantic_tokens(checked: Checked, encoding: str = UTF16) -> list[int]:
    """The file's tokens in the protocol's relative encoding (five numbers a token)."""
    source = checked.root.source
    lexed = tokenize(source)
    kinds: dict[tuple[int, int], str] = {}
    for occurrence in checked.index.by_file.get(source.name, []):
        named = _BY_SYMBOL.get(occurrence.symbol.kind)
        if named is not None:
            kinds[(occurrence.span.start, occurrence.span.end)] = named
    marked: list[tuple[int, int, str]] = []
    for token in lexed.tokens:
        kind: str | None = None
        if token.kind == IDENT:
            kind = kinds.get((token.start, token.end), "variable")
        elif token.kind in TYPE_KEYWORDS:
            kind = "type"
        elif token.kind in KEYWORDS:
            kind = "keyword"
        elif token.kind in (INT, REAL):
            kind = "number"
        elif token.kind in (STRING, LONGSTRING):
            kind = "string"
        elif token.kind == DICE:
            kind = "macro"
        elif token.kind == UNIT:
            kind = "type"
        if kind is not None:
            marked.append((token.start, token.end, kind))
    marked.extend((c.start, c.end, "comment") for c in lexed.comments)
    marked.sort()
    return _encode(source, marked, encoding)


def _encode(source: SourceFile, marked: list[tuple[int, int, str]], encoding: str) -> list[int]:
    data: list[int] = []
    last_line = 0
    last_column = 0
    text = source.text
    for start, end, kind in marked:
        piece_start = start
        while piece_start < end:
            newline = text.find("\n", piece_start, end)
            piece_end = end if newline < 0 else newline
            if piece_end > piece_start:
                where = span_range(source, Span(piece_start, piece_start), encoding).start
                size = length(text[piece_start:piece_end].rstrip("\r"), encoding)
                delta_line = where.line - last_line
                delta_column = where.character - (last_column if delta_line == 0 else 0)
                data.extend((delta_line, delta_column, size, _INDEX[kind], 0))
                last_line, last_column = where.line, where.character
            piece_start = piece_end + 1
    return data
