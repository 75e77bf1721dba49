"""The checker's entry points: check files or text, get diagnostics back."""

from __future__ import annotations

from pathlib import Path

from lore.records import record
from lore.semantics.checker import Checker
from lore.semantics.program import Loader, Program, load_program
from lore.syntax.diagnostics import Diagnostic, has_errors
from lore.syntax.recursion import collector_paused, deeper


@record(frozen=False, slots=False)
class CheckResult:
    program: Program
    diagnostics: list[Diagnostic]
    checker: Checker

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def check_program(program: Program) -> CheckResult:
    with deeper(), collector_paused():
        checker = Checker(program)
        diagnostics = checker.run()
    return CheckResult(program, ordered_diagnostics(program, diagnostics), checker)


def ordered_diagnostics(program: Program, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics without repeats, file by file in load order, then by place."""
    order = {id(module.source): index for index, module in enumerate(program.modules)}
    unique: dict[tuple[str, int, int, str], Diagnostic] = {}
    for diagnostic in diagnostics:
        key = (
            diagnostic.source.name,
            diagnostic.span.start,
            diagnostic.span.end,
            diagnostic.message,
        )
        unique.setdefault(key, diagnostic)
    return sorted(
        unique.values(),
        key=lambda d: (order.get(id(d.source), len(order)), d.source.name, d.span.start),
    )


def check_paths(paths: list[Path]) -> CheckResult:
    """Check files (and what they import) together as one program."""
    with collector_paused():  # loading and checking build one big tree, without cycles
        return check_program(load_program(paths))


def check_text(text: str, name: str = "<input>", base: Path | None = None) -> CheckResult:
    """Check a program given as text; imports are looked up from the folder ``base``
    (or the current folder)."""
    with collector_paused():
        loader = Loader()
        loader.load_prelude()
        loader.load_text(text, name, base)
        return check_program(loader.program())
