"""The Lore parser: tokens to an AST, reporting every syntax error of a file.

Recursive descent, one ``parse_<construct>`` method per construct, with precedence
climbing for binary operators. On an error the parser records a diagnostic and skips
to the next statement or definition boundary, so one file yields all its errors.
"""

from __future__ import annotations

import math
from dataclasses import field
from typing import NoReturn

from lore.records import record
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.lexer import tokenize, unescape
from lore.syntax.recursion import collector_paused, deeper
from lore.syntax.source import SourceFile, Span
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
    Comment,
    Token,
    describe,
)

_BRACES_AND_END = frozenset(("{", "}", EOF))
_BINARY = BINARY_POWER
_RELATION = RELATION_POWER

# Keywords that are also ordinary member names where a name is expected before '='
# (docinfo{version=...}, history(...){desc=...}).
_SOFT_KEYWORDS = frozenset("docinfo encoding version desc author history reviser".split())
_MODIFIERS = ("private", "override", "constant")
_DEFINITION_KEYWORDS = frozenset("section enum form rule function alter".split()) | set(_MODIFIERS)
_HEADER_KEYWORDS = frozenset(("docinfo", "desc", "author", "history", "import"))
# Tokens where skipping after a syntax error stops, when they start a line.
_RESUME = _DEFINITION_KEYWORDS | _HEADER_KEYWORDS
_STATEMENT_START = frozenset((IDENT, UNIT, "if", "select", "self", "result")) | _RESUME
_ATOM_START = frozenset((INT, REAL, IDENT, "(", DICE))

MAX_NESTING = 200
MAX_DIAGNOSTICS = 200
# Python frames the parser may need: each level of nesting takes a few calls.

# Lexical errors after which the rest of the file was swallowed (by a comment or long
# string): the parser then does not also complain that the file ends too early.
_RUNS_TO_END = frozenset(("lex.unterminated-comment", "lex.unterminated-long-string"))


class _Abort(Exception):
    """Raised to unwind to the nearest recovery point after a syntax error."""


class _Fatal(Exception):
    """Raised when the file cannot be parsed further (nesting too deep, too many errors)."""


@record(frozen=False, slots=False)
class ParseResult:
    module: ast.Module
    comments: list[Comment]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    source: SourceFile | None = None

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def parse(source: SourceFile) -> ParseResult:
    """Parse one file. Never raises for bad input: problems become diagnostics."""
    # Tokens and nodes are many objects without cycles: the collector waits until the
    # parse is over and the tokens are gone (``_parse`` has returned).
    with collector_paused():
        return _parse(source)


def _parse(source: SourceFile) -> ParseResult:
    lexed = tokenize(source)
    parser = Parser(source, lexed.tokens)
    parser.diagnostics.extend(lexed.diagnostics)
    parser.quiet_at_end = any(d.code in _RUNS_TO_END for d in lexed.diagnostics)
    with deeper():
        module = parser.parse_module()
    diagnostics = sorted(parser.diagnostics, key=lambda d: (d.span.start, d.span.end))
    return ParseResult(module, lexed.comments, diagnostics, source)


def value_start(literal: ast.StringLit, source: SourceFile) -> int:
    """Where a string literal's value starts in its file (after the opening delimiter,
    and after the line break that a long string drops)."""
    start = literal.span.start + len(literal.delimiter)
    if literal.delimiter not in ('"', "'"):
        if source.text.startswith("\r\n", start):
            start += 2
        elif source.text.startswith("\n", start):
            start += 1
    return start


def parse_text(text: str, name: str = "<input>") -> ParseResult:
    return parse(SourceFile(name, text))


