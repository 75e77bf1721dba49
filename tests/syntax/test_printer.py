"""The canonical formatter: it reads back to the same AST, is idempotent, keeps comments."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lore.syntax import ast
from lore.syntax.dump import dump
from lore.syntax.parser import ParseResult, parse, parse_text
from lore.syntax.printer import format_module
from lore.syntax.recursion import deeper
from lore.syntax.source import SourceFile, Span

ROOT = Path(__file__).resolve().parents[2]
_PROJECT_GLOBS = ("examples/**/*.lore", "src/lore/lib/*.lore", "tests/**/*.lore")


def assert_formats_cleanly(text: str) -> str:
    """Format ``text`` and check every guarantee of the formatter; return the output."""
    before = parse_text(text)
    assert before.ok, "\n".join(d.render() for d in before.diagnostics)
    formatted = format_module(before)
    after = parse_text(formatted, "<formatted>")
    assert not after.diagnostics, formatted + "\n".join(d.render() for d in after.diagnostics)
    with deeper():  # comparing deep trees recurses too
        assert dump(after.module) == dump(before.module), formatted
    assert [c.text for c in after.comments] == [c.text for c in before.comments], formatted
    for comment in after.comments:
        if not comment.is_block:
            assert formatted[comment.end : comment.end + 1] == "\n", formatted
    assert format_module(after) == formatted
    return formatted


def _format(text: str) -> str:
    result = parse_text(text)
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    return format_module(result)


# ---------------------------------------------------------------- one snippet per construct

SNIPPETS: dict[str, str] = {
    "header": """
docinfo{encoding="UTF-8",version="http://example.org/lore/1.0":url}
desc("題名"){"説明", "<b>more</b>":html}
author("作者"){"mailto:a@example.org":url,"a@example.org":jid}
author("nobody"){}
history("2024-01-02T03:04:05+09:00":date){reviser="作者";desc="作成";}
import "basic.lore":url;
import "other.lore":url;
section s{}
""",
    "header-later-in-file": """
x = 1;
import "late.lore":url;
""",
    "sections": """
section a.b.c { private x = 1; section inner { y = 2; } private section hidden {} }
section other {}
""",
    "modifiers": """
section s { private override p = 1; constant c = 2; override rule r {} private form F {} }
""",
    "variables": """
top = 1;
section vars { plain = 1; typed : integer = 2; listed : list<integer>= list<integer>.empty;
  field : string; desc : string; version = 3; }
""",
    "units": "[m] = 1.0; [km] = 1000[m]; [R] = 5[min]; section s { [m/s^2] = 9.8[m]; }",
    "enum": """
section s {
 enum Action extends Base { search{caption="探す";} move{caption="動く";} sleep; rest, run }
 enum Shared { caption : string; a{caption="a";} weight : integer = 0; b; }
 enum Empty {}
}
""",
    "form": """
section s {
 form PC extends rules.Actor {
  name : string;
  hp = 10;
  override private speed : real = 1.5;
  live(x : integer) : boolean { result = x > 0; }
  alive -> boolean { result = hp > 0; }
  dead : boolean { result = hp <= 0; }
  halved() -> integer { result = hp / 2; }
  rule act { self.choice; }
  function twice(n : integer) : integer { result = n * 2; }
  alter hurt(dmg : integer) { self.hp := hp - dmg; }
  enum Mood { calm; angry; }
  form Inner {}
  [hp] = 1;
 }
 form Empty {}
}
""",
    "rules-functions-alters": """
section s {
 rule main { GM.message("hi"); }
 rule noParams() {}
 rule withParams(a : integer, b, c : list<? extends Item>) { a; }
 function f(x : real) : real { result = x * x; }
 function g(x : real) -> real { result = x; }
 function h() : integer { result = 0; }
 alter moved(goals : list<loc>) { self.location := goals.get1st; location := 1; self.x = 2; }
}
""",
    "statements": """
section s {
 rule r(x : integer) {
  y = x + 1;
  self.z := y;
  result = y;
  GM.message("m");
  main;
  f();
  if (x > 0) { a; } else if (x < 0) { b; } else { c; }
  if (ok) { d; }
  function local(n : integer) -> integer { result = n; }
  rule inner { e; }
  form Pair { a : integer; }
  enum Side { left; right; }
  alter touched() { self.n := 1; }
  [shaku] = 0.303[m];
  select(x) { case(1) { one; } };
  {a = 1;}.a;
  for (item in items) { item.use; }
  for (i in 1,...,n + 1) { }
  count : integer = 3;
  fn : @<-> real> = @ -> real 1.0;
  (if (x > 0) a else b).go;
 }
}
""",
    "conditionals": """
