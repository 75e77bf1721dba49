"""Unit families: bases, factors, integer-based families, and what is wrong with a unit."""

from __future__ import annotations

from fractions import Fraction

import pytest

from lore.semantics.units import UnitDefinition, UnitError, UnitRegistry, basic_units
from lore.syntax import ast
from lore.syntax.parser import parse
from lore.syntax.source import SourceFile


def registry(text: str) -> tuple[UnitRegistry, SourceFile]:
    """A registry of the unit definitions at the top of ``text``."""
    source = SourceFile("units.lore", text)
    result = parse(source)
    assert result.diagnostics == []
    units = UnitRegistry()
    for node in result.module.body:
        assert isinstance(node, ast.UnitDef)
        assert units.define(UnitDefinition(node.unit, node, source)) is None
    return units, source


def error_of(units: UnitRegistry, unit: str) -> UnitError:
    with pytest.raises(UnitError) as caught:
        units.family(unit)
    return caught.value


def spanned(error: UnitError, source: SourceFile) -> str:
    """The text of the file that an error points at."""
    assert error.source is source and error.span is not None
    return source.text[error.span.start : error.span.end]


TIME = "[sec] = 1; [min] = 60[sec]; [hour] = 60[min]; [day] = 24[hour];"
LENGTH = "[m] = 1.0; [km] = 1000[m]; [cm] = 0.01[m]; [mm] = 0.1[cm];"


def test_an_integer_base_starts_an_integer_based_family() -> None:
    units, _ = registry(TIME)
    family = units.family("sec")
    assert family.base == "sec"
    assert family.integer
    assert family.factor("sec") == 1


def test_a_real_base_starts_a_real_based_family() -> None:
    units, _ = registry(LENGTH)
    family = units.family("m")
    assert not family.integer
    assert family.factor("m") == 1


def test_factors_are_in_the_base_unit_and_exact() -> None:
    units, _ = registry(TIME + LENGTH + "[m/sec] = 1.0; [km/hour] = (1000.0 / 3600.0)[m/sec];")
    assert units.family("hour").factor("hour") == 3600
    assert units.family("day").factor("day") == 86400
    assert units.family("km").factor("km") == 1000
    assert units.family("cm").factor("cm") == Fraction(1, 100)
    assert units.family("mm").factor("mm") == Fraction(1, 1000)
    assert units.family("km/hour").factor("km/hour") == Fraction(5, 18)


def test_units_of_one_family_share_it_and_other_families_are_apart() -> None:
    units, _ = registry(TIME + LENGTH)
    assert units.family("day") is units.family("sec")
    assert units.family("km") is units.family("m")
    assert units.family("km") is not units.family("min")


def test_order_of_definitions_does_not_matter() -> None:
    units, _ = registry("[day] = 24[hour]; [hour] = 60[min]; [min] = 60[sec]; [sec] = 1;")
    assert units.family("day").factor("day") == 86400


def test_arithmetic_in_a_definition() -> None:
    units, _ = registry(
        "[ft] = 1.0; [yd] = 3[ft]; [inch] = 1.0[ft] / 12; [chain] = 22 * 1[yd];"
        " [pace] = -(-5[ft]); [step] = (1 + 1.5)[ft];"
    )
    assert units.family("inch").factor("inch") == Fraction(1, 12)
    assert units.family("chain").factor("chain") == 66
    assert units.family("pace").factor("pace") == 5
    assert units.family("step").factor("step") == Fraction(5, 2)


def test_integer_based_families_hold_whole_numbers_of_their_base() -> None:
    # A unit of an integer-based family is a whole number of its base, so a value
    # converted to it can be rounded to a whole number of that unit.
    units, source = registry(
        TIME + "[turn] = 1.5[min]; [twice] = 2.0[sec]; [half] = 0.5[sec]; [third] = 1[min] / 7;"
    )
    assert units.family("turn").factor("turn") == 90
    assert units.family("twice").integer  # the family decides, not the literal
    assert units.family("twice").factor("twice") == 2
    error = error_of(units, "half")
    assert error.message == "[half] must be a whole number of [sec] because [sec] is integer-based"
    assert error.hint == "it is 0.5[sec]"
    assert spanned(error, source) == "0.5[sec]"
    assert "must be a whole number" in error_of(units, "third").message


