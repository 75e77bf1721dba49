"""Snapshots: the whole state of a session as compact bytes, and back.

A snapshot holds everything a session needs to go on exactly: its objects, the events
waiting (with their handlers and the values their lambdas captured), the program's
values, the clock, the counters the dice and names come from, and a step that waits for
answers (its events, the answers it has, what it asked and told, its open questions). It
does not hold the history (messages, answers given, errors): that is the transcript's
and the save's.

Format: MessagePack (``msgspec``) of a map ``{"format": "lore-snapshot", "version": 1,
"files": [[name, sha256], ...], "seed": ..., "answers": n, "objects": [...], "values":
{...}, "session": {...}, "runtime": {...}}``. A value that MessagePack has (nil, booleans,
strings, bytes, floats, integers of 64 bits) is itself; every other value is an array
whose first element is a tag (``Tag``): lists, tuples, maps with keys that are not
strings, the language's dictionaries, sets, larger integers, objects (by their place in
``objects``, so shared and cyclic references stay shared), forms, enums and units by
name, quantities, the value types of the runtime (``VALUE_TYPES``), closures, and
functions by their stable names (``CompiledProgram.functions``, or the engine's own rules
by module and name).

The session's attributes are saved generically: every attribute but those named in
``Session.TRANSIENT`` (rebuilt, or given again at restore) and ``Session.HISTORY`` (and
``Session.STEP`` when no step is in progress). A new
attribute is saved without more code as long as its values are of the kinds above; if it
is not, ``snapshot()`` says which attribute holds what.
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Callable
from dataclasses import fields
from enum import IntEnum
from types import FunctionType
from typing import TYPE_CHECKING, Any

import msgspec

from lore.engine.queries import Input, Query
from lore.runtime.compiler import CompiledProgram
from lore.runtime.dice import Dice
from lore.runtime.ops import Closure
from lore.runtime.quantity import Quantity
from lore.runtime.values import (
    EnumInfo,
    EnumValue,
    FormInfo,
    InputMarker,
    LoreDict,
    LoreObject,
    Range,
    RuntimeType,
    TypedString,
)
from lore.semantics.units import UnitFamily
from lore.syntax.recursion import collector_paused, deeper

if TYPE_CHECKING:
    from lore.engine.session import Session

MAGIC = "lore-snapshot"
# The attributes of an object a snapshot keeps besides its form, label, id and members.
OBJECT_SLOTS = tuple(
    name for name in LoreObject.__slots__ if name not in ("form", "label", "oid", "values")
)
# 2: a step's first dice come from a hash shared by 64 steps (a snapshot of version 1
# would roll other dice from its counters). 3: the next object id is a plain number
# (``next_oid``), not a counter named ``oids``, and the queue keys each step's (ticks,
# priority) as one number.
VERSION = 3
MAX_DEPTH = 400  # nesting of values (lists in lists ...) a snapshot may hold
INT64 = (-(1 << 63), (1 << 63) - 1)

# Immutable values of the runtime, saved by their fields in order (and made again with
# them); the key is how a snapshot names the type.
VALUE_TYPES: dict[str, type] = {
    "TypedString": TypedString,
    "Range": Range,
    "Dice": Dice,
    "InputMarker": InputMarker,
    "RuntimeType": RuntimeType,
    "Query": Query,
    "Input": Input,
}


class Tag(IntEnum):
    LIST = 0
    TUPLE = 1
    DICT = 2  # a map whose keys are not all strings: key, value, key, value ...
    SET = 3
    FROZENSET = 4
    BIGINT = 5  # signed, little-endian bytes
    OBJECT = 6  # index into "objects"
    FORM = 7
    ENUM = 8
    ENUM_VALUE = 9
    FAMILY = 10  # a unit family, by its base unit
    QUANTITY = 11
    VALUE = 12  # one of VALUE_TYPES: its name, then its fields
    CLOSURE = 13
    FUNCTION = 14  # a generated function, by its stable name
    NATIVE = 15  # one of the engine's own rules: "module:name"
    COUNTER = 16  # an itertools.count: the next number it gives
    STRMAP = 17  # a map with string keys
    LOREDICT = 18  # a dictionary of the language (``LoreDict``): key, value, key, value ...


class SnapshotError(Exception):
    """A snapshot that cannot be made or read (the message says why)."""


# The engine's own rules and handlers a snapshot may name: functions defined at the top
# of these modules (they do no I/O; a snapshot names them as "module:name").
NATIVE_MODULES = ("lore.engine.", "lore.runtime.ops")


def native_name(fn: Any) -> str | None:
    """How a snapshot names one of the engine's own functions (None: not one)."""
    if type(fn) is not FunctionType:
        return None
    module, name = fn.__module__, fn.__qualname__
    if "." in name or "<" in name or not module.startswith(NATIVE_MODULES):
        return None
    return f"{module}:{name}"