section s {
 a = if (x) 1 else 2;
 b = (if (x) 1 else 2) + 3;
 c = if (x) if (y) 1 else 2 else 3;
 dd = if (x) 1 else if (y) 2 else 3;
 e = @(n : integer) if (n > 0) n else -n;
 f = (if (x) 1 else 2),...,(if (y) 5 else 6);
 g = {if (x) 1 else 2, 3};
 h = if (x) @(n : integer) n else @(n : integer) -n;
 i = -(if (x) 1 else 2);
}
""",
    "select": """
section s {
 rule r {
  select(item.kind) { case(Kind.a, Kind.b) { x; } case(0,...,5) { y; } default { z; } }
  select(actor) { as(pc : PC) { pc.choice; } as(n : rules.Npc) {} default {} }
  select(v) { default { only; } }
  select(v) {}
 }
 weight = select(name) { case("dagger") { result = 1; } default { result = 0; } };
 tail = select(x) { case(1) { result = 1; } }.value;
}
""",
    "lambdas": """
section s {
 block = @{ main; };
 empty = @{};
 params = @(actor : Actor, n) { actor.go(n); };
 none = @() { x; };
 colon = @(it : Item):boolean { result = it.ok; };
 arrow = @(x : real) -> real { result = x; };
 expr = @(x : real) x * 2;
 expr_result = @(x : real) : real x * 2;
 bare = @ x:real -> real x*x;
 bare_colon = @ n : integer : integer n + 1;
 bare_untyped = @ n : integer n + 1;
 bare_block = @ n : integer { result = n; };
 no_params_expr = @() 42;
 no_params_result = @() : integer 42;
 nested = @ x:real -> @<real->real> @ y:real -> real x + y;
 list_body = @(x) ({x, x});
 used = items.find1st(@(it : Item):boolean { result = it.name == name; });
 applied = (@(x) x + 1)(2);
}
""",
    "types": """
section s {
 scores : dict<string, integer>; deep : dict<rules.PC, list<dict<string, real>>>;
 nothing : @< -> real>; other : @<: integer>;
 a : number; b : integer; c : real; str : string; e : url; f : jid; g : html; h : xml;
 i : date; j : loc; k : dice; l : list<list<integer>>; m : list<? extends rules.PC>;
 n : range<integer>; o : unit[R]; p : @<(integer, real):boolean>; q : @<(PC)->real>;
 r : @<integer->real>; t : @<(PC)>; u : @<>; v : @<integer>; w : @<integer:real>;
 x : @<()->integer>; y : list<@<(integer)->list<integer>>>;
}
""",
    "type-values": """
section s {
 table = dict<string, integer>.empty;
 empty = list<Item>.empty;
 nested = list<list<integer>>.empty;
 rounds = unit[R].ceil(x);
 asked = integer.input;
 picked = unit[m].input((1,...,12), 6);
 bounded = unit[hour].input(min = 0, max = 24[hour], default = 8);
 ranged = range<integer>.of(1, 2);
 fn = @<(integer)->integer>.identity;
 bare = string;
}
""",
    "literals": r"""
section s {
 ints = {0, 42, 007, 0x1F, 0XFF, 123456789012345678901234567890};
 reals = {1.5, .5, 1., 1e3, 1e+3, 2.E-5, 2.5e-3, 0x1.8p3, 0x.8, 0x1p-2};
 bools = {true, false};
 strings = {"double", 'single', "", "\"q\" and 'q'", 'it\'s', "a\nb\tc\rd\\e\0f", "\u00e9"};
 long = {[[plain]], [=[with ]] inside]=], [[\n no escapes]], [[]]};
 multi = [==[
first line
 second ]=] line
]==]:html;
 kept = [[

two newlines]];
 typed = {"http://x":url, "/a":loc, "<a/>":xml, "<b/>":html, "a@b":jid, "s":string,
   "2024-01-01T00:00:00Z":date};
}
""",
    "dice": """
