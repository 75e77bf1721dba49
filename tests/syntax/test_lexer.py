"""Details of the lexer: numbers, dice, units, strings, comments, keywords, operators."""

from __future__ import annotations

import pytest

from lore.syntax import ast, lexer
from lore.syntax.lexer import MAX_ERRORS, LexResult, tokenize, unescape
from lore.syntax.parser import parse_text
from lore.syntax.source import SourceFile, Span
from lore.syntax.tokens import DICE, EOF, IDENT, INT, LONGSTRING, REAL, STRING, UNIT


def lex(text: str) -> LexResult:
    return tokenize(SourceFile("t.lore", text))


def kinds(text: str) -> list[tuple[str, str]]:
    """``(kind, text)`` of every token but EOF; the text must lex without errors."""
    result = lex(text)
    assert [d.message for d in result.diagnostics] == []
    assert result.tokens[-1].kind == EOF
    return [(t.kind, t.text) for t in result.tokens[:-1]]


def errors(text: str) -> list[tuple[str, str, int, int, str | None]]:
    return [(d.code, d.message, d.span.start, d.span.end, d.hint) for d in lex(text).diagnostics]


def value_of(expression: str) -> object:
    """The value of a literal, read through the parser: ``x = <expression>;``."""
    result = parse_text(f"x = {expression};")
    assert [d.message for d in result.diagnostics] == []
    definition = result.module.body[0]
    assert isinstance(definition, ast.VarDef)
    assert isinstance(definition.value, ast.IntLit | ast.RealLit | ast.StringLit)
    return definition.value.value


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize("text", ["0", "42", "0x1F", "0XFF", "0xdead"])
def test_integers(text: str) -> None:
    assert kinds(text) == [(INT, text)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1.5", 1.5),
        (".5", 0.5),
        ("1.", 1.0),
        ("1e3", 1000.0),
        ("1E+3", 1000.0),
        ("2.E-5", 2e-05),
        ("2.e5", 2e5),
        ("2.5e-3", 0.0025),
        ("0x1.8p3", 12.0),
        ("0x.8", 0.5),
        ("0x1p-2", 0.25),
        ("0X1P4", 16.0),
    ],
)
def test_reals(text: str, value: float) -> None:
    assert kinds(text) == [(REAL, text)]
    assert value_of(text) == value


def test_integer_values() -> None:
    assert value_of("0x1F") == 31
    assert value_of("123456789012345678901234567890") == 123456789012345678901234567890


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("5.toReal", [(INT, "5"), (".", "."), (IDENT, "toReal")]),
        ("1.5.toInt", [(REAL, "1.5"), (".", "."), (IDENT, "toInt")]),
        ("5.e", [(INT, "5"), (".", "."), (IDENT, "e")]),
        ("5._x", [(INT, "5"), (".", "."), (IDENT, "_x")]),
        ("5.体力", [(INT, "5"), (".", "."), (IDENT, "体力")]),
        ("5.list", [(INT, "5"), (".", "."), ("list", "list")]),
        ("1e", [(INT, "1"), (IDENT, "e")]),
    ],
)
def test_a_point_before_a_name_is_member_access(text: str, tokens: list[tuple[str, str]]) -> None:
    assert kinds(text) == tokens


def test_there_is_no_sign_in_a_number() -> None:
    assert kinds("-5") == [("-", "-"), (INT, "5")]
    assert kinds("1e-3-2") == [(REAL, "1e-3"), ("-", "-"), (INT, "2")]


def test_full_width_digits_are_an_error_and_read_as_ascii() -> None:
    result = lex("x = ４２；")
    assert [(d.code, d.message, d.hint) for d in result.diagnostics] == [
        (
            "lex.unexpected-char",
            "unexpected full-width characters '４２；'",
            "use the half-width '42;' instead",
        )
    ]
    assert [(t.kind, t.text) for t in result.tokens[:-1]] == [
        (IDENT, "x"),
        ("=", "="),
        (INT, "42"),
        (";", ";"),
    ]


def test_other_unicode_digits_are_not_numbers() -> None:
    assert [e[0] for e in errors("٣")] == ["lex.unexpected-char"]


# ---------------------------------------------------------------- dice


