"""The canonical formatter (pretty-printer) for Lore: a parsed file back to text.

:func:`format_module` prints a :class:`~lore.syntax.parser.ParseResult` in the one canonical
layout, keeping every comment. Reading the output back gives the same AST (up to spans),
and formatting the output again changes nothing.

Layout:

- Indentation is 4 spaces a level. One header item, definition, statement, member, enum
  value or select arm a line; ``{`` ends the line that opens a body and ``}`` has a line of
  its own (an empty body prints ``{}``).
- The header comes first, then a blank line, then the body. A blank line goes around every
  definition with a body (section, form, enum, rule, function, accessor, alter); other blank
  lines of the source are kept (at most one in a row), except at the start or end of a body.
- Spaces go around binary operators, ``=``, ``:=``, ``->`` and the ``:`` of ``name : Type``,
  and after commas. No space where the parts belong together: ``}:Event``, ``"x":url``,
  ``5[min]``, ``3d6``, ``0[km],...<1[km]``. A computed number of dice is ``x d6`` (a space
  after a name) or ``(1 + 2)d6`` (none after a parenthesis); G13's ``2 D 6`` has the same
  AST as ``2 D`` (six sides) and prints so.
- Parentheses appear where precedence needs them, and where the text would read otherwise:
  ``-(-x)`` (never ``--``), ``(3).e5``, ``({...}:T).x``, ``(x d)(1)``, a lambda with an
  expression body as an operand. Literals keep the author's spelling: number text, dice
  words, the quote style of strings (escaped as needed; a long string gets more ``=`` if its
  text holds the closer), the lambda and function-type forms.
- List literals (and header lists) stay on one line unless an element has a body, a
  comment sits inside or the line would be longer than 100 columns; then each element gets
  its own line. A form literal of values only (`{ name = "Aki"; hp = 7; }:Hero`) stays on
  one line when it fits too; one that defines rules, or holds a lambda with a body, gets a
  line for each member.
- A line still longer than 100 columns (and holding no body) breaks before binary
  operators, relations excepted, and before the ``else`` of a conditional expression: at
  the loosest operators outside brackets first, going deeper only while a line is still
  too long; each line as full as fits, the rest one level deeper, starting with its
  operator. Once a conditional expression breaks, each ``else`` starts a line.

Comments: an own-line comment is printed on its own line before the item that follows it,
at that item's indentation; a comment after code stays at the end of the item's line; one
after the ``{`` of a body, or inside the head before it (``rule r(a, // c``), goes at the
end of the ``{`` line. A comment inside an expression, where no item starts, moves to the
end of that item's line. Nothing follows a ``//`` comment on its line: further comments wait
for the next line. Comments are never dropped or reordered; block comments are printed as
written (their later lines are not re-indented).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar, assert_never

from lore.errors import InternalError
from lore.syntax import ast
from lore.syntax.parser import ParseResult
from lore.syntax.recursion import deeper
from lore.syntax.source import Span, display_width
from lore.syntax.tokens import BINARY_POWER, KEYWORDS, RELATION_POWER, Comment

INDENT = "    "
WIDTH = 100  # the longest line short literals are kept on

# Precedence levels of expressions, loosest first (higher binds tighter).
_LAMBDA = -1  # a lambda whose body is an expression: the body takes all it can
_RANGE = 0
_BINARY = BINARY_POWER
_RELATION = RELATION_POWER  # relations do not chain: `(a < b) < c` keeps its parentheses
_UNARY = 6
_POSTFIX = 7  # member access, calls, units, dice
_ATOM = 8

# Where a line too long may break: `\0<rank><kind>\1` before a binary operator other than
# a relation (kind "+") or the `else` of a conditional expression (kind "e"); a line breaks
# at its lowest ranks first: outside brackets before inside, loose operators before tight.
# The space after it is dropped when it breaks. Source text holds no NUL (a file with one
# is refused as binary), so nothing printed from it does either.
_BREAK = re.compile("\0([0-9]+)([+e])\1")

_BLANK_LINE = re.compile(r"\n[ \t\f\r]*\n")
_BETWEEN_ITEMS = re.compile(r"[\s;,()]*")  # what separates two items in the source
_SAME_LINE = re.compile(r"[ \t\f\r;,()]*")  # what may stand between code and its comment
# An integer, '.' and a member name that would read as one number: `0x1F.a`, `3.e5`, `3. 4d`.
_INT_MEMBER_CLASH = re.compile(r"0[xX]|[0-9]+\.(?:[eE][0-9]|[0-9])")
_QUOTE_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}

_BodyDefinition = (
    ast.EnumDef,
    ast.FormDef,
    ast.RuleDef,
    ast.FunctionDef,
    ast.AccessorDef,
    ast.AlterDef,
    ast.SectionDef,
)

_N = TypeVar("_N", bound=ast.Node)


def format_module(result: ParseResult) -> str:
    """The canonical text of a parsed file (which must have parsed without errors).

    ``result.source`` may be None (an AST built by a program): then there are no comments
    and no blank lines to keep.
    """
    with deeper():
        return _Printer(result).module(result.module)


@dataclass(frozen=True, slots=True)
class _Item:
    """One line-level element of a body: printed on its own line(s), comments around it."""

    span: Span
    render: partial[str]  # a printer's method on the node it prints
    spaced: bool = False  # a definition with a body: blank lines around it
    group: int = 0  # a blank line goes between items of different groups
    suffix: str = ""  # printed after the item, before its trailing comment (a ',')


class _Printer:
    def __init__(self, result: ParseResult) -> None:
        self.text = result.source.text if result.source is not None else ""
        self.comments = sorted(result.comments, key=lambda c: c.start)
        self.next = 0  # index of the first comment not printed yet
        self.flat = True  # short form literals and lists may stand on one line
        self.level = 0
        self.depth = 0  # how deep in brackets the expression being printed stands
        self.last = 0  # source offset where what was printed last ends
        self.fitted_before: dict[tuple[object, ...], tuple[str, int, int]] = {}

    def indent(self) -> str:
        return INDENT * self.level

    # ------------------------------------------------------------ comments

    def pending(self) -> Comment | None:
        return self.comments[self.next] if self.next < len(self.comments) else None

    def consume(self, comment: Comment) -> None:
        self.next += 1
        self.last = max(self.last, comment.end)

    def blank_before(self, offset: int) -> bool:
        """Whether the source has a blank line between what was printed last and ``offset``."""
        if not self.text or offset <= self.last:
            return False
        gap = self.text[self.last : offset]
        return _BETWEEN_ITEMS.fullmatch(gap) is not None and bool(_BLANK_LINE.search(gap))

    def comment_inside(self, span: Span) -> bool:
        index = self.next
        while index < len(self.comments) and self.comments[index].start < span.end:
            if self.comments[index].start > span.start:
                return True
            index += 1
        return False

    def leading(self, offset: int, blank: bool, first: bool, closing: bool = False) -> list[str]:
        """Own lines for the comments before ``offset``, and the blank lines around them.

        ``blank`` asks for a blank line before whatever comes first; ``first`` says that
        nothing was printed yet in this body (no blank line then); ``closing`` that a ``}``
        follows (no blank line before it).
        """
        lines: list[str] = []
        while (comment := self.pending()) is not None and comment.start < offset:
            if not first and (blank or self.blank_before(comment.start)):
                lines.append("")
            lines.append(self.indent() + comment.text)
            self.consume(comment)
            blank = first = False
        if not closing and not first and (blank or self.blank_before(offset)):
            lines.append("")
        return lines

    def trailing(self, end: int) -> str:
        """Comments for the end of the line of an item that ends at ``end``.

        Those left inside the item come first, then those after it on its source line.
        Nothing follows a ``//`` comment: the rest wait for the next item.
        """
        text = ""
        while (comment := self.pending()) is not None and comment.start < end:
            text += " " + comment.text
            self.consume(comment)
            if not comment.is_block:
                return text
        return text + self.same_line(end, len(self.text))

    def same_line(self, offset: int, limit: int) -> str:
        """The comments after ``offset`` on its source line (before ``limit``)."""
        text = ""
        while (comment := self.pending()) is not None and comment.start < limit:
            if comment.own_line or _SAME_LINE.fullmatch(self.text, offset, comment.start) is None:
                break
            text += " " + comment.text
            self.consume(comment)
            offset = comment.end
            if not comment.is_block:
                break
        return text

    def opener(self, start: int, limit: int) -> str:
        """Comments for the end of the ``{`` line of a construct that starts at ``start``.

        Those are the comments after code before ``limit`` (its first item): on the line
        of the ``{``, or inside the head (``rule r(a, /* c */ b) {``).
        """
        text = ""
        while (comment := self.pending()) is not None and start < comment.start < limit:
            if comment.own_line:
                break
            text += " " + comment.text
            self.consume(comment)
            if not comment.is_block:
                break
        return text

    # ------------------------------------------------------------ bodies

    def sequence(self, items: Sequence[_Item], end: int) -> list[str]:
        """The lines of a body's items, then of the comments left before ``end``."""
        lines: list[str] = []
        previous: _Item | None = None
        for item in items:
            blank = previous is not None and (
                item.spaced or previous.spaced or item.group != previous.group
            )
            lines += self.leading(item.span.start, blank, not lines)
            text = self.fitted(item)
            self.last = item.span.end
            lines.append(text + self.trailing(item.span.end))
            previous = item
        lines += self.leading(end, False, not lines, closing=True)
        return lines

    def fitted(self, item: _Item) -> str:
        """The item's text: short form literals and lists on one line, unless its first
        line is then too long; then it is printed again with them broken over lines."""
        # An item prints the same from the same state, whatever encloses it: remembering
        # it keeps nested items from being printed again at every level (2^depth).
        # (Keyed by the node printed: spans need not tell nodes apart.)
        key = (id(item.render.args[0]), item.suffix, self.level, self.next, self.last)
        known = self.fitted_before.get(key)
        if known is not None:
            text, self.next, self.last = known
            return text
        saved = (self.next, self.last, self.flat)
        self.flat = True
        text = self.indent() + item.render() + item.suffix
        if display_width(text.split("\n", 1)[0]) > WIDTH:
            self.next, self.last = saved[0], saved[1]
            self.flat = False
            text = _broken(self.indent() + item.render() + item.suffix)
        self.flat = saved[2]
        self.fitted_before[key] = (text, self.next, self.last)
        return text

    def braced(self, span: Span, items: Sequence[_Item], head_start: int | None = None) -> str:
        """``{``, the items one a line one level deeper, ``}``; ``{}`` when there is nothing.

        ``head_start`` is where the construct that the braces belong to starts, if before
        ``span`` (the head of a rule): comments in the head go to the ``{`` line.
        """
        if not items and not self.comment_inside(span):
            return "{}"
        start = span.start if head_start is None else head_start
        head = "{" + self.opener(start, items[0].span.start if items else span.end)
        self.level += 1
        lines = self.sequence(items, span.end)
        self.level -= 1
        return "\n".join([head, *lines, self.indent() + "}"])

    def listed(
        self, span: Span, nodes: Sequence[_N], render: Callable[[_N], str], tall: bool
    ) -> str:
        """``{a, b}`` on one line, or one element a line if ``tall``, when a comment is
        inside, or when the line would be too long (see ``fitted``)."""
        if not tall and (self.flat or len(nodes) < 2) and not self.comment_inside(span):
            return "{" + ", ".join(render(node) for node in nodes) + "}"
        last = len(nodes) - 1
        items = [
            _Item(node.span, partial(render, node), suffix="," if index < last else "")
            for index, node in enumerate(nodes)
        ]
        return self.braced(span, items)

    def members(self, span: Span, members: Sequence[ast.Definition]) -> str:
        return self.braced(span, [self.definition_item(member) for member in members])

    def definition_item(self, definition: ast.Definition) -> _Item:
        spaced = isinstance(definition, _BodyDefinition)
        return _Item(definition.span, partial(self.definition, definition), spaced)

    def block(self, block: ast.Block, head_start: int | None = None) -> str:
        items = [
            _Item(
                statement.span,
                partial(self.statement, statement),
                isinstance(statement, ast.LocalDef)
                and isinstance(statement.definition, _BodyDefinition),
            )
            for statement in block.statements
        ]
        return self.braced(block.span, items, head_start)

    # ------------------------------------------------------------ documents

    def module(self, module: ast.Module) -> str:
        items = [_Item(item.span, partial(self.header, item)) for item in module.header]
        items += [
            _Item(d.span, partial(self.definition, d), isinstance(d, _BodyDefinition), group=1)
            for d in module.body
        ]
        lines = self.sequence(items, len(self.text) + 1)
        return "\n".join(lines) + "\n" if lines else ""

    def header(self, item: ast.Header) -> str:
        match item:
            case ast.DocInfo():
                return "docinfo " + self.entries(item.span, item.entries)
            case ast.Desc():
                return f"desc({self.expr(item.title)}) " + self.expressions(item.span, item.body)
            case ast.Author():
                return f"author({self.expr(item.name)}) " + self.expressions(
                    item.span, item.contacts
                )
            case ast.History():
                return f"history({self.expr(item.date)}) " + self.entries(item.span, item.entries)
            case ast.Import():
                return f"import {self.expr(item.url)};"
            case _:
                assert_never(item)

    def entries(self, span: Span, entries: Sequence[ast.Entry]) -> str:
        tall = any(_has_body(entry.value) for entry in entries)
        return self.listed(span, entries, self.entry, tall)

    def entry(self, entry: ast.Entry) -> str:
        return f"{entry.name} = {self.expr(entry.value)}"

    def expressions(self, span: Span, exprs: Sequence[ast.Expr]) -> str:
        return self.listed(span, exprs, self.expr, any(_has_body(e) for e in exprs))

    # ------------------------------------------------------------ definitions

    def definition(self, definition: ast.Definition) -> str:
        return "".join(m + " " for m in definition.modifiers) + self.definition_body(definition)

    def definition_body(self, d: ast.Definition) -> str:
        match d:
            case ast.VarDef():
                typed = "" if d.type is None else " : " + _type(d.type)
                return f"{d.name}{typed} = {self.expr(d.value)};"
            case ast.FieldDecl():
                return f"{d.name} : {_type(d.type)};"
            case ast.UnitDef():
                return f"[{d.unit}] = {self.expr(d.value)};"
            case ast.EnumDef():
                return f"enum {d.name}{_extends(d.extends)} " + self.enum_body(d)
            case ast.FormDef():
                return f"form {d.name}{_extends(d.extends)} " + self.members(d.span, d.members)
            case ast.RuleDef():
                return f"rule {d.name}{_params(d.params)} " + self.block(d.body, d.span.start)
            case ast.FunctionDef():
                signature = _params(d.params) + _result(d.result, d.arrow)
                return f"function {d.name}{signature} " + self.block(d.body, d.span.start)
            case ast.AccessorDef():
                signature = _params(d.params) + _result(d.result, d.arrow)
                return f"{d.name}{signature} " + self.block(d.body, d.span.start)
            case ast.AlterDef():
                return f"alter {d.name}{_params(d.params)} " + self.block(d.body, d.span.start)
            case ast.SectionDef():
                return f"section {'.'.join(d.path)} " + self.members(d.span, d.members)
            case _:
                assert_never(d)

    def enum_body(self, enum: ast.EnumDef) -> str:
        items = [_Item(value.span, partial(self.enum_value, value)) for value in enum.values]
        items += [self.definition_item(member) for member in enum.members]
        items.sort(key=lambda item: item.span.start)  # values and members as written
        return self.braced(enum.span, items)

    def enum_value(self, value: ast.EnumValue) -> str:
        if not value.members and not self.comment_inside(value.span):
            return value.name + ";"
        return f"{value.name} " + self.members(value.span, value.members)

    # ------------------------------------------------------------ statements

    def statement(self, statement: ast.Statement) -> str:
        match statement:
            case ast.Assign():
                target = self.statement_start(statement.target)
                return f"{target} = {self.expr(statement.value)};"
            case ast.Modify():
                target = self.statement_start(statement.target)
                return f"{target} := {self.expr(statement.value)};"
            case ast.ExprStmt():
                if isinstance(statement.expr, ast.Select):
                    return self.select(statement.expr)
                return self.statement_start(statement.expr) + ";"
            case ast.If():
                return self.if_statement(statement)
            case ast.For():
                head = f"for ({statement.name} in {self.expr(statement.items)}) "
                return head + self.block(statement.body, statement.span.start)
            case ast.TypedLocal():
                written = f"{statement.name} : {_type(statement.type)}"
                return f"{written} = {self.expr(statement.value)};"
            case ast.LocalDef():
                return self.definition(statement.definition)
            case _:
                assert_never(statement)

    def statement_start(self, expr: ast.Expr) -> str:
        """An expression that starts a statement: one starting with ``select`` would be
        read as a select statement, so it goes in parentheses."""
        text = self.expr(expr)
        return f"({text})" if text.startswith(("select(", "if (")) else text

    def if_statement(self, statement: ast.If) -> str:
        condition = self.expr(statement.condition)
        text = f"if ({condition}) " + self.block(statement.then, statement.span.start)
        otherwise = statement.otherwise
        if otherwise is None:
            return text
        if isinstance(otherwise, ast.If):
            return text + " else " + self.if_statement(otherwise)
        return text + " else " + self.block(otherwise, statement.then.span.end)

    def select(self, select: ast.Select) -> str:
        head = f"select({self.expr(select.subject)}) "
        # An arm's span ends before its body: the item runs to the end of the body.
        items = [_Item(arm.span.to(arm.body.span), partial(self.arm, arm)) for arm in select.arms]
        if select.default is not None:
            default = select.default
            # The item starts at the keyword `default`, before the block's span.
            keyword = self.text.rfind("default", select.span.start, default.span.start)
            span = Span(keyword, default.span.end) if keyword >= 0 else default.span
            items.append(_Item(span, partial(self.default_arm, default)))
        return head + self.braced(select.span, items)

    def default_arm(self, body: ast.Block) -> str:
        return "default " + self.block(body)

    def arm(self, arm: ast.CaseArm | ast.AsArm) -> str:
        if isinstance(arm, ast.CaseArm):
            values = ", ".join(self.expr(value) for value in arm.values)
            return f"case({values}) " + self.block(arm.body, arm.span.start)
        return f"as({arm.name} : {_type(arm.type)}) " + self.block(arm.body, arm.span.start)

    # ------------------------------------------------------------ expressions

    def expr(self, expr: ast.Expr, loosest: int = _LAMBDA) -> str:
        """``expr`` as text, in parentheses if it binds looser than ``loosest``."""
        if _level(expr) >= loosest:
            return self.render(expr)
        return f"({self.inner(expr)})"

    def operand(self, expr: ast.Expr, loosest: int) -> str:
        """An operator's operand: parentheses the author wrote around an operation stay,
        also where they only clarify (`a | (b & c)`)."""
        if isinstance(expr, ast.Binary | ast.Unary) and self.written_in_parentheses(expr.span):
            return f"({self.inner(expr)})"
        return self.expr(expr, loosest)

    def written_in_parentheses(self, span: Span) -> bool:
        """Whether the source has `(` just before ``span`` and `)` just after it. For an
        operand of an operator these can only be the author's grouping: the operator
        itself lies outside the operand."""
        text = self.text
        if not text or span.end > len(text):
            return False
        start, end = span.start - 1, span.end
        while start >= 0 and text[start].isspace():
            start -= 1
        while end < len(text) and text[end].isspace():
            end += 1
        return start >= 0 and text[start] == "(" and end < len(text) and text[end] == ")"

    def inner(self, expr: ast.Expr) -> str:
        """``expr`` inside brackets: where it may break counts as one bracket deeper."""
        self.depth += 1
        try:
            return self.expr(expr)
        finally:
            self.depth -= 1

    def may_break(self, kind: str, power: int = 0) -> str:
        """Where an expression may break over lines: nowhere on a line that fits."""
        if self.flat or power == _RELATION:
            return ""
        return f"\0{self.depth * 8 + power}{kind}\1"

    def render(self, e: ast.Expr) -> str:
        match e:
            case ast.IntLit() | ast.RealLit() | ast.DiceLit():
                return e.text
            case ast.BoolLit():
                return "true" if e.value else "false"
            case ast.StringLit():
                return _string(e)
            case ast.Name():
                return e.name
            case ast.TypeValue():
                return _type(e.type)
            case ast.ListLit():
                return self.listed(e.span, e.items, self.inner, any(map(_has_body, e.items)))
            case ast.FormLit():
                typed = "" if e.type is None else ":" + _type(e.type)
                if self.flat and e.members and _is_flat(e) and not self.comment_inside(e.span):
                    inner = " ".join(self.definition(member) for member in e.members)
                    return "{ " + inner + " }" + typed  # { name = "Aki"; hp = 7; }:Hero
                return self.members(e.span, e.members) + typed
            case ast.Lambda():
                return self.lambda_(e)
            case ast.Select():
                return self.select(e)
            case ast.Conditional():
                condition = self.inner(e.condition)
                then = self.expr(e.then)
                if then.startswith("{"):
                    then = f"({then})"  # a '{' right after the condition reads as a block
                otherwise = self.expr(e.otherwise)
                return f"if ({condition}) {then}{self.may_break('e')} else {otherwise}"
            case _:
                return self.render_operation(e)

    def render_operation(self, e: ast.Expr) -> str:
        match e:
            case ast.Unary():
                operand = self.expr(e.operand, _UNARY)
                if e.op == "-" and operand.startswith("-"):
                    operand = f"({operand})"  # `- -x` reads badly, `--` worse
                return e.op + operand
            case ast.Binary():
                # A chain of operators of one level (`a + b - c ...`, which nests to the
                # left) is printed in a loop: it may be thousands of terms long.
                power = _BINARY[e.op]
                rights: list[str] = []
                left: ast.Expr = e
                while isinstance(left, ast.Binary) and _BINARY[left.op] == power:
                    if left is not e and self.written_in_parentheses(left.span):
                        break  # `(a - b) - c`: the author's grouping stays
                    term = self.operand(left.right, power + 1)
                    rights.append(f"{self.may_break('+', power)} {left.op} {term}")
                    left = left.left
                    if power == _RELATION:
                        break
                start = self.operand(left, power + 1 if power == _RELATION else power)
                return start + "".join(reversed(rights))
            case ast.RangeExpr():
                return self.expr(e.low, _RANGE + 1) + e.op + self.expr(e.high, _RANGE + 1)
            case ast.Member():
                dot = ". " if e.name[:1].isdigit() else "."  # `x.3d6` would read `.3`
                return self.target(e.target, e.name) + dot + e.name
            case ast.Call():
                target = self.target(e.func)
                return target + "(" + ", ".join(self.inner(arg) for arg in e.args) + ")"
            case ast.WithUnit():
                return f"{self.target(e.value)}[{e.unit}]"
            case ast.DiceOf():
                return self.dice_of(e)
            case ast.NamedArg():
                return f"{e.name} = {self.inner(e.value)}"
        raise InternalError(f"not an expression: {e!r}")

    def target(self, e: ast.Expr, member: str | None = None) -> str:
        """The expression before ``.member``, ``(args)``, ``[unit]`` or a dice word."""
        text = self.expr(e, _POSTFIX)
        if _level(e) >= _POSTFIX and _clashes_as_target(e, member):
            return f"({text})"
        return text

    def dice_of(self, e: ast.DiceOf) -> str:
        count = self.target(e.count)
        text = count + ("" if count.endswith(")") else " ") + e.text
        if len(e.text) > 1 or _is_default_sides(e.sides):
            return text
        sides = e.sides  # G13's binary form `2 D 6`: the sides are a postfix expression
        simple = isinstance(sides, ast.IntLit | ast.RealLit | ast.DiceLit) or (
            isinstance(sides, ast.Name) and sides.name not in KEYWORDS
        )
        return f"{text} {self.expr(sides)}" if simple else f"{text} ({self.expr(sides)})"

    def lambda_(self, e: ast.Lambda) -> str:
        head = "@"
        params = e.params
        if not e.parenthesized and len(params) == 1 and params[0].type is not None:
            head += _param(params[0])
        elif not e.parenthesized and not params and e.result is not None:
            pass  # `@ -> real 1.0`: the result type follows the '@' at once
        elif params or e.result is not None or not isinstance(e.body, ast.Block):
            head += _params(params)
        if e.result is not None:
            head += _result(e.result, e.arrow)
        if isinstance(e.body, ast.Block):
            return head + ("" if head == "@" else " ") + self.block(e.body, e.span.start)
        body = self.expr(e.body)
        if body.startswith("{"):
            body = f"({body})"  # a '{' after the head starts a block
        return f"{head} {body}"


# ---------------------------------------------------------------- pure helpers


def _broken(text: str) -> str:
    """``text`` broken where it may (``_BREAK``) if it is one line too long; an item with
    a body (a lambda's, a form literal's) keeps its lines, whose indentation tells the
    body: a broken line beside it would read as part of it."""
    if "\n" in text:
        return _BREAK.sub("", text)
    return _broken_line(text)


def _broken_line(line: str) -> str:
    """A line broken at its lowest ranks first, higher ones only while it is still too
    long: as much on a line as fits, the rest one level deeper, each part starting with
    its operator or ``else``. Once a conditional expression breaks, each ``else`` does."""
    parts = _BREAK.split(line)  # text, then (rank, kind, text) for each break
    breaks = [(int(parts[i]), parts[i + 1], parts[i + 2]) for i in range(1, len(parts), 3)]
    deeper = line[: len(line) - len(line.lstrip(" "))] + INDENT
    lines = [parts[0] + "".join(text for _, _, text in breaks)]
    if display_width(lines[0]) <= WIDTH:
        return lines[0]
    for most in sorted({rank for rank, _, _ in breaks}):
        lines = _packed(_segments(parts[0], breaks, most), deeper)
        if all(display_width(one) <= WIDTH for one in lines):
            break
    return "\n".join(lines)


def _segments(first: str, breaks: list[tuple[int, str, str]], most: int) -> list[tuple[str, str]]:
    """The line cut where it may break at ranks up to ``most``: (kind, text) each."""
    segments = [("", first)]
    for rank, kind, text in breaks:
        if rank <= most:
            segments.append((kind, text))
        else:
            segments[-1] = (segments[-1][0], segments[-1][1] + text)
    return segments


def _packed(segments: list[tuple[str, str]], deeper: str) -> list[str]:
    """The segments on lines, each line as full as fits; every ``else`` on a line of its
    own once one is."""
    elses = False
    while True:
        lines: list[str] = []
        current = segments[0][1]
        for kind, text in segments[1:]:
            if display_width(current + text) <= WIDTH and not (kind == "e" and elses):
                current += text
                continue
            lines.append(current)
            current = deeper + text[1:]
            if kind == "e" and not elses:
                elses = True
                break
        else:
            lines.append(current)
            return lines


def _level(e: ast.Expr) -> int:
    if isinstance(e, ast.Lambda) and not isinstance(e.body, ast.Block):
        return _LAMBDA
    if isinstance(e, ast.Conditional):
        return _LAMBDA  # its else branch takes all it can
    if isinstance(e, ast.RangeExpr):
        return _RANGE
    if isinstance(e, ast.Binary):
        return _BINARY[e.op]
    if isinstance(e, ast.Unary):
        return _UNARY
    if isinstance(e, ast.Member | ast.Call | ast.WithUnit | ast.DiceOf):
        return _POSTFIX
    return _ATOM


def _clashes_as_target(e: ast.Expr, member: str | None) -> bool:
    """Whether a postfix-level ``e`` needs parentheses before a postfix (``.member``)."""
    if isinstance(e, ast.DiceOf):
        return len(e.text) == 1  # `x d` or `2 D 6`: what follows would be read as sides
    if member is None:
        return False
    if isinstance(e, ast.IntLit):
        return _INT_MEMBER_CLASH.match(f"{e.text}.{member}") is not None
    return isinstance(e, ast.FormLit) and e.type is not None  # `{...}:T.x`: type `T.x`


def _has_body(e: ast.Expr) -> bool:
    """Whether ``e`` contains a non-empty form literal, block or select (printed tall)."""
    match e:
        case ast.FormLit():
            return bool(e.members) and not _is_flat(e)
        case ast.Select():
            return bool(e.arms) or e.default is not None or _has_body(e.subject)
        case ast.Conditional():
            return _has_body(e.condition) or _has_body(e.then) or _has_body(e.otherwise)
        case ast.Lambda():
            if isinstance(e.body, ast.Block):
                return bool(e.body.statements)
            return _has_body(e.body)
        case ast.ListLit():
            return any(map(_has_body, e.items))
        case ast.Member():
            return _has_body(e.target)
        case ast.Call():
            return _has_body(e.func) or any(map(_has_body, e.args))
        case ast.NamedArg():
            return _has_body(e.value)
        case ast.Unary():
            return _has_body(e.operand)
        case ast.Binary():
            return _has_body(e.left) or _has_body(e.right)
        case ast.RangeExpr():
            return _has_body(e.low) or _has_body(e.high)
        case ast.WithUnit():
            return _has_body(e.value)
        case ast.DiceOf():
            return _has_body(e.count) or _has_body(e.sides)
    return False


def _is_flat(e: ast.FormLit) -> bool:
    """Whether a form literal may stand on one line: values only, none with a body."""
    return all(
        isinstance(member, ast.VarDef) and not member.modifiers and not _has_body(member.value)
        for member in e.members
    )


def _is_default_sides(sides: ast.Expr) -> bool:
    return isinstance(sides, ast.IntLit) and sides.value == 6 and sides.text == "6"


def _string(e: ast.StringLit) -> str:
    if e.delimiter in ('"', "'"):
        text = _quoted(e.value, e.delimiter)
    else:
        text = _long_string(e.value, e.delimiter.count("="))
    return text if e.kind is None else f"{text}:{e.kind}"


def _quoted(value: str, quote: str) -> str:
    chars = []
    for char in value:
        if char == quote:
            chars.append("\\" + char)
        elif char in _QUOTE_ESCAPES:
            chars.append(_QUOTE_ESCAPES[char])
        elif unicodedata.category(char) == "Cc":
            chars.append(f"\\u{ord(char):04x}")
        else:
            chars.append(char)
    return quote + "".join(chars) + quote


def _long_string(value: str, level: int) -> str:
    """``[=[value]=]`` with at least ``level`` '='s and as many more as the value needs."""
    while (value + _closer(level)).find(_closer(level)) != len(value):
        level += 1
    newline = "\n" if "\n" in value else ""  # one line break after the opener is dropped
    return "[" + "=" * level + "[" + newline + value + _closer(level)


def _closer(level: int) -> str:
    return "]" + "=" * level + "]"


def _type(t: ast.TypeExpr) -> str:
    match t:
        case ast.NamedType():
            return t.dotted
        case ast.ListType():
            return "list<" + ("? extends " if t.wildcard else "") + _type(t.element) + ">"
        case ast.RangeType():
            return f"range<{_type(t.element)}>"
        case ast.DictType():
            return f"dict<{_type(t.key)}, {_type(t.value)}>"
        case ast.UnitType():
            return f"unit[{t.unit}]"
        case ast.FunctionType():
            return _function_type(t)
        case _:
            assert_never(t)


def _function_type(t: ast.FunctionType) -> str:
    if not t.parenthesized and not t.params and t.result is not None:
        return f"@<{_result(t.result, t.arrow).lstrip()}>"  # `@<-> real>`
    if not t.parenthesized and len(t.params) == 1:
        params = _type(t.params[0])
    elif not t.params and t.result is None:
        return "@<>"
    else:
        params = "(" + ", ".join(map(_type, t.params)) + ")"
    result = "" if t.result is None else _result(t.result, t.arrow)
    return f"@<{params}{result}>"


def _result(t: ast.TypeExpr, arrow: bool) -> str:
    return (" -> " if arrow else " : ") + _type(t)


def _extends(t: ast.TypeExpr | None) -> str:
    return "" if t is None else " extends " + _type(t)


def _param(param: ast.Param) -> str:
    return param.name if param.type is None else f"{param.name} : {_type(param.type)}"


def _params(params: Sequence[ast.Param] | None) -> str:
    return "" if params is None else "(" + ", ".join(map(_param, params)) + ")"
