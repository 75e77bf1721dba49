"""The token stream under the Lore parser: looking at tokens, expecting them, reporting
syntax errors and recovering from them (skipping to the next statement or definition).

:class:`lore.syntax.parse_expressions.ExpressionParser` and
:class:`lore.syntax.parser.Parser` build on it.
"""

from __future__ import annotations

from typing import NoReturn

from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.source import SourceFile, Span
from lore.syntax.tokens import DICE, EOF, IDENT, KEYWORDS, UNIT, Token, describe

_BRACES_AND_END = frozenset(("{", "}", EOF))

# Keywords that are also ordinary member names where a name is expected before '='
# (docinfo{version=...}, history(...){desc=...}).
SOFT_KEYWORDS = frozenset("docinfo encoding version desc author history reviser".split())
MODIFIERS = ("private", "override", "constant")
DEFINITION_KEYWORDS = frozenset("section enum form rule function alter".split()) | set(MODIFIERS)
HEADER_KEYWORDS = frozenset(("docinfo", "desc", "author", "history", "import"))
# Tokens where skipping after a syntax error stops, when they start a line.
_RESUME = DEFINITION_KEYWORDS | HEADER_KEYWORDS
_STATEMENT_START = frozenset((IDENT, UNIT, "if", "for", "select", "self", "result")) | _RESUME

MAX_NESTING = 200
MAX_DIAGNOSTICS = 200


class Abort(Exception):
    """Raised to unwind to the nearest recovery point after a syntax error."""


class Fatal(Exception):
    """Raised when the file cannot be parsed further (nesting too deep, too many errors)."""


class TokenStream:
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
        self.keyword_names: set[str] = set()  # keywords written as names (said once each)
        self.dice_names: set[str] = set()  # dice such as `d` defined as names (said there)

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
        raise Abort

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
        raise Abort

    def expect_close(self, opener: int, what: str = "'}'") -> None:
        """Expect the '}' that closes the '{' at offset ``opener``."""
        if self.accept("}"):
            return
        if self.at(EOF):
            if self.quiet_at_end:  # said already; do not look for the culprit again
                raise Abort
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
            raise Fatal
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
            raise Fatal

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
        raise Abort

    def _newline_between(self, start: int, end: int) -> bool:
        return "\n" in self.source.text[start:end]

    def enter(self, hint: str = "split the expression or rule into smaller parts") -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            token = self.token
            self.error(
                "parse.too-deep",
                f"nesting deeper than {MAX_NESTING} levels",
                Span(token.start, max(token.end, token.start + 1)),
                hint,
            )
            raise Fatal

    def leave(self) -> None:
        self.depth -= 1

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

    def expect_name(self, what: str = "a name") -> Token:
        token = self.token
        if token.kind == IDENT or token.kind in SOFT_KEYWORDS:
            return self.advance()
        if token.kind == DICE and token.text[0] in "dD":
            self.advance()
            return self.dice_name(token)
        if token.kind in KEYWORDS and token.kind not in ("{", "}"):
            return self.keyword_as_name()
        self.fail_expected(what)

    def keyword_as_name(self) -> Token:
        """A keyword where a name is expected: said once for each keyword of the file,
        then read as the name it was meant to be (so that nothing else goes wrong)."""
        token = self.advance()
        if token.kind not in self.keyword_names:
            self.keyword_names.add(token.kind)
            self.error(
                "parse.keyword-name",
                f"'{token.text}' is a keyword, not a name",
                Span(token.start, token.end),
                f"choose another name, like '{token.text}_' or 'my{token.text.capitalize()}'",
            )
        return Token(IDENT, token.text, token.start, token.end)

    def dice_name(self, token: Token) -> Token:
        """A dice literal such as ``d`` where a name is defined: said, then read as the
        name it was meant to be, here and where it is used after (``result = d + 1``),
        so that its definition stands and nothing else fails. Said once for each name."""
        if token.text in self.dice_names:
            return Token(IDENT, token.text, token.start, token.end)
        self.dice_names.add(token.text)
        self.error(
            "parse.dice-name",
            f"'{token.text}' is a dice literal, not a name",
            Span(token.start, token.end),
            f"choose another name, like '{token.text}_' or 'n' ('{token.text}' is read as dice)",
        )
        return Token(IDENT, token.text, token.start, token.end)