section s {
 lits = {3D6, 4d8, 4d, d6, D20, d, D, 0d6, 10d10};
 pool = count d6;
 sum = (1+2)d6;
 bare = (count)d;
 old = 2 D 6;
 old_sides = count D (1 + 5);
 old_name = 2 D sides;
 member = self.level d10;
 call = f(x)d6;
 with_unit = 2d6[m];
 neg = -3D6+2;
 minus = d6-2;
 chained = (x d)(1);
 twice = x d6 d8;
}
""",
    "operators": """
section s {
 sum = 1 + 2 - 3;
 product = 2 * 3 / 4 % 5;
 grouped = (1 + 2) * 3;
 right = a - (b - c);
 same = (a - b) - c;
 neg = -x;
 double_neg = - -x;
 neg_paren = -(-3);
 minus_neg = a - -b;
 not = !ok;
 not_not = !!ok;
 not_member = !self.alive.now;
 neg_member = (-x).abs;
 relations = {a == b, a != b, a < b, a > b, a <= b, a >= b};
 nested_relation = (a < b) == c;
 logic = a < b & c > d | e == f;
 and_or = a | b & c;
 or_in_and = (a | b) & c;
 units = -1[m] + 2[m];
 paren_unit = (0.5*3)[km];
 unit_of_neg = (-5)[m];
 chain = expressions.sample.struct_list_0(0).key.length > 0;
}
""",
    "ranges": """
section s {
 closed = 0,...,5;
 low_open = 0<...,5;
 high_open = 0[km],...<1[km];
 open = 0<...<1;
 computed = a + 1,...,b * 2;
 inside = vInt0.in(0,...,5);
 member = (0,...,5).size;
 reals = 1.,...,.5;
}
""",
    "lists-forms": """
section s {
 plain = {a, b, c};
 nested = {{1, 2}, {3}};
 event = { ticks = 0; priority = 0; handler = @{ main; }; }:Event;
 untyped = { x = 1; rule r { y; } };
 empty = {};
 empty_typed = {}:Event;
 qualified = { a = 1; }: rules.PCTrigger;
 of_forms = { {key = "k"; mode = Secret.Mode.hide;}:Secret, {key = "l";}:Secret };
 accessor_first = { get(x : integer) : integer { result = x; } };
 unit_first = { [m] = 1.0; };
 field_first = { name : string; };
 typed_member = ({ a = 1; }:T).a;
 in_call = schedule.add({ ticks = 1; }:Event);
}
""",
    "members-calls": """
section s {
 a = Secret.Mode.hide;
 b = x.type;
 c = choice.default;
 d_member = obj.list.range.select;
 e = obj.result.self.form;
 f = obj.true.if;
 g = table.d6;
 h = obj.docinfo.desc;
 i = 5.toReal;
 j = 1.5.toInt;
 k = (3).e5;
 l = (0x1F).a;
 m = f();
 n = f(a)(b)(c);
 o = "text":url.host;
 p = ("dungeon.xml":url).loadXML;
 q = true.not;
}
""",
    "unicode-names": 'section 注釈 { 名前 = "値"; form 冒険者 { 体力 : integer; } }',
    "comments": """// A line comment on its own line.
/* A block comment
   over several lines; // is just text in here */

docinfo{encoding="UTF-8", // after an entry
 version="1":url}

section 注釈 { // a comment after code
 /* before a definition */ x = 1; /* after it */
 y = /* inside an expression */ 2;
 z = f(a, // inside a call
       b);
 rule r(a : integer, // in the parameters
        b : integer) {
  if (a) { b; } // after the then block
  else { /* only a comment */ }
  items = {1, // after an element
          2 /* before a comma */, 3};
 }


 form F { /* empty but for this */ }
 v = 1; /* a */ /* b */ // c
 // the last line of a section
}
/**/
// the file ends with a comment
""",
    "sample-scenario": """
docinfo{encoding="UTF-8", version="http://example.org/lore/1.0":url}
desc("Tiny"){"A tiny scenario"}

// The library.
import "basic.lore":url;

section tiny.scenario{
 /*
 The first event: it applies the rule start at time 0.
 */
 first = {
  ticks = 0;
  priority = 0;
  handler=@{start;};
 }:Event;

 rule start{
  // Greet the table.
  GM.message("Welcome!");
  roll = 2d6 + bonus;
  select(roll){
   case(2,...,6){ GM.message("miss"); }
   default{ GM.message("hit"); }
  }
 }
}
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_formats_cleanly(name: str) -> None:
    assert_formats_cleanly(SNIPPETS[name])


