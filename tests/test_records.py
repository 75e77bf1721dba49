"""`record`: dataclasses whose methods are made when first used behave as dataclasses."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import field
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lore.records import INIT_TEMPLATES, field_names, fields, inits_module_source, record, replace
from lore.records import field as record_field


@record
class Point:
    x: int
    y: int = 0


@record
class Point3(Point):
    z: int = 0


@record(frozen=False, slots=False)
class Bag:
    name: str
    items: list[int] = field(default_factory=list)
    note: str = field(default="", compare=False)


@record
class Tagged:
    """Fields given with this module's ``field``, and a class variable."""

    name: str
    tags: tuple[str, ...] = record_field(default=())
    seen: list[str] = record_field(default_factory=list, compare=False, repr=False)
    kind: ClassVar[str] = "tagged"


@record(eq=False)
class Handle:
    key: str


@dataclasses.dataclass(frozen=True, slots=True)
class Twin:
    x: int
    y: int = 0


def test_a_record_is_a_dataclass() -> None:
    assert dataclasses.is_dataclass(Point)
    assert [f.name for f in dataclasses.fields(Point3)] == ["x", "y", "z"]
    assert Point3.__match_args__ == ("x", "y", "z")
    assert dataclasses.replace(Point(1, 2), y=5) == Point(1, 5)
    assert not hasattr(Point(1), "__dict__")  # slotted


def test_init_takes_positions_keywords_and_defaults() -> None:
    assert Point(1) == Point(x=1, y=0)
    assert Point3(1, 2, 3).z == 3
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, 3)  # type: ignore[call-arg]


def test_default_factories_give_each_instance_its_own_value() -> None:
    first, second = Bag("a"), Bag("b")
    first.items.append(1)
    assert second.items == []
    assert Bag("a", [1], note="x") == Bag("a", [1], note="y")  # note is not compared


def test_frozen_records_refuse_assignment() -> None:
    point = Point(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.x  # type: ignore[misc]


def test_equality_is_by_class_and_fields() -> None:
    assert Point(1, 2) != Point3(1, 2)
    assert Point(1, 2) != (1, 2)
    assert Handle("a") != Handle("a")  # eq=False: identity
    with pytest.raises(TypeError):
        hash(Bag("a"))  # mutable with eq: unhashable, like a dataclass


def test_copies_and_pickles_keep_the_fields() -> None:
    point = Point3(1, 2, 3)
    assert copy.deepcopy(point) == point
    assert pickle.loads(pickle.dumps(point)) == point


@given(st.integers(), st.integers(), st.integers(), st.integers())
def test_methods_agree_with_dataclasses(a: int, b: int, c: int, d: int) -> None:
    assert (Point(a, b) == Point(c, d)) == (Twin(a, b) == Twin(c, d))
    assert hash(Point(a, b)) == hash(Twin(a, b))
    assert repr(Point(a, b)) == repr(Twin(a, b)).replace("Twin", "Point")


def test_this_modules_field_and_replace() -> None:
    first = Tagged("a", ("x",))
    assert first.seen == [] and first.seen is not Tagged("b").seen
    assert Tagged("a", ("x",), ["one"]) == first  # seen is not compared
    assert repr(first) == "Tagged(name='a', tags=('x',))"
    assert field_names(Tagged) == ("name", "tags", "seen")
    assert [item.name for item in fields(first)] == ["name", "tags", "seen"]
    assert Tagged.kind == "tagged" and "kind" not in field_names(Tagged)
    changed = replace(first, tags=())
    assert changed == Tagged("a") and changed.seen == first.seen
    with pytest.raises(TypeError):
        fields(Twin)  # a dataclass, not a record


def test_dataclasses_sees_a_record_as_it_is() -> None:
    described = {f.name: f for f in dataclasses.fields(Tagged)}
    assert list(described) == ["name", "tags", "seen"]
    assert described["tags"].default == ()
    assert described["seen"].default_factory is list
    assert not described["seen"].compare and not described["seen"].repr
    assert dataclasses.asdict(Tagged("a")) == {"name": "a", "tags": (), "seen": []}
    assert Tagged.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert not Bag.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert dataclasses.replace(Bag("a"), name="b") == Bag("b")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Tagged("a").name = "b"  # type: ignore[misc]


def test_records_are_checked_as_dataclasses_check_them() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        @record
        class Mutable:
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="non-default argument"):

        @record
        class Order:
            x: int = 0
            y: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="cannot extend a dataclass"):

        @record
        class Extends(Twin):
            z: int = 0


def test_slotted_records_keep_defaults_out_of_the_class() -> None:
    assert Point.__dict__["__slots__"] == ("x", "y")
    assert type(Point.__dict__["y"]).__name__ == "member_descriptor"  # the slot, not 0
    assert Point3.__dict__["__slots__"] == ("z",)
    assert Point3(1).y == 0
    assert Bag.__dict__["note"] == ""  # not slotted: the default is a class attribute


def test_the_written_init_templates_are_current() -> None:
    written = Path(__file__).parent.parent / "src" / "lore" / "record_inits.py"
    assert written.read_text(encoding="utf-8") == inits_module_source(), (
        "run: python -c 'from lore.records import inits_module_source as s;"
        ' open("src/lore/record_inits.py", "w").write(s())\''
    )


def test_records_larger_than_the_templates_get_an_init_all_the_same() -> None:
    names = [f"f{index}" for index in range(INIT_TEMPLATES + 3)]
    namespace: dict[str, object] = {"__annotations__": dict.fromkeys(names, "int"), names[-1]: 7}
    for frozen in (True, False):
        wide = record(frozen=frozen)(type("Wide", (), dict(namespace)))
        made = wide(*range(INIT_TEMPLATES + 2))
        assert [getattr(made, name) for name in names] == [*range(INIT_TEMPLATES + 2), 7]
        assert wide.__init__.__qualname__ == "Wide.__init__"
        with pytest.raises(TypeError):
            wide()


def test_an_init_names_its_parameters_as_the_fields() -> None:
    assert Point3(z=3, x=1) == Point3(1, 0, 3)
    assert Point3.__init__.__code__.co_varnames[:4] == ("self", "x", "y", "z")
    with pytest.raises(TypeError, match="unexpected keyword argument '_f0'"):
        Point(_f0=1)  # type: ignore[call-arg]
