"""Loading a program: the files named, everything they import, and the prelude.

``import "x.lore":url;`` is looked up relative to the importing file, then in the
library path: the Lore library bundled in this package, then the folders of the
``LORE_PATH`` environment variable. ``http(s)`` URLs are not fetched. A file imported
twice is loaded once, so import cycles are fine.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lore.records import field, record
from lore.semantics import library_cache
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.files import FileRefused, describe
from lore.syntax.parser import ParseResult, parse
from lore.syntax.source import SourceFile

LIBRARY_DIR = Path(__file__).resolve().parent.parent / "lib"
LIBRARY_LABEL = "<lore>"
PRELUDE = "prelude.lore"
SAVE_SECTION = "_auto_stored"  # the section of a save written by lore run


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
    # The folders whose files the program may read (see ``Loader.program``).
    roots: list[Path] = field(default_factory=list)

    def allows(self, path: Path) -> bool:
        """Whether the program may read ``path`` (with ``loadXML``)."""
        return within(path, self.roots)

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
    """Loads files and what they import, each once.

    Imports and ``loadXML`` stay inside the program's folders (``roots``): the folder
    of each file loaded by name (and the folders below it) and the library path. A
    file elsewhere is refused without being read, so a hostile program cannot show the
    contents of other files in its diagnostics. A save written by ``lore run --save``
    imports its scenario: the folder of that ``.lore`` file joins the roots.
    """

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
        self.roots: list[Path] = [_resolved(folder) for folder in self.search]

    def load_prelude(self) -> Module:
        path = LIBRARY_DIR / PRELUDE
        module = self._load(path, SourceFile.from_path(path, display_name(path)), library=True)
        module.is_prelude = True
        return module

    def load_path(self, path: Path, name: str | None = None) -> Module:
        """A file named by the user; raises ``OSError`` when it cannot be read."""
        self.allow(path.parent)
        source = SourceFile.from_path(path, name if name is not None else str(path))
        return self._load(path, source, library=False, root=True)

    def load_text(self, text: str, name: str, base: Path | None = None) -> Module:
        """A program given as text, as if it were the file ``name`` in the folder
        ``base`` (imports and loadXML look there; without ``base``, in the current
        folder)."""
        path = base / Path(name).name if base is not None else None
        self.allow(base if base is not None else Path.cwd())
        source = SourceFile(name, text, path)
        return self._load(path, source, library=False, root=True)

    def allow(self, folder: Path) -> None:
        """Let imports and ``loadXML`` read the files in ``folder`` and below it."""
        resolved = _resolved(folder)
        if resolved not in self.roots:
            self.roots.append(resolved)

    def allows(self, path: Path) -> bool:
        return within(path, self.roots)

    def program(self) -> Program:
        return Program(self.modules, self.diagnostics, self.roots)

    def _load(
        self, path: Path | None, source: SourceFile, library: bool, root: bool = False
    ) -> Module:
        """Parse a file, then what it imports, depth first (without recursion: a chain
        of imports may be long)."""
        key = _resolved(path) if path is not None else None
        if key is not None and key in self.by_path:
            known = self.by_path[key]
            known.is_root = known.is_root or root
            return known
        module = self._parse(key, source, library)
        module.is_root = module.is_root or root
        pending = [(module, self._imports(module))]
        while pending:
            current, items = pending[-1]
            item = next(items, None)
            if item is None:
                pending.pop()
                continue
            found = self._import(current, item)
            if found is None:
                continue
            imported, fresh = found
            current.imports.append(imported)
            if fresh:
                pending.append((imported, self._imports(imported)))
        return module

    def _parse(self, key: Path | None, source: SourceFile, library: bool) -> Module:
        bundled = key is not None and key.parent == LIBRARY_DIR
        parsed = library_cache.parsed(source) if bundled else parse(source)
        module = Module(source, parsed, library or bundled)
        self.modules.append(module)
        if key is not None:
            self.by_path[key] = module
        self.diagnostics.extend(parsed.diagnostics)
        return module

    @staticmethod
    def _imports(module: Module) -> Iterator[ast.Import]:
        return (item for item in module.tree.header if isinstance(item, ast.Import))

    def _import(self, module: Module, item: ast.Import) -> tuple[Module, bool] | None:
        """The module an import names, and whether it was loaded just now."""
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
        target = local_path(url.value)
        if isinstance(target, UrlProblem):
            self._error(module, item, target.code, target.message, target.hint)
            return None
        source = module.source
        directory = source.path.parent if source.path is not None else Path.cwd()
        candidates = (
            [target]
            if target.is_absolute()
            else [directory / target, *(folder / target for folder in self.search)]
        )
        outside: Path | None = None
        for candidate in candidates:
            if not self.allows(candidate):
                if self._names_scenario(module, candidate):
                    self.allow(candidate.parent)
                else:
                    outside = outside or candidate
                    continue
            if _is_file(candidate):
                return self._read(module, item, candidate)
        if outside is not None:
            self._error(
                module,
                item,
                "import.outside",
                f"'{url.value}' is outside the folders Lore reads",
                "Lore reads the folder of the file it runs (and below), its library and "
                "the folders of LORE_PATH; add the file's folder to LORE_PATH",
            )
            return None
        self._error(
            module,
            item,
            "import.missing",
            f"cannot find '{url.value}'",
            "looked next to this file, in Lore's library and in LORE_PATH",
        )
        return None

    def _names_scenario(self, module: Module, candidate: Path) -> bool:
        """Whether ``candidate`` is the scenario a save names (a save is a file loaded
        by name with a section ``_auto_stored``; it imports a ``.lore`` file)."""
        if candidate.suffix != ".lore" or not module.is_root:
            return False
        return any(
            isinstance(d, ast.SectionDef) and d.path[:1] == (SAVE_SECTION,)
            for d in module.tree.body
        )

    def _read(self, module: Module, item: ast.Import, path: Path) -> tuple[Module, bool] | None:
        key = _resolved(path)
        if key in self.by_path:
            return self.by_path[key], False
        try:
            source = SourceFile.from_path(path, self.name_of(path))
        except OSError as error:
            code = _READ_CODES.get(error.kind if isinstance(error, FileRefused) else "")
            self._error(
                module,
                item,
                code or "import.unreadable",
                f"cannot read '{path.name}': {describe(error)}",
            )
            return None
        return self._parse(key, source, library=False), True

    def _error(
        self, module: Module, item: ast.Import, code: str, message: str, hint: str | None = None
    ) -> None:
        self.diagnostics.append(
            Diagnostic(Severity.ERROR, code, message, module.source, item.url.span, hint)
        )


_READ_CODES = {"too-large": "import.too-large", "binary": "import.binary"}


@record
class UrlProblem:
    code: str
    message: str
    hint: str | None = None


def local_path(value: str) -> Path | UrlProblem:
    """The path a ``:url`` names (a relative or absolute path, or a ``file:`` url), or
    why it names no local file."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return UrlProblem(
            "import.url", f"'{value}' is not a url", "a local file is named by its path"
        )
    if parts.scheme in ("http", "https"):
        return UrlProblem(
            "import.remote",
            f"'{value}' is not fetched: Lore imports only local files",
            "download it and add its folder to LORE_PATH",
        )
    if parts.scheme not in ("", "file") or (
        parts.scheme == "file" and parts.netloc not in ("", "localhost")
    ):
        return UrlProblem(
            "import.url",
            f"cannot import '{value}': Lore imports only local files",
            "download it and import it by its path",
        )
    if not parts.path:
        return UrlProblem("import.url", "an import names a file", 'write import "file.lore":url;')
    return Path(unquote(parts.path))


def within(path: Path, roots: list[Path]) -> bool:
    """Whether ``path`` (symbolic links followed) lies in one of the folders ``roots``
    (absolute and resolved)."""
    resolved = _resolved(path)
    return any(resolved.is_relative_to(root) for root in roots)


def _resolved(path: Path) -> Path:
    """``path`` absolute, symbolic links followed (as far as they can be)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a name too long, a loop of links
        return Path(os.path.abspath(path))


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name too long for the system, or a part that is not a folder
        return False


def load_program(paths: list[Path]) -> Program:
    """Load the prelude, the given files and their imports."""
    loader = Loader()
    loader.load_prelude()
    for path in paths:
        loader.load_path(path)
    return loader.program()
