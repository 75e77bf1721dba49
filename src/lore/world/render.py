"""Maps as text, for the terminal: squares, hexes and nodes."""

from __future__ import annotations

from lore.world.geometry import LinkedGeometry, PointGeometry, SectionedGeometry
from lore.world.model import AreaNode


def render_map(area: AreaNode, here: str | None = None) -> str:
    """The area's map as lines of text; ``here`` (a coordinate) is marked ``@``."""
    geometry = area.geometry
    if isinstance(geometry, SectionedGeometry):
        return _grid(geometry, here)
    if isinstance(geometry, LinkedGeometry):
        lines = []
        for label, links in geometry.nodes:
            mark = "@" if label == here else " "
            targets = ", ".join(f"{link.to} ({link.distance:g})" for link in links)
            lines.append(f"{mark} {label} -> {targets}" if targets else f"{mark} {label}")
        return "\n".join(lines)
    if isinstance(geometry, PointGeometry):
        return "\n".join(("@ " if label == here else "  ") + label for label in geometry.labels)
    return f"({area.path} has no map)"


def _grid(geometry: SectionedGeometry, here: str | None) -> str:
    lines = []
    width = max((len(line) for line in geometry.lines), default=0)
    lines.append("    " + " ".join(f"{x % 10}" for x in range(width)))
    for y, line in enumerate(geometry.lines):
        cells = []
        for x, section in enumerate(line):
            if here == f"{x},{y}":
                cells.append("@")
            elif section.prohibited:
                cells.append("#")
            elif section.description:
                cells.append("*")
            else:
                cells.append(".")
        indent = " " if geometry.kind == 6 and y & 1 else ""
        lines.append(f"{y:>3} " + indent + " ".join(cells))
    return "\n".join(lines)
