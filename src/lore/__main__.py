"""``python -m lore``: the same as the ``lore`` command."""

from __future__ import annotations

from lore.cli.main import entry

entry()
