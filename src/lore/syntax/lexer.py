"""The Lore lexer: text to tokens, comments kept aside for the formatter."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

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

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\f\r\n]+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<long_string>\[=*\[)
  | (?P<unit>\[[^\[\]\s=][^\[\]\s]*\])
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<dice>\d*[dD]\d*(?!\w))
  | (?P<hex>0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?)
  | (?P<number>\d+(?:\.\d+(?:[eE][+-]?\d+)?|\.[eE][+-]?\d+|\.(?![^\W\d])|[eE][+-]?\d+)?
               |\.\d+(?:[eE][+-]?\d+)?)
  | (?P<word>[^\W\d]\w*)
  | (?P<op>,\.\.\.[,<]|<\.\.\.[,<]|:=|->|==|!=|<=|>=|[-+*/%<>=!&|.,;:(){}@?\]])
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
    "\u2212": "-",
    "\u2014": "-",
    "\u30fc": "-",
}
# Opening quote-like characters and the closing ones that end them (for recovery).
_QUOTE_PAIRS = {"\u201c": "\u201d\u201c\"", "\u2018": "\u2019'", "\u300c": "\u300d", "\u201e": "\u201c\u201d"}

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "0": "\0"}
_ESCAPE_RE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)


def _suggestion(char: str) -> str | None:
    if char in _LOOKALIKES:
        target = _LOOKALIKES[char]
        return f"use {target}" if target.startswith("a ") else f"use '{target}' instead"
    code = ord(char)
    if 0xFF01 <= code <= 0xFF5E:  # full-width ASCII
        return f"use the half-width '{chr(code - 0xFEE0)}' instead"
    return None


def unescape(body: str) -> str:
    """The value of a quoted string's body (between the quotes)."""
    if "\\" not in body:
        return body

    def replace(match: re.Match[str]) -> str:
        seq = match.group(1)
        if seq[0] in "uU" and len(seq) > 1:
            return chr(int(seq[1:], 16))
        return _ESCAPES.get(seq, seq)

    return _ESCAPE_RE.sub(replace, body)


@dataclass
class LexResult:
    tokens: list[Token]
    comments: list[Comment]
    diagnostics: list[Diagnostic] = field(default_factory=list)


def tokenize(source: SourceFile) -> LexResult:
    """Split a file into tokens. Bad characters become diagnostics; lexing goes on."""
    text = source.text
    tokens: list[Token] = []
    comments: list[Comment] = []
    diagnostics: list[Diagnostic] = []
    append = tokens.append
    match = _TOKEN.match
    keywords = KEYWORDS
    pos = 0
    length = len(text)
    line_start_clean = True  # only white space since the last newline

    def error(code: str, message: str, start: int, end: int, hint: str | None = None) -> None:
        diagnostics.append(
            Diagnostic(Severity.ERROR, code, message, source, Span(start, end), hint)
        )

    while pos < length:
        m = match(text, pos)
        if m is None:
            pos = _bad_character(source, text, pos, tokens, error)
            line_start_clean = False
            continue
        kind = m.lastgroup
        end = m.end()
        if kind == "ws":
            if "\n" in text[pos:end]:
                line_start_clean = True
            pos = end
            continue
        if kind == "word":
            word = m.group()
            append(Token(word if word in keywords else IDENT, word, pos, end))
        elif kind == "op":
            op = m.group()
            if op == "]":
                error("lex.unexpected-char", "unexpected ']'", pos, end)
            else:
                append(Token(op, op, pos, end))
        elif kind == "number":
            body = m.group()
            is_real = "." in body or "e" in body or "E" in body
            append(Token(REAL if is_real else INT, body, pos, end))
        elif kind == "dice":
            append(Token(DICE, m.group(), pos, end))
        elif kind == "string":
            append(Token(STRING, m.group(), pos, end))
        elif kind == "unit":
            append(Token(UNIT, m.group(), pos, end))
        elif kind == "hex":
            body = m.group()
            is_real = "." in body or "p" in body or "P" in body
            append(Token(REAL if is_real else INT, body, pos, end))
        elif kind == "line_comment":
            comments.append(Comment(m.group().rstrip("\r"), pos, end, line_start_clean))
        elif kind == "block_comment":
            close = text.find("*/", end)
            if close < 0:
                error("lex.unterminated-comment", "unterminated comment", pos, end,
                      "close it with '*/'")
                end = length
            else:
                end = close + 2
            comments.append(Comment(text[pos:end], pos, end, line_start_clean))
        elif kind == "long_string":
            level = end - pos - 2
            closer = "]" + "=" * level + "]"
            close = text.find(closer, end)
            if close < 0:
                error("lex.unterminated-string", "unterminated long string", pos, end,
                      f"close it with '{closer}'")
                end = length
            else:
                end = close + len(closer)
            append(Token(LONGSTRING, text[pos:end], pos, end))
        line_start_clean = False
        pos = end
    append(Token(EOF, "", length, length))
    return LexResult(tokens, comments, diagnostics)


def _bad_character(source: SourceFile, text: str, pos: int, tokens: list[Token],
                   error: object) -> int:
    """Report the character at ``pos`` and return where lexing goes on."""
    assert callable(error)
    char = text[pos]
    if char in "\"'":
        line_end = text.find("\n", pos)
        line_end = len(text) if line_end < 0 else line_end
        error("lex.unterminated-string", "unterminated string", pos, pos + 1,
              f"close it with {char} on the same line (use [[...]] for text over several lines)")
        return line_end
    if char == "[":
        error("lex.bad-unit", "expected a unit name like [m] or a long string like [[...]]",
              pos, pos + 1)
        return pos + 1
    name = unicodedata.name(char, "")
    described = f"U+{ord(char):04X}" + (f" ({name})" if name else "")
    error("lex.unexpected-char", f"unexpected character {described}", pos, pos + 1,
          _suggestion(char))
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
