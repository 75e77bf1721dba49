"""Hover: what a name is, its type (and unit), the comment above its definition, and
for a builtin its entry in the language reference."""

from __future__ import annotations

from lore.lsp.model import Checked
from lore.lsp.occurrences import Occurrence
from lore.semantics.signatures import Builtin
from lore.semantics.symbols import (
    CallableSymbol,
    FieldSymbol,
    LocalSymbol,
    Symbol,
    VarSymbol,
)
from lore.semantics.types import Type, TypeOf, UnitT, display
from lore.syntax import ast
from lore.syntax.walk import walk


def doc_comment(checked: Checked, symbol: Symbol) -> str | None:
    """The line comments written right above a symbol's definition."""
    module = next(
        (m for m in checked.result.program.modules if m.source.name == symbol.source.name), None
    )
    if module is None:
        return None
    node = getattr(symbol, "node", None)
    end = node.span.start if isinstance(node, ast.Node) else symbol.span.start
    text = module.source.text
    line_start = text.rfind("\n", 0, end) + 1
    if text[line_start:end].strip() and not isinstance(node, ast.Node):
        return None
    end = line_start if not text[line_start:end].strip() else end
    lines: list[str] = []
    for comment in reversed(module.parsed.comments):
        if comment.end > end:
            continue
        between = text[comment.end : end]
        if between.strip() or between.count("\n") > 1 or not comment.own_line:
            break  # code, or a blank line, between the comment and what follows it
        body = comment.text
        body = body[2:-2] if comment.is_block else body.removeprefix("//")
        lines.insert(0, body.strip())
        end = comment.start
    return "\n".join(lines) or None


def type_of(symbol: Symbol, found: Type | None) -> str | None:
    if isinstance(symbol, CallableSymbol):
        names = symbol.param_names
        params = symbol.params or ()
        shown = ", ".join(f"{name} : {display(t)}" for name, t in zip(names, params, strict=False))
        result = f" : {display(symbol.result)}" if symbol.result is not None else ""
        return f"{symbol.kind} {symbol.qualified_name}({shown}){result}"
    type_ = found
    if isinstance(symbol, VarSymbol | FieldSymbol | LocalSymbol):
        type_ = symbol.type or symbol.__dict__.get("declared") or found
    if type_ is None:
        return f"{symbol.kind} {symbol.qualified_name}"
    if isinstance(type_, TypeOf) and not isinstance(symbol, VarSymbol):
        return f"{symbol.kind} {symbol.qualified_name}"
    return f"{symbol.kind} {symbol.qualified_name} : {display(type_)}"


def unit_line(type_: Type | None) -> str | None:
    if isinstance(type_, UnitT):
        return f"unit: [{type_.unit}] (measured in [{type_.family.base}])"
    return None


def hover_occurrence(checked: Checked, found: Occurrence) -> str:
    symbol = found.symbol
    parts = [f"```lore\n{type_of(symbol, found.type)}\n```"]
    shown_type = found.type
    if isinstance(symbol, VarSymbol | FieldSymbol | LocalSymbol) and symbol.type is not None:
        shown_type = symbol.type
    unit = unit_line(shown_type)
    if unit:
        parts.append(unit)
    doc = doc_comment(checked, symbol)
    if doc:
        parts.append(doc)
    if symbol.source.name != checked.root.source.name:
        parts.append(f"defined in {symbol.source.name}")
    return "\n\n".join(parts)


def builtin_at(checked: Checked, offset: int) -> tuple[str, Builtin] | None:
    """The builtin member or function named at ``offset`` in the root file."""
    refs = checked.result.checker.bodies.refs
    for node in walk(checked.root.tree):
        if isinstance(node, ast.Member):
            span = node.name_span
        elif isinstance(node, ast.Name):
            span = node.span
        else:
            continue
        if span.start <= offset <= span.end:
            ref = refs.get(id(node))
            if ref is not None and ref.call is not None and ref.call.builtin is not None:
                return node.name, ref.call.builtin
    return None


def hover_text(checked: Checked, offset: int) -> str | None:
    found = checked.index.at(checked.root.source.name, offset)
    if found is not None:
        return hover_occurrence(checked, found)
    builtin = builtin_at(checked, offset)
    if builtin is not None:
        name, entry = builtin
        params = ", ".join(
            f"{n} : {display(t)}" for n, t in zip(entry.names or (), entry.params, strict=False)
        )
        result = f" : {display(entry.result)}" if entry.result is not None else ""
        text = entry.doc + (f"; {entry.note}" if entry.note else "")
        return f"```lore\n(builtin) {name}({params}){result}\n```\n\n{text}"
    return None
