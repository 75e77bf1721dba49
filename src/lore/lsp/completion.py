"""Completion: the names in scope, the members after ``.``, units after ``[``, the
values of an enum (after its name and ``.``), the location paths of the areas after
``"/``, and dice commands in ``roll("...")``."""

from __future__ import annotations

import re

from lsprotocol import types

from lore.lsp.model import Checked
from lore.lsp.positions import UTF16, length
from lore.semantics import builtins
from lore.semantics.checker import Checker
from lore.semantics.context import Context
from lore.semantics.symbols import (
    CallableSymbol,
    Container,
    EnumSymbol,
    EnumValueSymbol,
    FieldSymbol,
    FormSymbol,
    LocalSymbol,
    SectionSymbol,
    Symbol,
    VarSymbol,
)
from lore.semantics.types import EnumT, FormT, SectionT, Type, TypeOf, display
from lore.syntax import ast
from lore.syntax.tokens import KEYWORDS
from lore.syntax.walk import walk

# Dice commands of the BCDice grammar Lore rolls (``lore roll``), as examples to edit.
DICE_COMMANDS = (
    ("2D6", "the sum of two six-sided dice"),
    ("2D6>=7", "two dice against a target"),
    ("1D100<=50", "percentile at or under a skill"),
    ("3D6", "three six-sided dice"),
    ("1D20+5>=15", "a d20 with a bonus against a target"),
    ("4B6>=5", "a pool of separate dice, counting those of 5 or more"),
    ("7R10[10]>=8", "dice rolled again on 10, counting successes"),
    ("3U6[6]", "the highest die, added to on a 6"),
    ("D66", "two dice read as tens and units"),
    ("C(1+2*3)", "arithmetic"),
    ("choice[a,b,c]", "one of the words at random"),
)

_KIND = {
    "rule": types.CompletionItemKind.Function,
    "function": types.CompletionItemKind.Function,
    "accessor": types.CompletionItemKind.Property,
    "alter": types.CompletionItemKind.Method,
    "value": types.CompletionItemKind.Variable,
    "field": types.CompletionItemKind.Field,
    "form": types.CompletionItemKind.Class,
    "enum": types.CompletionItemKind.Enum,
    "enum value": types.CompletionItemKind.EnumMember,
    "section": types.CompletionItemKind.Module,
    "type": types.CompletionItemKind.TypeParameter,
    "local": types.CompletionItemKind.Variable,
}

_CHAIN = re.compile(r"([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\.\s*\w*$")


def item(
    name: str, symbol: Symbol | None = None, detail: str | None = None
) -> types.CompletionItem:
    kind = _KIND.get(symbol.kind) if symbol is not None else types.CompletionItemKind.Method
    return types.CompletionItem(label=name, kind=kind, detail=detail)


def complete(
    checked: Checked,
    text: str,
    offset: int,
    where: types.Position | None = None,
    encoding: str = UTF16,
) -> list[types.CompletionItem]:
    """The completions at ``offset`` of ``text`` (the file as it is now, which may not
    parse: the names come from its last check); ``where`` is the same place as the
    client counts it."""
    before = text[max(0, offset - 200) : offset]
    line = before[before.rfind("\n") + 1 :]
    if re.search(r'roll\(\s*"[^"]*$', line):
        return [
            types.CompletionItem(label=c, kind=types.CompletionItemKind.Value, detail=d)
            for c, d in DICE_COMMANDS
        ]
    typed = re.search(r'"(/[^"]*)$', line)
    if typed is not None:
        return located(locations(checked), typed.group(1), where, encoding)
    if re.search(r"(?<!\[)\[\s*[\w/]*$", line):
        return units(checked)
    chain = _CHAIN.search(line)
    if chain is not None:
        names = [part.strip() for part in chain.group(1).split(".")]
        return members(checked, names)
    return in_scope(checked)


def locations(checked: Checked) -> list[types.CompletionItem]:
    """The location paths written in the program (``"/region/dungeon":loc``: the areas'
    own and those used), without their coordinates, each once."""
    kept = checked.kept.get("locations")
    if isinstance(kept, list):
        return kept
    paths: dict[str, str] = {}
    for module in checked.result.program.modules:
        for node in walk(module.tree):
            if isinstance(node, ast.StringLit) and node.kind == "loc":
                path = node.value.split("[", 1)[0] or "/"
                paths.setdefault(path, module.source.name)
    found = [
        types.CompletionItem(
            label=path,
            kind=types.CompletionItemKind.Folder,
            detail=f"location in {name}",
        )
        for path, name in sorted(paths.items())
    ]
    checked.kept["locations"] = found
    return found


def located(
    items: list[types.CompletionItem], typed: str, where: types.Position | None, encoding: str
) -> list[types.CompletionItem]:
    """Location items that replace the path typed so far (``/reg`` in ``"/reg``)."""
    if where is None:
        return items
    start = types.Position(where.line, max(0, where.character - length(typed, encoding)))
    return [
        types.CompletionItem(
            label=item.label,
            kind=item.kind,
            detail=item.detail,
            filter_text=item.label,
            text_edit=types.TextEdit(types.Range(start, where), item.label),
        )
        for item in items
    ]


def units(checked: Checked) -> list[types.CompletionItem]:
    registry = checked.result.checker.units
    return [
        types.CompletionItem(label=unit, kind=types.CompletionItemKind.Unit, detail=f"[{unit}]")
        for unit in sorted(registry.definitions)
    ]


