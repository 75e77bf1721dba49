"""Values as people read them: a place by what its map calls it, an answer by the
captions of its inputs and of what was chosen (not by the identifiers a rule uses).

An answer is told to the seats as a list of parts, one per input answered: the input's
caption (None: it has none, the client names it by what it asks, or not at all) and the
value shown (a choice's caption, a place's name, a list of those for several picks, a
boolean as it is for the client to say yes or no in its language, a number with its
unit).
"""

from __future__ import annotations

from typing import Any

from lore.engine.queries import Input, Query
from lore.server.master import Master
from lore.world.geometry import LinkedGeometry, SectionedGeometry
from lore.world.model import AreaNode
from lore.world.static import parse_location


def place_name(master: Master, location: str) -> str:
    """A location as people read it: the description its map gives the place (a node's
    or a square's: ``[1,2] 祭壇``), else the place's label or square, else the path."""
    parsed = parse_location(location)
    if parsed is None:
        return location
    area = master.area("/" + "/".join(parsed.labels)) if parsed.labels else master.area("/")
    if area is None or parsed.coordinate is None:
        return location
    return area_place_name(area, parsed.coordinate)


def area_place_name(area: AreaNode, coordinate: str) -> str:
    geometry = area.geometry
    if isinstance(geometry, LinkedGeometry):
        return geometry.description_of(coordinate) or coordinate
    if isinstance(geometry, SectionedGeometry):
        cell = coordinate.replace(" ", "")
        parts = cell.split(",")
        try:
            x, y = int(parts[0]), int(parts[1])
            text = geometry.lines[y][x].description if x >= 0 and y >= 0 else ""
        except (ValueError, IndexError):
            text = ""
        return f"[{cell}] {text}" if text else f"[{cell}]"
    return coordinate


def answer_parts(query: Query, values: dict[str, Any], master: Master) -> list[dict[str, Any]]:
    """The answer ``values`` to ``query`` as it is told: one part per input answered."""
    captions = dict(query.captions)
    parts = []
    for item in query.inputs:
        if item.name not in values:
            continue
        part: dict[str, Any] = {"caption": captions.get(item.name)}
        if query.purpose:
            part["purpose"] = query.purpose
        part["value"] = shown_value(item, values[item.name], master)
        parts.append(part)
    return parts


def shown_value(item: Input, raw: Any, master: Master) -> Any:
    if isinstance(raw, list):
        return [shown_value(item, one, master) for one in raw]
    if item.choices is not None and isinstance(raw, str) and raw in item.choices:
        if item.type.name == "loc":
            return place_name(master, raw)
        captions = item.captions or item.choices
        return captions[item.choices.index(raw)]
    if item.type.name == "loc" and isinstance(raw, str):
        return place_name(master, raw)
    if isinstance(raw, bool):
        return raw
    if item.type.unit is not None:
        return f"{raw}{item.type.unit}"
    return raw if isinstance(raw, str | int | float) else str(raw)
