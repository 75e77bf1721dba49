"""The list library, ranges read as lists, min/max and texts, as rules run them."""

from __future__ import annotations

import pytest

from lore.engine.session import Limits
from tests.runtime.programs import gm_messages, say_each

# (expression, what the GM reads)
CASES = [
    ("{1, 2, 3}.last", "3"),
    ("{1, 2, 3, 4}.slice(1, 3)", "{2, 3}"),
    ("{1, 2, 3}.slice(-5, 10)", "{1, 2, 3}"),
    ("{1, 2, 3}.slice(2, 1)", "{}"),
    ("{1, 2, 3}.take(2)", "{1, 2}"),
    ("{1, 2, 3}.take(9)", "{1, 2, 3}"),
    ("{1, 2, 3}.drop(2)", "{3}"),
    ("{1, 2, 3}.count(@(x : integer) x > 1)", "2"),
    ("{5, 6, 5}.indexOf(5)", "0"),
    ("{5, 6}.indexOf(7)", "-1"),
    ("{1, 2}.insertAt(0, 9)", "{9, 1, 2}"),
    ("{1, 2}.insertAt(2, 9)", "{1, 2, 9}"),
    ("{1, 2, 3}.removeAt(1)", "{1, 3}"),
    ("{1, 2, 1}.removeFirst(1)", "{2, 1}"),
    ("{1, 2, 1}.removeFirst(5)", "{1, 2, 1}"),
    ("{1, 2, 1}.remove(1)", "{2}"),
    ("{1, 2, 3}.reverse", "{3, 2, 1}"),
    ("{aki, ren, mio}.sortBy(@(h : Hero) h.hp).map(@(h : Hero) h.name)", "{Ren, Aki, Mio}"),
    ("{aki, ren, mio}.sortBy(@(h : Hero) -h.hp).map(@(h : Hero) h.name)", "{Aki, Mio, Ren}"),
    ("{aki, ren, mio}.sortBy(@(h : Hero) h.name).map(@(h : Hero) h.name)", "{Aki, Mio, Ren}"),
    # Several keys: by hp, then by name among equal hp (Aki and Mio have 7).
    ("{mio, ren, aki}.sortBy(@(h) h.hp, @(h) h.name).map(@(h) h.name)", "{Ren, Aki, Mio}"),
    ("{mio, ren, aki}.sortBy(@(h) h.hp).map(@(h) h.name)", "{Ren, Mio, Aki}"),  # stable
    ("{aki, ren, mio}.sortByDescending(@(h) h.hp).map(@(h) h.name)", "{Aki, Mio, Ren}"),
    (
        "{ren, mio, aki}.sortByDescending(@(h) h.hp, @(h) h.name).map(@(h) h.name)",
        "{Mio, Aki, Ren}",
    ),
    ("{aki, ren, mio}.distinctBy(@(h) h.hp).map(@(h) h.name)", "{Aki, Ren}"),
    ('{"ab", "b", "ac", "c"}.distinctBy(@(t : string) t.length)', "{ab, b}"),
    ("{3, 1, 2}.sort", "{1, 2, 3}"),
    ("{3, 1, 2}.min", "1"),
    ("{3, 1, 2}.max", "3"),
    ('{"b", "a"}.min', "a"),
    ("{aki, ren, mio}.maxBy(@(h : Hero) h.hp).name", "Aki"),
    ("{aki, ren, mio}.minBy(@(h : Hero) h.hp).name", "Ren"),
    ("{1, 2}.any(@(x : integer) x > 1)", "true"),
    ("{1, 2}.all(@(x : integer) x > 1)", "false"),
    ('{1, 2, 3}.zip({"a", "b"}).map(@(p) p.second + p.first)', "{a1, b2}"),
    ("{{1, 2}, {3}}.flatten", "{1, 2, 3}"),
    ("{1, 2, 1, 3, 2}.distinct", "{1, 2, 3}"),
    ('{1, 2, 3}.join(", ")', "1, 2, 3"),
    ('{"a", "b"}.sum', "ab"),
    ('"list " + {1, 2}', "list {1, 2}"),
    ("{1[m], 2[m]}.sum", "3[m]"),
    ("(1,...,4).toList", "{1, 2, 3, 4}"),
    ("(1<...<4).toList", "{2, 3}"),
    ("(1,...,3).map(@(i : integer) i * i)", "{1, 4, 9}"),
    ("(1,...,10).filter(@(i : integer) i % 3 == 0)", "{3, 6, 9}"),
    ("(1,...,6).length", "6"),
    ("(3,...,1).length", "0"),
    ("min(3, 1, 2)", "1"),
    ("max(1, 2.5)", "2.5"),
    ("min(2[m], 1[km])", "2[m]"),
    ('max("a", "b")', "b"),
    ('"hello".slice(1, 3)', "el"),
    ('"hello".take(2)', "he"),
    ('"hello".drop(3)', "lo"),
    ('"a,b".split(",")', "{a, b}"),
    ('" x ".trim', "x"),
    ('"aXbX".replace("X", "-")', "a-b-"),
    ('"hello".indexOf("l")', "2"),
    ('"hello".startsWith("he")', "true"),
    ('"hello".endsWith("he")', "false"),
    ('{aki, ren}.toDict(@(h : Hero) h.name).get("Ren").hp', "3"),
]


