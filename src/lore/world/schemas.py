"""The XML Schemas of the geometry styles (``lib/geometry/*.xsd``), and validation.

A document is validated against the schema of its style, for its own namespace
(``http://www.xgmtk.org/Point`` and ``http://www.xgmtk.org/Lore/Point`` alike). The
tree validated is the positioned one, so each error gets the XML file's line.

Sections of a Sectioned2D map are validated once per distinct section: a big map is
made of a few kinds of squares, and the validator is slow (tens of microseconds an
element). An error in a section is reported at its first occurrence, saying how many
more are like it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING
from xml.etree.ElementTree import Element

from lore.semantics.program import LIBRARY_DIR
from lore.world import schema_cache
from lore.world.xmldoc import Document, Place, local_name

if TYPE_CHECKING:
    import xmlschema

SCHEMA_DIR = LIBRARY_DIR / "geometry"
MAX_PROBLEMS = 100  # reported for one document (the rest is not looked for)
BATCH_ELEMENTS = 2_000  # elements validated at once
_ATTRIBUTE = re.compile(r"attribute (\w+)='([^']*)'")
_CHILD = re.compile(r"Unexpected child with tag '(?:\{[^}]*\})?([^']+)' at position (\d+)")
# Friendlier words for attributes whose values the schemas restrict.
_EXPECTED = {
    "scale": "a quantity (expected like 5[m])",
    "height": "a quantity (expected like 0.3[m])",
    "type": "4 (squares), 8 (squares with diagonals) or 6 (hexes)",
    "prohibited": "true or false",
    "distance": "a positive number",
    "label": "a name (letters, digits, '_' or '-')",
    "to": "the label of a node",
    "terrain": "the name of a terrain",
}


@cache
def schema(style: str, namespace: str) -> xmlschema.XMLSchema:
    import xmlschema  # slow to import: only when a geometry is validated

    common = (SCHEMA_DIR / "common.xsd.txt").read_text(encoding="utf-8")
    text = (SCHEMA_DIR / f"{style}.xsd").read_text(encoding="utf-8")
    text = text.replace("{common}", common).replace("{namespace}", namespace)
    name = schema_cache.key(text, xmlschema.__version__)
    found = schema_cache.load(name)  # compiled by an earlier process
    if isinstance(found, xmlschema.XMLSchema):
        return found
    compiled = xmlschema.XMLSchema(text)
    schema_cache.store(name, compiled)
    return compiled


def validate(
    document: Document, style: str, namespace: str
) -> list[tuple[Place, str, tuple[int, ...]]]:
    """Problems as (place, message, ids of the elements at fault); at most
    ``MAX_PROBLEMS``, and the validation stops once it has found them."""
    problems = _strip_unknown_attributes(document, allowed_attributes(style, namespace))
    validator = schema(style, namespace)
    for tree, originals, copies in _batches(document.root):
        if len(problems) >= MAX_PROBLEMS:
            break
        for error in validator.iter_errors(tree):
            if len(problems) >= MAX_PROBLEMS:
                break
            problems.append(_problem(document, style, error, originals, copies))
    return problems


def _problem(
    document: Document,
    style: str,
    error: xmlschema.XMLSchemaValidationError,
    originals: dict[int, Element],
    copies: dict[int, list[Element]],
) -> tuple[Place, str, tuple[int, ...]]:
    element = error.elem
    reason = error.reason or str(error)
    child = _CHILD.search(reason)
    if child is not None and element is not None:
        tag, position = child.group(1), int(child.group(2))
        children = list(element)
        if 0 < position <= len(children):
            element = children[position - 1]
        reason = f"<{tag}> is not allowed here in a {style} geometry"
    if element is not None:
        element = originals.get(id(element), element)
    place = document.place(element) if element is not None else Place(1, 1)
    match = _ATTRIBUTE.search(reason)
    if match is not None and element is not None:
        name, value = match.groups()
        place = document.attribute_place(element, name)
        expected = _EXPECTED.get(name)
        if expected is not None:
            reason = f'{name}="{value}" is not {expected}'
    ids: tuple[int, ...] = (0,)
    if element is not None:
        same = copies.get(id(element), [])
        if same:
            more = "section" if len(same) == 1 else "sections"
            reason += f" (and {len(same)} more {more} like it)"
        ids = (id(element), *(id(other) for other in same))
    return place, reason, ids


@cache
def allowed_attributes(style: str, namespace: str) -> dict[str, frozenset[str]]:
    """The attributes each element of the style's schema may have, by local name."""
    import xmlschema  # loaded by schema() already

    allowed: dict[str, frozenset[str]] = {}
    for element in schema(style, namespace).iter_components(xmlschema.XsdElement):
        if not isinstance(element, xmlschema.XsdElement):
            continue
        names = frozenset(str(name) for name in element.attributes if name is not None)
        name = str(element.local_name)
        allowed[name] = allowed.get(name, frozenset()) | names
    return allowed


