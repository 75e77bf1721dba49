"""Bundles: the files a session is made of, read safely and checked before use.

A bundle is a set of files by path (``scenario.lore``, ``rules.lore``, ``maps/cave.xml``,
images) and an entry file. It comes from an example folder given to ``lore serve``, a
scenario of an installed library, or an uploaded zip. An upload is bounded in size and
count, and no entry may leave its folder (absolute names, ``..``, symbolic links, names
that differ only by case). Before anything is checked, every import and ``loadXML`` of
every Lore file is read from the file itself: one that names a file outside the bundle
(other than Lore's own library) is refused, so checking a bundle never reads another file
of the server. Then ``lore check`` runs; a session is created only when it reports no error.
"""

from __future__ import annotations

import io
import lzma
import shutil
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from lore.semantics.check import CheckResult, check_program, ordered_diagnostics
from lore.semantics.program import LIBRARY_DIR, LIBRARY_LABEL, Loader
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, has_errors
from lore.syntax.files import FileRefused, describe
from lore.syntax.parser import parse
from lore.syntax.source import SourceFile
from lore.syntax.walk import walk
from lore.world.static import check_world

MAX_UPLOAD = 8 * 1024 * 1024  # bytes of a zip
MAX_FILES = 200
MAX_FILE = 4 * 1024 * 1024  # bytes of one file, unpacked
MAX_TOTAL = 32 * 1024 * 1024  # bytes of all files, unpacked
MAX_NAME = 100  # characters of one part of a path (file systems take 255 bytes)
MAX_DEPTH = 16  # folders in a path
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
# (.jsonl: a save's chat, ``saved_chat``)
KEPT = {".lore", ".xml", ".xsd", ".txt", ".md", ".json", ".jsonl", *IMAGE_TYPES}
ENTRY_NAMES = ("save.lore", "scenario.lore")


@dataclass(frozen=True, slots=True)
class Problem:
    """A reason a bundle is refused; a place in a file when it has one."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    rendered: str | None = None  # the diagnostic with its line and caret

    def text(self) -> str:
        if self.rendered is not None:
            return self.rendered
        where = f"{self.file}: " if self.file else ""
        return f"{where}{self.message}"


class BundleError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(p.text() for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class Bundle:
    files: dict[str, bytes]
    entry: str
    title: str
    uploaded: bool = False  # sent by a client (not one of the server's examples)


# ------------------------------------------------------------ reading


def safe_name(name: str) -> str | None:
    """The bundle path of an entry name, or None when it would leave the folder."""
    if not name or "\\" in name or "\0" in name or name.startswith("/"):
        return None
    path = PurePosixPath(name)
    if not path.parts or any(part in ("", ".", "..") for part in path.parts):
        return None  # (``.`` has no parts)
    if ":" in path.parts[0]:
        return None
    return path.as_posix()


def read_zip(data: bytes) -> dict[str, bytes]:
    """The files of an uploaded zip (BundleError when it is refused)."""
    if len(data) > MAX_UPLOAD:
        raise BundleError([Problem(f"the upload is larger than {MAX_UPLOAD} bytes")])
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise BundleError([Problem("the upload is not a zip file")]) from None
    files: dict[str, bytes] = {}
    seen: set[str] = set()
    total = 0
    for info in infos:
        if info.filename.endswith("/"):  # a folder (``is_dir`` fails on an empty name)
            continue
        name = safe_name(info.filename)
        if name is None:
            raise BundleError([Problem(f"'{info.filename}' would lie outside the bundle")])
        if stat.S_ISLNK(info.external_attr >> 16):
            raise BundleError([Problem(f"'{name}' is a symbolic link", name)])
        _check_path(name)
        if Path(name).suffix.lower() not in KEPT:
            continue
        if name.lower() in seen:
            raise BundleError([Problem(f"'{name}' is in the zip twice", name)])
        seen.add(name.lower())
        if len(files) >= MAX_FILES:
            raise BundleError([Problem(f"the bundle has more than {MAX_FILES} files")])
        content = _read_entry(archive, info, name)
        total += len(content)
        if total > MAX_TOTAL:
            raise BundleError([Problem(f"the bundle unpacks to more than {MAX_TOTAL} bytes")])
        files[name] = content
    _check_no_file_is_a_folder(files)
    return _without_common_folder(files)


def _check_path(name: str) -> None:
    """Refuse a path the bundle's folder could not hold: too deep, or a part too long."""
    parts = PurePosixPath(name).parts
    if len(parts) > MAX_DEPTH + 1:
        raise BundleError([Problem(f"'{name[:80]}…' lies more than {MAX_DEPTH} folders deep")])
    long = next((part for part in parts if len(part) > MAX_NAME), None)
    if long is not None:
        shown = f"{long[:40]}…"
        raise BundleError([Problem(f"the name '{shown}' is over {MAX_NAME} characters long")])


