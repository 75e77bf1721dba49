"""A Pygments lexer for Lore, so that documentation tools and other programs highlight
Lore code (registered as the entry point ``pygments.lexers: lore``).

Its token rules follow ``lore.syntax.lexer``: line and block comments, strings and long
strings (``[[...]]``, ``[=[...]=]``), units (``[m]``), dice (``3D6``, ``d``), numbers,
the keywords, and a string's type after ``:`` (``"f.xml":url``).
"""

from __future__ import annotations

from typing import ClassVar

from pygments.lexer import RegexLexer, bygroups, words  # type: ignore[import-untyped]
from pygments.token import (  # type: ignore[import-untyped]
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
)

from lore.syntax.tokens import KEYWORDS, STRING_TYPES, TYPE_KEYWORDS

_CONSTANTS = ("true", "false", "self", "result")
_TYPED_STRING = r'("(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\')(:)({})\b'.format(
    "|".join(sorted(STRING_TYPES))
)
_DECLARATIONS = ("section", "form", "enum", "rule", "function", "alter", "import", "unit")


class LoreLexer(RegexLexer):  # type: ignore[misc]
    name = "Lore"
    aliases: ClassVar[list[str]] = ["lore"]
    filenames: ClassVar[list[str]] = ["*.lore"]
    mimetypes: ClassVar[list[str]] = ["text/x-lore"]
    url = "https://github.com/xgmtk/lore"

    tokens: ClassVar[dict[str, list[tuple[object, ...]]]] = {
        "root": [
            (r"\s+", Text),
            (r"//[^\n]*", Comment.Single),
            (r"/\*", Comment.Multiline, "comment"),
            (r"\[(=*)\[(.|\n)*?\]\1\]", String.Heredoc),
            (r"\[[^\[\]\s=][^\[\]\s]*\]", Name.Decorator),  # a unit
            (_TYPED_STRING, bygroups(String, Punctuation, Keyword.Type)),
            (r'"(?:[^"\\\n]|\\.)*"', String.Double),
            (r"'(?:[^'\\\n]|\\.)*'", String.Single),
            (r"[0-9]*[dD][0-9]*(?!\w)", Number.Other),  # dice: 3D6, d6, 4d, D
            (r"0[xX][0-9a-fA-F]+", Number.Hex),
            (r"[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+", Number.Float),
            (r"[0-9]+", Number.Integer),
            (words(_CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words((*tuple(sorted(TYPE_KEYWORDS)), "list", "range"), suffix=r"\b"), Keyword.Type),
            (words(_DECLARATIONS, suffix=r"\b"), Keyword.Declaration),
            (words(tuple(sorted(KEYWORDS - set(_CONSTANTS))), suffix=r"\b"), Keyword),
            (r"[^\W\d]\w*", Name),
            (r",\.\.\.[,<]|<\.\.\.[,<]|:=|->|==|!=|<=|>=|[-+*/%<>=!&|@?]", Operator),
            (r"[.,;:(){}\]\[]", Punctuation),
            (r".", Error),  # no Lore token starts with it
        ],
        "comment": [
            (r"[^*]+", Comment.Multiline),
            (r"\*/", Comment.Multiline, "#pop"),
            (r"\*", Comment.Multiline),
        ],
    }
