"""The Lore lexer: text to tokens, comments kept aside for the formatter."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from lore.records import field, record
from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.source import SourceFile, Span
from lore.syntax.tokens import (
    DICE,
    EOF,
    IDENT,
    INT,
    KEYWORDS,
    LONGSTRING,
    REAL,
    STRING,
    UNIT,
    Comment,
    Token,
)

_WHITE_SPACE = re.compile(r"[ \t\f\r\n]+")
# One match per token: the white space before a token is skipped by the same match.
_TOKEN = re.compile(
    r"""
    [ \t\f\r\n]*+
    (?:
    (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<long_string>\[=*\[)
  | (?P<unit>\[[^\[\]\s=][^\[\]\s]*\])
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<dice>[0-9]*[dD][0-9]*(?!\w))
  | (?P<hex>0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)
  | (?P<number>[0-9]+(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?|\.[eE][+-]?[0-9]+|\.(?![^\W\d])
                     |[eE][+-]?[0-9]+)?
               |\.[0-9]+(?:[eE][+-]?[0-9]+)?)
  | (?P<word>[^\W\d]\w*)
  | (?P<op>,\.\.\.[,<]|<\.\.\.[,<]|:=|->|==|!=|<=|>=|[-+*/%<>=!&|.,;:(){}@?\]])
    )
    """,
    re.VERBOSE,
)

# Characters people paste from word processors or type with a Japanese input method,
# and what to type instead.
_LOOKALIKES = {
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u2018": "'",
    "\u2019": "'",
    "\u300c": '"',
    "\u300d": '"',
    "\u3000": "a plain space",
    "\u00a0": "a plain space",
    "\u3001": ",",
    "\u3002": ".",
    "\u2212": "-",
    "\u2014": "-",
    "\u30fc": "-",
}
# Opening quote-like characters and the closing ones that end them (for recovery).
_QUOTE_PAIRS = {
    "\u201c": '\u201d\u201c"',
    "\u2018": "\u2019'",
    "\u300c": "\u300d",
    "\u201e": "\u201c\u201d",
    "\uff02": '\uff02"',
    "\uff07": "\uff07'",
}
# What an unterminated string leaves out at the end of its line, so that the statement
# still ends where the author meant it to (`GM.message("Hi);` reads as `"Hi"` then `);`).
_STATEMENT_END = " \t\r;),}"

# Reports a lexical error: code, message, start, end, hint.
_Report = Callable[[str, str, int, int, "str | None"], None]

# The name of a unit whose ']' is missing: `5[m;`.
_UNCLOSED_UNIT = re.compile(r"[^\[\]\s=;,(){}]+")

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "0": "\0"}
_ESCAPE_RE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)


def _half_width(char: str) -> str | None:
    """The ASCII character that a full-width or look-alike character stands for, if any.

    Quote marks are left out: they get their own recovery (read as a string).
    """
    if char in _QUOTE_PAIRS:
        return None
    code = ord(char)
    if 0xFF01 <= code <= 0xFF5E:  # full-width ASCII
        return chr(code - 0xFEE0)
    target = _LOOKALIKES.get(char, "")
    return target if len(target) == 1 else None


def _suggestion(char: str) -> str | None:
    if char == "#":
        return "comments start with // (or /* ... */)"
    if char in _LOOKALIKES:
        target = _LOOKALIKES[char]
        return f"use {target}" if target.startswith("a ") else f"use {_quoted(target)} instead"
    code = ord(char)
    if 0xFF01 <= code <= 0xFF5E:  # full-width ASCII
        return f"use the half-width {_quoted(chr(code - 0xFEE0))} instead"
    return None


def _quoted(text: str) -> str:
    return f'"{text}"' if "'" in text else f"'{text}'"


def _is_bad_code_point(code: int) -> bool:
    return code > 0x10FFFF or 0xD800 <= code <= 0xDFFF


_PATTERN_SIGNS = frozenset("(){}?")  # signs a command pattern escapes


def _check_escapes(text: str, start: int, error: _Report) -> None:
    """Report ``\\u`` and ``\\U`` escapes in a quoted string that name no character."""
    for match in _ESCAPE_RE.finditer(text, 1, len(text) - 1):
        seq = match.group(1)
        if seq not in _ESCAPES and not (seq[0] in "uU" and len(seq) > 1):
            hint = "escapes are \\n \\t \\r \\\" \\' \\\\ \\0 \\uXXXX; write \\\\ for a backslash"
            if seq in _PATTERN_SIGNS:  # a command pattern's `\(` written in a string
                hint = (
                    f"a command pattern's '\\{seq}' is written with two backslashes in a"
                    f' string: "\\\\{seq}"'
                )
            error(
                "lex.bad-escape",
                f"unknown escape '{match.group()}'",
                start + match.start(),
                start + match.end(),
                hint,
            )
        elif seq[0] in "uU" and len(seq) > 1 and _is_bad_code_point(int(seq[1:], 16)):
            error(
                "lex.bad-escape",
                f"'{match.group()}' is not a Unicode character",
                start + match.start(),
                start + match.end(),
                "a code point is at most 10FFFF and not a surrogate (D800-DFFF)",
            )


def unescape(body: str) -> str:
    """The value of a quoted string's body (between the quotes)."""
    if "\\" not in body:
        return body

    def replace(match: re.Match[str]) -> str:
        seq = match.group(1)
        if seq[0] in "uU" and len(seq) > 1:
            code = int(seq[1:], 16)
            return "\ufffd" if _is_bad_code_point(code) else chr(code)
        return _ESCAPES.get(seq, seq)

    return _ESCAPE_RE.sub(replace, body)