def _node_kinds(value: object) -> set[str]:
    if isinstance(value, tuple):
        kinds = {value[0]} if value and isinstance(value[0], str) else set()
        return kinds.union(*(_node_kinds(item) for item in value))
    return set()


def test_the_snippets_cover_every_node_kind() -> None:
    covered: set[str] = set()
    for text in SNIPPETS.values():
        covered |= _node_kinds(dump(parse_text(text).module))
    every = {
        name
        for name, value in vars(ast).items()
        if isinstance(value, type) and issubclass(value, ast.Node) and value is not ast.Node
    }
    assert every - covered == set()


# ---------------------------------------------------------------- the project's own files


def _project_files() -> list[Path]:
    files = sorted({path for pattern in _PROJECT_GLOBS for path in ROOT.glob(pattern)})
    texts = [path for path in files if b"\0" not in path.read_bytes()]  # not the binary one
    return [path for path in texts if parse(_load(path)).ok]


def _load(path: Path) -> SourceFile:
    return SourceFile.from_path(path, path.relative_to(ROOT).as_posix())


@pytest.mark.parametrize(
    "path", _project_files(), ids=lambda path: path.relative_to(ROOT).as_posix()
)
def test_project_file_formats_cleanly(path: Path) -> None:
    assert_formats_cleanly(_load(path).text)


@pytest.mark.parametrize(
    "path",
    sorted([*ROOT.glob("examples/**/*.lore"), *ROOT.glob("src/lore/lib/*.lore")]),
    ids=lambda path: path.relative_to(ROOT).as_posix(),
)
def test_bundled_file_is_in_the_canonical_layout(path: Path) -> None:
    """What `lore fmt --check` checks: the examples and the library are shown to users."""
    source = _load(path)
    assert format_module(parse(source)) == source.text, f"run lore fmt --write {path.name}"


# ---------------------------------------------------------------- layout


GOLDEN_INPUT = """// The rules of a tiny game.
import "basic.lore":url;
section game{ // everything is here
 [R]=5[min];
 /* the hero */
 hero = {name="Aki"; hp=10;}:PC; // a form literal
 rule hit(target : PC, damage : integer){
  target.hp := target.hp-damage; // take damage
  if(target.hp<=0){ GM.message("down"); }
  else{ /* still standing */ }
 }
 total = {1,2,// three is next
  3};
}
"""

GOLDEN_OUTPUT = """// The rules of a tiny game.
import "basic.lore":url;

section game { // everything is here
    [R] = 5[min];
    /* the hero */
    hero = { name = "Aki"; hp = 10; }:PC; // a form literal

    rule hit(target : PC, damage : integer) {
        target.hp := target.hp - damage; // take damage
        if (target.hp <= 0) {
            GM.message("down");
        } else { /* still standing */
        }
    }

    total = {
        1,
        2, // three is next
        3
    };
}
"""


def test_golden_layout_with_comments() -> None:
    assert assert_formats_cleanly(GOLDEN_INPUT) == GOLDEN_OUTPUT


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("(1+2)*3", "(1 + 2) * 3"),
        ("1+(2*3)", "1 + (2 * 3)"),  # parentheses that clarify stay
        ("((1+2))*3", "(1 + 2) * 3"),
        ("a-(b-c)", "a - (b - c)"),
        ("(a-b)-c", "(a - b) - c"),
        ("a-b-c", "a - b - c"),
        ("(a<b)==c", "(a < b) == c"),
        ("a|(b&c)", "a | (b & c)"),
        ("a|b&c", "a | b & c"),
        ("a & (!b)", "a & (!b)"),
        ("(a|b)&c", "(a | b) & c"),
        ("- -x", "-(-x)"),
        ("-(-3)", "-(-3)"),
        ("a- -b", "a - -b"),
        ("-(x.y)", "-x.y"),
        ("(-x).y", "(-x).y"),
        ("(1+2)d6", "(1 + 2)d6"),
        ("(x)d6", "x d6"),
        ("f(x)d6", "f(x)d6"),
        ("(x d)(1)", "(x d)(1)"),
        ("2 D 6", "2 D"),
        ("2 D (1+5)", "2 D (1 + 5)"),
        ("(0,...,5).size", "(0,...,5).size"),
        ("0[km] ,...< 1[km]", "0[km],...<1[km]"),
        ("({a=1;}:T).a", "({ a = 1; }:T).a"),
        ("({a=1; rule r {}}:T).a", "({\n        a = 1;\n\n        rule r {}\n    }:T).a"),
        ("(@(x) x+1)(2)", "(@(x) x + 1)(2)"),
        ("@ x : real ({x})", "@x : real ({x})"),
        ("5 . toReal", "5.toReal"),
        ("(3).e5", "(3).e5"),
        ('"a" : url', '"a":url'),
        ("(5)[min]", "5[min]"),
        ("(-5)[min]", "(-5)[min]"),
    ],
)
def test_expression_layout(source: str, expected: str) -> None:
    formatted = assert_formats_cleanly(f"section s {{ v = {source}; }}")
    assert formatted == f"section s {{\n    v = {expected};\n}}\n"


