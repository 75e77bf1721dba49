"""The lexer and parser never raise on any text: problems are diagnostics, inside the file.

Arbitrary text (Japanese and control characters included), Lore-like soup made of token
fragments, and random mutations of the corpus files (characters and whole tokens deleted,
inserted, duplicated or swapped). Also: white space and comments between the tokens of a
valid file change nothing, and very deep nesting is a diagnostic, not a RecursionError.
"""

from __future__ import annotations

from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore.syntax.dump import dump
from lore.syntax.lexer import tokenize
from lore.syntax.parser import MAX_DIAGNOSTICS, ParseResult, parse
from lore.syntax.source import SourceFile
from lore.syntax.tokens import EOF, INT
from tests.syntax.corpus_files import invalid_files, load, valid_files

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Pieces of Lore (and of common mistakes) that random soup is made of.
# fmt: off
FRAGMENTS = [
    *"{}()[]<>;:,.=+-*/%!&|@?\"'\n \t",
    "section", "form", "enum", "rule", "function", "alter", "private", "override",
    "extends", "select", "case", "as", "default", "if", "else", "result", "self",
    "list<", "unit[R]", "range<", "@<(", ")->", "@{", "@(x : T)", "@ x:real -> real",
    "docinfo{", "desc(", "author(", "history(", "import", ":url", ":loc", ":xml", ":date",
    "x", "pc", "体力", "d", "D", "d6", "3D6", "4d", "2 D 6", "0", "42", "1.5", ".5",
    "2.E-5", "0x1F", "0x1.8p3", "0x1p99999", "1e999", "5.toReal", "[m]", "[m/sec]", "[ m]",
    "[", "]", "[[", "]]", "[=[", "]=]", "/*", "*/", "//", ",...,", "<...,", ",...<", "<...<",
    ":=", "->", "==", "<=", "\u201c", "\u201d", "\u3000", "\uff1b", "\uff13", "\u3001",
    "\u300c", "#", "\\", "\\U00110000", "\x00", "\x07", "\r\n", "\ufeff",
]
# fmt: on


@cache
def corpus_texts() -> tuple[str, ...]:
    return tuple(load(p).text for p in [*valid_files(), *invalid_files()])


def check(text: str) -> ParseResult:
    """Lex and parse ``text``; every token and diagnostic must be well formed."""
    source = SourceFile("fuzz.lore", text)
    lexed = tokenize(source)
    assert lexed.tokens[-1].kind == EOF
    assert lexed.tokens[-1].start == len(text)
    previous_end = 0
    for token in lexed.tokens:
        assert previous_end <= token.start <= token.end <= len(text)
        previous_end = token.end
    result = parse(source)
    for diagnostic in [*lexed.diagnostics, *result.diagnostics]:
        assert 0 <= diagnostic.span.start <= diagnostic.span.end <= len(text), diagnostic
        rendered = diagnostic.render()
        assert rendered.startswith(diagnostic.headline())
    starts = [d.span.start for d in result.diagnostics]
    assert starts == sorted(starts)
    return result


@FUZZ
@given(st.text(max_size=300))
def test_any_text(text: str) -> None:
    check(text)


@FUZZ
@given(st.text(alphabet=st.characters(codec="utf-8", categories=["Lo", "Cc", "Zs", "Po"])))
def test_japanese_and_control_characters(text: str) -> None:
    check(text)


@FUZZ
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=80).map("".join))
def test_lore_soup(text: str) -> None:
    check(text)


_EDITS = st.tuples(
    st.sampled_from(["delete", "insert", "duplicate", "swap"]),
    st.floats(0, 1),
    st.floats(0, 1),
    st.sampled_from(FRAGMENTS),
)


def _at(fraction: float, length: int) -> int:
    """An index into a sequence of ``length`` items (0 when it is empty)."""
    return min(int(fraction * length), max(length - 1, 0))


def mutate_chars(text: str, edit: tuple[str, float, float, str]) -> str:
    op, a, b, fragment = edit
    if not text:
        return fragment
    i = _at(a, len(text))
    j = min(len(text), i + 1 + int(b * 20))
    if op == "delete":
        return text[:i] + text[j:]
    if op == "insert":
        return text[:i] + fragment + text[i:]
    if op == "duplicate":
        return text[:j] + text[i:j] + text[j:]
    i, k = sorted((i, _at(b, len(text))))
    if i == k:
        return text
    return text[:i] + text[k] + text[i + 1 : k] + text[i] + text[k + 1 :]


