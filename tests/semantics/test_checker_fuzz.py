"""The checker never raises on any program: every problem is a diagnostic that renders.

Programs are random mutations of the valid corpus (characters and whole tokens deleted,
inserted, duplicated or swapped, several times over) and random soup of Lore tokens. The
parser recovers from the syntax errors, so the checker sees half-broken trees: missing
names, definitions in odd places, circles, unknown units and types everywhere.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore.semantics.check import CheckResult, check_text
from lore.syntax.parser import MAX_NESTING
from tests.semantics.corpus_files import VALID

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Pieces of Lore that the checker cares about: names that resolve (or almost), types,
# units, typed strings, definitions and statements, and the punctuation between them.
# fmt: off
FRAGMENTS = [
    *"{}()<>;:,.=+-*/%!&|@\"'\n ",
    "section", "form", "enum", "rule", "function", "alter", "private", "override",
    "extends", "select", "case", "as", "default", "if", "else", "result", "self",
    "import", "true", "false", "list<", "range<", "unit[R]", "unit[m]", "@<>", "@<(PC)>",
    "@<(integer)->integer>", "@{", "@(x : integer)", "@ x:real -> real", ":=", "->",
    ",...,", "<...,", ",...<", "<...<", "==", "!=", "<=", ">=",
    "x", "pc", "PC", "Actor", "Event", "Area", "Item", "Secret", "Trigger", "GM", "schedule",
    "system", "Action", "Action.search", "Action.input", "rules", "scenario", "Feature",
    "integer", "real", "number", "string", "boolean", "dice", "loc", "url", "xml", "any",
    "0", "1", "42", "2.5", "3d6", "d", "4d", "[m]", "[km]", "[sec]", "[R]", "[hour]",
    "[nowhere]", "[R]=5[min];", "[x]=1;", "[y]=2[x];", "[x]=2[y];",
    '"text"', '"/[0]":loc', '"/region[start_point]":loc', '"a@b.org":jid', '"x.lore":url',
    '"2013-07-15":date', '"<a/>":xml', '"<p>hi":html', '"<a>":xml', '"nope":date',
    '("load-xml-dungeon.xml":url).loadXML', '("missing.xml":url).loadXML',
    'import "basic.lore":url;', 'import "import-cycle/rules.lore":url;',
    'import "missing.lore":url;', 'import "http://example.org/x.lore":url;',
    ".get1st", ".length", ".foreach(", ".map(", ".find1st(", ".toReal", ".toInt", ".ceil(",
    ".query(", ".message(", ".add(", ".empty", ".input", ".match(", ".in(", ".type",
    "a = b;", "b = a;", "x = x;", "result = 1;", "self.x := 1;", "x := 2;",
    "{ticks = 0; priority = 0; handler = @{ }; }:Event", "{ a = 1; }",
    "select(x){ case(1){ } default{ } }", "select(x){ as(p : PC){ } }",
    "form PC extends Actor { }", "form A extends A { }", "enum E { a{c=1;} b; }",
    "rule r(x : integer) { }", "function f() : integer { }", "alter m(v : list<loc>) { }",
]
# fmt: on

# A rough Lore tokenizer, good enough to cut programs into pieces worth moving around.
_PIECE = re.compile(
    r"\s+|//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|\[=*\[|\]=*\]"
    r"|\[[^\]\s]*\]|,\.\.\.[,<]|<\.\.\.[,<]|:=|->|[<>=!]=|\w+|.",
    re.DOTALL,
)


@cache
def corpus_texts() -> tuple[str, ...]:
    files = sorted(VALID.rglob("*.lore"))
    return tuple(path.read_text(encoding="utf-8") for path in files)


def check(text: str) -> CheckResult:
    """Check ``text`` as a file of the valid corpus; every diagnostic must be well formed."""
    result = check_text(text, "fuzz.lore", VALID)
    for diagnostic in result.diagnostics:
        source_text = diagnostic.source.text
        assert 0 <= diagnostic.span.start <= diagnostic.span.end <= len(source_text), diagnostic
        rendered = diagnostic.render()
        assert rendered.startswith(diagnostic.headline())
    return result


def _mutate(pieces: list[str], data: st.DataObject) -> list[str]:
    """Apply a few random edits to a list of pieces (characters or tokens)."""
    for _ in range(data.draw(st.integers(1, 6), label="edits")):
        size = len(pieces)
        edit = data.draw(st.sampled_from(["delete", "insert", "duplicate", "swap"]))
        if edit == "insert" or size < 2:
            at = data.draw(st.integers(0, size))
            pieces.insert(at, data.draw(st.sampled_from(FRAGMENTS)))
            continue
        start = data.draw(st.integers(0, size - 1))
        end = data.draw(st.integers(start + 1, min(size, start + 40)))
        if edit == "delete":
            del pieces[start:end]
        elif edit == "duplicate":
            pieces[end:end] = pieces[start:end]
        else:
            other = data.draw(st.integers(0, size - 1))
            pieces[start], pieces[other] = pieces[other], pieces[start]
    return pieces


@FUZZ
@given(st.data())
def test_token_mutations_of_the_corpus(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(corpus_texts()), label="program")
    check("".join(_mutate(_PIECE.findall(text), data)))


@FUZZ
@given(st.data())
def test_character_mutations_of_the_corpus(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(corpus_texts()), label="program")
    check("".join(_mutate(list(text), data)))


@FUZZ
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=80))
def test_token_soup(pieces: list[str]) -> None:
    check(" ".join(pieces))


@FUZZ
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40))
def test_token_soup_inside_a_rule(pieces: list[str]) -> None:
    # Inside a form's rule, so that bodies, self and alters are reached more often.
    check("section s { form PC extends Actor { rule r { " + " ".join(pieces) + " } } }")


# Long chains that the checker once followed by recursion; each is checked in a loop now,
# or stops with a diagnostic, never with a RecursionError.
N = 3000
LONG = {
    "values": " ".join(f"v{i} = v{i + 1};" for i in range(N)) + f" v{N} = 1;",
    "circle of values": " ".join(f"c{i} = c{(i + 1) % 300};" for i in range(300)),
    "forms": " ".join(f"form F{i} extends F{i + 1} {{ }}" for i in range(N))
    + f" form F{N} {{ z : integer; }} x = {{ z = 1; }}:F0;",
    "enums": f"enum E{N} {{ z; }} "
    + " ".join(f"enum E{i} extends E{i + 1} {{ a{i}; }}" for i in reversed(range(N)))
    + " x = E0.z;",
    "units": " ".join(f"[u{i + 1}] = 2[u{i}];" for i in reversed(range(N)))
    + f" [u0] = 1; x = 1[u{N}];",
    "sum": "x = " + " + ".join(["1"] * N) + ";",
    "conjunction": "x = " + " & ".join(["true"] * N) + ";",
    "members": "x = 1" + ".abs" * 150 + ";",
}


@pytest.mark.parametrize("name", sorted(LONG))
def test_long_chains(name: str) -> None:
    result = check("section s { " + LONG[name] + " }")
    # A member of a member ... nests the compiled code: past a limit, an error.
    expected = {"circle of values": {"check.circular"}, "members": {"check.nesting"}}.get(
        name, set()
    )
    assert {d.code for d in result.diagnostics} == expected


def test_a_chain_past_the_nesting_limit() -> None:
    # Each link of a chain (member, call, unit, dice) is a level of nesting for the parser.
    result = check("section s { x = 1" + ".abs" * N + "; }")
    assert [d.code for d in result.diagnostics] == ["parse.too-deep"]


def test_a_long_dotted_section_name() -> None:
    # Each part of a dotted name nests a section: as deep as braces may nest, no deeper.
    result = check("section " + ".".join(f"a{i}" for i in range(MAX_NESTING - 2)) + " { x = 1; }")
    assert result.diagnostics == []
    result = check("section " + ".".join(f"a{i}" for i in range(N)) + " { x = 1; }")
    assert [d.code for d in result.diagnostics] == ["parse.too-deep"]