def test_statements_starting_with_select_keep_parentheses() -> None:
    text = "rule r { (select(x) { default { y; } }).z; }"
    assert "    (select(x) {" in assert_formats_cleanly(text)


def test_blank_lines_are_kept_once_and_added_around_bodies() -> None:
    text = "section s {\n a = 1;\n\n\n b = 2;\n c = 3;\n rule r {}\n e = 4;\n}\nx = 1;\n"
    assert assert_formats_cleanly(text) == (
        "section s {\n    a = 1;\n\n    b = 2;\n    c = 3;\n\n    rule r {}\n\n"
        "    e = 4;\n}\n\nx = 1;\n"
    )


def test_an_empty_file_formats_to_nothing() -> None:
    assert _format("") == ""
    assert _format("  \n\n") == ""
    assert _format("// only a comment\n") == "// only a comment\n"


# ---------------------------------------------------------------- comments


def test_comment_after_an_opening_brace_stays_there() -> None:
    text = "section s { // here\n x = 1;\n}"
    assert _format(text) == "section s { // here\n    x = 1;\n}\n"


def test_comment_inside_an_expression_moves_to_the_end_of_its_line() -> None:
    text = "x = f(1, /* one */ 2, // two\n 3); // three\ny = 1;"
    assert _format(text) == "x = f(1, 2, 3); /* one */ // two\n// three\ny = 1;\n"
    assert_formats_cleanly(text)


def test_comments_in_a_rule_head_go_to_the_brace_line() -> None:
    text = "rule r(a : integer, // first\n b : integer) { x; }"
    assert _format(text) == "rule r(a : integer, b : integer) { // first\n    x;\n}\n"


def test_comment_between_then_and_else_goes_after_else() -> None:
    text = "rule r { if (a) { b; } // then\n else { c; } }"
    assert "} else { // then\n" in assert_formats_cleanly(text)


def test_comment_inside_an_empty_body_keeps_it_open() -> None:
    assert _format("form F { /* nothing */ }") == "form F { /* nothing */\n}\n"
    assert _format("form F {\n // nothing\n}") == "form F {\n    // nothing\n}\n"
    assert _format("rule r { x = @{ /* a */ }; }") == ("rule r {\n    x = @{ /* a */\n    };\n}\n")


def test_comments_in_lists_make_them_one_element_a_line() -> None:
    text = "x = {1, // one\n 2};\ny = {1, 2};"
    assert _format(text) == "x = {\n    1, // one\n    2\n};\ny = {1, 2};\n"


def test_multi_line_block_comments_are_kept_verbatim() -> None:
    text = "section s {\n  /* first\n     second */\n  x = 1;\n}"
    assert "    /* first\n     second */\n    x = 1;" in assert_formats_cleanly(text)


# ---------------------------------------------------------------- strings


def _string_module(value: str, delimiter: str) -> ast.Module:
    span = Span(0, 0)
    string = ast.StringLit(span, value, delimiter)
    return ast.Module(span, (), (ast.VarDef(span, "s", span, string),))