def test_real_based_families_take_any_positive_factor() -> None:
    units, _ = registry("[m] = 1.0; [tiny] = 0.000001[m]; [odd] = 1[m] / 3;")
    assert units.family("tiny").factor("tiny") == Fraction(1, 1_000_000)
    assert units.family("odd").factor("odd") == Fraction(1, 3)


def test_a_base_unit_is_one() -> None:
    units, source = registry("[b] = 2; [c] = 0.5;")
    error = error_of(units, "b")
    assert error.message == "a base unit is defined as 1 or 1.0, not 2"
    assert error.hint == "write [b]=1; (integer-based) or [b]=1.0;"
    assert spanned(error, source) == "2"
    assert error_of(units, "c").message == "a base unit is defined as 1 or 1.0, not 0.5"


@pytest.mark.parametrize("value", ["0[sec]", "-2[sec]", "-(3[sec])"])
def test_a_unit_is_a_positive_amount(value: str) -> None:
    units, _ = registry(f"[sec] = 1; [bad] = {value};")
    assert error_of(units, "bad").message == "[bad] must be a positive amount"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("limit", "a unit is defined by a constant like 1, 1.0 or 60[sec]"),
        ('"one"', "a unit is defined by a constant like 1, 1.0 or 60[sec]"),
        ("2[sec][sec]", "a unit is given twice"),
        ("1[sec] + 2[sec]", "only plain numbers can be added in a unit definition"),
        ("1[sec] * 2[sec]", "a unit definition names one unit"),
        ("1[sec] / 0", "divide only by a plain, non-zero number here"),
        ("2 / 1[sec]", "divide only by a plain, non-zero number here"),
        ("2[nowhere]", "unknown unit [nowhere]"),
    ],
)
def test_what_a_unit_cannot_be_defined_as(value: str, message: str) -> None:
    units, source = registry(f"[sec] = 1; [bad] = {value};")
    error = error_of(units, "bad")
    assert error.message == message
    assert error.source is source  # reported at the definition


def test_an_unknown_unit_has_no_place_of_its_own() -> None:
    units, _ = registry(TIME)
    error = error_of(units, "parsec")
    assert error.message == "unknown unit [parsec]"
    assert error.source is None and not error.silent


def test_a_circle_of_units_is_reported_once_and_names_the_circle() -> None:
    units, source = registry("[a] = 2[b]; [b] = 3[c]; [c] = 4[a]; [d] = 2[a];")
    error = error_of(units, "a")
    assert error.message == (
        "unit [a] is defined in terms of itself: it uses [b], which uses [c], which uses [a]"
    )
    assert spanned(error, source) == "[a] = 2[b];"
    # The other units of the circle, and units made from them, are broken quietly.
    for unit in "bcd":
        assert error_of(units, unit).silent
    assert units.broken >= {"a", "b", "c", "d"}


def test_a_unit_defined_by_itself() -> None:
    units, _ = registry("[x] = 2[x];")
    assert error_of(units, "x").message == "unit [x] is defined in terms of itself"


def test_a_unit_made_from_a_broken_one_is_not_reported_again() -> None:
    units, _ = registry("[sec] = 1; [half] = 0.5[sec]; [later] = 2[half];")
    assert not error_of(units, "later").silent  # the first problem met is reported...
    assert error_of(units, "half").silent  # ... and only once
    assert error_of(units, "later").silent


def test_a_long_chain_of_units_does_not_recurse() -> None:
    chain = " ".join(f"[u{i + 1}] = 2[u{i}];" for i in reversed(range(3000)))
    units, _ = registry(chain + " [u0] = 1;")
    assert units.family("u3000").factor("u3000") == 2**3000


def test_basic_lore_units() -> None:
    assert {"sec", "min", "hour", "day", "m", "km", "cm", "mm", "kg", "g", "m/sec"} <= (
        basic_units()
    )
    assert "R" not in basic_units()
