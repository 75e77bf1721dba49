"""Runtime values other than numbers, strings, quantities and dice.

Integers, reals, booleans and strings are Python's own; lists are tuples (a Lore list
is a value: ``add`` gives a new list). Objects of forms are mutable only through the
engine's update phase.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from lore.runtime.dice import Dice
from lore.runtime.quantity import Quantity


@dataclass(frozen=True, slots=True)
class TypedString:
    """A ``loc``, ``url``, ``jid``, ``date``, ``xml`` or ``html`` value."""

    kind: str
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Range:
    low: Any
    high: Any
    low_open: bool = False
    high_open: bool = False

    def match(self, value: Any) -> bool:
        # (An end is None only in the bounds of ``T.input(min = ...)``: no bound there.)
        low, high = self.low, self.high
        low_ok = low is None or (value > low if self.low_open else value >= low)
        high_ok = high is None or (value < high if self.high_open else value <= high)
        return bool(low_ok and high_ok)

    def __str__(self) -> str:
        if self.high is None:  # (in no language's words: a client shows it as it is)
            return f"≥ {show(self.low)}"
        if self.low is None:
            return f"≤ {show(self.high)}"
        op = ("<..." if self.low_open else ",...") + ("<" if self.high_open else ",")
        return f"{show(self.low)}{op}{show(self.high)}"


class LoreDict:
    """A dictionary value (``dict<K, V>``): a mapping that is never changed (``put`` gives
    a new one). Keys keep the order in which they were first put."""

    __slots__ = ("items",)

    def __init__(self, items: dict[Any, Any]) -> None:
        self.items = items

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LoreDict) and self.items == other.items

    __hash__ = None  # type: ignore[assignment]  # a dictionary is no key

    def __repr__(self) -> str:
        return show(self)


@dataclass(eq=False)
class EnumInfo:
    """An enum of the running program: its values in order."""

    name: str
    values: dict[str, EnumValue] = field(default_factory=dict)
    parent: EnumInfo | None = None

    def is_subenum_of(self, other: EnumInfo) -> bool:
        enum: EnumInfo | None = self
        while enum is not None:
            if enum is other:
                return True
            enum = enum.parent
        return False


@dataclass(eq=False)
class EnumValue:
    """One value of an enum (compared by identity), with its members."""

    enum: EnumInfo
    name: str
    index: int
    members: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"{self.enum.name}.{self.name}"

    @property
    def values(self) -> dict[str, Any]:
        """Its members, read as an object's values are (``_v = self.values`` in a rule
        of the enum)."""
        return self.members


@dataclass(eq=False)
class FormInfo:
    """A form of the running program: its parent, member defaults and compiled rules."""

    name: str
    parent: FormInfo | None = None
    # name -> a zero-argument function giving the default value (run per object)
    defaults: dict[str, Callable[[LoreObject], Any]] = field(default_factory=dict)
    fields: list[str] = field(default_factory=list)
    # name -> compiled callable taking (self, *args)
    methods: dict[str, Callable[..., Any]] = field(default_factory=dict)
    accessors: set[str] = field(default_factory=set)
    # alter name -> the members it modifies
    alters: dict[str, frozenset[str]] = field(default_factory=dict)
    # compiled alter -> its apply, for the alters of this form that have one (see
    # ``Emitter.apply_function`` in the compiler): an alter replaced (by a native rule)
    # leaves its apply behind
    applies: dict[Callable[..., Any], Callable[..., Any]] = field(default_factory=dict)
    # The applies of ``applies`` that are plain: their body never uses the runtime (no
    # dice, rule call, question or request), so they run with no place of their own in
    # the step and always write what they modify (they return None).
    plain: set[Callable[..., Any]] = field(default_factory=set)
    # compiled alter -> its value function and the one member it modifies, for the plain
    # alters of this form that modify one member (see ``Emitter.new_value_function``)
    values: dict[Callable[..., Any], tuple[Callable[..., Any], str]] = field(default_factory=dict)
    # Every rule of the form, inherited ones included (built by ``resolve``).
    vtable: dict[str, Callable[..., Any]] = field(default_factory=dict)
    # The apply of each alter in ``vtable`` that has one (built by ``resolve``).
    apply_table: dict[str, Callable[..., Any]] = field(default_factory=dict)
    # The same, for the applies that are plain.
    plain_table: dict[str, Callable[..., Any]] = field(default_factory=dict)
    # The value function and member of each alter in ``vtable`` that has one.
    value_table: dict[str, tuple[Callable[..., Any], str]] = field(default_factory=dict)

    def resolve(self) -> dict[str, Callable[..., Any]]:
        if not self.vtable:
            inherited = self.parent.resolve() if self.parent is not None else {}
            vtable = {**inherited, **self.methods}
            # An apply goes with its alter: not one overridden by a rule without one.
            applies = {fn: apply for form in self.ancestors() for fn, apply in form.applies.items()}
            self.apply_table = {name: applies[fn] for name, fn in vtable.items() if fn in applies}
            plain = {apply for form in self.ancestors() for apply in form.plain}
            self.plain_table = {n: a for n, a in self.apply_table.items() if a in plain}
            values = {fn: value for form in self.ancestors() for fn, value in form.values.items()}
            self.value_table = {name: values[fn] for name, fn in vtable.items() if fn in values}
            self.vtable = vtable
        return self.vtable

    def ancestors(self) -> Iterator[FormInfo]:
        """This form, then the form it extends, and so on."""
        form: FormInfo | None = self
        while form is not None:
            yield form
            form = form.parent

    def is_subform_of(self, other: FormInfo) -> bool:
        return any(form is other for form in self.ancestors())

    def is_alter(self, name: str) -> bool:
        return self.modified_by(name) is not None

    def modified_by(self, alter: str) -> frozenset[str] | None:
        """The members the alter ``alter`` of this form modifies (None: no such alter)."""
        return next((f.alters[alter] for f in self.ancestors() if alter in f.alters), None)

    def all_defaults(self) -> dict[str, Callable[[LoreObject], Any]]:
        merged: dict[str, Callable[[LoreObject], Any]] = {}
        for ancestor in reversed(list(self.ancestors())):
            merged.update(ancestor.defaults)
        return merged


class LoreObject:
    """An object of a form (``form`` None for an anonymous form literal)."""

    __slots__ = ("altered", "form", "label", "oid", "values")

    def __init__(
        self, form: FormInfo | None, values: dict[str, Any], oid: int, label: str | None = None
    ) -> None:
        self.form = form
        self.values = values
        self.oid = oid
        self.label = label
        # The names of the alters that have changed it (empty: none has); the session
        # notes them for the state its saves show.
        self.altered: tuple[str, ...] = ()

    def __repr__(self) -> str:
        name = self.form.name if self.form is not None else "form"
        return f"<{name} {self.label or '#' + str(self.oid)}>"


@dataclass(frozen=True, slots=True)
class InputMarker:
    """``T.input`` (or ``T.input(range, default)``): a member a participant fills in.

    ``T.choice(options)`` and ``T.choices(options, least, most)`` give the ``options``
    to pick from; ``most`` is None for one pick, a number for a list of picks.
    """

    type: Any  # a RuntimeType
    args: tuple[Any, ...] = ()
    options: tuple[Any, ...] | None = None
    least: int = 1
    most: int | None = None


@dataclass(frozen=True, slots=True)
class RuntimeType:
    """A type as a value: ``integer``, ``unit[hour]``, ``Action``, ``list<Item>``."""

    kind: str  # "prim", "unit", "enum", "form", "list", "range", "function", "any"
    name: str
    unit: str | None = None
    enum: EnumInfo | None = None
    form: FormInfo | None = None
    element: RuntimeType | None = None
    family: Any = None  # the UnitFamily of a unit type

    def __str__(self) -> str:
        if self.kind == "unit":
            return f"unit[{self.unit}]"
        if self.kind in ("list", "range") and self.element is not None:
            return f"{self.kind}<{self.element}>"
        return self.name


MAX_SHOWN = 10_000  # characters of a list as shown (a longer one is cut, ending in …)


def show(value: Any, limit: int = MAX_SHOWN) -> str:
    """A value as a player reads it. A list is shown with at most ``limit`` characters
    (and ``…`` when it has more): a list may hold the same list twice, and that list the
    same list twice, and so on, so its full text can be far larger than the memory."""
    kind = type(value)
    if kind is str:  # the most common values first (texts joined in rules)
        return value  # type: ignore[no-any-return]
    if kind is int:
        return str(value)
    if isinstance(value, tuple):
        return _show_list(value, limit)
    return _show_one(value)


def _show_one(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, tuple):
        return "{" + ", ".join(show(item) for item in value) + "}"
    if isinstance(value, LoreDict):
        return "{" + ", ".join(f"{show(k)}: {show(v)}" for k, v in value.items.items()) + "}"
    if isinstance(value, Quantity | Dice | Range | TypedString):
        return str(value)
    if isinstance(value, EnumValue):
        return value.name
    return str(value)


def _show_list(value: tuple[Any, ...], limit: int) -> str:
    parts: list[str] = []
    size = 0
    # What is left to show, last first: (True, text) is text as it is, (False, v) a value.
    pending: list[tuple[bool, Any]] = [(False, value)]
    while pending:
        literal, item = pending.pop()
        if not literal and isinstance(item, tuple):
            pending.append((True, "}"))
            for index in range(len(item) - 1, -1, -1):
                pending.append((False, item[index]))
                if index:
                    pending.append((True, ", "))
            text = "{"
        else:
            text = item if literal else _show_one(item)
        parts.append(text)
        size += len(text)
        if size > limit:
            return "".join(parts)[:limit] + "…"
    return "".join(parts)
