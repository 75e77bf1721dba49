"""``lore serve``'s process settings: the cyclic collector's policy while serving (young
passes only, their survivors frozen; a full pass once memory grew enough)."""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Iterator

import pytest

from lore.cli.serve_command import collect_for_serving
from lore.server.collecting import NEVER, YOUNG, Collector


class Node:
    """An object that can be part of a reference cycle (and be watched by a weak ref)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A garbage cycle, watched: the ref is dead once the collector freed it."""
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


@pytest.fixture
def serving() -> Iterator[Collector]:
    before = gc.get_threshold()
    collector = collect_for_serving()
    try:
        yield collector
    finally:
        collector.uninstall()
        gc.set_threshold(*before)


def test_only_young_objects_are_collected_by_count(serving: Collector) -> None:
    assert gc.get_threshold() == (YOUNG, NEVER, NEVER)
    assert YOUNG >= 5 * 700  # fewer passes than Python's default
    assert gc.isenabled()  # cycles are still collected


def test_survivors_of_a_young_pass_are_frozen(serving: Collector) -> None:
    frozen = gc.get_freeze_count()
    kept = [Node() for _ in range(100)]
    gc.collect(0)
    assert gc.get_freeze_count() >= frozen + len(kept)
    collected = {id(found) for generation in (0, 1, 2) for found in gc.get_objects(generation)}
    assert not collected & {id(node) for node in kept}  # no pass looks at them again


def test_a_young_garbage_cycle_is_collected(serving: Collector) -> None:
    watched = cycle()
    gc.collect(0)
    assert watched() is None


def test_a_cycle_that_dies_frozen_goes_at_the_next_full_pass(serving: Collector) -> None:
    first = Node()
    first.other = Node()
    first.other.other = first
    watched = weakref.ref(first)
    gc.collect(0)  # survives: frozen
    del first
    gc.collect(0)
    assert watched() is not None  # (a frozen cycle: no young pass sees it)
    assert not serving.full_if_due()  # memory did not grow: no full pass
    serving.blocks = 1  # as if the memory had grown from next to nothing
    gc.collect(0)
    assert serving.due
    passes = serving.full_passes
    assert serving.full_if_due()
    assert serving.full_passes == passes + 1 and not serving.due
    assert watched() is None


def test_a_full_pass_waits_for_a_quiet_loop_unless_overdue(serving: Collector) -> None:
    serving.blocks = sys.getallocatedblocks() // 3  # grown 3 times: due, not overdue
    gc.collect(0)
    assert serving.due
    assert not serving.full_if_due(quiet=False)
    assert serving.due
    assert serving.full_if_due(quiet=True)
    serving.blocks = 1  # grown far more than GROWTH squared: overdue
    gc.collect(0)
    assert serving.full_if_due(quiet=False)
