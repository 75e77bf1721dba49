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
from functools import cache
from typing import TYPE_CHECKING
from xml.etree.ElementTree import Element

from lore.semantics.program import LIBRARY_DIR
from lore.world import schema_cache
from lore.world.xmldoc import Document, Place, local_name

if TYPE_CHECKING:
    import xmlschema

SCHEMA_DIR = LIBRARY_DIR / "geometry"
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
    """Problems as (place, message, ids of the elements at fault)."""
    tree, originals, copies = _distinct_sections(document.root)
    problems: list[tuple[Place, str, tuple[int, ...]]] = []
    for error in schema(style, namespace).iter_errors(tree):
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
        problems.append((place, reason, ids))
    return problems


def _distinct_sections(
    root: Element,
) -> tuple[Element, dict[int, Element], dict[int, list[Element]]]:
    """A tree to validate: ``root`` with each kind of ``<section>`` kept once.

    Returns the tree, the original of each element made for it (by id), and the later
    sections identical to each one kept (by the id of the one kept).
    """
    lines = [child for child in root if local_name(child.tag) == "line"]
    if not lines:
        return root, {}, {}
    tree = Element(root.tag, root.attrib)
    tree.text = root.text
    originals: dict[int, Element] = {id(tree): root}
    kept: dict[tuple[object, ...], Element] = {}
    copies: dict[int, list[Element]] = {}
    for child in root:
        if local_name(child.tag) != "line":
            tree.append(child)
            continue
        line = Element(child.tag, child.attrib)
        line.text = child.text
        originals[id(line)] = child
        tree.append(line)
        for section in child:
            key = _shape(section)
            first = kept.get(key)
            if first is None:
                kept[key] = section
                line.append(section)
            else:
                copies.setdefault(id(first), []).append(section)
    return tree, originals, copies


def _shape(element: Element) -> tuple[object, ...]:
    """What validation sees of an element: name, attributes, text and children."""
    return (
        element.tag,
        tuple(sorted(element.attrib.items())),
        (element.text or "").strip(),
        (element.tail or "").strip(),
        tuple(_shape(child) for child in element),
    )
