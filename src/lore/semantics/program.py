"""Loading a program: the files named, everything they import, and the prelude.

``import "x.lore":url;`` is looked up relative to the importing file, then in the
library path: the Lore library bundled in this package, then the folders of the
``LORE_PATH`` environment variable. ``http(s)`` URLs are not fetched. A file imported
twice is loaded once, so import cycles are fine.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lore.records import record
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.parser import ParseResult, parse
from lore.syntax.source import SourceFile

LIBRARY_DIR = Path(__file__).resolve().parent.parent / "lib"
LIBRARY_LABEL = "<lore>"
PRELUDE = "prelude.lore"
MAX_FILE_BYTES = 16 * 1024 * 1024


@record(frozen=False, slots=False)
class Module:
    source: SourceFile
    parsed: ParseResult
    is_library: bool
    is_prelude: bool = False
    imports: list[Module] = field(default_factory=list)
    # A file named to be run or checked (not only imported): its top-level events are
    # the session's start.
    is_root: bool = False

    @property
    def tree(self) -> ast.Module:
        return self.parsed.module


@record(frozen=False, slots=False)
class Program:
    modules: list[Module]
    diagnostics: list[Diagnostic]

    @property
    def prelude(self) -> Module:
        return self.modules[0]

    def scenarios(self) -> list[Module]:
        """The files whose top-level events start a session: the files named to run,
        and, for a saved session (a file with a section ``_auto_stored``), the files it
        imports. An imported file is a library: its events are not scheduled."""
        roots = [module for module in self.modules if module.is_root]
        if not roots:
            roots = [module for module in self.modules if not module.is_library]
        found = list(roots)
        for root in roots:
            if any(
                isinstance(item, ast.SectionDef) and item.path[:1] == ("_auto_stored",)
                for item in root.tree.body
            ):
                found.extend(m for m in root.imports if not m.is_library and m not in found)
        return found


def library_path() -> list[Path]:
    """The bundled library, then each folder of ``LORE_PATH``."""
    paths = [LIBRARY_DIR]
    for entry in os.environ.get("LORE_PATH", "").split(os.pathsep):
        if entry:
            paths.append(Path(entry))
    return paths


def display_name(path: Path) -> str:
    """The name a file is shown under: library files as ``<lore>/x.lore``."""
    resolved = path.resolve()
    if resolved.parent == LIBRARY_DIR:
        return f"{LIBRARY_LABEL}/{resolved.name}"
    try:
        relative = os.path.relpath(resolved)
    except ValueError:
        return str(resolved)
    return relative if not relative.startswith(".." + os.sep + "..") else str(resolved)


class Loader:
    def __init__(
        self, search: list[Path] | None = None, name_of: Callable[[Path], str] | None = None
    ) -> None:
        self.search = library_path() if search is None else search
        # How an imported file is named in diagnostics and errors (a server names the
        # files of a bundle by their place in it).
        self.name_of = name_of or display_name
        self.modules: list[Module] = []
        self.by_path: dict[Path, Module] = {}
        self.diagnostics: list[Diagnostic] = []

    def load_prelude(self) -> Module:
        path = LIBRARY_DIR / PRELUDE
        module = self._load(path, SourceFile.from_path(path, display_name(path)), library=True)
        module.is_prelude = True
        return module

    def load_path(self, path: Path, name: str | None = None) -> Module:
        source = SourceFile.from_path(path, name if name is not None else str(path))
        module = self._load(path, source, library=False)
        module.is_root = True
        return module

    def load_text(self, text: str, name: str, base: Path | None = None) -> Module:
        """A program given as text, as if it were the file ``name`` in the folder
        ``base`` (imports and loadXML look there; without ``base``, in the current
        folder)."""
        path = base / Path(name).name if base is not None else None
        source = SourceFile(name, text, path)
        module = self._load(path, source, library=False)
        module.is_root = True
        return module

    def _load(self, path: Path | None, source: SourceFile, library: bool) -> Module:
        key = path.resolve() if path is not None else None
        if key is not None and key in self.by_path:
            return self.by_path[key]
        parsed = parse(source)
        module = Module(source, parsed, library or (key is not None and key.parent == LIBRARY_DIR))
        self.modules.append(module)
        if key is not None:
            self.by_path[key] = module
        self.diagnostics.extend(parsed.diagnostics)
        directory = source.path.parent if source.path is not None else Path.cwd()
        for item in parsed.module.header:
            if isinstance(item, ast.Import):
                imported = self._import(module, item, directory)
                if imported is not None:
                    module.imports.append(imported)
        return module

    def _import(self, module: Module, item: ast.Import, directory: Path) -> Module | None:
        url = item.url
        if not isinstance(url, ast.StringLit) or url.kind not in ("url", None):
            self._error(
                module,
                item,
                "import.url",
                "an import names a file as a url string",
                'write import "file.lore":url;',
            )
            return None
        parts = urlsplit(url.value)
        if parts.scheme in ("http", "https"):
            self._error(
                module,
                item,
                "import.remote",
                f"'{url.value}' is not fetched: Lore imports only local files",
                "download it and add its folder to LORE_PATH",
            )
            return None
        if parts.scheme not in ("", "file"):
            self._error(
                module,
                item,
                "import.url",
                f"cannot import '{url.value}': Lore imports only local files",
                "download it and import it by its path",
            )
            return None
        if not parts.path:
            self._error(
                module,
                item,
                "import.url",
                "an import names a file",
                'write import "file.lore":url;',
            )
            return None
        relative = Path(unquote(parts.path))
        candidates = (
            [relative]
            if relative.is_absolute()
            else [directory / relative, *(folder / relative for folder in self.search)]
        )
        for candidate in candidates:
            if candidate.is_file():
                return self._read(module, item, candidate)
        self._error(
            module,
            item,
            "import.missing",
            f"cannot find '{url.value}'",
            "looked next to this file, in Lore's library and in LORE_PATH",
        )
        return None

    def _read(self, module: Module, item: ast.Import, path: Path) -> Module | None:
        key = path.resolve()
        if key in self.by_path:
            return self.by_path[key]
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                self._error(
                    module,
                    item,
                    "import.too-large",
                    f"'{path.name}' is too large to read ({size} bytes; the limit is "
                    f"{MAX_FILE_BYTES})",
                )
                return None
            source = SourceFile.from_path(path, self.name_of(path))
        except OSError as error:
            self._error(
                module,
                item,
                "import.unreadable",
                f"cannot read '{path.name}': {error.strerror or error}",
            )
            return None
        return self._load(path, source, library=False)

    def _error(
        self, module: Module, item: ast.Import, code: str, message: str, hint: str | None = None
    ) -> None:
        self.diagnostics.append(
            Diagnostic(Severity.ERROR, code, message, module.source, item.url.span, hint)
        )


def load_program(paths: list[Path]) -> Program:
    """Load the prelude, the given files and their imports."""
    loader = Loader()
    loader.load_prelude()
    for path in paths:
        loader.load_path(path)
    return Program(loader.modules, loader.diagnostics)
