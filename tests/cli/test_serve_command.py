"""``lore serve``'s process settings: the cyclic collector runs less often while serving
(a server holds many sessions' objects; each answer makes a few dozen that die young)."""

from __future__ import annotations

import gc

from lore.cli.serve_command import SERVING_THRESHOLDS, collect_for_serving


def test_serving_makes_young_collections_rarer() -> None:
    before = gc.get_threshold()
    try:
        collect_for_serving()
        young, middle, old = gc.get_threshold()
        assert (young, middle, old) == SERVING_THRESHOLDS
        assert young >= 10 * before[0]  # far fewer collections of the young objects
        assert gc.isenabled()  # cycles are still collected
    finally:
        gc.set_threshold(*before)
