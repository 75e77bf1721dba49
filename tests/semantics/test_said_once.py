"""A mistake is said once, where it is: the checker reads on as the author meant, so
that nothing after it fails because of it (issue: diagnostics that cascaded)."""

from __future__ import annotations

from lore.semantics.check import check_text
from lore.syntax.source import Position


def said(text: str) -> list[tuple[str, int]]:
    result = check_text(text, "said.lore")
    return [(d.code, d.source.position(d.span.start).line) for d in result.diagnostics]


def test_a_parameter_named_d_is_said_once_and_its_uses_read_it() -> None:
    text = """\
section s {
 function bonus(d : integer) : integer { result = d + 1; }
 rule main { GM.message("" + bonus(2)); }
}
"""
    assert said(text) == [("parse.dice-name", 2)]


def test_a_local_named_d_is_said_once() -> None:
    text = 'section s {\n rule main {\n  d = 3;\n  GM.message("" + (d + 1));\n }\n}\n'
    assert said(text) == [("parse.dice-name", 3)]


def test_a_list_in_a_conditional_is_said_once_with_the_parentheses_that_work() -> None:
    text = """\
section s {
 rule main {
  a = true;
  xs = if (a) {1, 2} else {3};
  GM.message("" + xs);
  ys = if (a) ({1, 2}) else ({3});
  GM.message("" + ys);
 }
}
"""
    result = check_text(text, "said.lore")
    assert [d.code for d in result.diagnostics] == ["parse.conditional-block"]
    assert "if (c) ({a, b}) else ({c})" in (result.diagnostics[0].hint or "")


def test_a_pattern_sign_escaped_once_is_blamed_on_the_escape() -> None:
    text = """\
section s {
 wrong = {
  pattern = "X\\(1\\)";
  help = "X(1)";
  handler = @(n : list<integer>) : Roll { result = GM.roll(2d6); };
 }:Command;
 right = {
  pattern = "Y\\\\(1\\\\)";
  help = "Y(1)";
  handler = @(n : list<integer>) : Roll { result = GM.roll(2d6); };
 }:Command;
}
"""
    result = check_text(text, "said.lore")
    places = [(d.code, d.source.position(d.span.start)) for d in result.diagnostics]
    assert places == [("lex.bad-escape", Position(3, 15)), ("lex.bad-escape", Position(3, 18))]
    assert 'two backslashes in a string: "\\\\("' in (result.diagnostics[0].hint or "")


def test_soft_keywords_are_enum_values() -> None:
    text = """\
section s {
 enum Topic { history, rumor, desc, author }
 rule main { GM.message("" + Topic.history + Topic.desc); }
}
"""
    assert said(text) == []


def test_a_field_named_d_is_said_once_and_its_objects_still_read() -> None:
    text = """\
section s {
 form C { d : integer; }
 rule main { cs = {{ d = 1; }:C}; GM.message("" + cs.get1st.d); }
}
"""
    assert said(text) == [("parse.dice-name", 2)]


def test_every_key_of_sort_by_must_be_orderable() -> None:
    text = """\
section s {
 form C { n : integer; tags : list<string>; }
 rule main {
  cs = {{ n = 1; tags = {"a"}; }:C};
  GM.message("" + cs.sortBy(@(c) c.n, @(c) c.tags).length);
 }
}
"""
    assert said(text) == [("check.builtin-argument", 5)]