# After this many errors the lexer stops: the text is hardly Lore (and the parser stops
# after as many errors anyway).
MAX_ERRORS = 200


# A file holds at most this many tokens: checking costs about a tenth of a second and
# 5 MB for each 10,000 of them (a longer file would take a minute and gigabytes).
MAX_TOKENS = 500_000


class _TooManyErrors(Exception):
    pass


@record(frozen=False, slots=False)
class LexResult:
    tokens: list[Token]
    comments: list[Comment]
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _own_line(text: str, pos: int) -> bool:
    """Whether only white space comes before ``pos`` on its line (for comments)."""
    return not text[text.rfind("\n", 0, pos) + 1 : pos].strip(" \t\f\r")


def tokenize(source: SourceFile) -> LexResult:
    """Split a file into tokens. Bad characters become diagnostics; lexing goes on."""
    text = source.text
    tokens: list[Token] = []
    comments: list[Comment] = []
    diagnostics: list[Diagnostic] = []
    if source.encoding_error is not None:
        at = source.encoding_error
        diagnostics.append(
            Diagnostic(
                Severity.ERROR,
                "lex.encoding",
                "the file is not valid UTF-8 text here",
                source,
                Span(at, at + 1),
                "Lore files are UTF-8: save the file in that encoding",
            )
        )
    append = tokens.append
    new = tuple.__new__  # Token(...) without the Python-level __new__ of a named tuple
    match = _TOKEN.match
    keywords = KEYWORDS
    pos = 0
    length = len(text)

    def error(code: str, message: str, start: int, end: int, hint: str | None = None) -> None:
        diagnostics.append(
            Diagnostic(Severity.ERROR, code, message, source, Span(start, end), hint)
        )
        if len(diagnostics) >= MAX_ERRORS:
            raise _TooManyErrors

    try:
        while pos < length and len(tokens) < MAX_TOKENS:
            m = match(text, pos)
            if m is None:
                blank = _WHITE_SPACE.match(text, pos)
                if blank is not None:  # white space before a bad character or the end
                    pos = blank.end()
                    continue
                if _half_width(text[pos]) is not None:
                    # Report the run of full-width characters once, then read it as the
                    # half-width characters it stands for (same length: offsets stay valid).
                    run_end = _full_width_run(text, pos, error)
                    text = (
                        text[:pos]
                        + "".join(_half_width(c) or c for c in text[pos:run_end])
                        + (text[run_end:])
                    )
                    continue
                pos = _bad_character(source, text, pos, tokens, error)
                continue
            kind = m.lastgroup or ""
            pos, end = m.span(kind)
            if kind == "word":
                word = m.group(kind)
                append(new(Token, (word if word in keywords else IDENT, word, pos, end)))
            elif kind == "op":
                op = m.group(kind)
                if op == "]":
                    error(
                        "lex.unexpected-char",
                        "unexpected ']' with no '[' before it",
                        pos,
                        end,
                        "remove it",
                    )
                else:
                    append(new(Token, (op, op, pos, end)))
            elif kind == "number":
                body = m.group(kind)
                is_real = "." in body or "e" in body or "E" in body
                append(new(Token, (REAL if is_real else INT, body, pos, end)))
            elif kind == "dice":
                append(new(Token, (DICE, m.group(kind), pos, end)))
            elif kind == "string":
                body = m.group(kind)
                if "\\" in body:
                    _check_escapes(body, pos, error)
                append(new(Token, (STRING, body, pos, end)))
            elif kind == "unit":
                append(new(Token, (UNIT, m.group(kind), pos, end)))
            elif kind == "hex":
                body = m.group(kind)
                is_real = "." in body or "p" in body or "P" in body
                append(new(Token, (REAL if is_real else INT, body, pos, end)))
            elif kind == "line_comment":
                comments.append(Comment(m.group(kind).rstrip("\r"), pos, end, _own_line(text, pos)))
            elif kind == "block_comment":
                close = text.find("*/", end)
                if close < 0:
                    error(
                        "lex.unterminated-comment",
                        "unterminated comment",
                        pos,
                        end,
                        "close it with '*/'",
                    )
                    end = length
                else:
                    end = close + 2
                comments.append(Comment(text[pos:end], pos, end, _own_line(text, pos)))
            elif kind == "long_string":
                level = end - pos - 2
                closer = "]" + "=" * level + "]"
                close = text.find(closer, end)
                if close < 0:
                    error(
                        "lex.unterminated-long-string",
                        "unterminated long string",
                        pos,
                        end,
                        f"close it with '{closer}'",
                    )
                    end = length
                else:
                    end = close + len(closer)
                append(new(Token, (LONGSTRING, text[pos:end], pos, end)))
            pos = end
    except _TooManyErrors:
        last = diagnostics[-1].span
        diagnostics.append(
            Diagnostic(
                Severity.ERROR,
                "lex.too-many",
                "too many errors; the rest of the file was not read",
                source,
                last,
                "is this a Lore file?",
            )
        )
    if len(tokens) >= MAX_TOKENS and pos < length:
        _too_many_tokens(source, tokens, diagnostics)
    append(new(Token, (EOF, "", length, length)))
    return LexResult(tokens, comments, diagnostics)