def test_every_member_gives_what_the_reference_says() -> None:
    told = gm_messages(say_each(*(expression for expression, _ in CASES)))
    expected = [f"{n}: {shown}" for n, (_, shown) in enumerate(CASES)]
    assert told == expected


def test_shuffle_and_pick_use_the_sessions_dice() -> None:
    program = say_each("{1, 2, 3, 4, 5, 6, 7, 8}.shuffle", "{1, 2, 3}.pick", "(1,...,6).pick")
    first = gm_messages(program, seed=3)
    assert first == gm_messages(program, seed=3)  # the same seed, the same draws
    shuffled = first[0].removeprefix("0: ").strip("{}").split(", ")
    assert sorted(shuffled, key=int) == [str(n) for n in range(1, 9)]
    others = {tuple(gm_messages(program, seed=seed)) for seed in range(8)}
    assert len(others) > 1  # and other seeds draw otherwise


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ("list<integer>.empty.last", "the list is empty: it has no last element"),
        ("list<integer>.empty.pick", "the list is empty: there is nothing to pick"),
        ("list<integer>.empty.max", "the list is empty: it has no largest element"),
        ("{1}.removeAt(1)", "index 1 is outside the list (it has 1 element)"),
        ("{1}.insertAt(3, 2)", "cannot insert at index 3: the list has 1 element"),
        ("(1<...<2).pick", "the range 1<...<2 is empty: there is nothing to pick"),
        ('"a".split("")', "the separator of split is empty"),
    ],
)
def test_a_member_that_cannot_give_a_value_stops_the_rule(expression: str, error: str) -> None:
    assert gm_messages(say_each(expression)) == [f"error: {error}"]


QUADRATIC = """\
import "basic.lore":url;
section t {
 go = { ticks = 0; priority = 0; handler = @{
  xs = (1,...,65536).toList;
  kept = xs.filter(@(x : integer) xs.contains(x));
  GM.message("kept " + kept.length);
 }; }:Event;
}
"""


def test_quadratic_list_work_is_stopped_by_the_operations_limit() -> None:
    # Each contains compares 65,536 elements: the work is counted by its size, so the
    # handler passes the limit after a few hundred steps, not 4 * 10^9 comparisons.
    assert gm_messages(QUADRATIC) == [
        "error: one handler ran more than 1000000 rule calls, list steps and dice"
    ]


def test_small_list_work_stays_within_the_limit() -> None:
    program = QUADRATIC.replace("65536", "300")
    assert gm_messages(program, Limits(max_ops=100_000)) == ["kept 300"]


TEXTS = """\
import "basic.lore":url;
section t {
 function doubled(xs : list<string>, n : integer) : list<string> {
  if (n == 0) { result = xs; } else { result = doubled(xs.addAll(xs), n - 1); }
 }
 go = { ticks = 0; priority = 0; handler = @{
  ten = "0123456789";
  words = doubled({ten + ten + ten + ten + ten + ten + ten + ten + ten + ten}, 17);
  GM.message("words " + words.length);
  GM.message("text " + words.sum.length);
 }; }:Event;
 again = { ticks = 1; priority = 0; handler = @{
  GM.message("joined " + doubled({"01234567890123456789"}, 19).join("-").length);
 }; }:Event;
}
"""


def test_summing_or_joining_texts_respects_the_text_limit() -> None:
    told = gm_messages(TEXTS)
    assert told == [
        "words 131072",
        "error: a text of more than 10000000 characters",
        "error: a text of more than 10000000 characters",
    ]
