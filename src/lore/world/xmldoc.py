"""XML documents read safely and with the place of every element.

The reader refuses DTDs, entity declarations and external references (defusedxml) and
caps the size, so a geometry file cannot expand itself or reach the network. Every
element keeps its line and column, so problems are reported where they are in the XML.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from xml.etree.ElementTree import Element, ParseError, TreeBuilder

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from lore.semantics.literals import unknown_encoding

MAX_XML_BYTES = 4 * 1024 * 1024
MAX_ELEMENTS = 200_000
MAX_DEPTH = 100  # elements inside elements (a geometry needs a handful)
MAX_ATTRIBUTES = 100  # of one element (the schema validator's work grows with their square)


class XMLError(Exception):
    """A document that cannot be read; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True)
class Place:
    line: int
    column: int


def _one() -> int:
    return 1


def _zero() -> int:
    return 0


class _PositionedBuilder(TreeBuilder):
    def __init__(self) -> None:
        super().__init__()
        self.places: dict[int, Place] = {}
        self.elements: list[Element] = []  # keeps ids stable while places are used
        self.line: Callable[[], int] = _one
        self.column: Callable[[], int] = _zero
        self.depth = 0

    def start(self, tag: str, attrs: dict[str, str]) -> Element:
        element = super().start(tag, attrs)
        if len(self.elements) >= MAX_ELEMENTS:
            raise XMLError(
                f"the document has more than {MAX_ELEMENTS} elements",
                self.line(),
                self.column() + 1,
            )
        if len(attrs) > MAX_ATTRIBUTES:
            raise XMLError(
                f"an element has more than {MAX_ATTRIBUTES} attributes",
                self.line(),
                self.column() + 1,
            )
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise XMLError(
                f"elements nest more than {MAX_DEPTH} levels deep", self.line(), self.column() + 1
            )
        self.elements.append(element)
        self.places[id(element)] = Place(self.line(), self.column() + 1)
        return element

    def end(self, tag: str) -> Element:
        self.depth -= 1
        return super().end(tag)


@dataclass
class Document:
    root: Element
    places: dict[int, Place]
    text: str

    def place(self, element: Element) -> Place:
        return self.places.get(id(element), Place(1, 1))

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def attribute_place(self, element: Element, name: str) -> Place:
        """Where ``name="..."`` of ``element`` is written (its value's first character)."""
        start = self.place(element)
        lines = self.lines
        for row in range(start.line - 1, min(len(lines), start.line + 20)):
            line = lines[row]
            column = start.column - 1 if row == start.line - 1 else 0
            found = line.find(f"{name}=", column)
            if found >= 0:
                return Place(row + 1, found + len(name) + 3)
            if ">" in line[column:]:
                break
        return start


def read_xml(text: str) -> Document:
    """Parse ``text``; raises XMLError with the place of the first problem."""
    data = text.encode("utf-8")
    if len(data) > MAX_XML_BYTES:
        raise XMLError(f"the document is too large ({len(data)} bytes, at most {MAX_XML_BYTES})")
    builder = _PositionedBuilder()
    parser = DefusedXMLParser(
        target=builder, forbid_dtd=True, forbid_entities=True, forbid_external=True
    )
    expat = parser.parser

    def line() -> int:
        return int(expat.CurrentLineNumber)

    def column() -> int:
        return int(expat.CurrentColumnNumber)

    builder.line, builder.column = line, column
    try:
        parser.feed(data)
        root: Element = parser.close()
    except LookupError as error:  # encoding="..." that Python does not know
        problem = unknown_encoding(text, error)
        raise XMLError(problem.message, problem.line, problem.column) from None
    except ParseError as error:
        row, offset = error.position
        raise XMLError(f"malformed XML: {str(error).split(':')[0]}", row, offset + 1) from None
    except DefusedXmlException:
        at_line, at_column = builder.line(), builder.column() + 1
        found = text.find("<!DOCTYPE")
        if found >= 0:  # the declaration itself, rather than where expat stopped in it
            at_line = text.count("\n", 0, found) + 1
            at_column = found - (text.rfind("\n", 0, found) + 1) + 1
        raise XMLError(
            "XML refused: a <!DOCTYPE> is not allowed (Lore's XML has no DTDs, entities or "
            "external references)",
            at_line,
            at_column,
        ) from None
    return Document(root, builder.places, text)


def local_name(tag: str) -> str:
    """``{namespace}name`` -> ``name``."""
    return tag.rsplit("}", 1)[-1]


def namespace(tag: str) -> str:
    return tag[1:].split("}", 1)[0] if tag.startswith("{") else ""
