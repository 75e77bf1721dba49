"""Compiled XML Schemas kept between processes.

Compiling a geometry style's schema takes xmlschema about a third of a second, paid
again by every process that reads a map (each ``lore check``, each worker of ``lore sim
--jobs``, each server process). The compiled schema is kept in the user's cache folder
(``$LORE_CACHE_DIR``, else ``$XDG_CACHE_HOME/lore``, else ``~/.cache/lore``; an empty
``LORE_CACHE_DIR`` turns the cache off) and loaded from there, ten times faster.

Loading a pickle runs code, so a cached schema is only read from a folder and a file
that belong to the user and that nobody else may write to; it is named by a hash of the
schema's text and of the versions of Python and xmlschema, and written whole (to a
temporary file, then renamed), so a schema or library that changed is compiled anew and
a reader never sees half a file. Any problem with the cache (unreadable, refused,
corrupt, a full disk) only means compiling the schema as if there were no cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any


def cache_dir() -> Path | None:
    """Where compiled schemas are kept (None: nowhere)."""
    chosen = os.environ.get("LORE_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lore"


def key(text: str, library_version: str) -> str:
    digest = hashlib.sha256()
    for part in (sys.version, library_version, text):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def _private(path: Path) -> bool:
    """Whether ``path`` belongs to this user and nobody else may write to it."""
    try:
        found = path.lstat()
    except OSError:
        return False
    if stat.S_ISLNK(found.st_mode):
        return False
    owner = os.getuid() if hasattr(os, "getuid") else found.st_uid
    return found.st_uid == owner and not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def load(name: str) -> Any | None:
    """The schema kept under ``name``, or None."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / f"schema-{name}.pickle"
    if not (_private(folder) and _private(path)):
        return None
    try:
        with path.open("rb") as file:
            return pickle.load(file)
    except Exception:  # a corrupt or foreign file: compile anew (and replace it)
        return None


def store(name: str, schema: Any) -> None:
    """Keep ``schema`` under ``name`` (quietly nothing when it cannot be kept)."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(folder):
            return
        data = pickle.dumps(schema, protocol=pickle.HIGHEST_PROTOCOL)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".schema-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, folder / f"schema-{name}.pickle")
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except Exception:  # a full disk, a read-only home, a schema that cannot be pickled
        return