def _too_many_tokens(
    source: SourceFile, tokens: list[Token], diagnostics: list[Diagnostic]
) -> None:
    """Refuse a file past ``MAX_TOKENS``: none of its tokens is parsed."""
    last = tokens[-1]
    tokens.clear()
    diagnostics.append(
        Diagnostic(
            Severity.ERROR,
            "lex.too-long",
            f"the file holds more than {MAX_TOKENS:,} tokens (names, numbers, texts and"
            " signs), more than Lore reads in one file; it was not checked",
            source,
            Span(last[2], last[3]),
            "split it into files that import each other",
        )
    )


def _full_width_run(text: str, pos: int, error: _Report) -> int:
    """Report the full-width characters from ``pos`` on; return where they end."""
    end = pos + 1
    if text[pos] not in _LOOKALIKES:  # a plain space (U+3000) is reported on its own
        while end < len(text) and text[end] not in _LOOKALIKES and _half_width(text[end]):
            end += 1
    if end == pos + 1:
        char = text[pos]
        name = unicodedata.name(char, "")
        error(
            "lex.unexpected-char",
            f"unexpected character U+{ord(char):04X} ({name})",
            pos,
            end,
            _suggestion(char),
        )
    else:
        run = text[pos:end]
        half = "".join(_half_width(c) or c for c in run)
        error(
            "lex.unexpected-char",
            f"unexpected full-width characters '{run}'",
            pos,
            end,
            f"use the half-width {_quoted(half)} instead",
        )
    return end


