"""``record``: a dataclass-like class whose methods are made when first used.

``dataclasses.dataclass`` writes the source of ``__init__``, ``__eq__``, ``__hash__``,
``__repr__`` (and, frozen, ``__setattr__`` and ``__delattr__``) for every class and
compiles it as the class is defined: about a millisecond a class on Python 3.11; and
importing ``dataclasses`` imports ``inspect`` (with ``ast``, ``dis`` and ``tokenize``),
about 10 ms more. The syntax tree, the types and the symbols (some hundred classes) are
what ``lore check`` imports, so a ``record`` is built without ``dataclasses``:

- its fields are read from the class's annotations (base records' fields first), with
  defaults written as values or as ``field(default_factory=...)`` (this module's
  ``field``; ``dataclasses.field`` is understood too);
- ``__init__`` is made, as ``dataclasses`` would write it, the first time the class is
  instantiated, from code written once per shape of class (``lore/record_inits.py``),
  so nothing is compiled when a program runs;
- ``__eq__`` and ``__hash__`` compare and hash the fields' values as read by one
  ``operator.attrgetter`` (no code to compile);
- ``__repr__`` and the frozen ``__setattr__``/``__delattr__`` are shared functions (they
  are never on a hot path);
- ``__slots__``, ``__match_args__`` and the pickling of frozen slotted instances are as
  ``dataclasses`` makes them.

Their meaning is the dataclass one: ``__eq__`` compares the fields of two instances of
the same class, ``__hash__`` hashes them (frozen classes with ``eq``), a frozen instance
refuses assignment with ``dataclasses.FrozenInstanceError``. A method written in the class
body is kept. A record is a dataclass all the same for code that asks: the first use of
``__dataclass_fields__`` (``dataclasses.fields``, ``replace``, ``asdict``,
``is_dataclass``) imports ``dataclasses`` and describes the record to it. Code on the
path of ``lore check`` uses this module's ``fields``, ``field_names`` and ``replace``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from operator import attrgetter
from types import CodeType, FunctionType
from typing import Any, ClassVar, TypeVar, dataclass_transform, get_origin, overload

T = TypeVar("T", bound=type)
V = TypeVar("V")


class _Missing:
    """No default (``dataclasses.MISSING`` without importing ``dataclasses``)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a record: its name, annotation, default and how it is compared."""

    __slots__ = ("compare", "default", "default_factory", "hash", "name", "repr", "type")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        repr: bool = True,
        hash: bool | None = None,
        compare: bool = True,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.hash = hash
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r})"


@overload
def field(
    *,
    default: V,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
) -> V: ...


@overload
def field(
    *,
    default_factory: Callable[[], V],
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
) -> V: ...


@overload
def field(
    *,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
) -> Any: ...


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
) -> Any:
    """A field's default and options, as ``dataclasses.field`` takes them."""
    return Field(default, default_factory, repr, hash, compare)


def fields(record_or_class: Any) -> tuple[Field, ...]:
    """The fields of a record (or record class), in order."""
    found: tuple[Field, ...] | None = getattr(record_or_class, "__record_fields__", None)
    if found is None:
        raise TypeError("must be called with a record or an instance of one")
    return found


def field_names(record_or_class: Any) -> tuple[str, ...]:
    """The names of the fields of a record (or record class), in order."""
    return tuple(item.name for item in fields(record_or_class))


def replace(obj: V, /, **changes: Any) -> V:
    """A copy of the record ``obj`` with ``changes`` (``dataclasses.replace``)."""
    for item in fields(obj):
        if item.name not in changes:
            changes[item.name] = getattr(obj, item.name)
    made: V = obj.__class__(**changes)
    return made


def _frozen_setattr(self: object, name: str, value: object) -> None:
    import dataclasses  # only on this error, which dataclasses names

    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    import dataclasses

    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _repr(self: object) -> str:
    shown = ", ".join(
        f"{item.name}={getattr(self, item.name)!r}" for item in fields(self) if item.repr
    )
    return f"{type(self).__qualname__}({shown})"


def _getstate(self: object) -> list[object]:
    return [getattr(self, item.name) for item in fields(self)]


