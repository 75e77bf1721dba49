"""``record``: a dataclass whose methods are made when first used, not when it is defined.

``dataclasses.dataclass`` writes the source of ``__init__``, ``__eq__``, ``__hash__``,
``__repr__`` (and, frozen, ``__setattr__`` and ``__delattr__``) for every class and
compiles it as the class is defined: about a millisecond a class on Python 3.11, so
importing the syntax tree, the types and the symbols (some eighty classes) cost most of
the start-up of ``lore check``. A ``record`` is a dataclass all the same (``fields``,
``replace``, ``__match_args__`` and pattern matching work), but:

- ``__init__`` is generated, as ``dataclasses`` would write it, the first time the class
  is instantiated, so a run compiles only those of the classes it uses (and from code
  compiled once per shape of class);
- ``__eq__`` and ``__hash__`` compare and hash the fields' values as read by one
  ``operator.attrgetter`` (no code to compile);
- ``__repr__`` and the frozen ``__setattr__``/``__delattr__`` are shared functions (they
  are never on a hot path).

Their meaning is the dataclass one: ``__eq__`` compares the fields of two instances of
the same class, ``__hash__`` hashes them (frozen classes with ``eq``), a frozen instance
refuses assignment with ``dataclasses.FrozenInstanceError``. A method written in the class
body is kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from operator import attrgetter
from types import CodeType, FunctionType
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T", bound=type)

_MISSING = dataclasses.MISSING


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _repr(self: object) -> str:
    shown = ", ".join(
        f"{field.name}={getattr(self, field.name)!r}"
        for field in dataclasses.fields(self)  # type: ignore[arg-type]
        if field.repr
    )
    return f"{type(self).__qualname__}({shown})"


def _getstate(self: object) -> list[object]:
    return [getattr(self, field.name) for field in dataclasses.fields(self)]  # type: ignore[arg-type]


def _setstate(self: object, state: list[object]) -> None:
    for field, value in zip(dataclasses.fields(self), state, strict=True):  # type: ignore[arg-type]
        object.__setattr__(self, field.name, value)


# ---------------------------------------------------------------- methods made when used


# An __init__ is compiled once per shape (frozen or not, how many fields, which have a
# default factory), with placeholder names `_f0`, `_f1` ...; each class gets a copy of
# that code with its own names put in (``CodeType.replace``), which costs microseconds
# where compiling costs a fraction of a millisecond.


def _field_name(index: int) -> str:
    return f"_f{index}"


_PLACEHOLDERS = tuple(_field_name(index) for index in range(256))


def _init_source(kinds: tuple[str, ...], frozen: bool) -> str:
    # Parameters are written without defaults: the defaults come with each function, not
    # with the code, so fields with and without defaults share a template.
    params, lines = ["self"], []
    for index, kind in enumerate(kinds):
        name = value = _field_name(index)
        if kind == "factory":
            value = f"_factory{index}() if {name} is _MISSING else {name}"
        params.append(name)
        lines.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    body = "\n    ".join(lines or ["pass"])
    return f"def __init__({', '.join(params)}):\n    {body}\n"


@cache
def _template(name: str, shape: tuple[Any, ...]) -> CodeType:
    """The code of ``__init__`` for ``shape``: (frozen, the kinds of the fields)."""
    source = _init_source(shape[1], shape[0])
    made: dict[str, Any] = {}
    exec(source, {}, made)
    code: CodeType = made[name].__code__
    return code


def _method(
    cls: type, name: str
) -> tuple[tuple[Any, ...], list[str], dict[str, Any], tuple[Any, ...]]:
    """The shape of method ``name`` of ``cls`` (see ``_template``), the field names to put
    in it, the globals it needs and the defaults of its parameters."""
    fields = dataclasses.fields(cls)
    env: dict[str, Any] = {"_set": object.__setattr__, "_MISSING": _MISSING}
    if name == "__init__":
        kinds: list[str] = []
        defaults: list[Any] = []
        for index, field in enumerate(fields):
            if field.default_factory is not _MISSING:
                kinds.append("factory")
                defaults.append(_MISSING)
                env[f"_factory{index}"] = field.default_factory
            else:
                kinds.append("plain")
                if field.default is not _MISSING:
                    defaults.append(field.default)
        shape = (cls.__dict__["__record_frozen__"], tuple(kinds))
        return shape, [field.name for field in fields], env, tuple(defaults)
    raise TypeError(f"records make no {name}")  # pragma: no cover


def _make(cls: type, name: str) -> Callable[..., Any]:
    """Make method ``name`` of ``cls`` and put it on the class in place of the stub."""
    shape, names, env, defaults = _method(cls, name)
    template = _template(name, shape)
    real = dict(zip(_PLACEHOLDERS, names, strict=False))

    def rename(items: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple([real.get(item, item) if item.__class__ is str else item for item in items])

    qualname = f"{cls.__qualname__}.{name}"
    code = template.replace(
        co_varnames=rename(template.co_varnames),
        co_names=rename(template.co_names),
        co_consts=rename(template.co_consts),
        co_qualname=qualname,
    )
    method = FunctionType(code, env, name, defaults or None)
    method.__qualname__ = qualname
    method.__module__ = cls.__module__
    setattr(cls, name, method)
    return method


def _owner(cls: type, name: str, stub: object) -> type:
    """The class of ``cls``'s ancestry whose own ``name`` is ``stub``."""
    for klass in cls.__mro__:
        if klass.__dict__.get(name) is stub:
            return klass
    raise TypeError(f"{cls.__qualname__} has no {name} to make")  # pragma: no cover