def native_of(name: str) -> Callable[..., Any] | None:
    """The function a snapshot names as one of the engine's own (None: no such one)."""
    module, _, qualname = name.partition(":")
    if not module.startswith(NATIVE_MODULES) or not qualname.isidentifier():
        return None
    try:
        found = getattr(importlib.import_module(module), qualname, None)
    except ImportError:
        return None
    return found if native_name(found) == name else None


# ------------------------------------------------------------ writing


# How each of VALUE_TYPES is written: its name, then its fields' names in order (read
# once here: ``dataclasses.fields`` per value cost a snapshot a fifth of its time).
VALUE_FIELDS: dict[type, tuple[str, tuple[str, ...]]] = {
    value_type: (name, tuple(f.name for f in fields(value_type)))
    for name, value_type in VALUE_TYPES.items()
}
# The tags as plain integers (what MessagePack writes for them; an IntEnum member is
# looked up to be written).
LIST, TUPLE, DICT = int(Tag.LIST), int(Tag.TUPLE), int(Tag.DICT)
SET, FROZENSET, BIGINT = int(Tag.SET), int(Tag.FROZENSET), int(Tag.BIGINT)
OBJECT, FORM, ENUM, ENUM_VALUE = int(Tag.OBJECT), int(Tag.FORM), int(Tag.ENUM), int(Tag.ENUM_VALUE)
FAMILY, QUANTITY, VALUE = int(Tag.FAMILY), int(Tag.QUANTITY), int(Tag.VALUE)
CLOSURE, FUNCTION, NATIVE = int(Tag.CLOSURE), int(Tag.FUNCTION), int(Tag.NATIVE)
COUNTER, STRMAP, LOREDICT = int(Tag.COUNTER), int(Tag.STRMAP), int(Tag.LOREDICT)
PLAIN = frozenset({str, float, bool, bytes, type(None)})  # written as they are


class Writer:
    """Turns values into MessagePack-ready data, collecting the objects they reach."""

    def __init__(self, program: CompiledProgram) -> None:
        self.program = program
        self.names = program.function_names
        self.objects: list[LoreObject] = []
        self.index: dict[int, int] = {}  # id(object) -> its place in ``objects``
        self.place: str | LoreObject = ""  # the attribute or object being written

    @property
    def where(self) -> str:
        """The attribute or object being written, for errors (an object's repr is made
        only then: most snapshots never need it)."""
        place = self.place
        return place if isinstance(place, str) else f"object {place!r}"

    @where.setter
    def where(self, place: str) -> None:
        self.place = place

    def value(self, value: Any, depth: int = 0) -> Any:
        kind = type(value)
        if kind in PLAIN:
            return value
        if kind is int:
            if INT64[0] <= value <= INT64[1]:
                return value
            size = (value.bit_length() + 8) // 8
            return [BIGINT, value.to_bytes(size, "little", signed=True)]
        if depth > MAX_DEPTH:
            raise SnapshotError(f"{self.where}: values nested more than {MAX_DEPTH} deep")
        depth += 1
        if kind is LoreObject:
            found = self.index.get(id(value))
            if found is None:
                found = self.index[id(value)] = len(self.objects)
                self.objects.append(value)
            return [OBJECT, found]
        if kind is tuple or kind is list:
            written: list[Any] = [TUPLE if kind is tuple else LIST]
            written += [self.value(item, depth) for item in value]
            return written
        if kind is dict:
            if all(type(key) is str for key in value):
                return [STRMAP, {k: self.value(v, depth) for k, v in value.items()}]
            flat: list[Any] = [DICT]
            for key, item in value.items():
                flat.append(self.value(key, depth))
                flat.append(self.value(item, depth))
            return flat
        named = VALUE_FIELDS.get(kind)
        if named is not None:
            written = [VALUE, named[0]]
            written += [self.value(getattr(value, name), depth) for name in named[1]]
            return written
        if kind is Quantity:
            return [QUANTITY, self.value(value.value, depth), value.unit, value.family.base]
        if kind is EnumValue:
            return [ENUM_VALUE, value.enum.name, value.name]
        if kind is LoreDict:  # (its keys in their order: the order a dictionary keeps)
            pairs: list[Any] = [LOREDICT]
            for key, item in value.items.items():
                pairs.append(self.value(key, depth))
                pairs.append(self.value(item, depth))
            return pairs
        if kind is Closure:
            return [CLOSURE, self.value(value.code, depth), self.value(value.captured, depth)]
        if kind is set or kind is frozenset:
            # In an order of their own (not of their hashes, which follow memory
            # addresses), so that the same state is always the same bytes.
            ordered = sorted(value, key=_order_key)
            written = [SET if kind is set else FROZENSET]
            written += [self.value(item, depth) for item in ordered]
            return written
        if kind is FormInfo:
            return [FORM, value.name]
        if kind is EnumInfo:
            return [ENUM, value.name]
        if kind is UnitFamily:
            return [FAMILY, value.base]
        if kind is itertools.count:
            return [COUNTER, value.__reduce__()[1][0]]  # the next number, not taken
        if kind is FunctionType:
            stable = self.names.get(value)
            if stable is not None:
                return [FUNCTION, stable]
            native = native_name(value)
            if native is not None:
                return [NATIVE, native]
        raise SnapshotError(f"{self.where}: cannot save {type(value).__name__} {value!r}")

    def objects_table(self) -> list[Any]:
        """Every object reached, each as [form, label, oid, members, more] (``more``: its
        other attributes that are set, by name); objects reached from members join the
        end of the list as it is written."""
        table: list[Any] = []
        position = 0
        value = self.value
        while position < len(self.objects):
            obj = self.objects[position]
            self.place = obj
            members = {name: value(member) for name, member in obj.values.items()}
            form = obj.form.name if obj.form is not None else None
            more = {
                name: value(getattr(obj, name))
                for name in OBJECT_SLOTS
                if getattr(obj, name, None)  # (not kept when empty: an object no alter changed)
            }
            table.append([form, obj.label, obj.oid, members, more])
            position += 1
        return table