def _setstate(self: object, state: list[object]) -> None:
    for item, value in zip(fields(self), state, strict=True):
        object.__setattr__(self, item.name, value)


# ---------------------------------------------------------------- methods made when used


# An __init__ is made from the code of a template for its shape (frozen or not, and how
# many fields), with placeholder names `_f0`, `_f1` ...; each class gets a copy of that
# code with its own names put in (``CodeType.replace``), which costs microseconds where
# compiling costs a fraction of a millisecond. The templates of up to INIT_TEMPLATES
# fields are written out in ``lore/record_inits.py`` (made by ``inits_module_source``),
# so that Python's byte code cache keeps them compiled; larger ones are compiled here.

INIT_TEMPLATES = 16


def _field_name(index: int) -> str:
    return f"_f{index}"


_PLACEHOLDERS = tuple(_field_name(index) for index in range(256))


def _template_name(count: int, frozen: bool) -> str:
    return f"{'frozen' if frozen else 'mutable'}_init_{count}"


def _init_source(count: int, frozen: bool) -> str:
    # Parameters are written without defaults: the defaults come with each function, not
    # with the code, so fields with and without defaults share a template. A field with a
    # default factory has MISSING as its default; the factory is the global `_factoryN`.
    params, lines = ["self"], []
    for index in range(count):
        name = _field_name(index)
        value = f"_factory{index}() if {name} is _MISSING else {name}"
        params.append(name)
        lines.append(f'_set(self, "{name}", {value})' if frozen else f"self.{name} = {value}")
    body = "\n    ".join(lines or ["pass"])
    return f"def {_template_name(count, frozen)}({', '.join(params)}):\n    {body}\n"


def inits_module_source() -> str:
    """The text of ``lore/record_inits.py``: the templates of ``__init__``."""
    header = (
        '"""Templates of the ``__init__`` of records (see ``lore.records``): made by\n'
        "``lore.records.inits_module_source``, do not edit. Their globals (``_set``,\n"
        '``_MISSING``, ``_factoryN``) are given to each record\'s copy."""\n'
        "# mypy: ignore-errors\n"
    )
    functions = [
        _init_source(count, frozen)
        for count in range(INIT_TEMPLATES + 1)
        for frozen in (True, False)
    ]
    return header + "".join(f"\n\n{function}" for function in functions)


@cache
def _template(count: int, frozen: bool) -> CodeType:
    """The code of the ``__init__`` of records of ``count`` fields."""
    name = _template_name(count, frozen)
    from lore import record_inits  # only when a record is first made

    written = getattr(record_inits, name, None)
    if written is not None:
        code: CodeType = written.__code__
        return code
    made: dict[str, Any] = {}
    exec(_init_source(count, frozen), {}, made)
    code = made[name].__code__
    return code


