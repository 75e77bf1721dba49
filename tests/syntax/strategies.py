"""Hypothesis strategies for random, valid Lore ASTs (every span is ``Span(0, 0)``).

The trees are shaped as the parser builds them: names are identifiers that are neither
keywords nor dice words, literal texts match their values, dice words match their sides,
lambdas and function types use only the spellings the parser records, and each kind of
definition appears only where the grammar allows it. ``depth`` bounds the nesting.
"""

from __future__ import annotations

import re
from functools import cache

from hypothesis import strategies as st

from lore.syntax import ast
from lore.syntax.lexer import tokenize
from lore.syntax.source import SourceFile, Span
from lore.syntax.tokens import KEYWORDS, STRING_TYPES, TYPE_KEYWORDS

SPAN = Span(0, 0)
_SPAN = st.just(SPAN)
_DICE_WORD = re.compile(r"[dD][0-9]*")

_FIRST = "abcxyzAQR_dD狐注"
_REST = "abcxyz019_dD"


def _is_name(text: str) -> bool:
    return text not in KEYWORDS and _DICE_WORD.fullmatch(text) is None


names = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from(_FIRST),
    st.text(_REST, max_size=4),
).filter(_is_name)

units = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("mRkgs"),
    st.text("ms/^2ec", max_size=3),
)

modifiers = st.lists(
    st.sampled_from(("private", "override", "constant")), unique=True, max_size=2
).map(tuple)

# ---------------------------------------------------------------- types


@cache
def types(depth: int = 2) -> st.SearchStrategy[ast.TypeExpr]:
    leaves = st.one_of(
        st.builds(ast.NamedType, _SPAN, st.sampled_from(sorted(TYPE_KEYWORDS)).map(lambda k: (k,))),
        st.builds(ast.NamedType, _SPAN, st.lists(names, min_size=1, max_size=3).map(tuple)),
        st.builds(ast.UnitType, _SPAN, units),
        st.just(ast.FunctionType(SPAN, (), None)),
    )
    if depth == 0:
        return leaves
    return st.one_of(leaves, _composite_types(types(depth - 1)))


def _composite_types(inner: st.SearchStrategy[ast.TypeExpr]) -> st.SearchStrategy[ast.TypeExpr]:
    results = st.one_of(st.none(), inner)
    parenthesized = st.builds(
        lambda params, result, arrow: ast.FunctionType(
            SPAN, params, result, arrow or result is None, True
        ),
        st.lists(inner, min_size=1, max_size=2).map(tuple),
        results,
        st.booleans(),
    )
    single = st.builds(
        lambda param, result, arrow: ast.FunctionType(
            SPAN, (param,), result, arrow or result is None, False
        ),
        inner,
        results,
        st.booleans(),
    )
    given = st.builds(
        lambda result, arrow: ast.FunctionType(SPAN, (), result, arrow, False), inner, st.booleans()
    )  # @<-> real>
    return st.one_of(
        st.builds(ast.ListType, _SPAN, inner, st.booleans()),
        st.builds(ast.RangeType, _SPAN, inner),
        st.builds(ast.DictType, _SPAN, inner, inner),
        parenthesized,
        single,
        given,
    )


def _is_type_value(t: ast.TypeExpr) -> bool:
    """Types that can stand as a value: all but user names (those are plain names)."""
    return not isinstance(t, ast.NamedType) or t.parts[0] in TYPE_KEYWORDS


# ---------------------------------------------------------------- literals


def _int_lit(text: str) -> ast.IntLit:
    value = int(text[2:], 16) if text[:2] in ("0x", "0X") else int(text)
    return ast.IntLit(SPAN, value, text)


def _real_lit(text: str) -> ast.RealLit:
    value = float.fromhex(text) if text[:2] in ("0x", "0X") else float(text)
    return ast.RealLit(SPAN, value, text)


def _dice_lit(count: str, letter: str, sides: str) -> ast.DiceLit:
    text = count + letter + sides
    return ast.DiceLit(SPAN, int(count) if count else 1, int(sides) if sides else 6, text)


def _long_string_ok(value: str, opener: str) -> bool:
    closer = opener.replace("[", "]")
    return (value + closer).find(closer) == len(value)