def _lazy_init(self: Any, *args: Any, **kwargs: Any) -> None:
    _make(_owner(type(self), "__init__", _lazy_init), "__init__")
    type(self).__init__(self, *args, **kwargs)


def _values(names: list[str]) -> Callable[[Any], Any]:
    """What ``__eq__`` and ``__hash__`` compare: the fields' values, read by one
    ``attrgetter`` (a tuple of them; the value itself for one field)."""
    return attrgetter(*names) if names else (lambda obj: ())


def _eq(cls: type) -> Callable[[Any, object], Any]:
    values = _values([field.name for field in dataclasses.fields(cls) if field.compare])

    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(cls: type) -> Callable[[Any], int]:
    values = _values(
        [
            field.name
            for field in dataclasses.fields(cls)
            if (field.compare if field.hash is None else field.hash)
        ]
    )

    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _has_own_hash(cls: type) -> bool:
    """Whether the class body defines ``__hash__`` (Python sets it to None for a body
    that defines ``__eq__`` alone, which does not count)."""
    found = cls.__dict__.get("__hash__", _MISSING)
    return not (found is _MISSING or (found is None and "__eq__" in cls.__dict__))


def _build(cls: T, frozen: bool, eq: bool, slots: bool) -> T:
    own_hash = _has_own_hash(cls)
    own_eq = "__eq__" in cls.__dict__
    own_repr = "__repr__" in cls.__dict__
    # dataclasses documents a class without a docstring by its signature, which it asks
    # `inspect` for (slow, and of no use with the __init__ made later): say it here.
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = cls.__name__
    built: Any = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=slots)
    if undocumented:
        shown = ", ".join(f"{field.name}: {field.type}" for field in dataclasses.fields(built))
        built.__doc__ = f"{cls.__name__}({shown})"
    built.__record_frozen__ = frozen
    if len(dataclasses.fields(built)) > len(_PLACEHOLDERS):
        raise TypeError(f"a record has at most {len(_PLACEHOLDERS)} fields")
    built.__init__ = _lazy_init
    if not own_repr:
        built.__repr__ = _repr
    if eq and not own_eq:
        built.__eq__ = _eq(built)
    if eq and not own_hash:
        built.__hash__ = _hash(built) if frozen else None
    if frozen:
        built.__setattr__ = _frozen_setattr
        built.__delattr__ = _frozen_delattr
        if slots:
            built.__getstate__ = _getstate
            built.__setstate__ = _setstate
    result: T = built
    return result


@overload
def record(cls: T, /) -> T: ...


@overload
def record(*, frozen: bool = True, eq: bool = True, slots: bool = True) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, eq_default=True, field_specifiers=(dataclasses.field,))
def record(
    cls: T | None = None, /, *, frozen: bool = True, eq: bool = True, slots: bool = True
) -> T | Callable[[T], T]:
    """A dataclass (frozen and slotted unless told otherwise) with methods made when first
    used; ``@record`` is ``@dataclass(frozen=True, slots=True)``."""

    def wrap(cls: T) -> T:
        return _build(cls, frozen, eq, slots)

    return wrap if cls is None else wrap(cls)