@pytest.mark.parametrize(
    ("value", "delimiter", "expected"),
    [
        ('say "hi"\n', '"', r'"say \"hi\"\n"'),
        ("it's \\ \t \r \0 \x01", "'", r"'it\'s \\ \t \r \0 \u0001'"),
        ("a]]", "[[", "[=[a]]]=]"),
        ("a]", "[[", "[=[a]]=]"),
        ("x]=]y", "[=[", "[==[x]=]y]==]"),
        ("\nstarts with a newline", "[[", "[[\n\nstarts with a newline]]"),
        ("two\nlines", "[=[", "[=[\ntwo\nlines]=]"),
        ("\r\n", "[[", "[[\n\r\n]]"),
    ],
)
def test_strings_read_back_to_their_value(value: str, delimiter: str, expected: str) -> None:
    module = _string_module(value, delimiter)
    formatted = format_module(ParseResult(module, [], [], None))
    assert formatted == f"s = {expected};\n"
    string = parse_text(formatted).module.body[0]
    assert isinstance(string, ast.VarDef)
    assert isinstance(string.value, ast.StringLit)
    assert string.value.value == value


def test_format_without_source_text() -> None:
    parsed = parse_text(SNIPPETS["sample-scenario"])
    bare = dataclasses.replace(parsed, comments=[], source=None)
    formatted = format_module(bare)
    assert "// The library." not in formatted
    assert dump(parse_text(formatted).module) == dump(parsed.module)


def test_short_literals_stay_on_one_line_and_long_ones_break() -> None:
    source = (
        "section s {\n"
        ' aki = {name = "Aki"; hp = 7;}:Hero;\n'
        ' big = {name = "A name that goes on and on and on"; note = "and on and on and on";'
        " hp = 7;}:Hero;\n"
        " xs = {1, 2, 3};\n"
        ' long = {"aaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb", "cccccccccccccccccccccccc",'
        ' "dddddddddddddddddddd"};\n'
        " ev = {ticks = 0; priority = 0; handler = @{ main; };}:Event;\n"
        "}\n"
    )
    assert assert_formats_cleanly(source) == (
        "section s {\n"
        '    aki = { name = "Aki"; hp = 7; }:Hero;\n'
        "    big = {\n"
        '        name = "A name that goes on and on and on";\n'
        '        note = "and on and on and on";\n'
        "        hp = 7;\n"
        "    }:Hero;\n"
        "    xs = {1, 2, 3};\n"
        "    long = {\n"
        '        "aaaaaaaaaaaaaaaaaaaa",\n'
        '        "bbbbbbbbbbbbbbbbbbbbbbbb",\n'
        '        "cccccccccccccccccccccccc",\n'
        '        "dddddddddddddddddddd"\n'
        "    };\n"
        "    ev = {\n"
        "        ticks = 0;\n"
        "        priority = 0;\n"
        "        handler = @{\n"
        "            main;\n"
        "        };\n"
        "    }:Event;\n"
        "}\n"
    )


def test_a_long_line_breaks_before_its_loosest_operators_outside_brackets() -> None:
    name = "a_name_long_enough_to_fill"
    terms = " + ".join(f"{name}{n}" for n in range(2))
    source = (
        "section s {\n"
        " rule r {\n"
        f'  GM.message(t + "x" + ({terms}) + count(a + b, c) + "y" + {name} + {name}0);\n'
        f"  ok = {name} == 1 & {name}0 < 2 | {name}1 > 3 & {name}2 != 4;\n"
        f'  w = if ({name} > 0) "{name}" else if ({name} < 0) "{name}" else "0";\n'
        "  z = a + b;\n"
        " }\n"
        "}\n"
    )
    assert assert_formats_cleanly(source) == (
        "section s {\n"
        "    rule r {\n"
        f'        GM.message(t + "x" + ({terms})\n'
        f'            + count(a + b, c) + "y" + {name} + {name}0);\n'
        f"        ok = {name} == 1 & {name}0 < 2\n"
        f"            | {name}1 > 3 & {name}2 != 4;\n"
        f'        w = if ({name} > 0) "{name}"\n'
        f'            else if ({name} < 0) "{name}"\n'
        '            else "0";\n'
        "        z = a + b;\n"
        "    }\n"
        "}\n"
    )


def test_a_long_line_beside_a_body_keeps_its_line() -> None:
    """Broken, the line's parts would stand at the indentation of the lambda's body."""
    long = " + ".join(["a_name_long_enough_to_fill"] * 4)
    call = f"GM.message({long} + xs.all(@(x) {{ result = x; }}));"
    source = f"section s {{\n rule r {{\n  {call}\n }}\n}}\n"
    formatted = assert_formats_cleanly(source)
    assert f"        GM.message({long} + xs.all(@(x) {{\n" in formatted
