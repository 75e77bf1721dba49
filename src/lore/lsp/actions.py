"""Code actions from the checker's hints, formatting by ``lore fmt``, and inlay hints
(the unit of a value, the odds of a literal dice command)."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from lsprotocol import types

from lore.lsp.model import Checked
from lore.lsp.positions import UTF16, span_range
from lore.semantics.symbols import VarSymbol
from lore.semantics.types import UnitT, display
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic
from lore.syntax.parser import parse
from lore.syntax.source import SourceFile, Span
from lore.syntax.walk import walk

_DID_YOU_MEAN = re.compile(r"did you mean '([^']+)'\?|did you mean (\[[^\]]+\])\?")
_ADD = re.compile(r"^add '([^']+)'$")


def fix_of(diagnostic: Diagnostic) -> tuple[str, Span, str] | None:
    """What a diagnostic's hint proposes: a title, the span to replace and its text."""
    hint = diagnostic.hint or ""
    added = _ADD.match(hint)
    if added is not None:
        at = Span(diagnostic.span.start, diagnostic.span.start)
        return f"add '{added.group(1)}'", at, added.group(1)
    meant = _DID_YOU_MEAN.search(hint)
    if meant is not None:
        replacement = meant.group(1) or meant.group(2)
        return f"change to '{replacement}'", diagnostic.span, replacement
    return None


def code_actions(
    checked: Checked, uri: str, wanted: types.Range, encoding: str = UTF16
) -> list[types.CodeAction]:
    """The quick fixes of the diagnostics of the root file that touch ``wanted``."""
    source = checked.root.source
    actions: list[types.CodeAction] = []
    for diagnostic in checked.diagnostics_of(source):
        fix = fix_of(diagnostic)
        if fix is None:
            continue
        place = span_range(source, diagnostic.span, encoding)
        if _before(place.end, wanted.start) or _before(wanted.end, place.start):
            continue
        title, span, text = fix
        edit = types.TextEdit(span_range(source, span, encoding), text)
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[to_protocol(diagnostic, encoding)],
                edit=types.WorkspaceEdit(changes={uri: [edit]}),
                is_preferred=True,
            )
        )
    return actions


def _before(a: types.Position, b: types.Position) -> bool:
    return (a.line, a.character) < (b.line, b.character)


_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "note": types.DiagnosticSeverity.Information,
}


def to_protocol(diagnostic: Diagnostic, encoding: str = UTF16) -> types.Diagnostic:
    """A checker diagnostic as the protocol's: its message (and hint), code and range."""
    message = diagnostic.message
    if diagnostic.hint:
        message += f"\nhint: {diagnostic.hint}"
    return types.Diagnostic(
        range=span_range(diagnostic.source, diagnostic.span, encoding),
        message=message,
        severity=_SEVERITY[diagnostic.severity.value],
        code=diagnostic.code,
        source="lore",
    )


def formatted(source: SourceFile) -> str | None:
    """The file in ``lore fmt``'s layout (None when it does not parse)."""
    from lore.syntax.printer import format_module

    result = parse(source)
    if not result.ok:
        return None
    return format_module(result)


def formatting(source: SourceFile) -> list[types.TextEdit]:
    text = formatted(source)
    if text is None or text == source.text:
        return []
    lines = source.text.count("\n")
    whole = types.Range(types.Position(0, 0), types.Position(lines + 1, 0))
    return [types.TextEdit(whole, text)]


def percent(chance: Fraction) -> str:
    return f"{float(chance) * 100:.1f}%"


@lru_cache(maxsize=512)
def odds_label(command: str) -> str | None:
    """The exact odds of a dice command, as ``lore odds`` counts them, in a few words."""
    from lore.dice.distribution import OddsError
    from lore.dice.odds import odds

    try:
        found = odds(command)
    except (OddsError, ValueError, ArithmeticError):
        return None
    if found.success is not None:
        return f"{percent(found.success)} success"
    mean = found.mean()
    if mean is None:
        return None
    return f"mean {float(mean):.2f}"


def inlay_hints(
    checked: Checked, wanted: types.Range, encoding: str = UTF16
) -> list[types.InlayHint]:
    source = checked.root.source
    hints: list[types.InlayHint] = []
    for node in walk(checked.root.tree):
        label: str | None = None
        at: int | None = None
        if isinstance(node, ast.VarDef) and node.type is None:
            symbol = _symbol_at(checked, node.name_span)
            if isinstance(symbol, VarSymbol) and isinstance(symbol.type, UnitT):
                label, at = f": {display(symbol.type)}", node.name_span.end
        elif isinstance(node, ast.DiceLit):
            label, at = _prefixed(odds_label(node.text)), node.span.end
        elif (
            isinstance(node, ast.Call)
            and _callee(node.func) == "roll"
            and node.args
            and isinstance(node.args[0], ast.StringLit)
            and node.args[0].kind is None
        ):
            label, at = _prefixed(odds_label(node.args[0].value)), node.args[0].span.end
        if label is None or at is None:
            continue
        where = span_range(source, Span(at, at), encoding).start
        if _before(where, wanted.start) or _before(wanted.end, where):
            continue
        kind = types.InlayHintKind.Type if label.startswith(":") else None
        hints.append(types.InlayHint(position=where, label=label, kind=kind, padding_left=True))
    return hints


def _prefixed(label: str | None) -> str | None:
    return f"≈ {label}" if label is not None else None


def _callee(func: ast.Expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.name
    if isinstance(func, ast.Member):
        return func.name
    return None


def _symbol_at(checked: Checked, span: Span) -> object:
    key = (checked.root.source.name, span.start, span.end)
    return checked.index.definitions.get(key)
