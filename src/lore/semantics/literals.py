"""What a typed string literal (``"...":url``, ``:loc``, ``:jid``, ``:date``, ``:xml``,
``:html``) must look like, checked when the program is checked.

Each check returns the problems it finds as (offset in the value, length, message,
hint); the checker turns them into diagnostics at the right place of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from html.parser import HTMLParser
from urllib.parse import urlsplit
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

MAX_XML_CHARS = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Problem:
    offset: int  # in the string's value
    length: int
    message: str
    hint: str | None = None


_LABEL = r"[^\W\d]\w*"
_COORDINATE = r"(?:-?\d+(?:\s*,\s*-?\d+)*|\w+)"
LOC_RE = re.compile(rf"/(?:{_LABEL}(?:/{_LABEL})*)?(?:\[({_COORDINATE})\])?")
_JID_NODE = r"[^\s\"&'/:<>@]+"
JID_RE = re.compile(rf"(?:{_JID_NODE}@)?[\w.-]+(?:/\S+)?")
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")


def check(kind: str, value: str) -> list[Problem]:
    checker = _CHECKS.get(kind)
    return checker(value) if checker is not None else []


def check_url(value: str) -> list[Problem]:
    for index, char in enumerate(value):
        if char.isspace() or ord(char) < 32:
            return [Problem(index, 1, "a url cannot contain white space or control characters",
                            "write a space as %20")]
    if not value:
        return [Problem(0, 0, "empty url")]
    scheme = urlsplit(value).scheme if ":" in value else ""
    if ":" in value.split("/")[0] and not _SCHEME_RE.fullmatch(value.split(":")[0]):
        return [Problem(0, len(value), f"'{value}' is not a url: bad scheme")]
    del scheme
    return []


def check_loc(value: str) -> list[Problem]:
    if LOC_RE.fullmatch(value):
        return []
    return [Problem(0, len(value), f"'{value}' is not a location path",
                    'a location is like "/region/dungeon[1,2]", "/region[start_point]" '
                    'or "/[0]"')]


def check_jid(value: str) -> list[Problem]:
    if JID_RE.fullmatch(value):
        return []
    return [Problem(0, len(value), f"'{value}' is not a Jabber id",
                    "a jid is like name@example.org or name@example.org/resource")]


def check_date(value: str) -> list[Problem]:
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return [Problem(0, len(value), f"'{value}' is not an ISO 8601 date",
                        "a date is like 2013-07-15 or 2013-07-15T00:00:00+09:00")]
    return []


def parse_xml(value: str) -> Element:
    """Parse XML text safely: no DTDs, no entities, no network, bounded size.

    Raises ``XMLProblem`` with the line and column (1-based) in ``value``.
    """
    if len(value) > MAX_XML_CHARS:
        raise XMLProblem(1, 1, f"the XML is too large ({len(value)} characters)")
    try:
        element: Element = fromstring(value.encode("utf-8"), forbid_dtd=True,
                                      forbid_entities=True, forbid_external=True)
        return element
    except ParseError as error:
        line, column = error.position
        message = str(error).split(":")[0]
        raise XMLProblem(line, column + 1, f"malformed XML: {message}") from None
    except DefusedXmlException as error:
        raise XMLProblem(1, 1, f"XML refused: {type(error).__name__} "
                               "(DTDs and entities are not allowed)") from None


class XMLProblem(Exception):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message


def offset_of(value: str, line: int, column: int) -> int:
    """The offset in ``value`` of a 1-based line and column."""
    offset = 0
    for _ in range(line - 1):
        found = value.find("\n", offset)
        if found < 0:
            return len(value)
        offset = found + 1
    return min(offset + max(column - 1, 0), len(value))


def check_xml(value: str) -> list[Problem]:
    try:
        parse_xml(value)
    except XMLProblem as problem:
        return [Problem(offset_of(value, problem.line, problem.column), 1, problem.message)]
    return []


_VOID = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split())


class _Balance(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, tuple[int, int]]] = []
        self.problems: list[tuple[tuple[int, int], str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _VOID:
            self.open.append((tag, self.getpos()))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if not self.open or self.open[-1][0] != tag:
            expected = f"</{self.open[-1][0]}>" if self.open else "no closing tag"
            self.problems.append((self.getpos(), f"unexpected </{tag}>: expected {expected}"))
            if any(name == tag for name, _ in self.open):
                while self.open and self.open[-1][0] != tag:
                    self.open.pop()
                self.open.pop()
            return
        self.open.pop()


def check_html(value: str) -> list[Problem]:
    parser = _Balance()
    parser.feed(value)
    parser.close()
    problems = [Problem(offset_of(value, line, column + 1), 1, f"malformed HTML: {message}")
                for (line, column), message in parser.problems]
    for tag, (line, column) in parser.open:
        problems.append(Problem(offset_of(value, line, column + 1), 1,
                                f"malformed HTML: <{tag}> is never closed"))
    return problems


_CHECKS = {
    "url": check_url,
    "loc": check_loc,
    "jid": check_jid,
    "date": check_date,
    "xml": check_xml,
    "html": check_html,
}