def _order_key(value: Any) -> str:
    """A key that orders the items of a set the same in every process."""
    if isinstance(value, LoreObject):
        return f"o{value.oid:012d}:{value.label or ''}"
    if isinstance(value, tuple):
        return "(" + ",".join(_order_key(item) for item in value) + ")"
    return f"{type(value).__name__}:{value!r}"


def attributes(holder: Any, skip: frozenset[str]) -> dict[str, Any]:
    """An object's attributes (of ``__dict__`` or ``__slots__``) but those in ``skip``."""
    found: dict[str, Any] = {}
    names = list(getattr(holder, "__dict__", {}))
    for klass in type(holder).__mro__:
        names.extend(getattr(klass, "__slots__", ()))
    for name in names:
        if name not in skip and name not in found and hasattr(holder, name):
            found[name] = getattr(holder, name)
    return found


def take(session: Session) -> bytes:
    """The snapshot of ``session`` (between two ``run()`` calls)."""
    with deeper(), collector_paused():
        return _take(session)


def _take(session: Session) -> bytes:
    program = session.program
    writer = Writer(program)
    # The program's values first: their objects get the first places, in the same
    # order whatever the session's other state is.
    values: dict[str, Any] = {}
    for symbol, index, _ in program.values:
        name = symbol.qualified_name
        if name.split(".", 1)[0] != "_auto_stored":
            writer.where = f"value {name}"
            values[name] = writer.value(session.rt.g[index] if index < len(session.rt.g) else None)
    runtime: dict[str, Any] = {}
    for name in session.rt.SAVED:
        writer.where = f"Runtime.{name}"
        runtime[name] = writer.value(getattr(session.rt, name))
    state: dict[str, Any] = {}
    skip = session.TRANSIENT | session.HISTORY
    if session.waiting is None:
        skip |= session.STEP
    # The queue with its keys in the wide layout, whichever the session has: the same
    # snapshot for the same state (see ``session.KEY_SHIFT``).
    keys, buckets = session.wide_queue()
    queue = {"keys": keys, "buckets": buckets}
    for name, value in attributes(session, skip).items():
        writer.where = f"Session.{name}"
        state[name] = writer.value(queue.get(name, value))
    data = {
        "format": MAGIC,
        "version": VERSION,
        "files": [list(item) for item in program.files()],
        "seed": writer.value(session.seed),
        "answers": session.answer_count,
        "started": bool(session.rt.g),
        "values": values,
        "session": state,
        "runtime": runtime,
    }
    data["objects"] = writer.objects_table()
    try:
        return msgspec.msgpack.encode(data)
    except (OverflowError, TypeError) as error:  # pragma: no cover - the writer checks types
        raise SnapshotError(f"the snapshot cannot be written: {error}") from None


# ------------------------------------------------------------ reading


