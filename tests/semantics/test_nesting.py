"""What ``lore check`` accepts runs: nesting is bounded where Python bounds it, and long
chains of one operator, or of ``else if``, do not nest at all."""

from __future__ import annotations

import pytest

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from lore.semantics.nesting import MAX_BLOCK_DEPTH, MAX_EXPRESSION_DEPTH
from lore.syntax.parser import parse_text
from lore.syntax.printer import format_module

HELPERS = """\
 function id(x : integer) : integer { result = x; }
 function metres(x : unit[m]) : unit[m] { result = x; }
 function text(x : string) : string { result = x; }
"""


def program(body: str) -> str:
    return (
        'import "basic.lore":url;\nsection s {\n'
        + HELPERS
        + f" rule go {{\n{body}\n }}\n"
        + " start = { ticks = 0; priority = 0; handler = @{ s.go; }; }:Event;\n}\n"
    )


def told(text: str) -> list[str]:
    """What the GM is told when the program runs (it must check without errors)."""
    result = check_text(text, "nest.lore")
    errors = [d.render() for d in result.diagnostics if d.is_error]
    assert errors == []
    gm = Scripted([])
    session = Session(compile_program(result), 0, Participants({"GM": gm}))
    assert session.run() == "no-events", [e.message for e in session.errors]
    return [str(r.get("text")) for r in gm.told if r["kind"] == "message"]


def nesting_errors(text: str) -> list[str]:
    result = check_text(text, "nest.lore")
    return [d.message for d in result.diagnostics if d.code == "check.nesting"]


CHAINS = {
    "sum of 210": (" + ".join(["1"] * 210), "210"),
    "sum and difference of 500": ("1" + " + 2 - 1" * 250, "251"),
    "product": (" * ".join(["1"] * 300), "1"),
    "text of 500": (" + ".join(['"a"'] * 500), "a" * 500),
    "text and numbers": ('"n"' + " + 1" * 300, "n" + "1" * 300),
    "conjunction of 500": (" & ".join(["true"] * 500), "true"),
    "disjunction of 500": (" | ".join(["false"] * 499 + ["true"]), "true"),
    "quantities": (" + ".join(["1[m]"] * 400), "400[m]"),
    "mixed levels": (" + ".join(["2 * 3"] * 300), "1800"),
}


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_a_long_chain_of_one_operator_checks_and_runs(name: str) -> None:
    chain, shown = CHAINS[name]
    assert told(program(f'  GM.message("" + ({chain}));')) == [shown]


def test_a_long_chain_keeps_the_order_of_its_operands() -> None:
    rolls = " + ".join(f"s.id({i})" for i in range(100))
    difference = "1000" + "".join(f" - s.id({i})" for i in range(100))
    assert told(program(f'  GM.message("" + ({rolls}) + " " + ({difference}));')) == [
        f"{sum(range(100))} {1000 - sum(range(100))}"
    ]


def test_a_long_conjunction_stops_at_the_first_false() -> None:
    # The division by zero after the first false is never evaluated.
    chain = " & ".join(["true"] * 100 + ["false"] + ["1 / id(0) == 1"] * 100)
    assert told(program(f'  if ({chain}) {{ GM.message("no"); }} else {{ GM.message("ok"); }}'))
    assert told(program(f'  GM.message("" + ({chain}));')) == ["false"]


WRAPS = {
    "parentheses of a sum": ("1 + ({})", "1"),
    "minus": ("-({})", "1"),
    "not": ("!({})", "true"),
    "call": ("s.id({})", "1"),
    "conversion": ("s.metres({})", "1[m]"),
    "text": ('"a" + s.text({})', '"x"'),
    "list": ("{{{}}}", "1"),
    "form": ("{{ a = {}; }}", "1"),
}


def nested(name: str, depth: int) -> str:
    template, expr = WRAPS[name]
    for _ in range(depth):
        expr = template.format(expr)
    return expr


@pytest.mark.parametrize("name", sorted(WRAPS))
def test_expressions_as_deep_as_check_allows_run(name: str) -> None:
    depth = MAX_EXPRESSION_DEPTH
    while nesting_errors(program(f"  v = {nested(name, depth)};")):
        depth -= 1
    assert depth >= MAX_EXPRESSION_DEPTH // 3  # a form literal takes two levels
    assert told(program(f'  v = {nested(name, depth)};\n  GM.message("ran");')) == ["ran"]
    # One level more is refused at check time, at the place.
    deeper = program(f"  v = {nested(name, depth + 1)};")
    assert nesting_errors(deeper) == [
        f"this expression nests more than {MAX_EXPRESSION_DEPTH} levels deep"
    ]


def nested_ifs(depth: int) -> str:
    body = 'GM.message("deep");'
    for _ in range(depth):
        body = f"if (true) {{ {body} }}"
    return body


def nested_selects(depth: int) -> str:
    body = 'GM.message("deep");'
    for _ in range(depth):
        body = f"select(1) {{ case(1) {{ {body} }} default {{ }} }}"
    return body


@pytest.mark.parametrize("make", [nested_ifs, nested_selects], ids=["if", "select"])
def test_blocks_as_deep_as_check_allows_run(make: object) -> None:
    assert callable(make)
    assert told(program(make(MAX_BLOCK_DEPTH))) == ["deep"]
    assert nesting_errors(program(make(MAX_BLOCK_DEPTH + 1))) == [
        f"blocks nest more than {MAX_BLOCK_DEPTH} levels deep here"
    ]


def test_99_nested_ifs_are_refused_by_check_not_by_python() -> None:
    text = program(nested_ifs(99))
    result = check_text(text, "nest.lore")
    [problem] = [d for d in result.diagnostics if d.is_error]
    assert problem.render().splitlines()[0] == (
        # At the block of the innermost if allowed: "if (true) { " is 12 characters.
        f"nest.lore:7:{1 + 12 * MAX_BLOCK_DEPTH + 10}: error: blocks nest more than "
        f"{MAX_BLOCK_DEPTH} levels deep here"
    )


def test_a_long_else_if_chain_runs() -> None:
    arms = "".join(f' else if (n == {i}) {{ GM.message("{i}"); }}' for i in range(150))
    assert told(program(f"  n = 149;\n  if (n < 0) {{ }}{arms}")) == ["149"]


def test_else_if_conditions_that_need_statements_run() -> None:
    def arm(i: int) -> str:
        condition = f"select(n) {{ case({i}) {{ result = true; }} default {{ result = false; }} }}"
        return f' else if ({condition}) {{ GM.message("{i}"); }}'

    arms = "".join(arm(i) for i in range(MAX_BLOCK_DEPTH - 1))
    assert told(program(f"  n = 7;\n  if (n < 0) {{ }}{arms}")) == ["7"]
    many = "".join(arm(i) for i in range(MAX_BLOCK_DEPTH + 1))
    assert nesting_errors(program(f"  n = 7;\n  if (n < 0) {{ }}{many}")) != []


@pytest.mark.parametrize("chain", [" + ".join(["1"] * 5000), " & ".join(["true"] * 5000)])
def test_a_long_chain_is_formatted(chain: str) -> None:
    text = f"section s {{\n    x = {chain};\n}}\n"
    formatted = format_module(parse_text(text))
    assert formatted.replace("\n        ", " ") == text  # broken before operators
    assert max(map(len, formatted.splitlines())) <= 100
