"""The ``lore`` command line."""
