"""How a seat's map draws each actor and item: its mark, its side, its state.

The rules say it with members of the prelude's types (section "map tokens"):

- ``faction`` (a ``Faction``, a field or an accessor): the side an actor is on. To a seat,
  the actors it plays are its own (``own``), the others of a side one of them is on
  ``ally``, those of another side ``enemy``; ``Faction.others`` and an actor without a
  faction are ``neutral``. The GM sees ``Faction.party`` as allies and ``Faction.foes`` as
  enemies. Items are ``item``. An actor without a faction is on the party when a player
  plays it.
- ``tokenState`` (a ``TokenState``): ``downed`` and ``dead`` are drawn so; ``up`` is left out.
- ``mark`` (a string): an image of the bundle (``icons/ghoul.png``: the entry's ``image``,
  a path in the bundle), an icon (an emoji) or a short label; else the name. Marks are made
  unique among what the seat sees: a long name is cut to three characters, names alike
  keep what tells them apart (屍鬼A, 屍鬼B), and equal marks are numbered.

Only what the seat's view already holds is used, so a mark says nothing of what the seat
may not see.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lore.runtime.errors import RuleError
from lore.runtime.values import EnumValue, LoreObject, TypedString

if TYPE_CHECKING:
    from lore.engine.session import Session

MARK_LENGTH = 3
IMAGES = (".png", ".jpg", ".jpeg", ".gif", ".webp")  # (as a bundle keeps and serves them)
SIDES = ("own", "ally", "enemy", "neutral", "item")


def member(session: Session, obj: LoreObject, name: str) -> Any:
    """The value of ``obj``'s member ``name`` (a field, or an accessor run now), or None
    when it has none or its accessor fails."""
    if name in obj.values:
        return obj.values[name]
    form = obj.form
    if form is None or form.resolve().get(name) is None:
        return None
    try:
        return session.rt.method(obj, name)
    except (RuleError, RecursionError, TypeError, AttributeError):
        return None


def enum_name(value: Any, enum: str) -> str | None:
    if isinstance(value, EnumValue) and value.enum.name.split(".")[-1] == enum:
        return value.name
    return None


def faction_of(session: Session, obj: LoreObject) -> str:
    """The actor's faction (``party``, ``foes``, ``others``) as the rules say it."""
    found = enum_name(member(session, obj, "faction"), "Faction")
    if found is not None:
        return found
    return "party" if obj.values.get("player") else "others"


def side(session: Session, obj: LoreObject, seat_factions: set[str] | None, mine: bool) -> str:
    """The side ``obj`` is drawn on for a seat: ``seat_factions`` are the factions of the
    seat's own actors (None: the GM)."""
    if not is_actor(session, obj):
        return "item"
    if mine:
        return "own"
    faction = faction_of(session, obj)
    if faction == "others":
        return "neutral"
    if seat_factions is None:
        return "ally" if faction == "party" else "enemy"
    if not seat_factions:
        return "neutral"
    return "ally" if faction in seat_factions else "enemy"


def is_actor(session: Session, obj: LoreObject) -> bool:
    actor = session.program.form_by_name.get("Actor")
    return obj.form is not None and actor is not None and obj.form.is_subform_of(actor)


def state(session: Session, obj: LoreObject) -> str | None:
    """``downed`` or ``dead`` as the rules say; None for an actor standing."""
    found = enum_name(member(session, obj, "tokenState"), "TokenState")
    return found if found in ("downed", "dead") else None


def base_mark(session: Session, obj: LoreObject, fallback: str) -> tuple[str, bool]:
    """The mark the rules give (and True), or the name to make one from (and False)."""
    given = member(session, obj, "mark")
    if isinstance(given, str | TypedString) and str(given).strip():
        return str(given).strip(), True
    return name_of(obj, fallback), False


def name_of(obj: LoreObject, fallback: str) -> str:
    name = obj.values.get("name")
    text = str(name).strip() if isinstance(name, str | TypedString) else ""
    return text or fallback


def image_of(mark: str) -> str | None:
    """The bundle's image a mark names (``icons/ghoul.png``: a path inside the bundle), or
    None for a mark that is a label or an icon."""
    lowered = mark.lower()
    if not lowered.endswith(IMAGES) or ":" in mark or mark.startswith("/") or ".." in mark:
        return None
    return mark


def short_marks(names: list[tuple[str, bool]]) -> list[str]:
    """A distinct short mark for each name (a given mark is kept as it is unless
    another is equal): a name of up to three characters is itself; a longer one its
    first three, or, when another name begins alike, its first character and what
    follows the part they share; equal marks get numbers (in the order given)."""
    marks: list[str] = []
    for i, (name, given) in enumerate(names):
        if given or len(name) <= MARK_LENGTH:
            marks.append(name)
            continue
        prefix = name[:MARK_LENGTH]
        alike = [
            other
            for j, (other, g) in enumerate(names)
            if j != i and not g and other != name and other[:MARK_LENGTH] == prefix
        ]
        if not alike:
            marks.append(prefix)
            continue
        shared = max(common_prefix(name, other) for other in alike)
        rest = name[shared:]
        marks.append((name[0] + rest)[:MARK_LENGTH] if rest else name[:MARK_LENGTH])
    counts: dict[str, int] = {}
    for mark in marks:
        counts[mark] = counts.get(mark, 0) + 1
    seen: dict[str, int] = {}
    numbered = []
    for mark in marks:
        if counts[mark] > 1:
            seen[mark] = seen.get(mark, 0) + 1
            numbered.append(f"{mark[: MARK_LENGTH - 1]}{seen[mark]}")
        else:
            numbered.append(mark)
    return numbered


def common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


TOKEN_MEMBERS = ("faction", "tokenState", "mark")


def token_objects(session: Session, placed: list[LoreObject]) -> list[LoreObject]:
    """The placed objects whose forms have members of the map tokens (whose values may
    change without any member the view reads changing: an accessor of the HP)."""
    found = []
    for obj in placed:
        form = obj.form
        if form is not None and any(
            name in obj.values or form.resolve().get(name) is not None for name in TOKEN_MEMBERS
        ):
            found.append(obj)
    return found


def token_key(session: Session, obj: LoreObject) -> tuple[Any, ...]:
    """What the tokens of ``obj`` are made of now (its faction, state and mark)."""
    return tuple(member(session, obj, name) for name in TOKEN_MEMBERS)


def mark_entries(
    session: Session,
    entries: list[tuple[dict[str, Any], LoreObject]],
    own: list[LoreObject],
    is_gm: bool,
) -> None:
    """Give each map entry of a seat's view (its description and its object) ``mark``,
    ``side`` and, when not standing, ``state``."""
    own_ids = {id(actor) for actor in own} if not is_gm else set()
    factions = None if is_gm else {faction_of(session, actor) for actor in own}
    placed = [(d, obj) for d, obj in entries if "location" in d]
    bases = []
    for described, obj in placed:
        fallback = described["id"].split(".")[-1]
        base = base_mark(session, obj, fallback)
        image = image_of(base[0]) if base[1] else None
        if image is not None:  # (an image: and a label made of the name, to tell it by)
            described["image"] = image
            name = obj.values.get("name")
            base = (
                (str(name).strip() if isinstance(name, str | TypedString) else "") or fallback,
                False,
            )
        bases.append(base)
    for (described, obj), mark in zip(placed, short_marks(bases), strict=True):
        described["mark"] = mark
        described["side"] = side(session, obj, factions, id(obj) in own_ids)
        found = state(session, obj)
        if found is not None:
            described["state"] = found
