"""Values of running Lore programs, and rules compiled to Python (no time, no I/O)."""
