"""Which value fits where (``assignable``), what a list of two values holds
(``common_type``), and how types are shown in messages."""

from __future__ import annotations

from functools import cache

import pytest

from lore.semantics.check import CheckResult, check_text
from lore.semantics.symbols import EnumSymbol, FormSymbol, SectionSymbol
from lore.semantics.types import (
    ANY,
    BOOLEAN,
    DATE,
    DICE,
    HTML,
    INTEGER,
    JID,
    LOC,
    NUMBER,
    REAL,
    STRING,
    UNKNOWN,
    URL,
    VOID,
    XML,
    AnonFormT,
    EnumT,
    FormT,
    FuncT,
    InputT,
    ListT,
    RangeT,
    Type,
    TypeOf,
    UnitT,
    assignable,
    common_type,
    display,
    has_unknown,
)

PROGRAM = """
import "basic.lore":url;
section s {
 form Animal { name : string; }
 form Dog extends Animal { }
 form Cat extends Animal { }
 form Rock { }
 enum Color { red; }
 enum Shade extends Color { dark; }
 enum Taste { sweet; }
}
"""


@cache
def _checked() -> CheckResult:
    result = check_text(PROGRAM, "types.lore")
    assert result.diagnostics == []
    return result


def _section() -> SectionSymbol:
    section = _checked().checker.root.members["s"]
    assert isinstance(section, SectionSymbol)
    return section


def form(name: str) -> FormT:
    symbol = _section().members[name]
    assert isinstance(symbol, FormSymbol)
    return FormT(symbol)


def enum(name: str) -> EnumT:
    symbol = _section().members[name]
    assert isinstance(symbol, EnumSymbol)
    return EnumT(symbol)


def unit(name: str) -> UnitT:
    return UnitT(_checked().checker.units.family(name), name)


# ---------------------------------------------------------------- assignable


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (INTEGER, INTEGER),
        (INTEGER, REAL),
        (INTEGER, NUMBER),
        (REAL, NUMBER),
        (INTEGER, DICE),
        (URL, STRING),
        (LOC, STRING),
        (XML, STRING),
        (HTML, STRING),
        (JID, STRING),
        (DATE, STRING),
        (UNKNOWN, INTEGER),
        (STRING, UNKNOWN),
        (ANY, LOC),
        (ListT(INTEGER), ListT(REAL)),
        (ListT(ListT(INTEGER)), ListT(ListT(NUMBER))),
        (RangeT(INTEGER), RangeT(REAL)),
        (ListT(UNKNOWN), ListT(STRING)),
    ],
)
def test_assignable_primitives_and_containers(source: Type, target: Type) -> None:
    assert assignable(source, target)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (REAL, INTEGER),
        (NUMBER, INTEGER),
        (NUMBER, REAL),
        (STRING, URL),
        (STRING, XML),
        (URL, LOC),
        (DICE, INTEGER),
        (BOOLEAN, INTEGER),
        (INTEGER, BOOLEAN),
        (INTEGER, STRING),
        (VOID, INTEGER),
        (INTEGER, VOID),
        (ListT(REAL), ListT(INTEGER)),
        (ListT(INTEGER), INTEGER),
        (INTEGER, ListT(INTEGER)),
        (RangeT(INTEGER), ListT(INTEGER)),
        (RangeT(REAL), RangeT(INTEGER)),
    ],
)
def test_not_assignable_primitives_and_containers(source: Type, target: Type) -> None:
    assert not assignable(source, target)


def test_units_fit_their_family_and_only_it() -> None:
    assert assignable(unit("hour"), unit("sec"))
    assert assignable(unit("sec"), unit("day"))
    assert assignable(unit("km"), unit("cm"))
    assert not assignable(unit("m"), unit("sec"))
    assert not assignable(unit("m/sec"), unit("m"))
    assert not assignable(unit("m"), REAL)


def test_a_bare_integer_fits_only_the_base_unit_of_an_integer_family() -> None:
    # Ticks are game seconds: `ticks = 86400;` fits unit[sec].
    assert assignable(INTEGER, unit("sec"))
    assert not assignable(INTEGER, unit("min"))
    assert not assignable(REAL, unit("sec"))
    assert not assignable(INTEGER, unit("m"))  # [m] is real-based
    assert not assignable(REAL, unit("m"))


def test_forms_fit_the_forms_they_extend() -> None:
    assert assignable(form("Dog"), form("Animal"))
    assert assignable(form("Dog"), form("Dog"))
    assert not assignable(form("Animal"), form("Dog"))
    assert not assignable(form("Dog"), form("Cat"))
    assert not assignable(form("Rock"), form("Animal"))
    assert not assignable(AnonFormT((("name", STRING),)), form("Animal"))