def _bad_character(
    source: SourceFile, text: str, pos: int, tokens: list[Token], error: _Report
) -> int:
    """Report the character at ``pos`` and return where lexing goes on."""
    char = text[pos]
    if char in "\"'":
        return _unterminated_string(text, pos, tokens, error)
    if char == "[":
        return _bad_unit(text, pos, tokens, error)
    name = unicodedata.name(char, "")
    if not name and unicodedata.category(char) == "Cc":
        name = "a control character"
    described = f"U+{ord(char):04X}" + (f" ({name})" if name else "")
    error(
        "lex.unexpected-char", f"unexpected character {described}", pos, pos + 1, _suggestion(char)
    )
    if char == "#":  # a comment in the style of another language: skip it like one
        line_end = text.find("\n", pos)
        return len(text) if line_end < 0 else line_end
    closers = _QUOTE_PAIRS.get(char)
    if closers:
        # Recover: read up to the matching quote on the same line as a string.
        index = pos + 1
        while index < len(text) and text[index] not in closers and text[index] != "\n":
            index += 1
        if index < len(text) and text[index] in closers:
            body = text[pos + 1 : index].replace("\\", "\\\\").replace('"', '\\"')
            tokens.append(Token(STRING, f'"{body}"', pos, index + 1))
            return index + 1
    return pos + 1


def _unterminated_string(text: str, pos: int, tokens: list[Token], error: _Report) -> int:
    """Report a quote with no closing quote on its line; the rest of the line is the string."""
    char = text[pos]
    line_end = text.find("\n", pos)
    line_end = len(text) if line_end < 0 else line_end
    error(
        "lex.unterminated-string",
        "unterminated string",
        pos,
        pos + 1,
        f"close it with {char} on the same line (use [[...]] for text over several lines)",
    )
    end = line_end
    while end > pos + 1 and text[end - 1] in _STATEMENT_END:
        end -= 1
    tokens.append(Token(STRING, text[pos:end] + char, pos, end))
    return end


def _bad_unit(text: str, pos: int, tokens: list[Token], error: _Report) -> int:
    """Report a '[' that starts neither a unit name nor a long string."""
    line_end = text.find("\n", pos)
    line_end = len(text) if line_end < 0 else line_end
    close = text.find("]", pos + 1, line_end)
    if close < 0 or "[" in text[pos + 1 : close]:
        unclosed = _UNCLOSED_UNIT.match(text, pos + 1)
        if unclosed is None:
            error(
                "lex.bad-unit",
                "expected a unit name like [m] or a long string like [[...]]",
                pos,
                pos + 1,
                None,
            )
            return pos + 1
        name = unclosed.group()
        error(
            "lex.bad-unit",
            f"unit name '[{name}' is not closed",
            pos,
            unclosed.end(),
            f"write [{name}]",
        )
        tokens.append(Token(UNIT, f"[{name}]", pos, unclosed.end()))
        return unclosed.end()
    inside = text[pos + 1 : close]
    name = "".join(inside.split())
    if not name:
        error(
            "lex.bad-unit",
            "empty unit name",
            pos,
            close + 1,
            "write a unit name in the brackets, like [m]",
        )
    elif name.startswith("="):
        error(
            "lex.bad-unit",
            f"a unit name cannot start with '=': [{inside}]",
            pos,
            close + 1,
            "long strings are written [=[...]=]",
        )
    else:
        error(
            "lex.bad-unit",
            f"a unit name cannot contain spaces: [{inside}]",
            pos,
            close + 1,
            f"write [{name}]",
        )
        tokens.append(Token(UNIT, f"[{name}]", pos, close + 1))
    return close + 1
