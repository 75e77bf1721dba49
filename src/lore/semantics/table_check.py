"""The table's declarations as the checker sees them: a sheet must name a form of the
program, and each of its lines a member of that form that has a value to show.

A ``Sheet`` written as a form literal (``{ of = "Character"; sections = {...}; }:Sheet``)
names its form by a string (qualified, or by its own name when one form alone has it);
each ``SheetEntry`` in it names a member (``member``) and, for a bar, the member that
holds the maximum (``max``). A member with a value to show is a field (declared, or
given a value in the form) or an accessor without parameters (a derived value); a rule,
an alter, or a member that is not there at all is an error here, not an empty line at
the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from lore.semantics.symbols import CallableSymbol, FieldSymbol, FormSymbol, VarSymbol
from lore.semantics.types import ListT, assignable
from lore.syntax import ast
from lore.syntax.diagnostics import with_article
from lore.syntax.source import SourceFile, Span
from lore.syntax.walk import walk

# (source, span, code, message, hint): how a problem is reported (``Checker.error``)
Report = Callable[[SourceFile, Span, str, str, str | None], None]
Hint = Callable[[str, list[str]], str | None]


def typed(node: ast.FormLit, name: str) -> bool:
    kind = node.type
    return isinstance(kind, ast.NamedType) and kind.parts[-1] == name


def strings(node: ast.FormLit) -> dict[str, ast.StringLit]:
    """The members of a form literal given as plain strings, by name."""
    found = {}
    for member in node.members:
        if not isinstance(member, ast.VarDef):
            continue
        value = member.value
        if isinstance(value, ast.StringLit) and value.kind is None:
            found[member.name] = value
    return found


def sheets(tree: ast.Module) -> Iterator[ast.FormLit]:
    for node in walk(tree):
        if isinstance(node, ast.FormLit) and typed(node, "Sheet"):
            yield node


def form_named(name: str, forms: list[FormSymbol]) -> FormSymbol | None:
    """The form a sheet names (as ``engine.table_decls.form_named`` finds it)."""
    exact = [form for form in forms if form.qualified_name == name]
    if exact:
        return exact[0]
    named = [form for form in forms if form.name == name]
    return named[0] if len(named) == 1 else None


def shown_members(form: FormSymbol) -> list[str]:
    """The members of a form that have a value to show."""
    names: list[str] = []
    for ancestor in form.ancestors():
        for name, symbol in ancestor.members.items():
            if is_shown(symbol) and name not in names:
                names.append(name)
    return names


def is_shown(symbol: object) -> bool:
    if isinstance(symbol, FieldSymbol | VarSymbol):
        return True  # (a member declared, or given a value in the form: each object has one)
    return (
        isinstance(symbol, CallableSymbol)
        and symbol.kind == "accessor"
        and not symbol.params
        and symbol.result is not None
    )


def check_sheets(
    tree: ast.Module, source: SourceFile, forms: list[FormSymbol], report: Report, hint: Hint
) -> None:
    """Report what is wrong in the sheets a module declares."""
    for sheet in sheets(tree):
        given = strings(sheet).get("of")
        if given is None:
            continue  # (a missing `of` is the type checker's: the literal lacks a member)
        form = form_named(given.value, forms)
        if form is None:
            report(
                source,
                given.span,
                "check.sheet-form",
                f"the sheet is of '{given.value}', which is no form of the program",
                hint(given.value, [f.name for f in forms]) or "give the name of a form",
            )
            continue
        shown = shown_members(form)
        for node in walk(sheet):
            if not (isinstance(node, ast.FormLit) and typed(node, "SheetEntry")):
                continue
            for key, code in (("member", "check.sheet-member"), ("max", "check.bar-max")):
                named = strings(node).get(key)
                if named is None or (key == "max" and named.value == ""):
                    continue
                if named.value in shown:
                    continue
                what = form.lookup(named.value)
                problem = (
                    f"is {with_article(what.kind)} of '{form.name}', with no value to show"
                    if what is not None
                    else f"is no member of '{form.name}'"
                )
                line = "the bar's maximum" if key == "max" else "the sheet's line"
                report(
                    source,
                    named.span,
                    code,
                    f"{line} '{named.value}' {problem}",
                    hint(named.value, shown)
                    or "name a field, or an accessor without parameters (a derived value)",
                )
            check_ruled_by(node, form, source, report, hint)


def alters_of(form: FormSymbol) -> dict[str, CallableSymbol]:
    found: dict[str, CallableSymbol] = {}
    for ancestor in form.ancestors():
        for name, symbol in ancestor.members.items():
            if isinstance(symbol, CallableSymbol) and symbol.kind == "alter":
                found.setdefault(name, symbol)
    return found


def check_ruled_by(
    node: ast.FormLit, form: FormSymbol, source: SourceFile, report: Report, hint: Hint
) -> None:
    """A line's ``ruledBy`` names an alter of the form that takes a list of what the
    line's member holds (a GM's ruling on the line goes through it)."""
    given = strings(node)
    named = given.get("ruledBy")
    if named is None or named.value == "":
        return
    alters = alters_of(form)
    alter = alters.get(named.value)
    if alter is None:
        what = form.lookup(named.value)
        problem = (
            f"is {with_article(what.kind)} of '{form.name}'"
            if what is not None
            else f"is no member of '{form.name}'"
        )
        report(
            source,
            named.span,
            "check.sheet-alter",
            f"a ruling on the line goes through '{named.value}', which {problem}, not an alter",
            hint(named.value, list(alters)) or "name an alter of the form, or leave ruledBy out",
        )
        return
    member = given.get("member")
    field = form.lookup(member.value) if member is not None else None
    params = alter.params or ()
    kind = field.type if isinstance(field, FieldSymbol | VarSymbol) else None
    element = params[0].element if len(params) == 1 and isinstance(params[0], ListT) else None
    if kind is not None and element is not None and assignable(kind, element):
        return
    if kind is None and element is not None:
        return  # (a member of no known type: the engine checks the value when it is ruled)
    report(
        source,
        named.span,
        "check.sheet-alter",
        f"a ruling on '{member.value if member else ''}' goes through '{named.value}',"
        f" whose parameter is no list of what the member holds",
        f"give '{named.value}' one parameter, a list of {kind or 'the member'}s",
    )