def in_scope(checked: Checked) -> list[types.CompletionItem]:
    """The names in scope at the top of the file and its locals (kept with the check:
    the same list for every completion until the file changes)."""
    kept = checked.kept.get("in scope")
    if isinstance(kept, list):
        return kept
    found = _in_scope(checked)
    checked.kept["in scope"] = found
    return found


def _in_scope(checked: Checked) -> list[types.CompletionItem]:
    checker = checked.result.checker
    ctx = Context(checked.root.source, checker.root)
    found: dict[str, types.CompletionItem] = {}
    for occurrence in checked.index.by_file.get(checked.root.source.name, []):
        if isinstance(occurrence.symbol, LocalSymbol):
            found.setdefault(
                occurrence.symbol.name, item(occurrence.symbol.name, occurrence.symbol)
            )
    for name in checker.visible_names(ctx):
        symbol = _lookup(checker, name, ctx)
        found.setdefault(name, item(name, symbol, _detail(symbol)))
    for name in builtins.GLOBALS:
        found.setdefault(name, item(name, detail="builtin"))
    for word in sorted(KEYWORDS):
        found.setdefault(
            word, types.CompletionItem(label=word, kind=types.CompletionItemKind.Keyword)
        )
    return list(found.values())


def _lookup(checker: Checker, name: str, ctx: Context) -> Symbol | None:
    try:
        return checker.lookup(name, ctx)
    except Exception:  # an ambiguous name: still offered
        return None


def _detail(symbol: Symbol | None) -> str | None:
    if isinstance(symbol, VarSymbol | FieldSymbol) and symbol.type is not None:
        return display(symbol.type)
    if isinstance(symbol, CallableSymbol):
        return symbol.kind
    return symbol.kind if symbol is not None else None


def type_of(checked: Checked, symbol: Symbol | None) -> Type | None:
    """What a name stands for, as a value (a form or enum named: the type itself)."""
    checker = checked.result.checker
    if isinstance(symbol, VarSymbol):
        return symbol.type or checker.var_type(symbol)
    if isinstance(symbol, FieldSymbol | LocalSymbol):
        return symbol.type
    if isinstance(symbol, SectionSymbol):
        return SectionT(symbol)
    if isinstance(symbol, FormSymbol | EnumSymbol):
        found = checker.type_of_symbol(symbol)
        return TypeOf(found) if found is not None else None
    if isinstance(symbol, EnumValueSymbol) and symbol.enum is not None:
        return EnumT(symbol.enum)
    if isinstance(symbol, CallableSymbol):
        return symbol.result
    return None


def _first(checked: Checked, name: str) -> Type | None:
    """The type of the first name of a chain: a name used in the file (a local, a
    parameter), or one in scope at the top."""
    for occurrence in reversed(checked.index.by_file.get(checked.root.source.name, [])):
        if occurrence.symbol.name == name:
            if occurrence.type is not None and not isinstance(occurrence.symbol, Container):
                return occurrence.type
            return type_of(checked, occurrence.symbol)
    checker = checked.result.checker
    return type_of(checked, _lookup(checker, name, Context(checked.root.source, checker.root)))


def _member_symbol(type_: Type, name: str) -> Symbol | None:
    if isinstance(type_, FormT):
        return type_.symbol.lookup(name)
    if isinstance(type_, SectionT):
        return type_.symbol.members.get(name)
    if isinstance(type_, TypeOf) and isinstance(type_.type, EnumT):
        return type_.type.symbol.lookup_value(name) or type_.type.symbol.members.get(name)
    if isinstance(type_, TypeOf) and isinstance(type_.type, FormT):
        return type_.type.symbol.lookup(name)
    if isinstance(type_, EnumT):
        return type_.symbol.members.get(name)
    return None


def members(checked: Checked, chain: list[str]) -> list[types.CompletionItem]:
    """The members of what ``a.b.c`` stands for (``chain`` its names)."""
    type_ = _first(checked, chain[0])
    for name in chain[1:]:
        if type_ is None:
            return []
        symbol = _member_symbol(type_, name)
        if symbol is None:
            builtin = builtins.member(type_, name)
            type_ = builtin.result if builtin is not None else None
        else:
            type_ = type_of(checked, symbol)
    if type_ is None:
        return []
    found: dict[str, types.CompletionItem] = {}
    if isinstance(type_, TypeOf) and isinstance(type_.type, EnumT):
        for value in _enum_values(type_.type.symbol):
            found.setdefault(value.name, item(value.name, value, f"{type_.type.symbol.name} value"))
    container: Container | None = None
    if isinstance(type_, FormT | SectionT | EnumT):
        container = type_.symbol
    if isinstance(container, FormSymbol):
        for name in container.all_member_names():
            symbol = container.lookup(name)
            found.setdefault(name, item(name, symbol, _detail(symbol)))
    elif container is not None:
        for name, symbol in container.members.items():
            found.setdefault(name, item(name, symbol, _detail(symbol)))
    for name, builtin in builtins.members(type_).items():
        result = display(builtin.result) if builtin.result is not None else None
        found.setdefault(name, item(name, None, result))
    return list(found.values())


def _enum_values(enum: EnumSymbol) -> list[EnumValueSymbol]:
    values: list[EnumValueSymbol] = []
    current: EnumSymbol | None = enum
    seen: set[int] = set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        values.extend(current.values.values())
        current = current.extends
    return values
