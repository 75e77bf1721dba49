"""Stack room: the depth of the running code, and the recursion limit raised above it
while a ``room_for`` block runs (and put back after)."""

from __future__ import annotations

import sys

import pytest

from lore.syntax.recursion import depth, room_for


def walked() -> int:
    """The depth of the caller, counted frame by frame."""
    count = 0
    frame = sys._getframe(1)
    while frame is not None:
        count += 1
        frame = frame.f_back
    return count


def nested(levels: int) -> tuple[int, int]:
    if levels == 0:
        return depth(), walked()
    return nested(levels - 1)


@pytest.mark.parametrize("levels", [0, 1, 2, 5, 62, 63, 64, 65, 200, 500])
def test_the_depth_is_the_number_of_frames_of_the_caller(levels: int) -> None:
    found, expected = nested(levels)
    assert found == expected
    assert nested(levels) == (expected, expected)  # found again from the same place
    assert nested(levels + 1) == (expected + 1, expected + 1)  # and from another


def test_the_limit_is_raised_above_the_depth_and_put_back() -> None:
    before = sys.getrecursionlimit()
    with room_for(before + 5_000):
        assert sys.getrecursionlimit() >= depth() + before + 5_000 - 1
    assert sys.getrecursionlimit() == before
    with room_for(10):  # room enough already: the limit stays as it is
        assert sys.getrecursionlimit() == before
    assert sys.getrecursionlimit() == before
