"""How the parser reports errors and recovers from them (beyond the invalid corpus)."""

from __future__ import annotations

import sys

import pytest

from lore.syntax import ast
from lore.syntax.parser import MAX_DIAGNOSTICS, MAX_NESTING, ParseResult, parse_text


def messages(result: ParseResult) -> list[str]:
    return [d.headline() for d in result.diagnostics]


def test_too_many_errors_stop_the_parser_with_a_last_message() -> None:
    text = "section s {\n" + " x = ;\n" * (MAX_DIAGNOSTICS + 50) + "}\n"
    result = parse_text(text, "many.lore")
    assert len(result.diagnostics) == MAX_DIAGNOSTICS + 1
    last = result.diagnostics[-1]
    assert (last.code, last.message) == (
        "parse.too-many",
        "too many syntax errors; the rest of the file was not read",
    )


def test_errors_deep_in_expressions_do_not_add_up_to_too_deep() -> None:
    # Each aborted statement used to leave its nesting depth behind.
    text = "rule r {\n" + " x = ((((((((((1;\n" * 60 + "}\n"
    result = parse_text(text)
    assert {d.code for d in result.diagnostics} == {"parse.expected"}
    assert len(result.diagnostics) == 60


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "(" * (MAX_NESTING + 5) + "1" + ")" * (MAX_NESTING + 5) + ";",
        "x = f" + "(" * (MAX_NESTING + 5) + ";",
        "x : " + "list<" * (MAX_NESTING + 5) + "integer" + ">" * (MAX_NESTING + 5) + ";",
        "rule r { if (a) {} " + "else if (a) {} " * (MAX_NESTING + 5) + "}",
        "x = " + "{ a = " * (MAX_NESTING + 5),
        "section " + ".".join(["s"] * (MAX_NESTING + 5)) + " { }",
        "section a { " * 100 + "section " + ".".join(["s"] * 105) + " { }" + " }" * 100,
        "x = a" + ".b" * (MAX_NESTING + 5) + ";",
        "x = f" + "()" * (MAX_NESTING + 5) + ";",
        "x = 1" + "[min]" * (MAX_NESTING + 5) + ";",
        "x = " + "(" * 100 + "a" + ".b" * 105 + ")" * 100 + ";",
    ],
)
def test_nesting_beyond_the_limit_is_one_error(text: str) -> None:
    result = parse_text(text)
    assert [d.code for d in result.diagnostics] == ["parse.too-deep"]


def test_nesting_up_to_the_limit_is_fine_even_from_a_deep_stack() -> None:
    depth = MAX_NESTING - 10
    text = "x = " + "(" * depth + "1" + ")" * depth + ";"

    def nested(levels: int) -> ParseResult:
        return parse_text(text) if levels == 0 else nested(levels - 1)

    assert nested(300).diagnostics == []


def test_the_recursion_limit_is_restored() -> None:
    before = sys.getrecursionlimit()
    parse_text("x = (((1)));")
    assert sys.getrecursionlimit() == before


def test_diagnostics_come_in_file_order() -> None:
    # The lexer's errors (line 3) and the parser's (lines 2 and 4) are merged.
    result = parse_text("section s {\n a = ;\n b = “x”;\n c = ;\n}\n")
    lines = [d.source.position(d.span.start).line for d in result.diagnostics]
    assert lines == [2, 3, 4]


def test_errors_at_the_end_point_after_the_last_token_and_are_reported_once() -> None:
    text = "section s {\n rule r {\n  x = 1 +\n"
    result = parse_text(text)
    assert messages(result) == ["<input>:3:10: error: expected an expression, found end of input"]
    span = result.diagnostics[0].span
    assert span.start == span.end == text.index("+") + 1


def test_nothing_more_is_said_about_the_end_after_an_unterminated_comment() -> None:
    assert [d.code for d in parse_text("section s {\n x = 1; /* open\n").diagnostics] == [
        "lex.unterminated-comment"
    ]
    assert [d.code for d in parse_text("section s {\n x = [[ open\n").diagnostics] == [
        "lex.unterminated-long-string"
    ]


def test_a_missing_semicolon_at_the_end_of_a_line_keeps_the_definition() -> None:
    result = parse_text("section s {\n a = 1\n b = 2;\n}")
    assert messages(result) == [
        "<input>:2:7: error: expected ';' after the definition of 'a', found name 'b'"
    ]
    [section] = result.module.body
    assert isinstance(section, ast.SectionDef)
    assert [m.name for m in section.members if isinstance(m, ast.VarDef)] == ["a", "b"]


def test_a_unit_definition_on_the_next_line_is_not_a_unit_postfix() -> None:
    result = parse_text("section s {\n a = 1\n [m] = 1.0;\n}")
    [section] = result.module.body
    assert isinstance(section, ast.SectionDef)
    assert [type(m).__name__ for m in section.members] == ["VarDef", "UnitDef"]
    assert len(result.diagnostics) == 1


def test_an_error_inside_a_select_does_not_close_the_enclosing_block() -> None:
    text = "rule r {\n select(x){\n  when(1){ a; }\n }\n after;\n}\nrule s {}\n"
    result = parse_text(text)
    assert [d.code for d in result.diagnostics] == ["parse.expected"]
    names = [d.name for d in result.module.body if isinstance(d, ast.RuleDef)]
    assert names == ["r", "s"]


def test_a_brace_closing_an_abandoned_block_is_not_reported_as_stray() -> None:
    result = parse_text("section s {\n x = { f(1); };\n}\n")
    assert [d.message for d in result.diagnostics] == ["expected ',' or '}' in a list, found ';'"]


def test_recovery_resumes_at_a_header_item_on_a_new_line() -> None:
    result = parse_text('author{"x"}\nimport "a.lore":url;\n')
    assert [d.code for d in result.diagnostics] == ["parse.expected"]
    assert [type(h).__name__ for h in result.module.header] == ["Import"]


def test_a_member_name_must_follow_the_point() -> None:
    for text in ("x = a. 5;", 'x = a."s";', "x = a.[m];", "x = a."):
        result = parse_text(text)
        assert result.diagnostics[0].message.startswith("expected a member name after '.'")


@pytest.mark.parametrize("text", ["x = 1e999;", "x = 0x1p99999;", "x = 0x1p-99999999999;"])
def test_reals_out_of_range(text: str) -> None:
    result = parse_text(text)
    if "-" in text:
        assert result.diagnostics == []  # underflow is zero, not an error
    else:
        assert [d.message for d in result.diagnostics] == ["number too large"]


def test_a_dice_word_assigned_in_a_block_is_a_dice_name_error() -> None:
    result = parse_text("rule r { d6 = 1; (d) = 2; }")
    assert [d.code for d in result.diagnostics] == ["parse.dice-name", "parse.dice-name"]
