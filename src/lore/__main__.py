"""``python -m lore``: the same as the ``lore`` command."""

from __future__ import annotations

from lore.cli.main import entry

if __name__ == "__main__":  # (not when a child process of the server imports it)
    entry()
