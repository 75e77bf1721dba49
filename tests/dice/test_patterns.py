"""The patterns of a rule system's chat commands: reading them, and matching chat lines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lore.dice.patterns import PatternError, match_line, parse_pattern


@pytest.mark.parametrize(
    ("pattern", "word", "numbers"),
    [
        ("NJ{pool}(@{difficulty=1})?", "NJ7", (7, 1)),
        ("NJ{pool}(@{difficulty=1})?", "nj7@3", (7, 3)),
        ("NJ{pool}(@{difficulty=1})?", "NJ7@", None),
        ("NJ{pool}(@{difficulty=1})?", "NJ", None),
        ("ORM{dice}({+bonus})?(>={target})?", "ORM3+4>=10", (3, 4, 10)),
        ("ORM{dice}({+bonus})?(>={target})?", "orm2-1", (2, -1, 0)),
        ("ORM{dice}({+bonus})?(>={target})?", "ORM2>=9", (2, 0, 9)),
        ("ORM{dice}({+bonus})?(>={target})?", "ORM2+x", None),
        ("X{a}VS{b}", "x3vs4", (3, 4)),
        (r"C\({n}\)", "C(12)", (12,)),
        ("A({+m=-2})?", "A", (-2,)),
    ],
)
def test_a_pattern_matches_the_whole_word(
    pattern: str, word: str, numbers: tuple[int, ...] | None
) -> None:
    assert parse_pattern(pattern).match(word) == numbers


def test_a_line_is_its_first_word_and_s_makes_it_secret() -> None:
    pattern = parse_pattern("NJ{pool}")
    found = match_line(pattern, "  sNJ4 the guard's eyes")
    assert found is not None and (found.numbers, found.secret, found.command) == (
        (4,),
        True,
        "sNJ4",
    )
    plain = match_line(pattern, "NJ4")
    assert plain is not None and not plain.secret
    assert match_line(pattern, "NJ4x") is None
    # A pattern that itself begins with S is matched as written first.
    shout = parse_pattern("SH{n}")
    found = match_line(shout, "SH3")
    assert found is not None and not found.secret


@pytest.mark.parametrize(
    ("pattern", "column", "message"),
    [
        ("NJ{pool", 3, "'{' is not closed: write {name}"),
        ("{n}", 1, "a command's pattern needs a letter that is always typed"),
        ("(A)?{n}", 1, "a command's pattern needs a letter that is always typed"),
        ("A)b", 2, "')' closes no '('"),
        ("a(b)", 4, "a part in ( ) is one that may be left out: write ')?'"),
        ("a(b", 2, "'(' is not closed"),
        ("a b", 2, "a command's pattern is one word"),
        ("x{1a}", 2, "'{1a}' does not name a number"),
        ("x{a=b}", 2, "the default of 'a' must be a whole number, not 'b'"),
        ("x{a}{a}", 2, "the pattern names the number 'a' twice"),
        ("x\\q", 2, "'\\' is written before one of"),
        ("", 1, "a command's pattern is empty"),
        ("a()?", 2, "'()?' holds nothing"),
        ("a}", 2, "'}' stands alone"),
        ("A" * 201, 1, "a command's pattern has at most 200 characters"),
    ],
)
def test_mistakes_are_told_with_their_place(pattern: str, column: int, message: str) -> None:
    with pytest.raises(PatternError) as caught:
        parse_pattern(pattern)
    assert caught.value.column == column
    assert caught.value.message.startswith(message)


@given(st.text(alphabet="NJ{}()?\\@=+-0123456789ab ", max_size=30))
def test_any_text_is_read_or_refused_as_a_pattern(text: str) -> None:
    try:
        pattern = parse_pattern(text)
    except PatternError as error:
        assert 1 <= error.column <= max(len(text), 1)
        return
    # A pattern that is read matches text made of its literal parts and numbers.
    assert pattern.match("") is None


@given(st.integers(0, 10**9 - 1), st.integers(-(10**8), 10**8))
def test_numbers_come_back_as_written(pool: int, bonus: int) -> None:
    pattern = parse_pattern("NJ{pool}({+bonus})?")
    assert pattern.match(f"NJ{pool}{bonus:+d}") == (pool, bonus)
