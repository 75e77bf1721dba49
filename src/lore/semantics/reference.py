"""The member tables of the language reference, generated from the checker's own signatures.

``docs/language.md`` holds blocks between ``<!-- generated: NAME -->`` and
``<!-- end generated -->``. Each block is one table: the builtin members of a kind of value
(from :data:`lore.semantics.builtins.FAMILIES`), or the members of a form of the prelude
(from ``lib/prelude.lore``, its types as the checker reads them and the comments written
above each member). Run::

    python -m lore.semantics.reference docs/language.md          # rewrite the blocks
    python -m lore.semantics.reference --check docs/language.md  # exit 1 if they differ

The tests run the check, so the reference cannot drift from the checker.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lore.semantics.builtins import FAMILIES, Builtin, Family
from lore.semantics.check import CheckResult, check_text
from lore.semantics.symbols import CallableSymbol, FieldSymbol, FormSymbol, Symbol, VarSymbol
from lore.semantics.types import ListT, display
from lore.syntax import ast

BLOCK = re.compile(
    r"(<!-- generated: (?P<name>[\w./-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)",
    re.DOTALL,
)


@dataclass(frozen=True)
class Row:
    """One member of a table: how it is written, its type, and what it does."""

    member: str
    type: str
    doc: str


# ---------------------------------------------------------------- builtin members


def family_rows(family: Family) -> list[Row]:
    rows = []
    for name, builtin in family.members().items():
        written = _written(family, name, builtin)
        result = display(builtin.result) if builtin.result is not None else "rule"
        rows.append(Row(written, result, _sentence(builtin)))
    return rows


def _written(family: Family, name: str, builtin: Builtin) -> str:
    receiver = family.receiver.split(" : ")[0]
    head = f"{receiver}.{name}" if receiver else name
    if not builtin.params:
        return head
    names = builtin.names or tuple(f"a{i}" for i in range(len(builtin.params)))
    params = [f"{n} : {display(t)}" for n, t in zip(names, builtin.params, strict=True)]
    required = builtin.required
    if required < len(params):
        params = params[:required] + [f"[{p}]" for p in params[required:]]
    if builtin.variadic:
        params.append("...")
    return f"{head}({', '.join(params)})"


def _sentence(builtin: Builtin) -> str:
    text = builtin.doc
    if builtin.note:
        text += f"; {builtin.note}"
    return text


# ---------------------------------------------------------------- the prelude's forms


def prelude_check() -> CheckResult:
    """The checker's view of an empty program: the prelude's forms and values."""
    return check_text("", "<reference>")


def prelude_forms(result: CheckResult) -> dict[str, FormSymbol]:
    return {
        name: symbol
        for name, symbol in result.checker.root.members.items()
        if isinstance(symbol, FormSymbol) and _in_prelude(symbol)
    }


def _in_prelude(symbol: Symbol) -> bool:
    return symbol.source.name.endswith("prelude.lore")


def member_docs(result: CheckResult) -> dict[int, str]:
    """The comment written right above each definition of the prelude, by its offset. A
    definition right under another, with no comment of its own, shares that one's comment
    (``// The highest and the lowest face.`` above ``highest`` and ``lowest``)."""
    module = result.program.prelude
    comments = [c for c in module.parsed.comments if c.own_line and not c.is_block]
    text = module.source.text
    docs: dict[int, str] = {}
    previous: tuple[int, str] | None = None  # where the last definition ends, its comment
    for node in _definitions(module.tree.body):
        lines: list[str] = []
        end = node.span.start
        for comment in reversed(comments):
            if comment.end > end:
                continue
            if text[comment.end : end].strip():
                break
            lines.insert(0, comment.text.removeprefix("//").strip())
            end = comment.start
        if lines:
            docs[node.span.start] = " ".join(lines)
        elif previous is not None and not text[previous[0] : node.span.start].strip():
            docs[node.span.start] = previous[1]
        found = docs.get(node.span.start)
        previous = (node.span.end, found) if found is not None else None
    return docs


def _definitions(nodes: tuple[ast.Definition, ...]) -> Iterator[ast.Definition]:
    for node in nodes:
        yield node
        if isinstance(node, ast.FormDef | ast.SectionDef):
            yield from _definitions(node.members)


def form_rows(result: CheckResult, form: FormSymbol, docs: dict[int, str]) -> list[Row]:
    checker = result.checker
    rows = []
    for name, symbol in form.members.items():
        if symbol.private:
            continue  # not for rule authors
        node = getattr(symbol, "node", None)
        start = node.span.start if isinstance(node, ast.Node) else -1
        doc = docs.get(start, "")
        if isinstance(symbol, FieldSymbol):
            rows.append(Row(name, display(checker.field_type(symbol)), doc))
        elif isinstance(symbol, VarSymbol):
            rows.append(Row(name, display(checker.var_type(symbol)), doc))
        elif isinstance(symbol, CallableSymbol) and symbol.node is not None:
            rows.append(_callable_row(result, symbol, doc))
    return rows


def _callable_row(result: CheckResult, symbol: CallableSymbol, doc: str) -> Row:
    params = result.checker.signature(symbol)
    node = symbol.node
    names = symbol.param_names
    if isinstance(node, ast.AlterDef):
        shown = ", ".join(
            f"{n} : {display(p.element if isinstance(p, ListT) else p)}"
            for n, p in zip(names, params, strict=False)
        )
        return Row(f"{symbol.name}({shown})", "alter", doc)
    written = symbol.name
    if node is not None and getattr(node, "params", None) is not None:
        written += (
            "("
            + ", ".join(f"{n} : {display(p)}" for n, p in zip(names, params, strict=False))
            + ")"
        )
    kind = display(symbol.result) if symbol.result is not None else "rule"
    return Row(written, kind, doc)


# ---------------------------------------------------------------- rendering


def table(rows: list[Row], header: str = "| member | gives | what it does |") -> str:
    """A table, one row a member; members next to each other with one comment share a row."""
    lines = [header, "|---|---|---|"]
    groups: list[list[Row]] = []
    for row in rows:
        if groups and row.doc and groups[-1][-1].doc == row.doc:
            groups[-1].append(row)
        else:
            groups.append([row])
    for group in groups:
        members = ", ".join(f"`{_cell(row.member)}`" for row in group)
        types = ", ".join(f"`{_cell(row.type)}`" for row in group)
        lines.append(f"| {members} | {types} | {_cell(group[0].doc)} |")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def blocks() -> dict[str, str]:
    """Every generated block of the reference, by name."""
    found = {f"builtins/{family.key}": _family_block(family) for family in FAMILIES}
    result = prelude_check()
    docs = member_docs(result)
    for name, form in prelude_forms(result).items():
        rows = form_rows(result, form, docs)
        found[f"prelude/{name}"] = table(rows, "| member | type | what it is |")
    return found


def _family_block(family: Family) -> str:
    intro = f"{family.intro}\n\n" if family.intro else ""
    return intro + table(family_rows(family))


def render(document: str, generated: dict[str, str]) -> str:
    """``document`` with every generated block replaced by its current text."""

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in generated:
            raise KeyError(name)
        return match.group(1) + generated[name] + match.group(4)

    return BLOCK.sub(replace, document)


def block_names(document: str) -> list[str]:
    return [match.group("name") for match in BLOCK.finditer(document)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lore.semantics.reference",
        description="Write the generated member tables of the language reference.",
    )
    parser.add_argument("document", type=Path)
    parser.add_argument("--check", action="store_true", help="exit 1 if the tables differ")
    args = parser.parse_args(argv)
    document: Path = args.document
    text = document.read_text(encoding="utf-8")
    generated = blocks()
    try:
        updated = render(text, generated)
    except KeyError as unknown:
        print(f"{document}: no generated block is called {unknown}", file=sys.stderr)
        return 1
    missing = sorted(set(generated) - set(block_names(text)))
    if missing:
        print(f"{document}: no place for the blocks {', '.join(missing)}", file=sys.stderr)
        return 1
    if args.check:
        if updated != text:
            print(f"{document}: the generated tables are out of date", file=sys.stderr)
            return 1
        return 0
    if updated != text:
        document.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
