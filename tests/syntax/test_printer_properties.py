"""Properties of the formatter on random ASTs and on random comment placements."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lore.syntax import ast
from lore.syntax.dump import dump
from lore.syntax.parser import ParseResult, parse_text
from lore.syntax.printer import format_module
from tests.syntax.strategies import SPAN, expressions, modules, statements, with_comments
from tests.syntax.test_printer import SNIPPETS, assert_formats_cleanly

_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _assert_reads_back(module: ast.Module) -> str:
    formatted = format_module(ParseResult(module, [], [], None))
    result = parse_text(formatted)
    assert not result.diagnostics, formatted + "\n".join(d.render() for d in result.diagnostics)
    assert dump(result.module) == dump(module), formatted
    assert format_module(result) == formatted
    return formatted


@_SETTINGS
@given(modules())
def test_generated_modules_read_back(module: ast.Module) -> None:
    _assert_reads_back(module)


@_SETTINGS
@given(expressions(4), statements(2))
def test_generated_expressions_and_statements_read_back(
    expr: ast.Expr, statement: ast.Statement
) -> None:
    body = ast.Block(SPAN, (statement,))
    definitions = (
        ast.VarDef(SPAN, "value", SPAN, expr),
        ast.RuleDef(SPAN, "main", SPAN, None, body),
    )
    _assert_reads_back(ast.Module(SPAN, (), definitions))


@_SETTINGS
@given(st.data())
def test_comments_anywhere_in_generated_modules(data: st.DataObject) -> None:
    text = _assert_reads_back(data.draw(modules(1)))
    commented = data.draw(with_comments(text))
    assume(parse_text(commented).ok)  # `5.x` with a comment after the '.' reads `5.` then x
    assert_formats_cleanly(commented)


@_SETTINGS
@given(st.data())
def test_comments_anywhere_in_snippets(data: st.DataObject) -> None:
    text = SNIPPETS[data.draw(st.sampled_from(sorted(SNIPPETS)))]
    commented = data.draw(with_comments(text))
    assume(parse_text(commented).ok)
    assert_formats_cleanly(commented)
