"""What an unknown member's diagnostic suggests: the Lore name of a member that other
languages name otherwise, or the closest name, then the members that exist."""

from __future__ import annotations

# Names of members in other languages, and the Lore member that does the same.
_OTHER_NAMES = {
    "size": "length",
    "len": "length",
    "count": "length",
    "substring": "slice",
    "substr": "slice",
    "push": "add",
    "append": "add",
    "concat": "addAll",
    "extend": "addAll",
    "first": "get1st",
    "at": "get",
    "includes": "contains",
    "has": "contains",
    "find": "find1st",
    "where": "filter",
    "some": "any",
    "every": "all",
    "forEach": "foreach",
    "each": "foreach",
    "sorted": "sort",
    "orderBy": "sortBy",
    "reversed": "reverse",
    "unique": "distinct",
    "strip": "trim",
}
SHOWN_MEMBERS = 8


def members_hint(name: str, candidates: list[str]) -> str | None:
    """What the value has instead: the Lore name of a member of another language, or the
    closest name; then the members that exist, closest first."""
    import difflib  # only for a member that is not found (lore check need not import it)

    names = sorted(set(candidates) - {name})
    if not names:
        return None
    other = _OTHER_NAMES.get(name)
    guess = other if other in names else None
    if guess is None:
        matches = [n for n in names if n.casefold() == name.casefold()]
        matches = matches or difflib.get_close_matches(name, names, n=1, cutoff=0.7)
        guess = matches[0] if matches else None
    ranked = sorted(
        names, key=lambda n: (-difflib.SequenceMatcher(None, name.lower(), n.lower()).ratio(), n)
    )
    shown = ", ".join(ranked[:SHOWN_MEMBERS]) + (", ..." if len(ranked) > SHOWN_MEMBERS else "")
    listed = f"its members: {shown}"
    return f"did you mean '{guess}'? {listed}" if guess is not None else listed
