"""The program model of the language server: each open file checked with its imports.

Parsing a file is kept by its text (an unchanged file is never parsed again, and the
bundled library's cache is decoded once per process). The bodies of the imported files
are checked the first time a given set of them is seen; later checks of the same file,
with the same imported texts, check only its own bodies and reuse what was found in the
others (their names and uses), so a keystroke re-checks the edited file, not its
libraries. A file that imports an edited open file is checked again with the new text.
"""

from __future__ import annotations

from pathlib import Path

from lore.lsp.occurrences import Index, Occurrence, name_uses, named_type_uses
from lore.semantics.check import CheckResult, check_program, ordered_diagnostics
from lore.semantics.checker import Checker
from lore.semantics.context import Context
from lore.semantics.expressions import Ref
from lore.semantics.program import Loader, Module, Program
from lore.semantics.symbols import Symbol
from lore.semantics.types import Type
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic
from lore.syntax.parser import ParseResult, parse
from lore.syntax.source import SourceFile, Span


class ParseCache:
    """Parsed files by name and text; one entry per name (the newest text)."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[str, ParseResult]] = {}

    def parsed(self, source: SourceFile, bundled: bool) -> ParseResult:
        known = self.entries.get(source.name)
        if known is not None and known[0] == source.text:
            return known[1]
        if bundled:
            from lore.semantics import library_cache

            result = library_cache.parsed(source)
        else:
            result = parse(source)
        self.entries[source.name] = (source.text, result)
        return result


class OverlayLoader(Loader):
    """A loader that reads open files from the editor's text, and parses through a
    ``ParseCache``."""

    def __init__(self, cache: ParseCache, texts: dict[Path, str]) -> None:
        super().__init__()
        self.cache = cache
        self.texts = texts

    def _parse(self, key: Path | None, source: SourceFile, library: bool) -> Module:
        bundled = key is not None and key.parent == _library_dir()
        if key is not None and key in self.texts:
            source = SourceFile(source.name, self.texts[key], source.path)
        parsed = self.cache.parsed(source, bundled)
        module = Module(parsed.source or source, parsed, library or bundled)
        self.modules.append(module)
        if key is not None:
            self.by_path[key] = module
        self.diagnostics.extend(parsed.diagnostics)
        return module


def _library_dir() -> Path:
    from lore.semantics.program import LIBRARY_DIR

    return LIBRARY_DIR


class ModelChecker(Checker):
    """The checker, leaving out the definitions of the files in ``skipped`` (by the id
    of their source), noting the names it resolves and the types named."""

    def __init__(self, program: Program, skipped: set[int]) -> None:
        super().__init__(program)
        self.skipped = skipped
        self.named_types: list[tuple[SourceFile, Span, Type]] = []
        # every name and member resolved in a body, with its file (in order)
        self.resolved: list[tuple[SourceFile, ast.Name | ast.Member]] = []
        bodies = self.bodies
        plain_name, plain_member = bodies.resolve_name, bodies.resolve_member
        resolved = self.resolved

        def resolve_name(expr: ast.Name, ctx: Context) -> Ref:
            resolved.append((ctx.source, expr))
            return plain_name(expr, ctx)

        def resolve_member(expr: ast.Member, ctx: Context) -> Ref:
            resolved.append((ctx.source, expr))
            return plain_member(expr, ctx)

        # Instance attributes: the body checker's own calls come here (no walk of the
        # trees afterwards to find the names).
        setattr(bodies, "resolve_name", resolve_name)  # noqa: B010
        setattr(bodies, "resolve_member", resolve_member)  # noqa: B010

    def check_symbol(self, symbol: Symbol) -> None:
        # A definition of an unchanged import was checked before; what the edited file
        # uses of it (a value's type, a rule's signature) is still worked out, on use.
        if id(symbol.source) not in self.skipped:
            super().check_symbol(symbol)

    def check_tables(self, module: Module) -> None:
        # (an unchanged import's sheets were checked with it: its accessors are not now)
        if id(module.source) not in self.skipped:
            super().check_tables(module)

    def resolve_named_type(self, node: ast.NamedType, ctx: Context) -> Type:
        found = super().resolve_named_type(node, ctx)
        self.named_types.append((ctx.source, node.span, found))
        return found


class Checked:
    """One check of a file: the result, its uses and definitions, its text and version."""

    def __init__(self, path: Path, version: int | None, result: CheckResult, index: Index) -> None:
        self.path = path
        self.version = version
        self.result = result
        self.index = index
        # what the features computed from this check, kept while it is the newest
        self.kept: dict[str, object] = {}

    @property
    def root(self) -> Module:
        return next(m for m in self.result.program.modules if m.is_root)

    def diagnostics_of(self, source: SourceFile) -> list[Diagnostic]:
        return [d for d in self.result.diagnostics if d.source is source]

    def module_named(self, path: Path) -> Module | None:
        for module in self.result.program.modules:
            if module.source.path is not None and _same(module.source.path, path):
                return module
        return None


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


class ProgramModel:
    """The open files, their texts and versions, and their latest checks."""

    def __init__(self) -> None:
        self.cache = ParseCache()
        self.texts: dict[Path, str] = {}
        self.versions: dict[Path, int | None] = {}
        self.checked: dict[Path, Checked] = {}
        # the uses found in an imported file's bodies, by its name: its text and them
        # (one text a file: the newest checked)
        self.library_uses: dict[str, tuple[str, list[Occurrence]]] = {}
        self.full_checks = 0  # how many checks checked every body (for tests)

    def open(self, path: Path, text: str, version: int | None) -> None:
        self.texts[path.resolve()] = text
        self.versions[path.resolve()] = version

    def close(self, path: Path) -> None:
        key = path.resolve()
        self.texts.pop(key, None)
        self.versions.pop(key, None)
        self.checked.pop(key, None)

    def check(self, path: Path) -> Checked:
        """Check the open file ``path`` (with its imports) as it is now."""
        key = path.resolve()
        version = self.versions.get(key)
        loader = OverlayLoader(self.cache, self.texts)
        loader.load_prelude()
        if key in self.texts:
            loader.load_text(self.texts[key], str(path), key.parent)
        else:
            loader.load_path(path)
        program = loader.program()
        others = [m for m in program.modules if not m.is_root]
        known = [self._known_uses(m) for m in others]
        skipped = {id(m.source) for m, uses in zip(others, known, strict=True) if uses is not None}
        if len(skipped) < len(others):
            skipped = set()
            self.full_checks += 1
        checker = ModelChecker(program, skipped)
        result = check_program_with(program, checker)
        from lore.world.static import check_world

        world = check_world(result)
        if world:
            result.diagnostics = ordered_diagnostics(program, result.diagnostics + world)
        index = Index()
        named = named_type_uses(checker.named_types)
        used = name_uses(checker.resolved, checker.bodies.refs, checker.bodies.types)
        for module in program.modules:
            if id(module.source) in skipped:
                index.add_uses(module.source, self.library_uses[module.source.name][1])
            else:
                found = used.get(module.source.name, []) + named.get(module.source.name, [])
                index.add_uses(module.source, found)
                if not module.is_root:
                    self.library_uses[module.source.name] = (module.source.text, found)
        index.add_definitions(checker.root)
        checked = Checked(key, version, result, index)
        self.checked[key] = checked
        return checked

    def _known_uses(self, module: Module) -> list[Occurrence] | None:
        known = self.library_uses.get(module.source.name)
        return known[1] if known is not None and known[0] == module.source.text else None

    def dependents(self, path: Path) -> list[Path]:
        """The other open files whose last check read ``path``."""
        key = path.resolve()
        return [
            other
            for other, checked in self.checked.items()
            if other != key and checked.module_named(key) is not None
        ]


def check_program_with(program: Program, checker: Checker) -> CheckResult:
    """``check_program`` with a checker made beforehand."""
    from lore.syntax.recursion import collector_paused, deeper

    with deeper(), collector_paused():
        diagnostics = checker.run()
    return CheckResult(program, ordered_diagnostics(program, diagnostics), checker)


__all__ = ["Checked", "ProgramModel", "check_program"]
