"""The Lore parser: tokens to an AST, reporting every syntax error of a file.

Recursive descent, one ``parse_<construct>`` method per construct, with precedence
climbing for binary operators. On an error the parser records a diagnostic and skips
to the next statement or definition boundary, so one file yields all its errors.
"""

from __future__ import annotations

from lore.records import field, record
from lore.syntax import ast, foreign
from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.lexer import tokenize
from lore.syntax.parse_expressions import ExpressionParser
from lore.syntax.recursion import collector_paused, deeper
from lore.syntax.source import SourceFile, Span
from lore.syntax.token_stream import (
    DEFINITION_KEYWORDS,
    HEADER_KEYWORDS,
    MAX_DIAGNOSTICS,
    MAX_NESTING,
    MODIFIERS,
    SOFT_KEYWORDS,
    Abort,
    Fatal,
)
from lore.syntax.tokens import DICE, EOF, IDENT, KEYWORDS, UNIT, Comment, Token, describe

__all__ = ["MAX_DIAGNOSTICS", "MAX_NESTING", "ParseResult", "parse", "parse_text", "value_start"]

# Lexical errors after which the rest of the file was swallowed (by a comment or long
# string): the parser then does not also complain that the file ends too early.
_RUNS_TO_END = frozenset(
    ("lex.unterminated-comment", "lex.unterminated-long-string", "lex.too-long")
)


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


