"""The user's cache folder: files that save work between processes.

Lore keeps there what costs a process time to make and is the same for every process:
compiled XML Schemas (``lore.world.schema_cache``) and the parsed files of the bundled
library (``lore.semantics.library_cache``). The folder is ``$LORE_CACHE_DIR``, else
``$XDG_CACHE_HOME/lore``, else ``~/.cache/lore``; an empty ``LORE_CACHE_DIR`` turns every
cache off.

What is kept may be read back with ``pickle`` (the schemas), which runs code, so a file
is only read from a folder and a file that belong to the user and that nobody else may
write to; files are
written whole (to a temporary file of the same folder, then renamed), so a reader never
sees half a file. Any problem with the cache (unreadable, refused, a full disk, a
read-only home) only means doing the work as if there were no cache: reading returns
None and writing does nothing. This module imports nothing that ``lore check`` would not.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def cache_dir() -> Path | None:
    """Where Lore keeps its cache (None: nowhere, the cache is off)."""
    chosen = os.environ.get("LORE_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lore"


def private(path: Path) -> bool:
    """Whether ``path`` belongs to this user and nobody else may write to it."""
    try:
        found = path.lstat()
    except OSError:
        return False
    if stat.S_ISLNK(found.st_mode):
        return False
    owner = os.getuid() if hasattr(os, "getuid") else found.st_uid
    return found.st_uid == owner and not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def read(name: str) -> bytes | None:
    """The bytes kept under ``name``, or None (no cache, no such file, or not private)."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / name
    if not (private(folder) and private(path)):
        return None
    try:
        with path.open("rb") as file:
            return file.read()
    except OSError:
        return None


def write(name: str, data: bytes) -> None:
    """Keep ``data`` under ``name``, whole or not at all (quietly nothing when it cannot
    be kept)."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not private(folder):
            return
        temporary = folder / f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, folder / name)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    except OSError:
        return