def _check_no_file_is_a_folder(files: dict[str, bytes]) -> None:
    """Refuse a name that is both a file and a folder of others (``a.lore`` and
    ``a.lore/b.lore``), as a case-insensitive file system would see them."""
    names = {name.lower() for name in files}
    for name in sorted(files):
        for folder in PurePosixPath(name.lower()).parents:
            if folder.as_posix() in names:
                raise BundleError([Problem(f"'{folder}' is a file and a folder", name)])


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> bytes:
    """An entry's bytes, read no further than the limit (its header may lie)."""
    try:
        with archive.open(info) as stream:
            content = stream.read(MAX_FILE + 1)
    except (
        zipfile.BadZipFile,
        NotImplementedError,
        RuntimeError,
        OSError,
        EOFError,
        zlib.error,  # deflated bytes that are not
        lzma.LZMAError,
        ValueError,
    ):
        raise BundleError([Problem(f"'{name}' cannot be unpacked", name)]) from None
    if len(content) > MAX_FILE:
        raise BundleError([Problem(f"'{name}' is larger than {MAX_FILE} bytes", name)])
    return content


def _without_common_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """A zip of one folder (``game/scenario.lore`` ...) as that folder's files."""
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):
        return {path.split("/", 1)[1]: data for path, data in files.items()}
    return files


def read_folder(folder: Path, recursive: bool = True) -> dict[str, bytes]:
    """The files of a bundle folder (regular files only, no links, bounded)."""
    files: dict[str, bytes] = {}
    total = 0
    for path in sorted(folder.rglob("*") if recursive else folder.glob("*")):
        if path.is_symlink() or not path.is_file() or path.suffix.lower() not in KEPT:
            continue
        relative = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in relative.split("/")):
            continue
        content = path.read_bytes()
        total += len(content)
        if len(files) >= MAX_FILES or len(content) > MAX_FILE or total > MAX_TOTAL:
            raise BundleError([Problem(f"{folder.name} is too large for a bundle")])
        files[relative] = content
    return files


def choose_entry(files: dict[str, bytes], wanted: str | None = None) -> str:
    """The entry file: the one asked for, else a save, else ``scenario.lore``, else the
    only Lore file at the top of the bundle."""
    if wanted is not None:
        if wanted not in files:
            raise BundleError([Problem(f"the bundle has no file '{wanted}'")])
        return wanted
    for name in ENTRY_NAMES:
        if name in files:
            return name
    top = sorted(path for path in files if path.endswith(".lore") and "/" not in path)
    if len(top) == 1:
        return top[0]
    if not top:
        raise BundleError([Problem("the bundle has no Lore file at its top")])
    raise BundleError(
        [Problem(f"which file starts the session? name it scenario.lore (found {', '.join(top)})")]
    )


# ------------------------------------------------------------ checking


