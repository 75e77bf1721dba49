"""Compiled XML Schemas kept between processes.

Compiling a geometry style's schema takes xmlschema about a third of a second, paid
again by every process that reads a map (each ``lore check``, each worker of ``lore sim
--jobs``, each server process). The compiled schema is kept in the user's cache folder
(``lore.cache``: ``$LORE_CACHE_DIR``, else ``$XDG_CACHE_HOME/lore``, else
``~/.cache/lore``; an empty ``LORE_CACHE_DIR`` turns the cache off) and loaded from
there, ten times faster.

Loading a pickle runs code, so a cached schema is only read from a folder and a file
that belong to the user and that nobody else may write to; it is named by a hash of the
schema's text and of the versions of Python and xmlschema, and written whole (to a
temporary file, then renamed), so a schema or library that changed is compiled anew and
a reader never sees half a file. Any problem with the cache (unreadable, refused,
corrupt, a full disk) only means compiling the schema as if there were no cache.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
from typing import Any

from lore.cache import cache_dir, read, write

__all__ = ["cache_dir", "key", "load", "store"]


def key(text: str, library_version: str) -> str:
    digest = hashlib.sha256()
    for part in (sys.version, library_version, text):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def load(name: str) -> Any | None:
    """The schema kept under ``name``, or None."""
    data = read(f"schema-{name}.pickle")
    if data is None:
        return None
    try:
        return pickle.loads(data)
    except Exception:  # a corrupt or foreign file: compile anew (and replace it)
        return None


def store(name: str, schema: Any) -> None:
    """Keep ``schema`` under ``name`` (quietly nothing when it cannot be kept)."""
    try:
        data = pickle.dumps(schema, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a schema that cannot be pickled
        return
    write(f"schema-{name}.pickle", data)
