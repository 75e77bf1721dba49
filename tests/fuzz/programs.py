"""The generative fuzzer: whole Lore programs drawn by hypothesis, mostly well typed, so
that they pass the checker and reach the compiler and the engine.

A program has a section with an enum, a form with an alter, an object of it, functions and
rules whose bodies are drawn statements (locals, messages, ``if``, ``select``, queries,
alter requests, events scheduled now or later, calls of other rules, ``foreach``), and an
event that starts it. Expressions are drawn by type, to a depth that sometimes passes the
checker's nesting limit, with long chains of one operator now and then; numbers are
sometimes extreme. Each program comes with answers for the GM's questions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

RELATIONS = ("<", "<=", "==", "!=", ">")
TYPES = ("integer", "real", "boolean", "string", "dice", "length", "list")
INTEGERS = st.one_of(
    st.integers(-20, 20),
    st.sampled_from((0, 1, 2**31, 2**63, 10**18, -(10**9), 99999999999)),
)
TEXTS = st.text(st.sampled_from("abcあい椎 \"'\\{}[];:@.\n\t\u3000%"), max_size=8).map(
    lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
)


@dataclass(frozen=True)
class Program:
    text: str
    answers: str  # JSON: the GM's answers, in order


@dataclass
class _Scope:
    """The locals a body may use, by type, and the rules and functions around it."""

    locals: dict[str, str]
    rules: int
    functions: int
    in_lambda: bool = False
    names: list[int] | None = None  # a counter shared by the scopes of a body

    def name(self, prefix: str) -> str:
        if self.names is None:
            self.names = [0]
        self.names[0] += 1
        return f"{prefix}{self.names[0]}"

    def block(self, in_lambda: bool | None = None) -> _Scope:
        """The scope of a block inside this one."""
        lam = self.in_lambda if in_lambda is None else in_lambda
        if self.names is None:
            self.names = [0]
        return _Scope(dict(self.locals), self.rules, self.functions, lam, self.names)


@st.composite
def expressions(draw: st.DrawFn, kind: str, scope: _Scope, depth: int) -> str:
    """An expression of type ``kind`` (it may be ill typed now and then)."""
    if depth <= 0 or draw(st.integers(0, 9)) < 3:
        return draw(_leaf(kind, scope))
    deeper = depth - 1
    sub = lambda k: expressions(k, scope, deeper)  # noqa: E731
    if draw(st.integers(0, 30)) == 0:
        return draw(_chain(kind, scope))
    if kind == "integer":
        return draw(
            st.one_of(
                st.tuples(sub("integer"), st.sampled_from("+-*/%"), sub("integer")).map(
                    lambda t: f"({t[0]} {t[1]} {t[2]})"
                ),
                sub("integer").map(lambda e: f"-({e})"),
                sub("real").map(lambda e: f"({e}).toInt"),
                sub("list").map(lambda e: f"({e}).length"),
                sub("list").map(lambda e: f"({e}).sum"),
                sub("dice").map(lambda e: f"({e}).roll"),
                sub("integer").map(lambda e: f"({e}).abs"),
                sub("length").map(lambda e: f"({e}).toInt"),
                *_calls(scope, sub),
            )
        )
    if kind == "real":
        return draw(
            st.one_of(
                st.tuples(sub("real"), st.sampled_from("+-*/"), sub("real")).map(
                    lambda t: f"({t[0]} {t[1]} {t[2]})"
                ),
                sub("integer").map(lambda e: f"({e}).toReal"),
            )
        )
    if kind == "boolean":
        return draw(
            st.one_of(
                st.tuples(
                    sub("integer"), st.sampled_from(("<", "<=", "==", "!=", ">")), sub("integer")
                ).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
                st.tuples(sub("boolean"), st.sampled_from("&|"), sub("boolean")).map(
                    lambda t: f"({t[0]} {t[1]} {t[2]})"
                ),
                sub("boolean").map(lambda e: f"!({e})"),
                st.tuples(sub("list"), sub("integer")).map(lambda t: f"({t[0]}).contains({t[1]})"),
                sub("list").map(lambda e: f"({e}).isEmpty"),
            )
        )
    if kind == "string":
        return draw(
            st.one_of(
                st.tuples(sub("string"), sub(draw(st.sampled_from(TYPES[:-1])))).map(
                    lambda t: f"({t[0]} + {t[1]})"
                ),
            )
        )
    if kind == "dice":
        return draw(
            st.one_of(
                st.tuples(sub("dice"), st.sampled_from("+-"), sub("dice")).map(
                    lambda t: f"({t[0]} {t[1]} {t[2]})"
                ),
                st.tuples(sub("dice"), sub("integer")).map(lambda t: f"({t[0]} + {t[1]})"),
                sub("integer").map(lambda e: f"({e})d6"),
            )
        )
    if kind == "length":
        return draw(
            st.one_of(
                st.tuples(sub("length"), st.sampled_from("+-"), sub("length")).map(
                    lambda t: f"({t[0]} {t[1]} {t[2]})"
                ),
                st.tuples(sub("length"), sub("integer")).map(lambda t: f"({t[0]} * {t[1]})"),
                sub("integer").map(lambda e: f"({e})[m]"),
            )
        )
    return draw(
        st.one_of(
            st.lists(sub("integer"), min_size=1, max_size=4).map(
                lambda items: "{" + ", ".join(items) + "}"
            ),
            st.tuples(sub("list"), sub("integer")).map(lambda t: f"({t[0]}).add({t[1]})"),
            sub("list").map(lambda e: f"({e}).filter(@(e : integer) e > 0)"),
            sub("list").map(lambda e: f"({e}).map(@(e : integer) e * 2)"),
            st.tuples(sub("list"), sub("list")).map(lambda t: f"({t[0]}).addAll({t[1]})"),
        )
    )


def _calls(
    scope: _Scope, sub: Callable[[str], st.SearchStrategy[str]]
) -> list[st.SearchStrategy[str]]:
    """Calls of the functions defined before (none in the first)."""
    if scope.functions == 0:
        return []
    return [
        st.integers(0, scope.functions - 1).flatmap(
            lambda i: sub("integer").map(lambda e: f"s.f{i}({e})")
        )
    ]


def _leaf(kind: str, scope: _Scope) -> st.SearchStrategy[str]:
    names = [name for name, type_ in scope.locals.items() if type_ == kind]
    literal: st.SearchStrategy[str] = {
        "integer": INTEGERS.map(str),
        "real": st.sampled_from(("0.5", "1.0", "0.0", "-2.5", "1e308", "3.14")),
        "boolean": st.sampled_from(("true", "false")),
        "string": TEXTS,
        "dice": st.sampled_from(("3D6", "d", "2d10", "1d1", "10000d6", "4d")),
        "length": st.sampled_from(("1[m]", "2[km]", "0[m]", "5[cm]")),
        "list": st.sampled_from(("{1, 2, 3}", "list<integer>.empty", "{0}")),
    }[kind]
    if names:
        return st.one_of(literal, st.sampled_from(names))
    return literal


@st.composite
def _chain(draw: st.DrawFn, kind: str, scope: _Scope) -> str:
    """A long chain of one operator (the compiler folds those)."""
    count = draw(st.sampled_from((17, 50, 210, 500)))
    if kind == "boolean":
        op = draw(st.sampled_from("&|"))
        return "(" + f" {op} ".join(draw(_leaf("boolean", scope)) for _ in range(count)) + ")"
    if kind == "string":
        return "(" + " + ".join(draw(_leaf("string", scope)) for _ in range(count)) + ")"
    if kind == "integer":
        ops = draw(st.lists(st.sampled_from("+-*"), min_size=count, max_size=count))
        terms = [draw(_leaf("integer", scope)) for _ in range(count + 1)]
        return (
            "("
            + terms[0]
            + "".join(f" {op} {term}" for op, term in zip(ops, terms[1:], strict=True))
            + ")"
        )
    return draw(_leaf(kind, scope))


@st.composite
def statements(draw: st.DrawFn, scope: _Scope, depth: int) -> list[str]:
    count = draw(st.integers(0, 4))
    found: list[str] = []
    for _ in range(count):
        found.append(draw(_statement(scope, depth)))
    return found


@st.composite
def _statement(draw: st.DrawFn, scope: _Scope, depth: int) -> str:
    expr_depth = draw(st.sampled_from((0, 1, 2, 3, 4, 6, 12, 45)))
    choice = draw(st.integers(0, 12 if depth > 0 else 7))
    if choice <= 1:
        kind = draw(st.sampled_from(TYPES))
        name = scope.name("v")
        value = draw(expressions(kind, scope, expr_depth))
        scope.locals[name] = kind
        return f"{name} = {value};"
    if choice == 2:
        kind = draw(st.sampled_from(TYPES[:-1]))  # a list is not joined to a text
        return f'GM.message("" + {draw(expressions(kind, scope, expr_depth))});'
    if choice == 3 and not scope.in_lambda:
        return f"s.counter.bump({draw(expressions('integer', scope, 2))});"
    if choice == 4:
        ticks = draw(
            st.sampled_from(
                (
                    "schedule.current",
                    "schedule.current + 1[sec]",
                    "schedule.current + 2[sec]",
                    "schedule.current + 1[min]",
                    "5[sec]",
                )
            )
        )
        priority = draw(st.integers(0, 2))
        rule = draw(st.integers(0, max(scope.rules - 1, 0)))
        return (
            f"schedule.add({{ ticks = {ticks}; priority = {priority}; "
            f"handler = @{{ s.r{rule}; }}; }}:Event);"
        )
    if choice == 5:
        return f"s.r{draw(st.integers(0, max(scope.rules - 1, 0)))};"
    if choice == 6:
        name = scope.name("q")
        scope.locals[name] = "answer"
        return (
            f'{name} = GM.query("pick", {{ pick = Choice.input; '
            f"n = integer.input(1,...,3, 2); }});\n"
            f'GM.message("picked " + {name}.n);'
        )
    if choice == 7:
        return f"GM.message({draw(expressions('string', scope, expr_depth))});"
    inner = scope.block()
    if choice in (8, 9):
        then = draw(statements(inner, depth - 1))
        otherwise = draw(statements(scope.block(), depth - 1))
        condition = draw(expressions("boolean", scope, expr_depth))
        return f"if ({condition}) {{ {' '.join(then)} }} else {{ {' '.join(otherwise)} }}"
    if choice == 10:
        subject = draw(expressions("integer", scope, 2))
        arms = " ".join(
            f"case({i}) {{ {' '.join(draw(statements(scope.block(), depth - 1)))} }}"
            for i in range(3)
        )
        return f"select({subject}) {{ {arms} default {{ }} }}"
    if choice == 12:  # blocks nested around one statement, near the checker's limit
        times = draw(st.sampled_from((5, 39, 40, 41, 99)))
        inner_statement = draw(_statement(inner, 0))
        opening = draw(st.sampled_from(("if (true) { ", "select(1) { case(1) { ")))
        closing = " }" if opening.startswith("if") else " } default { } }"
        return opening * times + inner_statement + closing * times
    lam = scope.block(in_lambda=True)
    lam.locals["e"] = "integer"
    body = " ".join(draw(statements(lam, depth - 1)))
    return f"({draw(expressions('list', scope, 2))}).foreach(@(e : integer) {{ {body} }});"


@st.composite
def programs(draw: st.DrawFn) -> Program:
    rules = draw(st.integers(1, 4))
    functions = draw(st.integers(0, 2))
    parts = [
        'import "basic.lore":url;',
        "section s {",
        ' enum Choice { one{ caption = "one"; } two{ caption = "two"; } }',
        " form Counter {",
        "  count : integer;",
        "  alter bump(amounts : list<integer>) { self.count = count + amounts.sum; }",
        " }",
        " counter = { count = 0; }:Counter;",
    ]
    for index in range(functions):
        scope = _Scope({"x": "integer"}, rules, index)
        body = " ".join(draw(statements(scope, 2)))
        value = draw(expressions("integer", scope, draw(st.integers(0, 5))))
        parts.append(f" function f{index}(x : integer) : integer {{ {body} result = {value}; }}")
    for index in range(rules):
        scope = _Scope({}, rules, functions)
        depth = draw(st.sampled_from((1, 2, 2, 3)))
        parts.append(f" rule r{index} {{ {' '.join(draw(statements(scope, depth)))} }}")
    parts.append(" start = { ticks = 0; priority = 0; handler = @{ s.r0; }; }:Event;")
    parts.append("}")
    answers = draw(
        st.lists(
            st.fixed_dictionaries(
                {"pick": st.sampled_from(("one", "two", "three")), "n": st.integers(0, 4)}
            ),
            max_size=6,
        )
    )
    return Program("\n".join(parts) + "\n", json.dumps({"GM": answers}))