def _make_init(cls: type) -> Callable[..., Any]:
    """Make the ``__init__`` of ``cls`` and put it on the class in place of the stub."""
    items = fields(cls)
    env: dict[str, Any] = {"_set": object.__setattr__, "_MISSING": MISSING}
    defaults: list[Any] = []
    for index, item in enumerate(items):
        if item.default_factory is not MISSING:
            defaults.append(MISSING)
            env[f"_factory{index}"] = item.default_factory
        elif item.default is not MISSING:
            defaults.append(item.default)
    template = _template(len(items), cls.__dict__["__record_frozen__"])
    real = dict(zip(_PLACEHOLDERS, [item.name for item in items], strict=False))

    def rename(names: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple([real.get(name, name) if name.__class__ is str else name for name in names])

    qualname = f"{cls.__qualname__}.__init__"
    code = template.replace(
        co_varnames=rename(template.co_varnames),
        co_names=rename(template.co_names),
        co_consts=rename(template.co_consts),
        co_name="__init__",
        co_qualname=qualname,
    )
    method = FunctionType(code, env, "__init__", tuple(defaults) or None)
    method.__qualname__ = qualname
    method.__module__ = cls.__module__
    cls.__init__ = method  # type: ignore[misc]
    return method


def _owner(cls: type, name: str, stub: object) -> type:
    """The class of ``cls``'s ancestry whose own ``name`` is ``stub``."""
    for klass in cls.__mro__:
        if klass.__dict__.get(name) is stub:
            return klass
    raise TypeError(f"{cls.__qualname__} has no {name} to make")  # pragma: no cover


def _lazy_init(self: Any, *args: Any, **kwargs: Any) -> None:
    _make_init(_owner(type(self), "__init__", _lazy_init))
    type(self).__init__(self, *args, **kwargs)


def _values(names: list[str]) -> Callable[[Any], Any]:
    """What ``__eq__`` and ``__hash__`` compare: the fields' values, read by one
    ``attrgetter`` (a tuple of them; the value itself for one field)."""
    return attrgetter(*names) if names else (lambda obj: ())


def _eq(items: tuple[Field, ...]) -> Callable[[Any, object], Any]:
    values = _values([item.name for item in items if item.compare])

    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(items: tuple[Field, ...]) -> Callable[[Any], int]:
    values = _values(
        [item.name for item in items if (item.compare if item.hash is None else item.hash)]
    )

    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _has_own_hash(cls: type) -> bool:
    """Whether the class body defines ``__hash__`` (Python sets it to None for a body
    that defines ``__eq__`` alone, which does not count)."""
    found = cls.__dict__.get("__hash__", MISSING)
    return not (found is MISSING or (found is None and "__eq__" in cls.__dict__))


# ---------------------------------------------------------------- the fields of a class


_CLASS_VARS = ("ClassVar", "typing.ClassVar", "t.ClassVar")


def _is_class_var(annotation: object) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(_CLASS_VARS)
    return annotation is ClassVar or get_origin(annotation) is ClassVar


def _spec(value: object) -> Field:
    """The ``Field`` that the class body's value for a field stands for."""
    if isinstance(value, Field):
        return value
    kind = type(value)
    if kind.__name__ == "Field" and kind.__module__ == "dataclasses":
        theirs: Any = value
        return Field(
            MISSING if theirs.default.__class__.__name__ == "_MISSING_TYPE" else theirs.default,
            MISSING
            if theirs.default_factory.__class__.__name__ == "_MISSING_TYPE"
            else theirs.default_factory,
            theirs.repr,
            theirs.hash,
            theirs.compare,
        )
    return Field(default=value)


def _collect(cls: type) -> tuple[Field, ...]:
    """The fields of ``cls``: those of its base records, then its own annotations."""
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        inherited = base.__dict__.get("__record_fields__")
        if inherited is not None:
            found.update((item.name, item) for item in inherited)
        elif "__dataclass_fields__" in base.__dict__:
            raise TypeError(f"record {cls.__qualname__} cannot extend a dataclass")
    # The class's own annotations, read without `inspect` (which this module avoids).
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    for name, annotation in annotations.items():
        if _is_class_var(annotation):
            continue
        item = _spec(cls.__dict__.get(name, Field()))
        if item.default is not MISSING and item.default.__class__.__hash__ is None:
            raise ValueError(
                f"mutable default {type(item.default)} for field {name} is not allowed:"
                " use default_factory"
            )
        item.name, item.type = name, annotation
        found[name] = item
    items = tuple(found.values())
    defaulted = False
    for item in items:
        if item.default is not MISSING or item.default_factory is not MISSING:
            defaulted = True
        elif defaulted:
            raise TypeError(f"non-default argument {item.name!r} follows default argument")
    return items


def _slotted(cls: type, items: tuple[Field, ...], methods: dict[str, Any]) -> Any:
    """``cls`` made again with ``__slots__`` for its fields (as ``dataclasses`` does) and
    ``methods`` (given to the new class at once: setting a method on a class costs more)."""
    inherited: set[str] = set()
    for base in cls.__mro__[1:-1]:
        slots = base.__dict__.get("__slots__", ())
        inherited.update((slots,) if isinstance(slots, str) else slots)
    namespace = dict(cls.__dict__)
    for item in items:
        namespace.pop(item.name, None)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace.update(methods)
    namespace["__slots__"] = tuple(item.name for item in items if item.name not in inherited)
    namespace["__qualname__"] = cls.__qualname__
    return type(cls)(cls.__name__, cls.__bases__, namespace)


# ---------------------------------------------------------------- what dataclasses sees


_DATACLASS_ATTRIBUTES = ("__dataclass_fields__", "__dataclass_params__")


class _DataclassView:
    """``__dataclass_fields__`` or ``__dataclass_params__`` of a record, made the first
    time something reads them (they need ``dataclasses``): the record's fields and options
    described to ``dataclasses`` by a stand-in class it processes, then kept on the
    record."""

    def __init__(self, attribute: str, frozen: bool, eq: bool) -> None:
        self.attribute, self.frozen, self.eq = attribute, frozen, eq
        self.owner: type = object  # the record, once it is made

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        import dataclasses

        owner, namespace = self.owner, {}
        annotations: dict[str, Any] = {}
        for item in fields(owner):
            annotations[item.name] = item.type
            options: dict[str, Any] = {
                "repr": item.repr,
                "hash": item.hash,
                "compare": item.compare,
            }
            if item.default_factory is not MISSING:
                options["default_factory"] = item.default_factory
            elif item.default is not MISSING:
                options["default"] = item.default
            namespace[item.name] = dataclasses.field(**options)
        namespace["__annotations__"] = annotations
        namespace["__doc__"] = owner.__doc__
        stand_in = type(owner.__name__, (), namespace)
        dataclasses.dataclass(stand_in, init=False, repr=False, eq=self.eq, frozen=self.frozen)
        for attribute in _DATACLASS_ATTRIBUTES:
            setattr(owner, attribute, stand_in.__dict__[attribute])
        return owner.__dict__[self.attribute]


# ---------------------------------------------------------------- the decorator


def _build(cls: T, frozen: bool, eq: bool, slots: bool) -> T:
    items = _collect(cls)
    if len(items) > len(_PLACEHOLDERS):
        raise TypeError(f"a record has at most {len(_PLACEHOLDERS)} fields")
    views = [_DataclassView(name, frozen, eq) for name in _DATACLASS_ATTRIBUTES]
    methods: dict[str, Any] = {
        "__record_fields__": items,
        "__record_frozen__": frozen,
        "__init__": _lazy_init,
        **dict(zip(_DATACLASS_ATTRIBUTES, views, strict=True)),
    }
    if not cls.__doc__:
        shown = ", ".join(f"{item.name}: {item.type}" for item in items)
        methods["__doc__"] = f"{cls.__name__}({shown})"
    if "__match_args__" not in cls.__dict__:
        methods["__match_args__"] = tuple(item.name for item in items)
    if "__repr__" not in cls.__dict__:
        methods["__repr__"] = _repr
    if eq and "__eq__" not in cls.__dict__:
        methods["__eq__"] = _eq(items)
    if eq and not _has_own_hash(cls):
        methods["__hash__"] = _hash(items) if frozen else None
    if frozen:
        methods["__setattr__"] = _frozen_setattr
        methods["__delattr__"] = _frozen_delattr
        if slots:
            methods["__getstate__"] = _getstate
            methods["__setstate__"] = _setstate
    if slots:
        built: Any = _slotted(cls, items, methods)
    else:
        for item in items:  # as dataclasses leaves the class: defaults as class attributes
            if item.name in cls.__dict__:
                if item.default is MISSING:
                    delattr(cls, item.name)
                else:
                    setattr(cls, item.name, item.default)
        for name, value in methods.items():
            setattr(cls, name, value)
        built = cls
    for view in views:
        view.owner = built
    result: T = built
    return result


@overload
def record(cls: T, /) -> T: ...


@overload
def record(*, frozen: bool = True, eq: bool = True, slots: bool = True) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, eq_default=True, field_specifiers=(field, Field))
def record(
    cls: T | None = None, /, *, frozen: bool = True, eq: bool = True, slots: bool = True
) -> T | Callable[[T], T]:
    """A dataclass (frozen and slotted unless told otherwise) with methods made when first
    used; ``@record`` is ``@dataclass(frozen=True, slots=True)``."""

    def wrap(cls: T) -> T:
        return _build(cls, frozen, eq, slots)

    return wrap if cls is None else wrap(cls)
