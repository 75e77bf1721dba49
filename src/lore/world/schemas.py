"""The XML Schemas of the geometry styles (``lib/geometry/*.xsd``), and validation.

A document is validated against the schema of its style, for its own namespace
(``http://www.xgmtk.org/Point`` and ``http://www.xgmtk.org/Lore/Point`` alike). The
tree validated is the positioned one, so each error gets the XML file's line.
"""

from __future__ import annotations

import re
from functools import cache

import xmlschema

from lore.semantics.program import LIBRARY_DIR
from lore.world.xmldoc import Document, Place

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
    common = (SCHEMA_DIR / "common.xsd.txt").read_text(encoding="utf-8")
    text = (SCHEMA_DIR / f"{style}.xsd").read_text(encoding="utf-8")
    text = text.replace("{common}", common).replace("{namespace}", namespace)
    return xmlschema.XMLSchema(text)


def validate(document: Document, style: str, namespace: str) -> list[tuple[Place, str, int]]:
    """Problems as (place, message, id of the element at fault)."""
    problems: list[tuple[Place, str, int]] = []
    for error in schema(style, namespace).iter_errors(document.root):
        element = error.elem
        place = document.place(element) if element is not None else Place(1, 1)
        reason = error.reason or str(error)
        child = _CHILD.search(reason)
        if child is not None and element is not None:
            tag, position = child.group(1), int(child.group(2))
            children = list(element)
            if 0 < position <= len(children):
                element = children[position - 1]
                place = document.place(element)
            reason = f"<{tag}> is not allowed here in a {style} geometry"
        match = _ATTRIBUTE.search(reason)
        if match is not None and element is not None:
            name, value = match.groups()
            place = document.attribute_place(element, name)
            expected = _EXPECTED.get(name)
            if expected is not None:
                reason = f'{name}="{value}" is not {expected}'
        problems.append((place, reason, id(element) if element is not None else 0))
    return problems