class Reader:
    """Turns snapshot data back into values of ``program``."""

    def __init__(self, program: CompiledProgram) -> None:
        self.program = program
        self.units = program.result.checker.units.units
        self.enums = {info.name: info for info in program.enums.values()}
        self.objects: list[LoreObject] = []

    def fail(self, what: str) -> SnapshotError:
        return SnapshotError(f"the snapshot is damaged: {what}")

    def value(self, data: Any, depth: int = 0) -> Any:
        if type(data) is not list:
            if isinstance(data, dict):
                raise self.fail("a map where a value was expected")
            return data
        if not data or depth > MAX_DEPTH:
            raise self.fail("an empty or too deeply nested value")
        depth += 1
        tag, rest = data[0], data[1:]
        try:
            return self.tagged(tag, rest, depth)
        except SnapshotError:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
            raise self.fail(f"a value of kind {tag!r} cannot be read ({error})") from None

    def tagged(self, tag: Any, rest: list[Any], depth: int) -> Any:
        if tag == Tag.OBJECT:
            return self.objects[rest[0]]
        if tag == Tag.TUPLE:
            return tuple(self.value(item, depth) for item in rest)
        if tag == Tag.LIST:
            return [self.value(item, depth) for item in rest]
        if tag == Tag.STRMAP:
            return {str(k): self.value(v, depth) for k, v in rest[0].items()}
        if tag == Tag.DICT:
            pairs = zip(rest[0::2], rest[1::2], strict=True)
            return {self.value(k, depth): self.value(v, depth) for k, v in pairs}
        if tag == Tag.LOREDICT:
            pairs = zip(rest[0::2], rest[1::2], strict=True)
            return LoreDict({self.value(k, depth): self.value(v, depth) for k, v in pairs})
        if tag == Tag.SET:
            return {self.value(item, depth) for item in rest}
        if tag == Tag.FROZENSET:
            return frozenset(self.value(item, depth) for item in rest)
        if tag == Tag.BIGINT:
            return int.from_bytes(rest[0], "little", signed=True)
        if tag == Tag.QUANTITY:
            family = self.family(rest[2])
            if rest[1] not in family.factors:
                raise self.fail(f"unit [{rest[1]}] is not of the family of [{rest[2]}]")
            return Quantity(self.value(rest[0], depth), rest[1], family)
        if tag == Tag.ENUM_VALUE:
            return self.enum(rest[0]).values[rest[1]]
        if tag == Tag.CLOSURE:
            return Closure(self.value(rest[0], depth), self.value(rest[1], depth), 0)
        if tag == Tag.FORM:
            return self.form(rest[0])
        if tag == Tag.ENUM:
            return self.enum(rest[0])
        if tag == Tag.FAMILY:
            return self.family(rest[0])
        if tag == Tag.COUNTER:
            return itertools.count(int(rest[0]))
        if tag == Tag.VALUE:
            value_type = VALUE_TYPES[rest[0]]
            return value_type(*(self.value(item, depth) for item in rest[1:]))
        if tag == Tag.FUNCTION:
            found = self.program.functions.get(rest[0])
            if found is None:
                raise self.fail(f"it names a rule the program does not have ({rest[0]})")
            return found
        if tag == Tag.NATIVE:
            native = native_of(str(rest[0]))
            if native is None:
                raise self.fail(f"it names an engine rule that does not exist ({rest[0]})")
            return native
        raise self.fail(f"unknown kind of value {tag!r}")

    def form(self, name: str) -> FormInfo:
        found = self.program.form_by_name.get(name)
        if found is None:
            raise self.fail(f"the program has no form '{name}'")
        return found

    def enum(self, name: str) -> EnumInfo:
        found = self.enums.get(name)
        if found is None:
            raise self.fail(f"the program has no enum '{name}'")
        return found

    def family(self, base: str) -> UnitFamily:
        found = self.units.get(base)
        if not isinstance(found, UnitFamily):
            raise self.fail(f"the program has no unit [{base}]")
        return found

    def read_objects(self, table: Any) -> None:
        if not isinstance(table, list):
            raise self.fail("its objects are not a list")
        rows = []
        for row in table:
            if not (
                isinstance(row, list)
                and len(row) == 5
                and isinstance(row[3], dict)
                and isinstance(row[4], dict)
            ):
                raise self.fail("an object is not [form, label, oid, members, more]")
            form = self.form(row[0]) if row[0] is not None else None
            label = row[1] if isinstance(row[1], str) else None
            oid = row[2] if type(row[2]) is int else 0
            self.objects.append(LoreObject(form, {}, oid, label))
            rows.append(row)
        for obj, row in zip(self.objects, rows, strict=True):
            obj.values.update({str(k): self.value(v) for k, v in row[3].items()})
            for name, data in row[4].items():
                if name not in OBJECT_SLOTS:
                    raise self.fail(f"an object has '{name}', which this Lore's objects do not")
                setattr(obj, name, self.value(data))