class Parser(ExpressionParser):
    """Files: the header, definitions, statements and selects."""

    def parse_module(self) -> ast.Module:
        header: list[ast.Header] = []
        body: list[ast.Definition] = []
        try:
            while not self.at(EOF):
                mark = self.mark()
                try:
                    if self.token.kind in HEADER_KEYWORDS and not (
                        self.token.kind in SOFT_KEYWORDS and self.peek().kind == "="
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
                except Abort:
                    self.recover(mark)
        except Fatal:
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

    def parse_definition(self, context: str) -> ast.Definition | None:
        """A definition in a section ("top"/"section"), form, enum or form literal."""
        start = self.token.start
        modifiers: list[str] = []
        while self.token.kind in MODIFIERS:
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
        if kind in DEFINITION_KEYWORDS and self.peek().kind in ("=", ":"):
            return self.parse_member(start, mods)  # `form = 3;`: a keyword as a name
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
        if kind == IDENT or kind in SOFT_KEYWORDS or (kind == DICE and self.token.text[0] in "dD"):
            return self.parse_member(start, mods)
        if kind in KEYWORDS and self.peek().kind in ("=", ":"):
            return self.parse_member(start, mods)  # `integer = 3;`: a keyword as a name
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
            # `section a.b { }` is `b` nested in `a`: each part is a level of nesting
            self.enter("nest fewer sections in one another (a dotted name nests each part)")
            path.append(self.expect_name("a section name").text)
        members = self.parse_members("section")
        self.depth -= len(path) - 1
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
            except Abort:
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
                token = self.token
                soft = token.kind in SOFT_KEYWORDS  # `enum Topic { history, rumor }`
                dice = token.kind == DICE and token.text[0] in "dD"  # `enum Die { d4; }`
                if (token.kind == IDENT or soft or dice) and following in ("{", ";", ",", "}"):
                    value_name = self.advance().text
                    if dice:
                        self.dice_name(token)
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
            except Abort:
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
            except Abort:
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
        if kind == "for" and self.peek().kind == "(":
            return self.parse_for()
        following = self.peek().kind
        if kind in ("rule", "function", "form", "enum", "alter", "section", UNIT) and not (
            kind != UNIT and following in ("=", ":=", ":")
        ):
            definition = self.parse_definition("block")
            assert definition is not None
            return ast.LocalDef(definition.span, definition)
        if kind == IDENT and self.token.text in foreign.STATEMENTS:
            self.foreign_statement(foreign.STATEMENTS[self.token.text])
        if kind in KEYWORDS and kind not in ("self", "result") and following in ("=", ":=", ":"):
            name = self.keyword_as_name()  # `form = 3;`
            expr: ast.Expr = ast.Name(Span(name.start, name.end), name.text)
        else:
            expr = self.parse_expression()
        kind = self.token.kind
        if kind == ":" and isinstance(expr, ast.Name):
            return self.parse_typed_local(expr)
        if kind == "=" or kind == ":=":
            if isinstance(expr, ast.DiceLit) and expr.text[0] in "dD":
                self.dice_name(Token(DICE, expr.text, expr.span.start, expr.span.end))
                expr = ast.Name(expr.span, expr.text)
            self.advance()
            if not isinstance(expr, ast.Name | ast.Member):
                self.error(
                    "parse.assign-target",
                    "can only assign to a name or a member",
                    expr.span,
                    "write 'name = value;' or 'self.member := value;'",
                )
                raise Abort
            value = self.parse_expression()
            self.expect_semicolon("the assignment")
            if kind == "=":
                return ast.Assign(self.span_from(start), expr, value)
            return ast.Modify(self.span_from(start), expr, value)
        self.expect_semicolon("the statement")
        return ast.ExprStmt(self.span_from(start), expr)

    def foreign_statement(self, construct: foreign.Foreign) -> None:
        """A statement of another language (``while (...)``, ``return x;``): said, then
        skipped; ``var``, ``let`` and ``const`` are dropped and the statement goes on."""
        token = self.token
        following = self.peek()
        if construct.before:
            if following.kind not in construct.before:
                return
        elif following.kind in foreign.NAME_FOLLOWERS:
            return  # `return = 3;`: a name after all
        self.error("parse.foreign", construct.message, Span(token.start, token.end), construct.hint)
        if token.text in ("var", "let", "const"):
            self.advance()
            return
        raise Abort

    def parse_typed_local(self, name: ast.Name) -> ast.TypedLocal:
        """``x : T = e;`` in a body: a new local of type ``T``."""
        self.expect(":")
        type_ = self.parse_type()
        if not self.at("="):
            written = self.source.text[type_.span.start : type_.span.end]
            self.fail_expected(
                f"'=' and the value of '{name.name}'",
                f"a local always has a value: {name.name} : {written} = ...;",
            )
        self.advance()
        value = self.parse_expression()
        self.expect_semicolon(f"the definition of '{name.name}'")
        return ast.TypedLocal(self.span_from(name.span.start), name.name, name.span, type_, value)

    def parse_for(self) -> ast.For:
        """``for (x in xs) { ... }``."""
        start = self.token.start
        self.expect("for")
        self.expect("(")
        token = self.token
        following = self.peek()
        if token.kind != IDENT or following.kind != IDENT or following.text != "in":
            construct = foreign.C_FOR
            if token.kind == IDENT and following.kind == ":":
                construct = foreign.Foreign(
                    "the loop's name takes the type of the elements; it is written without one",
                    f"write for ({token.text} in ...)",
                )
            self.error("parse.for", construct.message, Span(start, self.token.end), construct.hint)
            self.skip_parenthesized()
            raise Abort
        name = self.advance()
        self.advance()  # in
        items = self.parse_expression()
        self.expect(")", "')' after the list or range")
        body = self.parse_block()
        return ast.For(self.span_from(start), name.text, Span(name.start, name.end), items, body)

    def skip_parenthesized(self) -> None:
        """Skip to just after the ')' that closes the '(' already read (``for (;;)``), so
        that what follows is skipped as a whole."""
        depth = 1
        while not self.at(EOF) and not self.at("{") and not self.at("}"):
            kind = self.advance().kind
            if kind == "(":
                depth += 1
            elif kind == ")":
                depth -= 1
                if depth == 0:
                    return

    def parse_if(self) -> ast.If:
        start = self.token.start
        self.expect("if")
        condition = self.parse_condition()
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
