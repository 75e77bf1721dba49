"""Lore: a language and engine for rule-driven tabletop sessions."""

from __future__ import annotations

__version__ = "0.1.0"
