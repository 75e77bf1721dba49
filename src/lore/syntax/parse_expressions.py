"""Parsing expressions and types: precedence climbing over the binary operators, postfix
chains (members, calls, units, dice), atoms, literals and lambdas.
"""

from __future__ import annotations

import math

from lore.syntax import ast, foreign
from lore.syntax.lexer import unescape
from lore.syntax.source import Span
from lore.syntax.token_stream import (
    DEFINITION_KEYWORDS,
    MAX_NESTING,
    SOFT_KEYWORDS,
    Abort,
    TokenStream,
)
from lore.syntax.tokens import (
    BINARY_POWER,
    DICE,
    EOF,
    IDENT,
    INT,
    KEYWORDS,
    LONGSTRING,
    RANGE_OPERATORS,
    REAL,
    RELATION_POWER,
    STRING,
    STRING_TYPES,
    TYPE_KEYWORDS,
    UNIT,
    Token,
)

_BINARY = BINARY_POWER
_RELATION = RELATION_POWER
_ATOM_START = frozenset((INT, REAL, IDENT, "(", DICE))
_TYPE_START = frozenset((IDENT, "list", "range", "unit", "@"))
_GLUED = frozenset(("=", "+", "-", "&", "|"))  # after an operator, with no space: `+=`, `&&`
# What may follow a name in an expression (a keyword before one of these was meant as one).
_AFTER_A_NAME = frozenset((".", ";", ")", ",", "=", ":=", "(", "}")) | frozenset(BINARY_POWER)