_digits = st.text("0123456789", min_size=1, max_size=3)
int_lits = st.one_of(
    _digits.map(_int_lit),
    st.builds(
        lambda x, d: _int_lit(x + d),
        st.sampled_from(("0x", "0X")),
        st.text("09afAF", min_size=1, max_size=3),
    ),
)
real_lits = st.one_of(
    st.builds(lambda a, b: f"{a}.{b}", _digits, _digits),
    _digits.map(lambda b: f".{b}"),
    _digits.map(lambda a: f"{a}."),
    st.builds(
        lambda a, e, x: f"{a}{e}{x}",
        _digits,
        st.sampled_from(("e", "E+", ".e-")),
        st.text("0123", min_size=1, max_size=2),
    ),
    st.sampled_from(("0x1.8p3", "0x.8", "0x1p-2", "0X1F.")),
).map(_real_lit)
dice_lits = st.builds(
    _dice_lit, st.text("0123", max_size=2), st.sampled_from("dD"), st.text("0126", max_size=2)
)
_quoted_strings = st.builds(
    ast.StringLit,
    _SPAN,
    st.text(st.characters(codec="utf-8"), max_size=8),
    st.sampled_from(('"', "'")),
)
_long_strings = st.builds(
    lambda value, opener: ast.StringLit(SPAN, value, opener),
    st.text(st.sampled_from("ab]=[\n\r\"' 狐"), max_size=8),
    st.sampled_from(("[[", "[=[", "[==[")),
).filter(lambda s: _long_string_ok(s.value, s.delimiter))
string_lits = st.builds(
    lambda s, kind: ast.StringLit(SPAN, s.value, s.delimiter, kind, None if kind is None else SPAN),
    st.one_of(_quoted_strings, _long_strings),
    st.one_of(st.none(), st.sampled_from(sorted(STRING_TYPES | {"string"}))),
)
name_exprs = st.builds(ast.Name, _SPAN, st.one_of(names, st.sampled_from(("self", "result"))))
leaf_exprs: st.SearchStrategy[ast.Expr] = st.one_of(
    int_lits,
    real_lits,
    st.builds(ast.BoolLit, _SPAN, st.booleans()),
    string_lits,
    dice_lits,
    name_exprs,
    name_exprs,
    types(1).filter(_is_type_value).map(lambda t: ast.TypeValue(SPAN, t)),
)
member_names = st.one_of(names, st.sampled_from(("type", "default", "list", "d6", "e5", "3d6")))

# ---------------------------------------------------------------- expressions


@cache
def expressions(depth: int = 3) -> st.SearchStrategy[ast.Expr]:
    if depth == 0:
        return leaf_exprs
    inner = expressions(depth - 1)
    return st.one_of(leaf_exprs, _operations(inner), _bodies(depth - 1))


def _operations(inner: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Member, _SPAN, inner, member_names, _SPAN),
        st.builds(ast.Call, _SPAN, inner, st.lists(inner, max_size=2).map(tuple)),
        st.builds(ast.Unary, _SPAN, st.sampled_from("-!"), inner),
        st.builds(ast.Binary, _SPAN, st.sampled_from(sorted(_BINARY_OPS)), inner, inner),
        st.builds(ast.RangeExpr, _SPAN, inner, inner, st.booleans(), st.booleans()),
        st.builds(ast.WithUnit, _SPAN, inner, units),
        _dice_of(inner),
        st.builds(ast.ListLit, _SPAN, st.lists(inner, min_size=1, max_size=3).map(tuple)),
        st.builds(ast.Conditional, _SPAN, inner, inner, inner),
    )


_BINARY_OPS = frozenset("| & == != < > <= >= + - * / %".split())


