"""Writing files so that a crash never leaves half of one: the old file or the new one.

The text goes to a temporary file in the same folder, which is flushed to the disk
(``fsync``) and then renamed over the target (a rename within one file system replaces
the name at once), and the folder is synced so the rename itself lasts. A process killed
at any moment leaves the target as it was, or whole and new (and perhaps a temporary
``.NAME.*.tmp`` file beside it). A target that is not a regular file (``/dev/stdout``, a
pipe, ``/dev/full``) is written directly: it cannot be renamed over.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import TextIO


class AtomicFile:
    """A text file written to a temporary name and put in place by ``commit()``."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.temporary: Path | None = None
        self.stream: TextIO
        if _special(target):
            self.stream = target.open("w", encoding="utf-8")
            return
        folder = target.resolve().parent
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        self.temporary = Path(name)
        try:
            self.stream = os.fdopen(handle, "w", encoding="utf-8", newline="")
        except BaseException:
            os.close(handle)
            self.temporary.unlink(missing_ok=True)
            raise

    def write(self, text: str) -> None:
        self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def commit(self) -> None:
        """Put the new file in place (raises OSError; the old file is then untouched)."""
        try:
            self.stream.flush()
            if self.temporary is None:
                self.stream.close()
                return
            os.fsync(self.stream.fileno())
            self.stream.close()
            _keep_mode(self.target, self.temporary)
            os.replace(self.temporary, self.target)
            self.temporary = None
            _sync_folder(self.target.resolve().parent)
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Drop the new file (the target stays as it was)."""
        with contextlib.suppress(OSError):
            self.stream.close()
        if self.temporary is not None:
            self.temporary.unlink(missing_ok=True)
            self.temporary = None


def write_atomically(target: Path, text: str) -> None:
    """Replace ``target`` by ``text`` at once (raises OSError)."""
    file = AtomicFile(target)
    try:
        file.write(text)
    except BaseException:
        file.discard()
        raise
    file.commit()


def _special(target: Path) -> bool:
    try:
        mode = target.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode)


def _keep_mode(target: Path, temporary: Path) -> None:
    """The new file gets the old one's permissions (mkstemp makes it private)."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(temporary, mode)


def _sync_folder(folder: Path) -> None:
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)