def header(data: bytes) -> dict[str, Any]:
    """The decoded snapshot, its format and version checked."""
    try:
        with deeper():
            decoded = msgspec.msgpack.decode(data)
    except (msgspec.DecodeError, RecursionError, ValueError, TypeError):
        raise SnapshotError("this is not a Lore snapshot (it cannot be decoded)") from None
    if not isinstance(decoded, dict) or decoded.get("format") != MAGIC:
        raise SnapshotError("this is not a Lore snapshot")
    version = decoded.get("version")
    if version != VERSION:
        raise SnapshotError(
            f"this snapshot has format version {version!r}; this Lore reads version {VERSION}"
        )
    return decoded


def seed_of(decoded: dict[str, Any]) -> int:
    """The seed a decoded snapshot holds (a whole number of any size)."""
    data = decoded.get("seed")
    if type(data) is int:
        return data
    if (
        isinstance(data, list)
        and len(data) == 2
        and data[0] == Tag.BIGINT
        and isinstance(data[1], bytes)
    ):
        return int.from_bytes(data[1], "little", signed=True)
    raise SnapshotError("the snapshot is damaged: it has no seed")


def changed_files(recorded: Any, program: CompiledProgram) -> list[str]:
    """The files that differ between a snapshot's record and the program: each as 'name
    (changed)', 'name (not loaded now)' or 'name (new)'."""
    before = {str(item[0]): str(item[1]) for item in recorded or () if len(item) == 2}
    now = dict(program.files())
    found = [
        f"{name} (changed)" if name in now else f"{name} (not loaded now)"
        for name, sha in before.items()
        if now.get(name) != sha
    ]
    found += [f"{name} (new)" for name in now if name not in before]
    return found


def restore_into(session: Session, decoded: dict[str, Any]) -> None:
    """Give ``session`` (new, of the snapshot's program and seed) the snapshot's state."""
    with deeper(), collector_paused():
        _restore_into(session, decoded)


def _restore_into(session: Session, decoded: dict[str, Any]) -> None:
    program = session.program
    reader = Reader(program)
    reader.read_objects(decoded.get("objects"))
    state = decoded.get("session")
    runtime = decoded.get("runtime")
    values = decoded.get("values")
    if not isinstance(state, dict) or not isinstance(runtime, dict) or not isinstance(values, dict):
        raise reader.fail("it lacks the session's state")
    for name, data in state.items():
        if name in session.TRANSIENT or name in session.HISTORY:
            raise reader.fail(f"it sets '{name}', which a snapshot does not hold")
        if not hasattr(session, name):
            raise reader.fail(f"it holds '{name}', which this Lore's sessions do not have")
        setattr(session, name, reader.value(data))
    rt = session.rt
    for name, data in runtime.items():
        if name not in rt.SAVED:
            raise reader.fail(f"it holds '{name}', which this Lore's runtime does not have")
        setattr(rt, name, reader.value(data))
    if decoded.get("started"):
        rt.g = [None] * len(program.value_index)
        for symbol, index, _ in program.values:
            name = symbol.qualified_name
            if name in values:
                rt.g[index] = reader.value(values[name])
    session.answers_before = int(decoded.get("answers") or 0)
    session.narrow_restored()


def describe_queue(session: Session, limit: int = 200) -> list[str]:
    """The events waiting, in the order they will run, one line each for people: when,
    and which rule or lambda runs (of which object)."""
    from lore.engine.session import entries_of

    names = session.program.function_names
    lines: list[str] = []
    entries = [((session.ticks, session.priority), e) for e in session.waiting or ()]
    entries += [
        (session.key_parts(key), entry)
        for key in sorted(session.buckets)
        for entry in entries_of(session.buckets[key])
    ]
    waiting = len(session.waiting or ())
    for number, ((ticks, priority), (_, fn, arg)) in enumerate(entries[:limit]):
        name = str(names.get(fn) or native_name(fn) or getattr(fn, "__qualname__", "?"))
        name = name.rsplit("#", 1)[0]
        target = f" of {arg.label or repr(arg)}" if isinstance(arg, LoreObject) else ""
        now = " (the step in progress, waiting for answers)" if number < waiting else ""
        lines.append(f"at {ticks}[sec], priority {priority}{now}: {name}{target}")
    if len(entries) > limit:
        lines.append(f"... and {len(entries) - limit} more")
    return lines