def _dice_of(inner: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    def build(count: ast.Expr, letter: str, sides: str, computed: ast.Expr | None) -> ast.DiceOf:
        if sides:
            return ast.DiceOf(SPAN, count, _int_lit(sides), letter + sides)
        return ast.DiceOf(SPAN, count, computed or _int_lit("6"), letter)

    return st.builds(
        build, inner, st.sampled_from("dD"), st.text("0126", max_size=2), st.none() | inner
    )


def _bodies(depth: int) -> st.SearchStrategy[ast.Expr]:
    """Expressions with bodies: form literals, lambdas, selects."""
    return st.one_of(
        st.builds(ast.FormLit, _SPAN, member_lists(depth, "form"), st.none() | types(1)),
        lambdas(depth),
        selects(depth),
    )


def lambdas(depth: int) -> st.SearchStrategy[ast.Expr]:
    body = st.one_of(blocks(depth), expressions(depth))
    result = st.none() | types(1)

    def build(
        params: tuple[ast.Param, ...],
        result: ast.TypeExpr | None,
        arrow: bool,
        body: ast.Block | ast.Expr,
        parenthesized: bool,
    ) -> ast.Lambda:
        if not parenthesized and len(params) == 1 and params[0].type is not None:
            return ast.Lambda(SPAN, params, result, body, False, arrow and result is not None)
        if not parenthesized and not params and result is not None:
            return ast.Lambda(SPAN, params, result, body, False, arrow)  # @ -> real 1.0
        return ast.Lambda(SPAN, params, result, body, True, arrow and result is not None)

    return st.builds(build, param_lists(), result, st.booleans(), body, st.booleans())


def param_lists(max_size: int = 2) -> st.SearchStrategy[tuple[ast.Param, ...]]:
    param = st.builds(ast.Param, _SPAN, names, st.none() | types(1))
    # Names of their own: a name twice in one list is an error of the parser.
    return st.lists(param, max_size=max_size, unique_by=lambda p: p.name).map(tuple)


def selects(depth: int) -> st.SearchStrategy[ast.Expr]:
    inner = expressions(depth)
    block = blocks(depth)
    case = st.builds(ast.CaseArm, _SPAN, st.lists(inner, min_size=1, max_size=2).map(tuple), block)
    as_ = st.builds(ast.AsArm, _SPAN, names, _SPAN, types(1), block)
    arms = st.one_of(st.lists(case, max_size=2), st.lists(as_, max_size=2)).map(tuple)
    return st.builds(ast.Select, _SPAN, inner, arms, st.none() | block)


# ---------------------------------------------------------------- statements


@cache
def blocks(depth: int) -> st.SearchStrategy[ast.Block]:
    return st.builds(ast.Block, _SPAN, st.lists(statements(depth), max_size=3).map(tuple))


@cache
def statements(depth: int) -> st.SearchStrategy[ast.Statement]:
    inner = expressions(min(depth, 2))
    target = st.one_of(name_exprs, st.builds(ast.Member, _SPAN, inner, member_names, _SPAN))
    simple = st.one_of(
        st.builds(ast.Assign, _SPAN, target, inner),
        st.builds(ast.Modify, _SPAN, target, inner),
        st.builds(ast.ExprStmt, _SPAN, inner),
    )
    if depth == 0:
        return simple
    block = blocks(depth - 1)
    otherwise = st.one_of(st.none(), block, st.builds(ast.If, _SPAN, inner, block, st.none()))
    return st.one_of(
        simple,
        st.builds(ast.If, _SPAN, inner, block, otherwise),
        st.builds(ast.For, _SPAN, names, _SPAN, inner, block),
        st.builds(ast.TypedLocal, _SPAN, names, _SPAN, types(1), inner),
        st.builds(ast.ExprStmt, _SPAN, selects(depth - 1)),
        st.builds(ast.LocalDef, _SPAN, definitions(depth - 1, "local")),
    )


# ---------------------------------------------------------------- definitions


@cache
def definitions(depth: int, context: str) -> st.SearchStrategy[ast.Definition]:
    """Definitions for a ``context``: "section" (or the top level), "form" or "local"."""
    mods = st.just(()) if context == "local" else modifiers
    value = expressions(min(depth, 2))
    simple = st.one_of(
        st.builds(ast.UnitDef, _SPAN, units, value, mods),
        st.builds(ast.RuleDef, _SPAN, names, _SPAN, st.none() | param_lists(), blocks(0), mods),
    )
    if context != "local":
        simple = st.one_of(
            simple,
            st.builds(ast.VarDef, _SPAN, names, _SPAN, value, mods, st.none() | types(1)),
            st.builds(ast.FieldDecl, _SPAN, names, _SPAN, types(1), mods),
        )
    if depth == 0:
        return simple
    return st.one_of(simple, _bodied_definitions(depth, context, mods))


def _bodied_definitions(
    depth: int, context: str, mods: st.SearchStrategy[tuple[str, ...]]
) -> st.SearchStrategy[ast.Definition]:
    block = blocks(depth - 1)
    members = member_lists(depth - 1, "form")
    extends = st.none() | types(1)
    values = st.lists(
        st.builds(ast.EnumValue, _SPAN, names, st.just(()) | members), max_size=3
    ).map(tuple)
    choices: list[st.SearchStrategy[ast.Definition]] = [
        st.builds(ast.FormDef, _SPAN, names, _SPAN, extends, members, mods),
        st.builds(ast.EnumDef, _SPAN, names, _SPAN, extends, values, members, mods),
        st.builds(ast.RuleDef, _SPAN, names, _SPAN, st.none() | param_lists(), block, mods),
        st.builds(
            ast.FunctionDef,
            _SPAN,
            names,
            _SPAN,
            param_lists(),
            types(1),
            block,
            mods,
            st.booleans(),
        ),
        st.builds(ast.AlterDef, _SPAN, names, _SPAN, param_lists(), block, mods),
    ]
    if context != "local":
        choices.append(
            st.builds(
                ast.AccessorDef,
                _SPAN,
                names,
                _SPAN,
                st.none() | param_lists(),
                types(1),
                block,
                mods,
                st.booleans(),
            )
        )
    if context == "section":
        path = st.lists(names, min_size=1, max_size=3).map(tuple)
        choices.append(
            st.builds(ast.SectionDef, _SPAN, path, member_lists(depth - 1, "section"), mods)
        )
    return st.one_of(choices)


def member_lists(depth: int, context: str) -> st.SearchStrategy[tuple[ast.Definition, ...]]:
    return st.lists(definitions(depth, context), max_size=3).map(tuple)


# ---------------------------------------------------------------- documents


def headers() -> st.SearchStrategy[ast.Header]:
    value = expressions(1)
    entries = st.lists(st.builds(ast.Entry, _SPAN, names, value), max_size=2).map(tuple)
    listed = st.lists(value, max_size=2).map(tuple)
    return st.one_of(
        st.builds(ast.DocInfo, _SPAN, entries),
        st.builds(ast.Desc, _SPAN, value, listed),
        st.builds(ast.Author, _SPAN, value, listed),
        st.builds(ast.History, _SPAN, value, entries),
        st.builds(ast.Import, _SPAN, value),
    )


def modules(depth: int = 2) -> st.SearchStrategy[ast.Module]:
    return st.builds(
        ast.Module,
        _SPAN,
        st.lists(headers(), max_size=3).map(tuple),
        member_lists(depth, "section"),
    )


# ---------------------------------------------------------------- comments

_COMMENT_SHAPES = (
    " // c{n}\n",
    " /* c{n} */ ",
    "/*c{n}*/",
    "\n/* c{n}\n   more */\n",
    "\n\n// c{n}\n\n",
    " //\n",
    " /**/ ",
)


def with_comments(text: str, max_comments: int = 8) -> st.SearchStrategy[str]:
    """``text`` with comments of all shapes put between its tokens, at random."""
    tokens = tokenize(SourceFile("<generated>", text)).tokens
    gaps = sorted({0, *(token.end for token in tokens[:-1])})
    insert = st.tuples(st.sampled_from(gaps), st.sampled_from(_COMMENT_SHAPES))
    return st.lists(insert, max_size=max_comments).map(lambda inserts: _insert(text, inserts))


def _insert(text: str, inserts: list[tuple[int, str]]) -> str:
    pieces: list[str] = []
    previous = 0
    for number, (offset, shape) in enumerate(sorted(inserts, key=lambda insert: insert[0])):
        pieces += [text[previous:offset], shape.format(n=number)]
        previous = offset
    return "".join(pieces) + text[previous:]
