"""What a GM can start a session of: the examples given to ``lore serve``, and the
scenarios of installed rule libraries (folders with a ``scenario.lore`` in Lore's
bundled library or in the folders of ``LORE_PATH``).

An example is a folder (its files are the bundle), a ``.lore`` file (the files beside it
are the bundle, it is the entry) or a zip.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lore.semantics.program import library_path
from lore.server.bundles import (
    MAX_UPLOAD,
    Bundle,
    BundleError,
    Problem,
    choose_entry,
    read_folder,
    read_zip,
    title_of,
)

NAME_RE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True, slots=True)
class Source:
    name: str  # how the page names it
    kind: str  # "example" or "library"
    path: Path
    title: str


def load(path: Path) -> Bundle:
    """The bundle of an example (BundleError when it cannot be read)."""
    try:
        if path.is_dir():
            files = read_folder(path)
            entry = choose_entry(files)
        elif path.suffix == ".zip":
            if path.stat().st_size > MAX_UPLOAD:
                raise BundleError([Problem(f"{path.name} is larger than {MAX_UPLOAD} bytes")])
            files = read_zip(path.read_bytes())
            entry = choose_entry(files)
        else:
            files = read_folder(path.parent, recursive=False)
            entry = choose_entry(files, path.name)
    except OSError as error:
        raise BundleError(
            [Problem(f"cannot read {path.name}: {error.strerror or error}")]
        ) from None
    fallback = path.stem if path.is_file() else path.name
    return Bundle(files, entry, title_of(files, entry, fallback))


def sources(examples: list[Path]) -> list[Source]:
    """The examples given, then the installed libraries' scenarios; each named once."""
    found: list[Source] = []
    names: set[str] = set()
    candidates = [("example", path) for path in examples]
    for folder in library_path():
        if folder.is_dir():
            candidates += [
                ("library", scenario.parent) for scenario in sorted(folder.glob("*/scenario.lore"))
            ]
    for kind, path in candidates:
        try:
            bundle = load(path)
        except BundleError:
            continue
        base = NAME_RE.sub("-", path.stem if path.is_file() else path.name) or "example"
        name, number = base, 2
        while name in names:
            name, number = f"{base}-{number}", number + 1
        names.add(name)
        found.append(Source(name, kind, path, bundle.title))
    return found
