"""The member tables of docs/language.md are generated from the checker's signatures:
they must be up to date, and every builtin member must have an entry there."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.semantics import builtins, reference
from lore.semantics.builtins import FAMILIES
from lore.semantics.types import (
    DICE,
    INTEGER,
    NUMBER,
    PRIMITIVES,
    REAL,
    STRING,
    DictT,
    ListT,
    RangeT,
    Type,
    TypeOf,
    UnitT,
)
from lore.semantics.units import UnitFamily

LANGUAGE_DOC = Path(__file__).resolve().parents[2] / "docs" / "language.md"
METRE = UnitT(UnitFamily("m", integer=False, factors={}), "m")


def test_the_generated_tables_are_up_to_date() -> None:
    # When this fails: python -m lore.semantics.reference docs/language.md (scripts/docs)
    assert reference.main(["--check", str(LANGUAGE_DOC)]) == 0


def test_a_table_that_differs_is_found(tmp_path: Path) -> None:
    stale = tmp_path / "language.md"
    text = LANGUAGE_DOC.read_text(encoding="utf-8")
    stale.write_text(text.replace("| `xs.length` |", "| `xs.size` |", 1), encoding="utf-8")
    assert reference.main(["--check", str(stale)]) == 1
    assert reference.main([str(stale)]) == 0  # rewriting puts it right
    assert stale.read_text(encoding="utf-8") == text


def _documented() -> dict[str, set[str]]:
    text = LANGUAGE_DOC.read_text(encoding="utf-8")
    blocks = {match.group("name"): match.group("body") for match in reference.BLOCK.finditer(text)}
    found: dict[str, set[str]] = {}
    for family in FAMILIES:
        body = blocks[f"builtins/{family.key}"]
        names = set()
        for line in body.splitlines()[2:]:
            if line.startswith("| `"):
                written = line.split("`")[1]
                names.add(written.split("(")[0].split(".")[-1])
        found[family.key] = names
    return found


# Values of every builtin kind, and the tables that must document their members.
SAMPLES: list[tuple[Type, tuple[str, ...]]] = [
    (ListT(INTEGER), ("lists",)),
    (ListT(ListT(STRING)), ("lists", "lists-of-lists")),
    (RangeT(REAL), ("ranges",)),
    (RangeT(INTEGER), ("ranges", "integer-ranges")),
    (DictT(STRING, INTEGER), ("dicts",)),
    (INTEGER, ("numbers",)),
    (REAL, ("numbers",)),
    (NUMBER, ("numbers",)),
    (METRE, ("quantities",)),
    (DICE, ("dice",)),
    (STRING, ("strings",)),
    (PRIMITIVES["url"], ("strings", "urls")),
    (PRIMITIVES["loc"], ("strings",)),
    (TypeOf(INTEGER), ("types",)),
    (TypeOf(ListT(INTEGER)), ("types", "list-types")),
    (TypeOf(DictT(STRING, INTEGER)), ("types", "dict-types")),
    (TypeOf(METRE), ("types", "unit-types")),
]


@pytest.mark.parametrize(("receiver", "tables"), SAMPLES, ids=[str(t) for t, _ in SAMPLES])
def test_every_builtin_member_has_an_entry(receiver: Type, tables: tuple[str, ...]) -> None:
    documented = set().union(*(_documented()[table] for table in tables))
    assert set(builtins.members(receiver)) - documented == set()
    assert "type" in _documented()["values"]


def test_every_builtin_function_has_an_entry() -> None:
    assert set(builtins.GLOBALS) <= _documented()["functions"]


def test_every_family_and_member_says_what_it_does() -> None:
    for family in FAMILIES:
        for name, builtin in family.members().items():
            assert builtin.doc.strip(), f"{family.key}.{name} has no text"


def test_every_member_of_the_prelude_is_documented() -> None:
    result = reference.prelude_check()
    docs = reference.member_docs(result)
    forms = reference.prelude_forms(result)
    assert {"Event", "Actor", "Area", "Trigger", "Route"} <= set(forms)
    for name, form in forms.items():
        for row in reference.form_rows(result, form, docs):
            assert row.doc, f"{name}.{row.member} has no comment in the prelude"
