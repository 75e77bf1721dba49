"""Where a piece of code is being checked: its file, scopes, ``self`` and ``result``."""

from __future__ import annotations

from lore.records import field, record, replace
from lore.semantics.symbols import Container, FormSymbol, LocalSymbol
from lore.semantics.types import Type
from lore.syntax.source import SourceFile


@record(frozen=False, eq=False, slots=False)
class Scope:
    """One block's local names; ``parent`` is the enclosing block."""

    parent: Scope | None = None
    names: dict[str, LocalSymbol] = field(default_factory=dict)

    def lookup(self, name: str) -> LocalSymbol | None:
        scope: Scope | None = self
        while scope is not None:
            found = scope.names.get(name)
            if found is not None:
                return found
            scope = scope.parent
        return None

    def all_names(self) -> list[str]:
        names: list[str] = []
        scope: Scope | None = self
        while scope is not None:
            names.extend(scope.names)
            scope = scope.parent
        return names


@record(frozen=False, eq=False, slots=False)
class ResultSlot:
    """What ``result = e;`` sets here: a function's value or a select expression's."""

    owner: str
    expected: Type | None
    assigned: list[Type] = field(default_factory=list)


@record(eq=False, slots=False)
class Context:
    source: SourceFile
    container: Container
    scope: Scope = field(default_factory=Scope)
    self_type: Type | None = None
    self_form: FormSymbol | None = None
    in_alter: bool = False
    result: ResultSlot | None = None

    def nested(self) -> Context:
        """The context of a block inside this one."""
        return replace(self, scope=Scope(self.scope))

    def replace(self, **changes: object) -> Context:
        return replace(self, **changes)