def _strip_unknown_attributes(
    document: Document, allowed: dict[str, frozenset[str]]
) -> list[tuple[Place, str, tuple[int, ...]]]:
    """Report the attributes the schema does not know, and take them out of the tree
    (the validator would make an error of each, at a cost that grows with the square of
    an element's attributes)."""
    problems: list[tuple[Place, str, tuple[int, ...]]] = []
    for element in document.root.iter():
        name = local_name(element.tag) if isinstance(element.tag, str) else ""
        known = allowed.get(name)
        if known is None:
            continue
        unknown = [key for key in element.attrib if key not in known and not key.startswith("{")]
        for key in unknown:
            if len(problems) < MAX_PROBLEMS:
                place = document.attribute_place(element, key)
                problems.append((place, f"<{name}> has no attribute '{key}'", (id(element),)))
            del element.attrib[key]
    return problems


Batch = tuple[Element, dict[int, Element], dict[int, list[Element]]]


def _batches(root: Element) -> Iterator[Batch]:
    """Trees to validate in turn, each with at most about ``BATCH_ELEMENTS`` elements,
    with the original of each element made for them (by id) and the later sections
    identical to each one kept (by the id of the one kept): the validator finds every
    problem of a tree before it tells the first, so a huge map with a fault in every
    element is not validated whole. The first tree holds the root's attributes and
    everything but the sections (or nodes, or points) of later trees."""
    lines = [child for child in root if local_name(child.tag) == "line"]
    if not lines:
        units = list(root)
        if _weight(units) <= BATCH_ELEMENTS:
            yield root, {}, {}
            return
        for index, chunk in enumerate(_chunks(units)):
            tree = _shell(root, index == 0)
            tree.extend(chunk)
            yield tree, {id(tree): root}, {}
        return
    kept, copies = _distinct_sections(lines)
    for index, chunk in enumerate(_chunks([section for _, section in kept])):
        first = index == 0
        tree = _shell(root, first)
        originals: dict[int, Element] = {id(tree): root}
        chosen = {id(section) for section in chunk}
        copied: dict[int, Element] = {}
        for child in root:
            if local_name(child.tag) != "line":
                if first:
                    tree.append(child)
                continue
            if first:
                copied[id(child)] = _line_copy(child, tree, originals, with_text=True)
        for line, section in kept:
            if id(section) not in chosen:
                continue
            copy = copied.get(id(line))
            if copy is None:
                copy = copied[id(line)] = _line_copy(line, tree, originals, with_text=False)
            copy.append(section)
        yield tree, originals, copies


def _shell(root: Element, first: bool) -> Element:
    """A root for a tree to validate: with the root's attributes and text in the first."""
    tree = Element(root.tag, root.attrib if first else {})
    tree.text = root.text if first else None
    return tree


def _line_copy(
    line: Element, tree: Element, originals: dict[int, Element], with_text: bool
) -> Element:
    copy = Element(line.tag, line.attrib)
    copy.text = line.text if with_text else None
    originals[id(copy)] = line
    tree.append(copy)
    return copy


def _weight(elements: list[Element]) -> int:
    return sum(1 for element in elements for _ in element.iter())


def _chunks(elements: list[Element]) -> Iterator[list[Element]]:
    """``elements`` in order, in lists of about ``BATCH_ELEMENTS`` elements (counting
    the elements inside them); at least one list."""
    chunk: list[Element] = []
    weight = 0
    for element in elements:
        chunk.append(element)
        weight += _weight([element])
        if weight >= BATCH_ELEMENTS:
            yield chunk
            chunk, weight = [], 0
    if chunk or weight == 0:
        yield chunk


def _distinct_sections(
    lines: list[Element],
) -> tuple[list[tuple[Element, Element]], dict[int, list[Element]]]:
    """The sections of ``lines`` with each kind kept once, as (line, section), and the
    later sections identical to each one kept (by the id of the one kept)."""
    kept: dict[tuple[object, ...], Element] = {}
    order: list[tuple[Element, Element]] = []
    copies: dict[int, list[Element]] = {}
    for line in lines:
        for section in line:
            key = _shape(section)
            first = kept.get(key)
            if first is None:
                kept[key] = section
                order.append((line, section))
            else:
                copies.setdefault(id(first), []).append(section)
    return order, copies


def _shape(element: Element) -> tuple[object, ...]:
    """What validation sees of an element: name, attributes, text and children."""
    return (
        element.tag,
        tuple(sorted(element.attrib.items())),
        (element.text or "").strip(),
        (element.tail or "").strip(),
        tuple(_shape(child) for child in element),
    )