class Parser:
    def __init__(self, source: SourceFile, tokens: list[Token]) -> None:
        self.source = source
        self.tokens = tokens
        self.index = 0
        self.token = tokens[0]
        self.prev_end = 0
        self.depth = 0
        self.braces = 0  # '{' minus '}' consumed so far
        self.quiet_at_end = False  # an early end of the file has been reported already
        self.diagnostics: list[Diagnostic] = []

    # ------------------------------------------------------------ token stream

    def advance(self) -> Token:
        token = self.token
        self.prev_end = token.end
        kind = token.kind
        if kind in _BRACES_AND_END:  # the rare tokens first, so the usual ones do one test
            if kind == "{":
                self.braces += 1
            elif kind == "}":
                self.braces -= 1
            else:
                return token  # the end of input stays the current token
        self.index = index = self.index + 1
        self.token = self.tokens[index]
        return token

    def peek(self, ahead: int = 1) -> Token:
        index = min(self.index + ahead, len(self.tokens) - 1)
        return self.tokens[index]

    def at(self, kind: str) -> bool:
        return self.token.kind == kind

    def accept(self, kind: str) -> Token | None:
        if self.token.kind == kind:
            return self.advance()
        return None

    def expect(self, kind: str, what: str | None = None) -> Token:
        if self.token.kind == kind:
            return self.advance()
        self.fail_expected(what or f"'{kind}'")

    def fail_expected(self, what: str, hint: str | None = None) -> NoReturn:
        token = self.token
        if token.kind == EOF:
            self.fail_at_end(what, "the file ends here; is a '}' or ';' missing?")
        self.error(
            "parse.expected",
            f"expected {what}, found {describe(token)}",
            Span(token.start, token.end),
            hint,
        )
        raise _Abort

    def fail_at_end(self, what: str, hint: str) -> NoReturn:
        """Report that the file ends too early (once: later errors there say nothing new)."""
        if not self.quiet_at_end:
            # Point just after the last token rather than past the last line.
            self.error(
                "parse.expected",
                f"expected {what}, found end of input",
                Span(self.prev_end, self.prev_end),
                hint,
            )
            self.quiet_at_end = True
        raise _Abort

    def expect_close(self, opener: int, what: str = "'}'") -> None:
        """Expect the '}' that closes the '{' at offset ``opener``."""
        if self.accept("}"):
            return
        if self.at(EOF):
            if self.quiet_at_end:  # said already; do not look for the culprit again
                raise _Abort
            line = self.source.position(self._likely_unclosed(opener)).line
            self.fail_at_end(what, f"the '{{' on line {line} is never closed")
        self.fail_expected(what)

    def _likely_unclosed(self, opener: int) -> int:
        """The offset of the '{' that most likely misses its '}' (the file ended early).

        Pairs braces as written; a '}' indented less than the line of the '{' it pairs
        with probably closes an enclosing block, so that '{' is the culprit. Without such
        a pair, the innermost '{' left open (or ``opener``).
        """
        open_braces: list[int] = []
        for token in self.tokens:
            if token.kind == "{":
                open_braces.append(token.start)
            elif token.kind == "}" and open_braces:
                start = open_braces.pop()
                if self._indent(token.start) < self._indent(start):
                    return start
        return open_braces[-1] if open_braces else opener

    def _closed_in_place(self, open_index: int) -> bool:
        """Is the '{' at ``open_index`` closed by a '}' indented at least as far as it?

        Looks no further than the next line that starts, other than with that '}', no
        deeper than the line of the '{' (where the construct around it goes on).
        """
        tokens = self.tokens
        indent = self._indent(tokens[open_index].start)
        depth = 0
        for index in range(open_index, len(tokens)):
            token = tokens[index]
            if token.kind == "{":
                depth += 1
            elif token.kind == "}":
                depth -= 1
                if depth == 0:
                    return self._indent(token.start) >= indent
            if token.kind == EOF or (
                index > open_index
                and self._newline_between(tokens[index - 1].end, token.start)
                and self._indent(token.start) <= indent
            ):
                return False
        return False

    def _indent(self, offset: int) -> int:
        """The width of the white space at the start of the line of ``offset``."""
        text = self.source.text
        line_start = text.rfind("\n", 0, offset) + 1
        index = line_start
        while index < offset and text[index] in " \t":
            index += 1
        return index - line_start

    def error(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        if len(self.diagnostics) >= MAX_DIAGNOSTICS:  # the lexer gave up already
            raise _Fatal
        end = len(self.source.text)
        span = Span(min(span.start, end), min(span.end, end))
        self.diagnostics.append(Diagnostic(Severity.ERROR, code, message, self.source, span, hint))
        if len(self.diagnostics) >= MAX_DIAGNOSTICS:
            self.diagnostics.append(
                Diagnostic(
                    Severity.ERROR,
                    "parse.too-many",
                    "too many syntax errors; the rest of the file was not read",
                    self.source,
                    span,
                    "fix the errors above first",
                )
            )
            raise _Fatal

    def span_from(self, start: int) -> Span:
        return Span(start, self.prev_end)

    def expect_semicolon(self, after: str) -> None:
        if self.token.kind == ";":
            self.advance()
            return
        token = self.token
        at = Span(self.prev_end, self.prev_end + 1)
        if token.kind != EOF or not self.quiet_at_end:
            self.error(
                "parse.expected",
                f"expected ';' after {after}, found {describe(token)}",
                at,
                "add ';'",
            )
            self.quiet_at_end = self.quiet_at_end or token.kind == EOF
        # If the next token starts a new line, go on as though ';' were there.
        if token.kind == EOF or self._newline_between(self.prev_end, token.start):
            return
        raise _Abort

    def _newline_between(self, start: int, end: int) -> bool:
        return "\n" in self.source.text[start:end]

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            token = self.token
            self.error(
                "parse.too-deep",
                f"nesting deeper than {MAX_NESTING} levels",
                Span(token.start, max(token.end, token.start + 1)),
                "split the expression or rule into smaller parts",
            )
            raise _Fatal

    def leave(self) -> None:
        self.depth -= 1

    # ------------------------------------------------------------ recovery

    def mark(self) -> tuple[int, int, int]:
        """Where a recovery point stands: token index, nesting depth, brace level."""
        return self.index, self.depth, self.braces

    def recover(self, mark: tuple[int, int, int]) -> None:
        """After a syntax error: skip the rest of what failed, back to the level of ``mark``."""
        start_index, self.depth, level = mark
        self.synchronize(level)
        if self.index == start_index:
            self.advance()

    def synchronize(self, level: int) -> None:
        """Skip to just after the next ';' or to the '}' that closes the enclosing construct.

        ``level`` is the brace level of the recovery point: braces opened by the broken part
        are skipped with everything inside them, so that their '}' does not close the
        enclosing block too early. A definition keyword at the start of a line, and a
        statement on a new line after a skipped block, also end the skipping.
        """
        while True:
            kind = self.token.kind
            if kind == EOF:
                return
            if kind == "}":
                if self.braces <= level:
                    return
                self.advance()
                if self.braces == level and (
                    self.token.kind in _RESUME
                    or (self.token.kind in _STATEMENT_START and self._starts_line())
                ):
                    return
                continue
            if self.braces == level:
                if kind == ";":
                    self.advance()
                    return
                if kind in _RESUME and self._starts_line():
                    return
            self.advance()

    def _starts_line(self) -> bool:
        """Is the current token the first one on its line?"""
        return self.index > 0 and self._newline_between(
            self.tokens[self.index - 1].end, self.token.start
        )

    # ------------------------------------------------------------ documents

    def parse_module(self) -> ast.Module:
        header: list[ast.Header] = []
        body: list[ast.Definition] = []
        try:
            while not self.at(EOF):
                mark = self.mark()
                try:
                    if self.token.kind in _HEADER_KEYWORDS and not (
                        self.token.kind in _SOFT_KEYWORDS and self.peek().kind == "="
                    ):
                        header.append(self.parse_header_item())
                    elif self.at("}"):
                        token = self.advance()
                        # A '}' that matches a '{' before it closes something abandoned
                        # after an earlier error: that error was reported already.
                        if self.braces < 0:
                            self.error(
                                "parse.unexpected",
                                "unexpected '}' with no '{' to close",
                                Span(token.start, token.end),
                                "remove it",
                            )
                            self.braces = 0
                    elif self.at(";"):
                        self.advance()
                    else:
                        definition = self.parse_definition("top")
                        if definition is not None:
                            body.append(definition)
                except _Abort:
                    self.recover(mark)
        except _Fatal:
            pass
        except RecursionError:
            token = self.token
            self.diagnostics.append(
                Diagnostic(
                    Severity.ERROR,
                    "parse.too-deep",
                    "the file is nested too deeply to read",
                    self.source,
                    Span(token.start, token.end),
                    "split the expression or rule into smaller parts",
                )
            )
        return ast.Module(Span(0, len(self.source.text)), tuple(header), tuple(body))

    def parse_header_item(self) -> ast.Header:
        start = self.token.start
        keyword = self.advance().kind
        if keyword == "import":
            url = self.parse_expression()
            self.expect_semicolon("import")
            return ast.Import(self.span_from(start), url)
        if keyword == "docinfo":
            entries = self.parse_entries()
            return ast.DocInfo(self.span_from(start), entries)
        self.expect("(")
        first = self.parse_expression()
        self.expect(")")
        if keyword == "history":
            entries = self.parse_entries()
            return ast.History(self.span_from(start), first, entries)
        opener = self.expect("{").start
        items: list[ast.Expr] = []
        while not self.at("}"):
            items.append(self.parse_expression())
            if not self.accept(","):
                break
        self.expect_close(opener, "',' or '}'")
        if keyword == "desc":
            return ast.Desc(self.span_from(start), first, tuple(items))
        return ast.Author(self.span_from(start), first, tuple(items))

    def parse_entries(self) -> tuple[ast.Entry, ...]:
        opener = self.expect("{").start
        entries: list[ast.Entry] = []
        while not self.at("}"):
            start = self.token.start
            name = self.expect_name("an entry name")
            self.expect("=")
            value = self.parse_expression()
            entries.append(ast.Entry(self.span_from(start), name.text, value))
            if not (self.accept(",") or self.accept(";")):
                break
        self.expect_close(opener, "',', ';' or '}'")
        return tuple(entries)

    def expect_name(self, what: str = "a name") -> Token:
        token = self.token
        if token.kind == IDENT or token.kind in _SOFT_KEYWORDS:
            return self.advance()
        if token.kind == DICE and token.text[0] in "dD":
            self.dice_name(token)
        self.fail_expected(what)

    def dice_name(self, token: Token) -> NoReturn:
        self.error(
            "parse.dice-name",
            f"'{token.text}' is a dice literal, not a name",
            Span(token.start, token.end),
            "choose another name",
        )
        raise _Abort

    # ------------------------------------------------------------ definitions

    def parse_definition(self, context: str) -> ast.Definition | None:
        """A definition in a section ("top"/"section"), form, enum or form literal."""
        start = self.token.start
        modifiers: list[str] = []
        while self.token.kind in _MODIFIERS:
            token = self.advance()
            if token.kind in modifiers:
                self.error(
                    "parse.modifier",
                    f"'{token.kind}' given twice",
                    Span(token.start, token.end),
                    "remove it",
                )
            modifiers.append(token.kind)
        mods = tuple(modifiers)
        kind = self.token.kind
        if kind == "section":
            if context not in ("top", "section"):
                self.error(
                    "parse.section-place",
                    "a section can only be defined at the top level or inside another section",
                    Span(self.token.start, self.token.end),
                )
            return self.parse_section(start, mods)
        if kind == "enum":
            return self.parse_enum(start, mods)
        if kind == "form":
            return self.parse_form(start, mods)
        if kind == "rule":
            return self.parse_rule(start, mods)
        if kind == "function":
            return self.parse_function(start, mods)
        if kind == "alter":
            return self.parse_alter(start, mods)
        if kind == UNIT:
            unit = self.advance()
            self.expect("=")
            value = self.parse_expression()
            self.expect_semicolon("the unit definition")
            return ast.UnitDef(self.span_from(start), unit.text[1:-1], value, mods)
        if kind == IDENT or kind in _SOFT_KEYWORDS or (kind == DICE and self.token.text[0] in "dD"):
            return self.parse_member(start, mods)
        self.fail_expected("a definition (name = value;, rule, function, form, enum, section)")

    def parse_member(self, start: int, mods: tuple[str, ...]) -> ast.Definition:
        name = self.expect_name()
        name_span = Span(name.start, name.end)
        kind = self.token.kind
        if kind == "=":
            self.advance()
            value = self.parse_expression()
            self.expect_semicolon(f"the definition of '{name.text}'")
            return ast.VarDef(self.span_from(start), name.text, name_span, value, mods)
        if kind == "(":
            params = self.parse_params()
            arrow = self.parse_result_marker()
            result = self.parse_type()
            body = self.parse_block()
            return ast.AccessorDef(
                self.span_from(start), name.text, name_span, params, result, body, mods, arrow
            )
        if kind == "->":
            self.advance()
            result = self.parse_type()
            body = self.parse_block()
            return ast.AccessorDef(
                self.span_from(start), name.text, name_span, None, result, body, mods, True
            )
        if kind == ":":
            self.advance()
            type_ = self.parse_type()
            if self.at("{"):
                body = self.parse_block()
                return ast.AccessorDef(
                    self.span_from(start), name.text, name_span, None, type_, body, mods, False
                )
            if self.accept("="):
                value = self.parse_expression()
                self.expect_semicolon(f"the definition of '{name.text}'")
                return ast.VarDef(self.span_from(start), name.text, name_span, value, mods, type_)
            self.expect_semicolon(f"the declaration of '{name.text}'")
            return ast.FieldDecl(self.span_from(start), name.text, name_span, type_, mods)
        hint = "statements go inside a rule { ... }" if kind == "." else None
        self.fail_expected(f"'=', ':' or '(' after '{name.text}'", hint)

    def parse_result_marker(self) -> bool:
        """':' (G13) or '->' (G14) before a result type; True for '->'."""
        if self.accept("->"):
            return True
        self.expect(":", "':' or '->' and a result type")
        return False

    def parse_section(self, start: int, mods: tuple[str, ...]) -> ast.SectionDef:
        self.expect("section")
        path = [self.expect_name("a section name").text]
        while self.accept("."):
            path.append(self.expect_name("a section name").text)
        members = self.parse_members("section")
        return ast.SectionDef(self.span_from(start), tuple(path), members, mods)

    def parse_members(self, context: str) -> tuple[ast.Definition, ...]:
        """``{ definition* }`` with recovery inside."""
        opener = self.expect("{").start
        self.enter()
        members: list[ast.Definition] = []
        while not self.at("}") and not self.at(EOF):
            if self.accept(";"):
                continue
            mark = self.mark()
            try:
                definition = self.parse_definition(context)
                if definition is not None:
                    members.append(definition)
            except _Abort:
                self.recover(mark)
        self.expect_close(opener)
        self.leave()
        return tuple(members)

    def parse_form(self, start: int, mods: tuple[str, ...]) -> ast.FormDef:
        self.expect("form")
        name = self.expect_name("a form name")
        extends = self.parse_type() if self.accept("extends") else None
        members = self.parse_members("form")
        return ast.FormDef(
            self.span_from(start), name.text, Span(name.start, name.end), extends, members, mods
        )

    def parse_enum(self, start: int, mods: tuple[str, ...]) -> ast.EnumDef:
        self.expect("enum")
        name = self.expect_name("an enum name")
        extends = self.parse_type() if self.accept("extends") else None
        opener = self.expect("{").start
        self.enter()
        values: list[ast.EnumValue] = []
        members: list[ast.Definition] = []
        while not self.at("}") and not self.at(EOF):
            if self.accept(";") or self.accept(","):
                continue
            mark = self.mark()
            try:
                value_start = self.token.start
                following = self.peek().kind
                if self.token.kind == IDENT and following in ("{", ";", ",", "}"):
                    value_name = self.advance().text
                    value_members: tuple[ast.Definition, ...] = ()
                    if self.at("{"):
                        value_members = self.parse_members("enum-value")
                    values.append(
                        ast.EnumValue(self.span_from(value_start), value_name, value_members)
                    )
                else:
                    definition = self.parse_definition("enum")
                    if definition is not None:
                        members.append(definition)
            except _Abort:
                self.recover(mark)
        self.expect_close(opener)
        self.leave()
        return ast.EnumDef(
            self.span_from(start),
            name.text,
            Span(name.start, name.end),
            extends,
            tuple(values),
            tuple(members),
            mods,
        )

    def parse_rule(self, start: int, mods: tuple[str, ...]) -> ast.RuleDef:
        self.expect("rule")
        name = self.expect_name("a rule name")
        params = self.parse_params() if self.at("(") else None
        body = self.parse_block()
        return ast.RuleDef(
            self.span_from(start), name.text, Span(name.start, name.end), params, body, mods
        )

    def parse_function(self, start: int, mods: tuple[str, ...]) -> ast.FunctionDef:
        self.expect("function")
        name = self.expect_name("a function name")
        if not self.at("("):
            self.fail_expected(
                "'(' and the parameters", f"write {name.text}() for a function without parameters"
            )
        params = self.parse_params()
        arrow = self.parse_result_marker()
        result = self.parse_type()
        body = self.parse_block()
        return ast.FunctionDef(
            self.span_from(start),
            name.text,
            Span(name.start, name.end),
            params,
            result,
            body,
            mods,
            arrow,
        )

    def parse_alter(self, start: int, mods: tuple[str, ...]) -> ast.AlterDef:
        self.expect("alter")
        name = self.expect_name("an alter name")
        params = self.parse_params()
        body = self.parse_block()
        return ast.AlterDef(
            self.span_from(start), name.text, Span(name.start, name.end), params, body, mods
        )

    def parse_params(self) -> tuple[ast.Param, ...]:
        self.expect("(")
        params: list[ast.Param] = []
        while not self.at(")"):
            start = self.token.start
            name = self.expect_name("a parameter name")
            type_ = self.parse_type() if self.accept(":") else None
            params.append(ast.Param(self.span_from(start), name.text, type_))
            if not self.accept(","):
                break
        self.expect(")", "',' or ')'")
        return tuple(params)

    # ------------------------------------------------------------ types

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
        if kind == IDENT:
            parts = [self.advance().text]
            while self.at(".") and self.peek().kind == IDENT:
                self.advance()
                parts.append(self.advance().text)
            return ast.NamedType(self.span_from(start), tuple(parts))
        self.fail_expected("a type")

    def parse_function_type(self) -> ast.FunctionType:
        start = self.token.start
        self.expect("@")
        self.expect("<")
        if self.at(">"):
            self.advance()
            return ast.FunctionType(self.span_from(start), (), None)
        params: list[ast.TypeExpr] = []
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

    # ------------------------------------------------------------ statements

    def parse_block(self) -> ast.Block:
        start = self.token.start
        opener = self.expect("{").start
        self.enter()
        statements: list[ast.Statement] = []
        while not self.at("}") and not self.at(EOF):
            if self.accept(";"):
                continue
            mark = self.mark()
            try:
                statements.append(self.parse_statement())
            except _Abort:
                self.recover(mark)
        self.expect_close(opener)
        self.leave()
        return ast.Block(self.span_from(start), tuple(statements))

    def parse_statement(self) -> ast.Statement:
        start = self.token.start
        kind = self.token.kind
        if kind == "select":
            select = self.parse_select()
            self.accept(";")
            return ast.ExprStmt(select.span, select)
        if kind == "if":
            return self.parse_if()
        if kind in ("rule", "function", "form", "enum", "alter", "section", UNIT):
            definition = self.parse_definition("block")
            assert definition is not None
            return ast.LocalDef(definition.span, definition)
        expr = self.parse_expression()
        kind = self.token.kind
        if kind == "=" or kind == ":=":
            if isinstance(expr, ast.DiceLit) and expr.text[0] in "dD":
                self.dice_name(Token(DICE, expr.text, expr.span.start, expr.span.end))
            self.advance()
            if not isinstance(expr, ast.Name | ast.Member):
                self.error(
                    "parse.assign-target",
                    "can only assign to a name or a member",
                    expr.span,
                    "write 'name = value;' or 'self.member := value;'",
                )
                raise _Abort
            value = self.parse_expression()
            self.expect_semicolon("the assignment")
            if kind == "=":
                return ast.Assign(self.span_from(start), expr, value)
            return ast.Modify(self.span_from(start), expr, value)
        self.expect_semicolon("the statement")
        return ast.ExprStmt(self.span_from(start), expr)

    def parse_if(self) -> ast.If:
        start = self.token.start
        self.expect("if")
        self.expect("(")
        condition = self.parse_expression()
        self.expect(")")
        then = self.parse_branch("if (...)")
        otherwise: ast.Block | ast.If | None = None
        if self.accept("else"):
            self.enter()
            otherwise = self.parse_if() if self.at("if") else self.parse_branch("else")
            self.leave()
        return ast.If(self.span_from(start), condition, then, otherwise)

    def parse_branch(self, after: str) -> ast.Block:
        """The block of an if or else; a lone statement without braces is an error."""
        if self.at("{") or self.at(EOF):
            return self.parse_block()
        token = self.token
        self.error(
            "parse.expected",
            f"expected '{{' after {after}, found {describe(token)}",
            Span(token.start, token.end),
            "put the statements in braces: { ... }",
        )
        # Go on with the one statement as the block, so that an 'else' after it still fits.
        start = token.start
        self.enter()
        statement = self.parse_statement()
        self.leave()
        return ast.Block(self.span_from(start), (statement,))

    def parse_select(self) -> ast.Select:
        start = self.token.start
        self.expect("select")
        self.expect("(")
        subject = self.parse_expression()
        self.expect(")")
        opener = self.expect("{").start
        self.enter()
        arms: list[ast.CaseArm | ast.AsArm] = []
        default: ast.Block | None = None
        while not self.at("}"):
            token = self.token
            arm_start = token.start
            if token.kind == "case":
                self.advance()
                self.expect("(")
                values = [self.parse_expression()]
                while self.accept(","):
                    values.append(self.parse_expression())
                self.expect(")")
                body = self.parse_block()
                arm: ast.CaseArm | ast.AsArm = ast.CaseArm(
                    Span(arm_start, self.prev_end), tuple(values), body
                )
            elif token.kind == "as":
                self.advance()
                self.expect("(")
                name = self.expect_name("a name to bind")
                self.expect(":")
                type_ = self.parse_type()
                self.expect(")")
                body = self.parse_block()
                arm = ast.AsArm(
                    Span(arm_start, self.prev_end),
                    name.text,
                    Span(name.start, name.end),
                    type_,
                    body,
                )
            elif token.kind == "default":
                self.advance()
                if default is not None:
                    self.error(
                        "parse.select-default",
                        "a select has only one default",
                        Span(token.start, token.end),
                    )
                default = self.parse_block()
                continue
            else:
                self.fail_expected("'case', 'as', 'default' or '}'")
            if default is not None:
                self.error(
                    "parse.select-order",
                    "'default' must be the last arm",
                    Span(token.start, token.end),
                    "move the default arm to the end",
                )
            if arms and type(arms[0]) is not type(arm):
                self.error(
                    "parse.select-mixed",
                    "'case' and 'as' arms cannot be mixed in one select",
                    Span(token.start, token.end),
                )
            arms.append(arm)
        self.expect_close(opener)
        self.leave()
        return ast.Select(self.span_from(start), subject, tuple(arms), default)

    # ------------------------------------------------------------ expressions

    def parse_expression(self) -> ast.Expr:
        """Range (loosest), then binary operators by precedence."""
        self.depth += 1  # self.enter(), written out: this runs for every expression
        if self.depth > MAX_NESTING:
            self.depth -= 1
            self.enter()
        start = self.token.start
        left = self.parse_binary(1)
        kind = self.token.kind
        if (kind == "," or kind == "<") and self._spaced_range():
            token = self.token
            self.error(
                "parse.range-spaces",
                "a range operator is written as one word",
                Span(token.start, self.peek(3).end),
                "write it without spaces: a,...,b  a<...,b  a,...<b  a<...<b",
            )
            raise _Abort
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
                raise _Abort
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
                raise _Abort

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
        start = self.token.start
        expr = self.parse_atom()
        while True:
            kind = self.token.kind
            if kind == ".":
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
                args = self.parse_args()
                expr = ast.Call(self.span_from(start), expr, args)
            elif kind == UNIT:
                if self.peek().kind == "=" and self._newline_between(
                    self.prev_end, self.token.start
                ):
                    return expr  # `[m] = 1.0;` on the next line: a ';' is missing
                unit = self.advance()
                expr = ast.WithUnit(self.span_from(start), expr, unit.text[1:-1])
            elif kind == DICE:
                token = self.token
                if token.text[0] not in "dD":
                    return expr
                self.advance()
                if len(token.text) == 1 and self.token.kind in _ATOM_START:
                    sides = self.parse_postfix_operand()  # G13's binary D: `2 D 6`
                else:
                    sides_text = token.text[1:]
                    sides_value = int(sides_text) if sides_text else 6
                    sides = ast.IntLit(
                        Span(token.start + 1, token.end), sides_value, sides_text or "6"
                    )
                expr = ast.DiceOf(self.span_from(start), expr, sides, token.text)
            else:
                return expr

    def parse_postfix_operand(self) -> ast.Expr:
        self.enter()
        expr = self.parse_postfix()
        self.leave()
        return expr

    def parse_args(self) -> tuple[ast.Expr, ...]:
        self.expect("(")
        args: list[ast.Expr] = []
        while not self.at(")"):
            args.append(self.parse_expression())
            if not self.accept(","):
                break
        self.expect(")", "',' or ')'")
        return tuple(args)

    def parse_atom(self) -> ast.Expr:
        token = self.token
        kind = token.kind
        start = token.start
        # Soft keywords (desc, version, ...) are ordinary names inside expressions.
        if kind == IDENT or kind == "self" or kind == "result" or kind in _SOFT_KEYWORDS:
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
        if kind in TYPE_KEYWORDS or kind == "list" or kind == "range" or kind == "unit":
            named = self.parse_type()
            return ast.TypeValue(named.span, named)
        self.fail_expected("an expression")

    def int_value(self, token: Token) -> int:
        text = token.text
        try:
            if text[:2] in ("0x", "0X"):
                return int(text[2:], 16)
            return int(text)
        except ValueError:
            self.error("parse.number", "number too long", Span(token.start, token.end))
            raise _Abort from None

    def real_value(self, token: Token) -> float:
        text = token.text
        try:
            value = float.fromhex(text) if text[:2] in ("0x", "0X") else float(text)
        except (ValueError, OverflowError):
            value = math.inf
        if math.isinf(value):
            self.error("parse.number", "number too large", Span(token.start, token.end))
            raise _Abort
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
            raise _Abort from None
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
            or following.kind in _DEFINITION_KEYWORDS
            or (
                (following.kind in (IDENT, UNIT) or following.kind in _SOFT_KEYWORDS)
                and second in ("=", ":", "->")
            )
            or (following.kind == IDENT and second == "(" and self._looks_like_accessor())
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
                raise _Abort
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
        if has_head and (self.at("->") or self.at(":")):
            arrow = self.advance().kind == "->"
            result = self.parse_type()
        body: ast.Block | ast.Expr
        body = self.parse_block() if self.at("{") else self.parse_expression()
        return ast.Lambda(self.span_from(start), params, result, body, parenthesized, arrow)
