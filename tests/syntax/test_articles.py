"""Messages name things with the right article."""

from __future__ import annotations

import pytest

from lore.syntax.diagnostics import with_article


@pytest.mark.parametrize(
    ("word", "written"),
    [
        ("integer", "an integer"),
        ("alter", "an alter"),
        ("accessor", "an accessor"),
        ("enum value", "an enum value"),
        ("rule", "a rule"),
        ("unit[m]", "a unit[m]"),
        ("url", "a url"),
        ("xml", "an xml"),
        ("html", "an html"),
        ("Actor", "an Actor"),
        ("real", "a real"),
    ],
)
def test_a_or_an(word: str, written: str) -> None:
    assert with_article(word) == written