@pytest.mark.parametrize("text", ["3D6", "3d6", "4d", "4D", "d6", "D20", "d", "D", "10d10", "0d0"])
def test_dice_words(text: str) -> None:
    assert kinds(text) == [(DICE, text)]


@pytest.mark.parametrize("text", ["dx", "damage", "dungeon", "D_", "d6_1", "d6x", "dé", "d体"])
def test_words_that_only_start_like_dice_are_names(text: str) -> None:
    assert kinds(text) == [(IDENT, text)]


def test_dice_between_and_after_operands() -> None:
    assert kinds("x d6") == [(IDENT, "x"), (DICE, "d6")]
    assert kinds("(1+2)d6")[-2:] == [(")", ")"), (DICE, "d6")]
    assert kinds("2 D 6") == [(INT, "2"), (DICE, "D"), (INT, "6")]
    assert kinds("2d6x") == [(INT, "2"), (IDENT, "d6x")]
    assert kinds("-3D6+2") == [("-", "-"), (DICE, "3D6"), ("+", "+"), (INT, "2")]


# ---------------------------------------------------------------- units


@pytest.mark.parametrize("unit", ["[m]", "[km]", "[m/sec]", "[m/s^2]", "[R]", "[degree]", "[マス]"])
def test_unit_names_are_one_token(unit: str) -> None:
    assert kinds(unit) == [(UNIT, unit)]
    assert kinds(f"5{unit}") == [(INT, "5"), (UNIT, unit)]


def test_unit_definition_tokens() -> None:
    assert kinds("[R]=5[min];") == [
        (UNIT, "[R]"),
        ("=", "="),
        (INT, "5"),
        (UNIT, "[min]"),
        (";", ";"),
    ]


def test_bad_units() -> None:
    assert errors("5[ m ]") == [
        ("lex.bad-unit", "a unit name cannot contain spaces: [ m ]", 1, 6, "write [m]")
    ]
    assert [(t.kind, t.text) for t in lex("5[ m ]").tokens[:-1]] == [(INT, "5"), (UNIT, "[m]")]
    assert errors("5[]") == [
        ("lex.bad-unit", "empty unit name", 1, 3, "write a unit name in the brackets, like [m]")
    ]
    assert errors("5[m;") == [("lex.bad-unit", "unit name '[m' is not closed", 1, 3, "write [m]")]


def test_a_stray_closing_bracket() -> None:
    assert errors("1]") == [
        ("lex.unexpected-char", "unexpected ']' with no '[' before it", 1, 2, "remove it")
    ]


# ---------------------------------------------------------------- strings


def test_quoted_strings() -> None:
    assert kinds('"a\\"b" \'it\\\'s\' "it\'s"') == [
        (STRING, '"a\\"b"'),
        (STRING, "'it\\'s'"),
        (STRING, '"it\'s"'),
    ]
    assert value_of('"a\\"b"') == 'a"b'
    assert value_of("'it\\'s'") == "it's"


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("plain", "plain"),
        ("a\\nb", "a\nb"),
        ("\\t\\r\\0", "\t\r\0"),
        ("\\\"\\'\\\\", "\"'\\"),
        ("caf\\u00e9", "café"),
        ("\\U0001F3B2", "🎲"),
        ("\\q", "q"),
        ("\\\\n", "\\n"),
        ("\\uZZ", "uZZ"),
        ("\\U00110000", "\ufffd"),
    ],
)
def test_escapes(body: str, value: str) -> None:
    assert unescape(body) == value


def test_escapes_that_name_no_character_are_errors() -> None:
    text = '"a\\U00110000" "\\uD800" "\\\\U00110000"'
    assert [(e[0], e[2], e[3]) for e in errors(text)] == [
        ("lex.bad-escape", 2, 12),
        ("lex.bad-escape", 15, 21),
    ]


def test_unterminated_string_reads_to_the_end_of_the_line() -> None:
    result = lex('GM.message("hi);\nx = 1;')
    assert [(d.code, d.span.start) for d in result.diagnostics] == [("lex.unterminated-string", 11)]
    texts = [t.text for t in result.tokens[:-1]]
    assert texts == ["GM", ".", "message", "(", '"hi"', ")", ";", "x", "=", "1", ";"]