class ExpressionParser(TokenStream):
    """Expressions and types; the parser of definitions and statements extends it."""

    # Blocks, members and selects are statements' and definitions' (lambdas, form
    # literals and select expressions hold them): the Parser gives them.

    def parse_block(self) -> ast.Block:
        raise NotImplementedError

    def parse_members(self, context: str) -> tuple[ast.Definition, ...]:
        raise NotImplementedError

    def parse_select(self) -> ast.Select:
        raise NotImplementedError

    def parse_type(self) -> ast.TypeExpr:
        self.enter()
        type_ = self.parse_type_inner()
        self.leave()
        return type_

    def parse_type_inner(self) -> ast.TypeExpr:
        start = self.token.start
        kind = self.token.kind
        if kind == "list":
            self.advance()
            self.expect("<")
            wildcard = False
            if self.accept("?"):
                self.expect("extends")
                wildcard = True
            element = self.parse_type()
            self.expect_close_angle()
            return ast.ListType(self.span_from(start), element, wildcard)
        if kind == "range":
            self.advance()
            self.expect("<")
            element = self.parse_type()
            self.expect_close_angle()
            return ast.RangeType(self.span_from(start), element)
        if kind == "unit":
            self.advance()
            unit = self.expect(UNIT, "a unit in brackets like unit[m]")
            return ast.UnitType(self.span_from(start), unit.text[1:-1])
        if kind == "@":
            return self.parse_function_type()
        if kind in TYPE_KEYWORDS:
            self.advance()
            return ast.NamedType(self.span_from(start), (kind,))
        if self.at_dict_type():
            self.advance()
            self.expect("<")
            key = self.parse_type()
            self.expect(",", "',' and the type of the values")
            value = self.parse_type()
            self.expect_close_angle()
            return ast.DictType(self.span_from(start), key, value)
        if kind == IDENT:
            parts = [self.advance().text]
            while self.at(".") and self.peek().kind == IDENT:
                self.advance()
                parts.append(self.advance().text)
            return ast.NamedType(self.span_from(start), tuple(parts))
        self.fail_expected("a type")

    def at_dict_type(self) -> bool:
        """``dict<`` and a type: ``dict`` is a name everywhere else (``dict < 4``)."""
        return (
            self.token.kind == IDENT
            and self.token.text == "dict"
            and self.peek().kind == "<"
            and (self.peek(2).kind in _TYPE_START or self.peek(2).kind in TYPE_KEYWORDS)
        )

    def parse_function_type(self) -> ast.FunctionType:
        start = self.token.start
        self.expect("@")
        self.expect("<")
        if self.at(">"):
            self.advance()
            return ast.FunctionType(self.span_from(start), (), None)
        params: list[ast.TypeExpr] = []
        if self.at("->") or self.at(":"):  # `@<->real>`: no parameters, a result
            gives_arrow = self.advance().kind == "->"
            gives = self.parse_type()
            self.expect_close_angle()
            return ast.FunctionType(self.span_from(start), (), gives, gives_arrow, False)
        parenthesized = self.at("(")
        if parenthesized:
            self.advance()
            while not self.at(")"):
                params.append(self.parse_type())
                if not self.accept(","):
                    break
            self.expect(")", "',' or ')'")
        else:
            params.append(self.parse_type())
        result: ast.TypeExpr | None = None
        arrow = True
        if self.at("->") or self.at(":"):
            arrow = self.advance().kind == "->"
            result = self.parse_type()
        self.expect_close_angle()
        return ast.FunctionType(self.span_from(start), tuple(params), result, arrow, parenthesized)

    def expect_close_angle(self) -> None:
        token = self.token
        if token.kind == ">=":  # `list<T>= e`: split into '>' and '='
            self.tokens[self.index] = Token("=", "=", token.start + 1, token.end)
            self.token = self.tokens[self.index]
            self.prev_end = token.start + 1
            return
        self.expect(">", "'>'")

    def parse_expression(self) -> ast.Expr:
        """Range (loosest), then binary operators by precedence."""
        self.depth += 1  # self.enter(), written out: this runs for every expression
        if self.depth > MAX_NESTING:
            self.depth -= 1
            self.enter()
        start = self.token.start
        left = self.parse_binary(1)
        kind = self.token.kind
        if kind == "?":
            token = self.token
            construct = foreign.CONDITIONAL_OPERATOR
            self.error(
                "parse.foreign", construct.message, Span(token.start, token.end), construct.hint
            )
            raise Abort
        if (kind == "," or kind == "<") and self._spaced_range():
            token = self.token
            self.error(
                "parse.range-spaces",
                "a range operator is written as one word",
                Span(token.start, self.peek(3).end),
                "write it without spaces: a,...,b  a<...,b  a,...<b  a<...<b",
            )
            raise Abort
        if kind in RANGE_OPERATORS:
            self.advance()
            right = self.parse_binary(1)
            low_open, high_open = RANGE_OPERATORS[kind]
            left = ast.RangeExpr(self.span_from(start), left, right, low_open, high_open)
            if self.token.kind in RANGE_OPERATORS:
                token = self.token
                self.error(
                    "parse.range-chain",
                    "a range has only two ends",
                    Span(token.start, token.end),
                    "use parentheses",
                )
                raise Abort
        self.depth -= 1
        return left

    def _spaced_range(self) -> bool:
        """``a, ..., b``: a range operator written with spaces."""
        tokens, index = self.tokens, self.index
        return (
            index + 2 < len(tokens)
            and tokens[index + 1].kind == "."
            and tokens[index + 2].kind == "."
        )

    def parse_binary(self, min_power: int) -> ast.Expr:
        start = self.token.start
        kind = self.token.kind
        left = self.parse_unary() if kind == "-" or kind == "!" else self.parse_postfix()
        binary = _BINARY
        while True:
            op = self.token.kind
            power = binary.get(op)
            if power is None or power < min_power:
                return left
            following = self.peek()
            if following.start == self.token.end and following.kind in _GLUED:
                self.glued_operator(op, following)
            self.advance()
            right = self.parse_binary(power + 1)
            left = ast.Binary(self.span_from(start), op, left, right)
            if power == _RELATION and binary.get(self.token.kind) == _RELATION:
                token = self.token
                self.error(
                    "parse.relation-chain",
                    "comparisons cannot be chained",
                    Span(token.start, token.end),
                    "combine them with '&'",
                )
                raise Abort

    def glued_operator(self, op: str, following: Token) -> None:
        """``+=``, ``++``, ``&&``, ``||``: operators of other languages (said, then the
        statement is skipped). ``a - -b`` and ``a & !b`` are fine."""
        decrement = op == "-" and self.peek(2).kind in (";", ")", EOF)  # `x--;`, not `a - -b`
        if following.kind == "=" and op in "+-*/%":
            construct = foreign.compound(op)
        elif following.kind == op and (op in "+&|" or decrement):
            construct = foreign.doubled(op)
        else:
            return
        token = self.token
        self.error(
            "parse.foreign", construct.message, Span(token.start, following.end), construct.hint
        )
        raise Abort

    def parse_unary(self) -> ast.Expr:
        kind = self.token.kind
        if kind == "-" or kind == "!":
            start = self.advance().start
            self.enter()
            operand = self.parse_unary()
            self.leave()
            return ast.Unary(self.span_from(start), kind, operand)
        return self.parse_postfix()

    def parse_postfix(self) -> ast.Expr:
        """An atom and the chain that follows it (members, calls, units, dice). Each link
        is a level of nesting: ``a.b.c`` is ``(a.b).c``, and every later pass walks the
        tree that deep."""
        depth = self.depth  # back to it at the end (after an error, recovery sets it)
        start = self.token.start
        expr = self.parse_atom()
        hint = "give a part of the chain a name first: part = ...;"
        while True:
            kind = self.token.kind
            if kind == ".":
                self.enter(hint)
                self.advance()
                token = self.token
                if token.kind in (IDENT, DICE) or token.kind in KEYWORDS:
                    self.advance()
                    expr = ast.Member(
                        self.span_from(start), expr, token.text, Span(token.start, token.end)
                    )
                else:
                    self.fail_expected("a member name after '.'")
            elif kind == "(":
                self.enter(hint)
                args = self.parse_args()
                expr = ast.Call(self.span_from(start), expr, args)
            elif kind == UNIT:
                if self.peek().kind == "=" and self._newline_between(
                    self.prev_end, self.token.start
                ):
                    self.depth = depth
                    return expr  # `[m] = 1.0;` on the next line: a ';' is missing
                self.enter(hint)
                unit = self.advance()
                expr = ast.WithUnit(self.span_from(start), expr, unit.text[1:-1])
            elif kind == DICE:
                token = self.token
                if token.text[0] not in "dD":
                    self.depth = depth
                    return expr
                self.enter(hint)
                self.advance()
                if len(token.text) == 1 and self.token.kind == "(":
                    sides = self.parse_atom_operand()  # `(m)d(n).roll`: members of the dice
                elif len(token.text) == 1 and self.token.kind in _ATOM_START:
                    sides = self.parse_postfix_operand()  # G13's binary D: `2 D 6`
                else:
                    sides_text = token.text[1:]
                    sides_value = int(sides_text) if sides_text else 6
                    sides = ast.IntLit(
                        Span(token.start + 1, token.end), sides_value, sides_text or "6"
                    )
                expr = ast.DiceOf(self.span_from(start), expr, sides, token.text)
            else:
                self.depth = depth
                return expr

    def parse_postfix_operand(self) -> ast.Expr:
        self.enter()
        expr = self.parse_postfix()
        self.leave()
        return expr

    def parse_atom_operand(self) -> ast.Expr:
        self.enter()
        expr = self.parse_atom()
        self.leave()
        return expr

    def parse_args(self) -> tuple[ast.Expr, ...]:
        self.expect("(")
        args: list[ast.Expr] = []
        while not self.at(")"):
            token = self.token
            if token.kind in (IDENT, "default") and self.peek().kind == "=":  # a named argument
                self.advance()
                self.advance()
                value = self.parse_expression()
                args.append(ast.NamedArg(self.span_from(token.start), token.text, value))
            else:
                args.append(self.parse_expression())
            if not self.accept(","):
                break
        self.expect(")", "',' or ')'")
        return tuple(args)

    def parse_atom(self) -> ast.Expr:
        token = self.token
        kind = token.kind
        start = token.start
        if kind == IDENT and self.at_dict_type():
            named = self.parse_type()
            return ast.TypeValue(named.span, named)
        # Soft keywords (desc, version, ...) are ordinary names inside expressions.
        if kind == IDENT or kind == "self" or kind == "result" or kind in SOFT_KEYWORDS:
            self.advance()
            return ast.Name(Span(start, token.end), token.text)
        if kind == INT:
            self.advance()
            return ast.IntLit(Span(start, token.end), self.int_value(token), token.text)
        if kind == REAL:
            self.advance()
            return ast.RealLit(Span(start, token.end), self.real_value(token), token.text)
        if kind in (STRING, LONGSTRING):
            return self.parse_string()
        if kind == DICE:
            self.advance()
            if token.text in self.dice_names:  # said where it was defined as a name
                return ast.Name(Span(start, token.end), token.text)
            return self.dice_literal(token)
        if kind == "(":
            self.advance()
            expr = self.parse_expression()
            self.expect(")", "')'")
            return expr
        if kind == "{":
            return self.parse_braces()
        if kind == "@":
            if self.peek().kind == "<":
                type_ = self.parse_function_type()
                return ast.TypeValue(type_.span, type_)
            return self.parse_lambda()
        if kind == "select":
            return self.parse_select()
        if kind == "true" or kind == "false":
            self.advance()
            return ast.BoolLit(Span(start, token.end), kind == "true")
        if kind == "if":
            return self.parse_conditional()
        if kind in TYPE_KEYWORDS or kind == "list" or kind == "range" or kind == "unit":
            named = self.parse_type()
            return ast.TypeValue(named.span, named)
        if kind in KEYWORDS and self.peek().kind in _AFTER_A_NAME:
            name = self.keyword_as_name()  # `x = default + 1;`
            return ast.Name(Span(name.start, name.end), name.text)
        self.fail_expected("an expression")

    def parse_condition(self) -> ast.Expr:
        """``(c)`` after ``if``; ``(x = 1)`` is said to compare with ``==``."""
        self.expect("(")
        condition = self.parse_expression()
        if self.at("=") or self.at(":="):
            token = self.token
            construct = foreign.ASSIGN_IN_CONDITION
            self.error(
                "parse.foreign", construct.message, Span(token.start, token.end), construct.hint
            )
            raise Abort
        self.expect(")")
        return condition

    def parse_conditional(self) -> ast.Conditional:
        """``if (c) a else b``: the else branch reaches as far as an expression can."""
        start = self.token.start
        self.expect("if")
        condition = self.parse_condition()
        if self.at("{"):
            token = self.token
            self.error(
                "parse.conditional-block",
                "a conditional expression chooses between two values, without braces",
                Span(token.start, token.end),
                "write if (c) a else b; a list or form literal goes in parentheses,"
                " as in if (c) ({a, b}) else ({c}); or use an if statement on a line of its own",
            )
            # Read on as if the literal had its parentheses: what follows stays checked.
        self.enter()
        then = self.parse_expression()
        if not self.at("else"):
            self.fail_expected(
                "'else' and the other value", "a conditional expression has both: if (c) a else b"
            )
        self.advance()
        otherwise = self.parse_expression()
        self.leave()
        return ast.Conditional(self.span_from(start), condition, then, otherwise)

    def int_value(self, token: Token) -> int:
        text = token.text
        try:
            if text[:2] in ("0x", "0X"):
                return int(text[2:], 16)
            return int(text)
        except ValueError:
            self.error("parse.number", "number too long", Span(token.start, token.end))
            raise Abort from None

    def real_value(self, token: Token) -> float:
        text = token.text
        try:
            value = float.fromhex(text) if text[:2] in ("0x", "0X") else float(text)
        except (ValueError, OverflowError):
            value = math.inf
        if math.isinf(value):
            self.error("parse.number", "number too large", Span(token.start, token.end))
            raise Abort
        return value

    def dice_literal(self, token: Token) -> ast.DiceLit:
        text = token.text
        split = 0
        while text[split] not in "dD":
            split += 1
        count_text, sides_text = text[:split], text[split + 1 :]
        try:
            count = int(count_text) if count_text else 1
            sides = int(sides_text) if sides_text else 6
        except ValueError:
            self.error("parse.number", "dice number too long", Span(token.start, token.end))
            raise Abort from None
        return ast.DiceLit(Span(token.start, token.end), count, sides, text)

    def parse_string(self) -> ast.StringLit:
        token = self.advance()
        text = token.text
        if token.kind == STRING:
            delimiter = text[0]
            value = unescape(text[1:-1])
        else:
            opener_end = text.index("[", 1) + 1
            delimiter = text[:opener_end]
            closer = "]" + "=" * (opener_end - 2) + "]"
            closed = len(text) >= opener_end + len(closer) and text.endswith(closer)
            value = text[opener_end : len(text) - len(closer) if closed else len(text)]
            if value.startswith("\r\n"):
                value = value[2:]
            elif value.startswith("\n"):
                value = value[1:]
        kind: str | None = None
        kind_span: Span | None = None
        if self.at(":"):
            following = self.peek()
            if following.kind in STRING_TYPES or following.kind == "string":
                self.advance()
                typed = self.advance()
                kind, kind_span = typed.kind, Span(typed.start, typed.end)
            elif following.kind == IDENT or following.kind in TYPE_KEYWORDS:
                self.error(
                    "parse.string-type",
                    f"unknown string type '{following.text}'",
                    Span(following.start, following.end),
                    "typed strings are :url, :loc, :xml, :html, :jid or :date",
                )
                self.advance()
                self.advance()
        return ast.StringLit(Span(token.start, self.prev_end), value, delimiter, kind, kind_span)

    def parse_braces(self) -> ast.Expr:
        """A list literal ``{a, b}`` or a form literal ``{ x = 1; ... }[:Type]``."""
        start = self.token.start
        following = self.peek()
        second = self.peek(2).kind
        is_form = (
            following.kind == "}"
            or following.kind in DEFINITION_KEYWORDS
            or (
                (following.kind in (IDENT, UNIT) or following.kind in SOFT_KEYWORDS)
                and second in ("=", ":", "->")
            )
            or (following.kind == IDENT and second == "(" and self._looks_like_accessor())
            or (following.kind == DICE and following.text[0] in "dD" and second in ("=", ":"))
        )
        if not is_form:
            open_index = self.index
            self.advance()
            self.enter()
            items: list[ast.Expr] = []
            while not self.at("}"):
                items.append(self.parse_expression())
                if not self.accept(","):
                    break
            if self.at(";"):
                token = self.token
                if not self._closed_in_place(open_index):
                    # `x = {1, 2;`: the list misses its '}'; go on as though it were there.
                    self.error(
                        "parse.expected",
                        "expected ',' or '}', found ';'",
                        Span(token.start, token.end),
                        "close the list with '}'",
                    )
                    self.leave()
                    return ast.ListLit(self.span_from(start), tuple(items))
                self.error(
                    "parse.expected",
                    "expected ',' or '}' in a list, found ';'",
                    Span(token.start, token.end),
                    "a list is {a, b}; an object is "
                    "{name = value; ...}; a lambda is @{ statements; }",
                )
                raise Abort
            self.expect_close(start, "',' or '}'")
            self.leave()
            return ast.ListLit(self.span_from(start), tuple(items))
        members = self.parse_members("form-literal")
        type_: ast.TypeExpr | None = None
        if self.accept(":"):
            type_ = self.parse_type()
        return ast.FormLit(self.span_from(start), members, type_)

    def _looks_like_accessor(self) -> bool:
        """After ``{ name (``: is this ``name(params) : T {`` rather than a call?"""
        depth = 0
        index = self.index + 2
        while index < len(self.tokens):
            kind = self.tokens[index].kind
            if kind == "(":
                depth += 1
            elif kind == ")":
                depth -= 1
                if depth == 0:
                    return self.tokens[index + 1].kind in (":", "->")
            elif kind in (";", "{", "}", EOF):
                return False
            index += 1
        return False

    def parse_lambda(self) -> ast.Lambda:
        start = self.token.start
        self.expect("@")
        params: tuple[ast.Param, ...] = ()
        parenthesized = True
        has_head = self.at("(") or self.token.kind == IDENT
        if self.at("("):
            params = self.parse_params()
        elif self.token.kind == IDENT:
            parenthesized = False
            param_start = self.token.start
            name = self.advance()
            self.expect(":", "':' and the parameter's type")
            type_ = self.parse_type()
            params = (ast.Param(self.span_from(param_start), name.text, type_),)
        result: ast.TypeExpr | None = None
        arrow = False
        if not has_head and (self.at("->") or self.at(":")):
            parenthesized = False  # `@ -> real 1.0`: no parameters, a result
            has_head = True
        if has_head and (self.at("->") or self.at(":")):
            arrow = self.advance().kind == "->"
            result = self.parse_type()
        body: ast.Block | ast.Expr
        body = self.parse_block() if self.at("{") else self.parse_expression()
        return ast.Lambda(self.span_from(start), params, result, body, parenthesized, arrow)

    def parse_params(self) -> tuple[ast.Param, ...]:
        self.expect("(")
        params: list[ast.Param] = []
        while not self.at(")"):
            start = self.token.start
            name = self.expect_name("a parameter name")
            if any(param.name == name.text for param in params):
                self.error(
                    "parse.parameter-again",
                    f"'{name.text}' is already a parameter here",
                    Span(name.start, name.end),
                    "give each parameter a name of its own",
                )
            type_ = self.parse_type() if self.accept(":") else None
            params.append(ast.Param(self.span_from(start), name.text, type_))
            if not self.accept(","):
                break
        self.expect(")", "',' or ')'")
        return tuple(params)
