"""Reading the files Lore reads: regular files only, of bounded size, never binary.

Every file Lore reads goes through ``read_bytes``: the files named on the command line,
imports, the XML documents of ``loadXML``, answers files. It refuses what is not a
regular file (a folder, a device such as ``/dev/zero``, a pipe, a socket; a symbolic
link counts as what it points to) without waiting on it, and stops reading past the
size limit, so a hostile name cannot make Lore hang or fill the memory. A refusal is a
``FileRefused``, an ``OSError`` whose ``strerror`` says why in a user's words.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_FILE_BYTES = 16 * 1024 * 1024  # every file Lore reads
_CHUNK = 1024 * 1024
# Open without blocking (a pipe with no writer), without taking a terminal, and closed
# in child processes; O_BINARY only exists (and matters) on Windows.
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class FileRefused(OSError):
    """A file Lore does not read; ``strerror`` says why (without the file's name), and
    ``kind`` is ``too-large``, ``binary`` or ``unreadable``."""

    def __init__(self, reason: str, kind: str = "unreadable") -> None:
        super().__init__(errno.EINVAL, reason)
        self.kind = kind


def size_text(limit: int) -> str:
    """``16 MiB``, ``4 MiB``, ``512 KiB``."""
    if limit % (1024 * 1024) == 0:
        return f"{limit // (1024 * 1024)} MiB"
    if limit % 1024 == 0:
        return f"{limit // 1024} KiB"
    return f"{limit} bytes"


def why_not_readable(path: Path, limit: int | None = None) -> str | None:
    """Why ``path`` would be refused, from its metadata alone (nothing is opened), or
    None when it looks readable."""
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        info = path.stat()
    except OSError as error:
        return describe(error)
    problem = _kind_problem(info.st_mode) or _size_problem(info.st_size, limit)
    if problem is None and not os.access(path, os.R_OK):
        return "permission denied"
    return problem


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``; raises ``FileRefused`` when it is not
    one, or holds more than ``limit`` bytes (by default ``MAX_FILE_BYTES``)."""
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        fd = os.open(path, _FLAGS)
    except OSError as error:
        raise FileRefused(describe(error)) from None
    with os.fdopen(fd, "rb", buffering=0) as file:
        info = os.fstat(fd)
        problem = _kind_problem(info.st_mode)
        if problem is not None:
            raise FileRefused(problem)
        problem = _size_problem(info.st_size, limit)
        if problem is not None:
            raise FileRefused(problem, "too-large")
        chunks: list[bytes] = []
        size = 0
        while True:  # the file may grow while it is read: stop past the limit anyway
            chunk = file.read(min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise FileRefused(
                    f"it is too large (Lore reads files of at most {size_text(limit)})",
                    "too-large",
                )
    return b"".join(chunks)


def is_binary(data: bytes) -> bool:
    """Whether ``data`` is not text: it holds NUL bytes (programs, images, archives)."""
    return b"\0" in data


def describe(error: OSError) -> str:
    """An ``OSError`` in a user's words."""
    if isinstance(error, FileRefused):
        return str(error.strerror)
    code = error.errno
    if code == errno.ENOENT:
        return "no such file"
    if code == errno.EISDIR:
        return "it is a folder, not a file"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if code == errno.ENAMETOOLONG:
        return "the name is too long"
    if code == errno.ELOOP:
        return "too many symbolic links"
    if code == errno.ENOTDIR:
        return "a part of the path is not a folder"
    return str(error.strerror or error)


def _kind_problem(mode: int) -> str | None:
    if stat.S_ISDIR(mode):
        return "it is a folder, not a file"
    if not stat.S_ISREG(mode):
        return "it is not a regular file (a device, a pipe or a socket)"
    return None


def _size_problem(size: int, limit: int) -> str | None:
    if size > limit:
        return f"it is too large ({size:,} bytes; Lore reads files of at most {size_text(limit)})"
    return None
