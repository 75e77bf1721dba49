"""What a typed string literal (``"...":url``, ``:loc``, ``:jid``, ``:date``, ``:xml``,
``:html``) and a dice literal must look like, checked when the program is checked.

Each check returns the problems it finds as (offset in the value, length, message,
hint); the checker turns them into diagnostics at the right place of the file.
"""

from __future__ import annotations

import contextlib
import re
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

# The XML, HTML and date parsers are imported by the checks that use them: most files
# have no such literal, and `lore check` should start fast.
if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

from lore.records import record

MAX_XML_CHARS = 4 * 1024 * 1024
MAX_WHOLE_BITS = 13_000  # a whole number is below 2^13000 (about 3,900 digits)
MAX_DICE = 10_000  # dice in one roll (the engine refuses more when they are computed)
MAX_SIDES = 1_000_000  # sides of a die


@record
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


def dice_problem(count: int, sides: int) -> tuple[str, str | None] | None:
    """What is wrong with the dice literal ``{count}d{sides}`` (a message and a hint)."""
    if sides < 1:
        return "a die has at least one side", None
    if sides > MAX_SIDES:
        return f"dice of {sides} sides are more than the limit of {MAX_SIDES:,}", None
    if count > MAX_DICE:
        return (
            f"{count} dice are more than the limit of {MAX_DICE:,} in one roll",
            "roll fewer dice, or count successes with a rule",
        )
    return None


def quantity_problem(amount: int | float, factor: Fraction, integer: bool) -> str | None:
    """What is wrong with a quantity literal ``amount[unit]``, given the unit's factor to
    the base unit of its family and whether that family counts in whole numbers."""
    value = Fraction(amount) * factor
    if integer:
        if abs(value).__ceil__().bit_length() > MAX_WHOLE_BITS:
            return f"this quantity is larger than 2^{MAX_WHOLE_BITS} of its base unit"
        return None
    try:
        float(value)
    except OverflowError:
        return "this quantity is too large a number"
    return None


def check_url(value: str) -> list[Problem]:
    for index, char in enumerate(value):
        if char.isspace() or ord(char) < 32:
            return [
                Problem(
                    index,
                    1,
                    "a url cannot contain white space or control characters",
                    "write a space as %20",
                )
            ]
    if not value:
        return [Problem(0, 0, "empty url")]
    if ":" in value.split("/")[0] and not _SCHEME_RE.fullmatch(value.split(":")[0]):
        return [Problem(0, len(value), f"'{value}' is not a url: bad scheme")]
    try:
        urlsplit(value)
    except ValueError:  # an unbalanced '[' or ']' around a host
        return [
            Problem(
                0,
                len(value),
                f"'{value}' is not a url: its host is not well formed",
                "a host in brackets is an IPv6 address, like http://[::1]/",
            )
        ]
    return []


def check_loc(value: str) -> list[Problem]:
    if LOC_RE.fullmatch(value):
        return []
    return [
        Problem(
            0,
            len(value),
            f"'{value}' is not a location path",
            'a location is like "/region/dungeon[1,2]", "/region[start_point]" or "/[0]"',
        )
    ]


def check_jid(value: str) -> list[Problem]:
    if JID_RE.fullmatch(value):
        return []
    return [
        Problem(
            0,
            len(value),
            f"'{value}' is not a Jabber id",
            "a jid is like name@example.org or name@example.org/resource",
        )
    ]


def check_date(value: str) -> list[Problem]:
    from datetime import datetime

    try:
        datetime.fromisoformat(value)
    except ValueError:
        return [
            Problem(
                0,
                len(value),
                f"'{value}' is not an ISO 8601 date",
                "a date is like 2013-07-15 or 2013-07-15T00:00:00+09:00",
            )
        ]
    return []


