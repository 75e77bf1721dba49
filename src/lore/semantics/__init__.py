"""Meaning: imports, sections, names, types and the checker (nothing runs here)."""