def test_long_strings_and_their_levels() -> None:
    assert kinds("[[abc]]") == [(LONGSTRING, "[[abc]]")]
    assert kinds("[=[a]]b]=]") == [(LONGSTRING, "[=[a]]b]=]")]
    assert kinds("[==[ ]=] ]] ]==]") == [(LONGSTRING, "[==[ ]=] ]] ]==]")]
    assert kinds("[[]]") == [(LONGSTRING, "[[]]")]
    assert kinds('[["\\n"]]') == [(LONGSTRING, '[["\\n"]]')]


def test_long_string_values() -> None:
    assert value_of("[[\nfirst newline dropped\n]]") == "first newline dropped\n"
    assert value_of("[[\r\ncr lf dropped]]") == "cr lf dropped"
    assert value_of("[[\n\nonly one dropped]]") == "\nonly one dropped"
    assert value_of("[[ \nspace first: nothing dropped]]") == " \nspace first: nothing dropped"
    assert value_of("[=[a]]b]=]") == "a]]b"
    assert value_of("[[\\n]]") == "\\n"


def test_unterminated_long_string() -> None:
    result = lex("x = [==[ abc ]=] ]]")
    assert [(d.code, d.span.start, d.span.end, d.hint) for d in result.diagnostics] == [
        ("lex.unterminated-long-string", 4, 8, "close it with ']==]'")
    ]
    assert result.tokens[-2] == (LONGSTRING, "[==[ abc ]=] ]]", 4, 19)


def test_typed_string_tokens() -> None:
    assert kinds('"a":url') == [(STRING, '"a"'), (":", ":"), ("url", "url")]


# ---------------------------------------------------------------- comments


def test_comments_are_kept_aside() -> None:
    result = lex("// one\nx = 1; // two\r\n  /* three\n */ y /**/")
    assert [(t.kind, t.text) for t in result.tokens[:-1]] == [
        (IDENT, "x"),
        ("=", "="),
        (INT, "1"),
        (";", ";"),
        (IDENT, "y"),
    ]
    assert [(c.text, c.own_line, c.is_block) for c in result.comments] == [
        ("// one", True, False),
        ("// two", False, False),
        ("/* three\n */", True, True),
        ("/**/", False, True),
    ]


def test_block_comments_do_not_nest() -> None:
    result = lex("/* a /* b */ c */")
    assert result.comments[0].text == "/* a /* b */"
    assert [t.text for t in result.tokens[:-1]] == ["c", "*", "/"]


def test_unterminated_comment() -> None:
    result = lex("x /* never closed\n y = 1;")
    assert [(d.code, d.span.start, d.span.end, d.hint) for d in result.diagnostics] == [
        ("lex.unterminated-comment", 2, 4, "close it with '*/'")
    ]
    assert result.comments[0].text == "/* never closed\n y = 1;"


def test_a_hash_comment_is_reported_and_skipped() -> None:
    result = lex("x = 1; # not a comment in Lore\ny")
    assert [(d.code, d.hint) for d in result.diagnostics] == [
        ("lex.unexpected-char", "comments start with // (or /* ... */)")
    ]
    assert [t.text for t in result.tokens[:-1]] == ["x", "=", "1", ";", "y"]


# ---------------------------------------------------------------- names and keywords


@pytest.mark.parametrize("name", ["x", "_x", "x1", "体力", "最大_HP", "café", "ｐｃ"])
def test_unicode_identifiers(name: str) -> None:
    assert kinds(name) == [(IDENT, name)]


def test_keywords_have_their_own_kind() -> None:
    assert kinds("section rule true if constant") == [
        ("section", "section"),
        ("rule", "rule"),
        ("true", "true"),
        ("if", "if"),
        ("constant", "constant"),
    ]


@pytest.mark.parametrize("member", ["list", "default", "type", "select", "self", "desc", "d6"])
def test_keywords_and_dice_after_a_point_are_member_names(member: str) -> None:
    result = parse_text(f"x = a.{member};")
    assert [d.message for d in result.diagnostics] == []
    definition = result.module.body[0]
    assert isinstance(definition, ast.VarDef)
    assert isinstance(definition.value, ast.Member)
    assert definition.value.name == member


# ---------------------------------------------------------------- operators