def mutate_tokens(text: str, edit: tuple[str, float, float, str]) -> str:
    op, a, b, fragment = edit
    tokens = tokenize(SourceFile("m.lore", text)).tokens[:-1]
    if not tokens:
        return text
    first = tokens[_at(a, len(tokens))]
    other = tokens[_at(b, len(tokens))]
    piece = text[first.start : first.end]
    if op == "delete":
        return text[: first.start] + text[first.end :]
    if op == "insert":
        return text[: first.start] + fragment + " " + text[first.start :]
    if op == "duplicate":
        return text[: first.end] + " " + piece + text[first.end :]
    low, high = sorted((first, other), key=lambda t: t.start)
    if low.end > high.start:
        return text
    return (
        text[: low.start]
        + text[high.start : high.end]
        + text[low.end : high.start]
        + text[low.start : low.end]
        + text[high.end :]
    )


@FUZZ
@given(st.data(), st.lists(_EDITS, min_size=1, max_size=6), st.booleans())
def test_mutated_corpus_files(
    data: st.DataObject, edits: list[tuple[str, float, float, str]], by_token: bool
) -> None:
    text = data.draw(st.sampled_from(corpus_texts()))
    for edit in edits:
        text = mutate_tokens(text, edit) if by_token else mutate_chars(text, edit)
    check(text)


def test_the_corpus_itself_passes_the_checks() -> None:
    for text in corpus_texts():
        check(text)


DEEP = 100_000  # one-character openers
DEEP_PHRASES = 10_000  # openers of several tokens


def test_deeply_nested_input_gives_a_diagnostic_not_a_recursion_error() -> None:
    for text in [
        "(" * DEEP,
        "{" * DEEP,
        "[" * DEEP,
        "x = " + "(" * DEEP,
        "x = " + "{" * DEEP,
        "x = " + "-" * DEEP + "1;",
        "x = " + "!" * DEEP + "1;",
        "x = f" + "(" * DEEP,
        "x = " + "@{" * DEEP_PHRASES,
        "x = 1" + " D (" * DEEP_PHRASES,
        "x : " + "list<" * DEEP_PHRASES,
        "x : " + "@<(" * DEEP_PHRASES,
        "section a {" * DEEP_PHRASES,
        "rule r {" + "select(x){ case(1){" * DEEP_PHRASES,
        "rule r { if (a) {} " + "else if (a) {} " * DEEP_PHRASES + "}",
        "rule r { " + "if (a) " * DEEP_PHRASES + "x; }",
    ]:
        result = check(text)
        assert result.diagnostics, text[:20]
        assert len(result.diagnostics) <= MAX_DIAGNOSTICS + 1


_SEPARATORS = [" ", "\n", "\t", "\r\n", "/* c */", "// c\n", " \f "]


@FUZZ
@given(st.data(), st.lists(st.tuples(st.floats(0, 1), st.sampled_from(_SEPARATORS)), max_size=8))
def test_white_space_and_comments_between_tokens_change_nothing(
    data: st.DataObject, insertions: list[tuple[float, str]]
) -> None:
    path = data.draw(st.sampled_from(valid_files()))
    text = load(path).text
    tokens = tokenize(SourceFile("w.lore", text)).tokens
    # The one place where a space matters: `5.toReal` is a member, `5. toReal` a real `5.`.
    places = [
        token.start
        for index, token in enumerate(tokens)
        if not (index >= 2 and tokens[index - 1].kind == "." and tokens[index - 2].kind == INT)
    ]
    offsets = sorted({places[_at(f, len(places))] for f, _ in insertions}, reverse=True)
    changed = text
    for offset, (_, separator) in zip(offsets, insertions, strict=False):
        changed = changed[:offset] + separator + changed[offset:]
    before, after = parse(SourceFile("a", text)), parse(SourceFile("b", changed))
    assert after.diagnostics == []
    assert dump(after.module) == dump(before.module)