def test_enums_fit_the_enums_they_extend() -> None:
    assert assignable(enum("Shade"), enum("Color"))
    assert not assignable(enum("Color"), enum("Shade"))
    assert not assignable(enum("Taste"), enum("Color"))
    assert not assignable(enum("Color"), form("Animal"))


def test_functions_take_at_least_what_is_passed_and_give_at_least_what_is_wanted() -> None:
    animal_to_int = FuncT((form("Animal"),), INTEGER)
    dog_to_int = FuncT((form("Dog"),), INTEGER)
    # Parameters are contravariant: a function of any Animal can handle a Dog.
    assert assignable(animal_to_int, dog_to_int)
    assert not assignable(dog_to_int, animal_to_int)
    # Results are covariant.
    assert assignable(FuncT((), INTEGER), FuncT((), REAL))
    assert not assignable(FuncT((), REAL), FuncT((), INTEGER))
    # A function fits where a rule (no result) is wanted, not the other way round.
    assert assignable(FuncT((), INTEGER), FuncT((), None))
    assert not assignable(FuncT((), None), FuncT((), INTEGER))
    # The number of parameters must agree.
    assert not assignable(FuncT((INTEGER,), None), FuncT((), None))
    assert not assignable(FuncT((), None), FuncT((INTEGER,), None))
    assert not assignable(INTEGER, FuncT((), None))


# ---------------------------------------------------------------- common_type


@pytest.mark.parametrize(
    ("a", "b", "common"),
    [
        (INTEGER, INTEGER, INTEGER),
        (INTEGER, REAL, REAL),
        (REAL, INTEGER, REAL),
        (INTEGER, NUMBER, NUMBER),
        (URL, STRING, STRING),
        (STRING, LOC, STRING),
        (URL, JID, STRING),
        (XML, HTML, STRING),
        (ListT(INTEGER), ListT(REAL), ListT(REAL)),
        (UNKNOWN, STRING, STRING),
        (INTEGER, DICE, DICE),
    ],
)
def test_common_type(a: Type, b: Type, common: Type) -> None:
    assert common_type(a, b) == common


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (INTEGER, STRING),
        (BOOLEAN, INTEGER),
        (ListT(INTEGER), ListT(STRING)),
        (ListT(INTEGER), INTEGER),
        (LOC, INTEGER),
        (RangeT(INTEGER), RangeT(STRING)),
    ],
)
def test_no_common_type(a: Type, b: Type) -> None:
    assert common_type(a, b) is None
    assert common_type(b, a) is None


def test_common_type_of_forms_is_their_nearest_common_ancestor() -> None:
    assert common_type(form("Dog"), form("Cat")) == form("Animal")
    assert common_type(form("Dog"), form("Animal")) == form("Animal")
    assert common_type(form("Animal"), form("Dog")) == form("Animal")
    assert common_type(form("Dog"), form("Rock")) is None


def test_common_type_of_units_stays_in_the_family() -> None:
    common = common_type(unit("m"), unit("km"))
    assert isinstance(common, UnitT)
    assert common.family is unit("m").family
    assert common_type(unit("m"), unit("sec")) is None


# ---------------------------------------------------------------- display and unknowns


@pytest.mark.parametrize(
    ("type_", "shown"),
    [
        (INTEGER, "integer"),
        (ListT(ListT(STRING)), "list<list<string>>"),
        (RangeT(REAL), "range<real>"),
        (FuncT((), None), "@<>"),
        (FuncT((INTEGER, STRING), None), "@<(integer,string)>"),
        (FuncT((INTEGER,), REAL), "@<(integer)->real>"),
        (AnonFormT((("a", INTEGER), ("b", STRING))), "{ a = integer; b = string; }"),
        (AnonFormT(()), "{}"),
        (TypeOf(INTEGER), "type integer"),
        (InputT(LOC), "loc.input"),
        (VOID, "no value"),
        (ANY, "any"),
        (UNKNOWN, "unknown"),
    ],
)
def test_display(type_: Type, shown: str) -> None:
    assert display(type_) == shown
    assert str(type_) == shown


def test_display_of_declared_types() -> None:
    assert display(form("Dog")) == "s.Dog"
    assert display(enum("Color")) == "s.Color"
    assert display(unit("hour")) == "unit[hour]"


def test_has_unknown_looks_inside_types() -> None:
    assert has_unknown(UNKNOWN)
    assert has_unknown(ListT(ListT(UNKNOWN)))
    assert has_unknown(FuncT((INTEGER, UNKNOWN), None))
    assert has_unknown(FuncT((), RangeT(UNKNOWN)))
    assert has_unknown(TypeOf(ListT(UNKNOWN)))
    assert not has_unknown(ANY)
    assert not has_unknown(FuncT((INTEGER,), ListT(STRING)))