def parse_xml(value: str) -> Element:
    """Parse XML text safely: no DTDs, no entities, no network, bounded size.

    Raises ``XMLProblem`` with the line and column (1-based) in ``value``.
    """
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    if len(value) > MAX_XML_CHARS:
        raise XMLProblem(1, 1, f"the XML is too large ({len(value)} characters)")
    try:
        element: Element = fromstring(
            value.encode("utf-8"), forbid_dtd=True, forbid_entities=True, forbid_external=True
        )
        return element
    except LookupError as error:  # encoding="..." that Python does not know
        raise unknown_encoding(value, error) from None
    except ParseError as error:
        line, column = error.position
        message = str(error).split(":")[0]
        lines = value.split("\n")
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        if message == "mismatched tag" and text[max(column - 2, 0) : column] == "</":
            # Expat points at the name of the closing tag: mark the whole tag.
            end = text.find(">", column)
            name = text[column:end] if end >= 0 else text[column:]
            open_tag = _open_element(value)
            what = f"<{open_tag}>" if open_tag else "the open element"
            raise XMLProblem(
                line,
                column - 1,
                f"malformed XML: </{name}> does not close {what}",
                (end + 1 if end >= 0 else len(text)) - column + 2,
            ) from None
        message = _EXPAT_MESSAGES.get(message, message)
        raise XMLProblem(line, column + 1, f"malformed XML: {message}") from None
    except DefusedXmlException:
        line, column = 1, 1
        for marker in ("<!DOCTYPE", "<!ENTITY"):
            found = value.find(marker)
            if found >= 0:
                line = value.count("\n", 0, found) + 1
                column = found - (value.rfind("\n", 0, found) + 1) + 1
                break
        raise XMLProblem(
            line,
            column,
            "XML refused: a <!DOCTYPE> is not allowed (Lore's XML "
            "has no DTDs, entities or external references)",
            len("<!DOCTYPE"),
        ) from None


def unknown_encoding(value: str, error: LookupError) -> XMLProblem:
    """The problem of an XML declaration whose encoding Python does not know, at its
    ``encoding=``."""
    name = str(error).rsplit(":", 1)[-1].strip()
    found = max(value.find("encoding"), 0)
    line = value.count("\n", 0, found) + 1
    column = found - (value.rfind("\n", 0, found) + 1) + 1
    return XMLProblem(line, column, f"unknown encoding '{name}' (Lore's XML is UTF-8)")


# Expat's words for the commonest problems, said the way a rule author thinks of them.
_EXPAT_MESSAGES = {
    "junk after document element": "text after the root element (XML has one root element)",
    "no element found": "no element found (the XML is empty or ends too early)",
    "not well-formed (invalid token)": "not well-formed (a character that cannot be here)",
}


def _open_element(value: str) -> str | None:
    """The element open where ``value`` stops being well-formed.

    Only called after the safe parser found a syntax error (so there is no DTD to
    expand before it); the document is read again just to follow the open elements.
    """
    from xml.parsers import expat

    parser = expat.ParserCreate()
    stack: list[str] = []

    def start(name: str, attributes: object) -> None:
        stack.append(name)

    def end(name: str) -> None:
        if stack:
            stack.pop()

    def refuse(*declaration: object) -> None:
        raise expat.ExpatError("no DTDs")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    with contextlib.suppress(expat.ExpatError, LookupError):
        parser.Parse(value.encode("utf-8"), True)
    return stack[-1] if stack else None


class XMLProblem(Exception):
    """Why an XML text was not read: 1-based ``line`` and ``column``, and how many
    characters the problem covers."""

    def __init__(self, line: int, column: int, message: str, length: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message
        self.length = length


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
        return [
            Problem(offset_of(value, problem.line, problem.column), problem.length, problem.message)
        ]
    return []


_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
# Elements whose end tag HTML lets you leave out: what follows closes them.
_OPTIONAL_END = frozenset(
    "html head body p li dt dd rt rp optgroup option colgroup caption thead tbody tfoot tr td "
    "th".split()
)


@cache
def _balance() -> Any:
    """The class that follows the open elements of an HTML text (made when first needed:
    ``html.parser`` is slow to import)."""
    from html.parser import HTMLParser

    class _Balance(HTMLParser):
        """Follows the open elements; records end tags that do not fit."""

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
            if all(name != tag for name, _ in self.open):
                self.problems.append(
                    (self.getpos(), f"</{tag}> closes nothing: no <{tag}> is open")
                )
                return
            while self.open[-1][0] != tag:
                name, _ = self.open.pop()
                if name not in _OPTIONAL_END:
                    self.problems.append(
                        (self.getpos(), f"</{tag}> comes before </{name}>: <{name}> is still open")
                    )
            self.open.pop()

    return _Balance


def check_html(value: str) -> list[Problem]:
    parser = _balance()()
    parser.feed(value)
    parser.close()
    problems = [
        Problem(
            offset_of(value, line, column + 1),
            len(message.split(" ")[0]),
            f"malformed HTML: {message}",
        )
        for (line, column), message in parser.problems
    ]
    for tag, (line, column) in parser.open:
        if tag not in _OPTIONAL_END:
            problems.append(
                Problem(
                    offset_of(value, line, column + 1),
                    len(tag) + 1,
                    f"malformed HTML: <{tag}> is never closed",
                )
            )
    return problems


_CHECKS = {
    "url": check_url,
    "loc": check_loc,
    "jid": check_jid,
    "date": check_date,
    "xml": check_xml,
    "html": check_html,
}