@pytest.mark.parametrize("op", [",...,", "<...,", ",...<", "<...<"])
def test_range_operators_are_single_tokens(op: str) -> None:
    assert kinds(f"1{op}5") == [(INT, "1"), (op, op), (INT, "5")]
    assert kinds(f"a {op} b") == [(IDENT, "a"), (op, op), (IDENT, "b")]


def test_other_operators() -> None:
    text = ":= -> == != <= >= < > = ! & | + - * / % . , ; : ( ) { } @ ?"
    assert [kind for kind, _ in kinds(text)] == text.split()


def test_a_range_is_not_a_comparison() -> None:
    assert kinds("a<...,b") == [(IDENT, "a"), ("<...,", "<...,"), (IDENT, "b")]
    assert kinds("a<b") == [(IDENT, "a"), ("<", "<"), (IDENT, "b")]
    assert kinds("a,..b")[1:3] == [(",", ","), (".", ".")]


# ---------------------------------------------------------------- bad characters


@pytest.mark.parametrize(
    ("char", "hint"),
    [
        ("\u201c", "use '\"' instead"),
        ("\u2018", 'use "\'" instead'),
        ("\u300c", "use '\"' instead"),
        ("\u3000", "use a plain space"),
        ("\uff1b", "use the half-width ';' instead"),
        ("\uff08", "use the half-width '(' instead"),
        ("\u2212", "use '-' instead"),
        ("\u3001", "use ',' instead"),
        ("$", None),
    ],
)
def test_unexpected_characters_and_their_hints(char: str, hint: str | None) -> None:
    [(code, message, start, end, found)] = errors(f"x {char}")
    assert code == "lex.unexpected-char"
    assert message.startswith(f"unexpected character U+{ord(char):04X} (")
    assert (start, end, found) == (2, 3, hint)


def test_typographic_quotes_are_read_as_a_string() -> None:
    result = lex("“Hello”:url")
    assert len(result.diagnostics) == 1
    assert [(t.kind, t.text) for t in result.tokens[:-1]] == [
        (STRING, '"Hello"'),
        (":", ":"),
        ("url", "url"),
    ]


def test_control_characters() -> None:
    assert errors("\x07") == [
        ("lex.unexpected-char", "unexpected character U+0007 (a control character)", 0, 1, None)
    ]


def test_the_lexer_gives_up_after_too_many_errors() -> None:
    result = lex("x\uff1b " * (MAX_ERRORS + 100))
    assert len(result.diagnostics) == MAX_ERRORS + 1
    last = result.diagnostics[-1]
    assert (last.code, last.message) == (
        "lex.too-many",
        "too many errors; the rest of the file was not read",
    )
    assert result.tokens[-1].kind == EOF
    # The parser then adds nothing.
    parsed = parse_text("x\uff1b " * (MAX_ERRORS + 100))
    assert [d.code for d in parsed.diagnostics] == [d.code for d in result.diagnostics]


def test_a_file_of_more_tokens_than_the_limit_is_refused_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lexer, "MAX_TOKENS", 12)
    at_the_limit = "section s { x = 1; y = 2; }"  # 12 tokens: read
    assert [d.code for d in parse_text(at_the_limit).diagnostics] == []
    result = tokenize(SourceFile("<input>", at_the_limit + " z"))
    assert [t.kind for t in result.tokens] == [EOF]  # nothing of it is parsed
    (refused,) = result.diagnostics
    assert (refused.code, refused.message, refused.hint) == (
        "lex.too-long",
        "the file holds more than 12 tokens (names, numbers, texts and signs), more than"
        " Lore reads in one file; it was not checked",
        "split it into files that import each other",
    )
    assert refused.span == Span(26, 27)  # the last token read: where the limit was passed
    # The parser adds nothing (no 'expected a definition' at the end).
    parsed = parse_text(at_the_limit + " z")
    assert [d.code for d in parsed.diagnostics] == ["lex.too-long"]


# ---------------------------------------------------------------- positions


def test_token_spans_cover_their_text() -> None:
    text = "section s {\n x = 3D6 + 0x1F[m]; // c\n y = [=[ long ]=]:xml;\n}"
    result = lex(text)
    assert result.diagnostics == []
    for token in result.tokens[:-1]:
        assert text[token.start : token.end] == token.text
    assert result.tokens[-1] == (EOF, "", len(text), len(text))