def materialize(root: Path, digest: str, files: dict[str, bytes]) -> Path:
    """The bundle's files written under ``root/digest`` (once) as regular files."""
    folder = root / digest
    if folder.is_dir():
        return folder
    staging = root / f".{digest}.partial"
    shutil.rmtree(staging, ignore_errors=True)  # (left by a server that stopped while writing)
    try:
        for path, content in files.items():
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        staging.rename(folder)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise BundleError(
            [Problem(f"the bundle cannot be written out: {describe(error)}")]
        ) from None
    return folder


def confined(files: dict[str, bytes]) -> list[Problem]:
    """Imports and loadXML of the bundle's Lore files that would read outside it."""
    problems: list[Problem] = []
    for path, content in sorted(files.items()):
        if not path.endswith(".lore"):
            continue
        source = SourceFile(path, content.decode("utf-8-sig", errors="replace"))
        tree = parse(source).module
        for node in walk(tree):
            url: ast.Expr | None = None
            if isinstance(node, ast.Import):
                url = node.url
            elif isinstance(node, ast.Member) and node.name == "loadXML":
                url = node.target
            if isinstance(url, ast.StringLit) and not _stays_inside(path, url.value):
                position = source.position(url.span.start)
                problems.append(
                    Problem(
                        f"'{url.value}' is outside the bundle: a bundle imports and loads only"
                        " its own files and Lore's library",
                        path,
                        position.line,
                        position.column,
                    )
                )
    return problems


def _stays_inside(path: str, url: str) -> bool:
    """Whether a file named in the bundle file ``path`` lies inside the bundle (a name that
    is not there is looked up in Lore's library, or reported missing by the checker)."""
    parts = urlsplit(url)
    if parts.scheme not in ("", "file") or parts.netloc:
        return parts.scheme not in ("", "file")  # remote: the checker refuses it unread
    target = unquote(parts.path)
    if target.startswith("/") or "\\" in target or ":" in target:
        return False
    depth = len(PurePosixPath(path).parts) - 1
    for part in PurePosixPath(target).parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return False
    return True


def check_bundle(folder: Path, entry: str) -> tuple[CheckResult, list[Diagnostic]]:
    """``lore check`` of the bundle written in ``folder``: the result, and every
    diagnostic with files named by their place in the bundle."""

    def name_of(path: Path) -> str:
        resolved = path.resolve()
        if resolved.parent == LIBRARY_DIR:
            return f"{LIBRARY_LABEL}/{resolved.name}"
        try:
            return resolved.relative_to(folder.resolve()).as_posix()
        except ValueError:
            return resolved.name

    loader = Loader(search=[LIBRARY_DIR], name_of=name_of)
    loader.load_prelude()
    try:
        loader.load_path(folder / entry, entry)
    except FileRefused as error:
        raise BundleError([Problem(f"it cannot be read: {describe(error)}", entry)]) from None
    result = check_program(loader.program())  # loadXML stays inside the bundle too
    diagnostics = ordered_diagnostics(result.program, result.diagnostics + check_world(result))
    return result, diagnostics


def problems_of(diagnostics: list[Diagnostic]) -> list[Problem]:
    found = []
    for diagnostic in diagnostics:
        if not diagnostic.is_error:
            continue
        position = diagnostic.source.position(diagnostic.span.start)
        found.append(
            Problem(
                diagnostic.message,
                diagnostic.source.name,
                position.line,
                position.column,
                diagnostic.render(),
            )
        )
    return found


def checked(folder: Path, entry: str) -> CheckResult:
    """The checked program of a bundle written in ``folder`` (BundleError with every
    error when it has any)."""
    result, diagnostics = check_bundle(folder, entry)
    if has_errors(diagnostics):
        raise BundleError(problems_of(diagnostics))
    return result


def title_of(files: dict[str, bytes], entry: str, fallback: str) -> str:
    """The title of a bundle: the ``desc`` of its entry file, else ``fallback``."""
    content = files.get(entry, b"")
    tree = parse(SourceFile(entry, content.decode("utf-8-sig", errors="replace"))).module
    for item in tree.header:
        if isinstance(item, ast.Desc) and isinstance(item.title, ast.StringLit):
            return item.title.value[:200]
    return fallback
