"""Two alters that write one member in one step: a warning where the checker can see it.

The update phase runs each alter that a step asked for once, against the state the step
began with, in the order of their first requests; two alters that both write a member of
one object each write a value made from the old state, and the later write wins. A rule
body that calls two such alters on one object (``pc.damage(3); pc.heal(2);``) loses one
of them. The checker sees it when the calls are statements of one body on the same
receiver (written alike); the engine reports the rest when it happens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from lore.semantics.symbols import CallableSymbol, Symbol
from lore.syntax import ast
from lore.syntax.source import Span
from lore.syntax.walk import walk


class AlterCall:
    """An alter called as a statement: on what (as written), which, where, in which
    branches of ifs (as (if, branch): two calls in other branches of one if never run
    both)."""

    __slots__ = ("alter", "branches", "receiver", "span")

    def __init__(
        self,
        receiver: str,
        alter: CallableSymbol,
        span: Span,
        branches: tuple[tuple[int, int], ...] = (),
    ) -> None:
        self.receiver = receiver  # `pc`, `self.target`; `self` for none
        self.alter = alter
        self.span = span
        self.branches = branches

    def may_run_with(self, other: AlterCall) -> bool:
        mine = dict(self.branches)
        return all(mine.get(at, branch) == branch for at, branch in other.branches)


class LostWrite:
    """The second of two calls whose alters write ``members`` of one receiver."""

    __slots__ = ("first", "members", "second")

    def __init__(self, first: AlterCall, second: AlterCall, members: tuple[str, ...]) -> None:
        self.first = first
        self.second = second
        self.members = members

    def message(self) -> str:
        written = ", ".join(f"'{m}'" for m in self.members)
        return (
            f"'{self.first.alter.name}' and '{self.second.alter.name}' both write {written} of"
            f" '{self.second.receiver}' in this step: each alter runs once against the state"
            " the step began with, so one of the writes is lost"
        )

    def hint(self) -> str:
        return (
            f"write one alter that does both, or call '{self.second.alter.name}' after the"
            " update with schedule.then(@{ ... })"
        )


def written_members(alter: ast.AlterDef) -> frozenset[str]:
    """The members of its own object that an alter modifies (``self.x := e``, ``x := e``,
    or G14's ``self.x = e``)."""
    names: set[str] = set()
    for node in walk(alter.body):
        if isinstance(node, ast.Modify):
            names.add(node.target.name)
        elif isinstance(node, ast.Assign) and isinstance(node.target, ast.Member):
            target = node.target.target
            if isinstance(target, ast.Name) and target.name == "self":
                names.add(node.target.name)
    return frozenset(names)


def alter_calls(
    body: ast.Block, symbol_of: Callable[[ast.Expr], Symbol | None], text: Callable[[ast.Expr], str]
) -> Iterator[AlterCall]:
    """The alter calls that are statements of ``body`` (in its ifs and loops too, not in
    its lambdas, which may run in other steps), in source order."""
    Branches = tuple[tuple[int, int], ...]
    stack: list[tuple[ast.Node, Branches]] = [(body, ())]
    while stack:
        node, branches = stack.pop()
        if isinstance(node, ast.ExprStmt) and isinstance(node.expr, ast.Call):
            found = _alter_call(node.expr, symbol_of, text, branches)
            if found is not None:
                yield found
        elif isinstance(node, ast.Block):
            stack.extend((statement, branches) for statement in reversed(node.statements))
        elif isinstance(node, ast.If):
            if isinstance(node.otherwise, ast.Block | ast.If):
                stack.append((node.otherwise, (*branches, (id(node), 1))))
            stack.append((node.then, (*branches, (id(node), 0))))
        elif isinstance(node, ast.For):
            stack.append((node.body, branches))


def _alter_call(
    call: ast.Call,
    symbol_of: Callable[[ast.Expr], Symbol | None],
    text: Callable[[ast.Expr], str],
    branches: tuple[tuple[int, int], ...],
) -> AlterCall | None:
    func = call.func
    symbol = symbol_of(func)
    if not isinstance(symbol, CallableSymbol) or not isinstance(symbol.node, ast.AlterDef):
        return None
    receiver = text(func.target) if isinstance(func, ast.Member) else "self"
    return AlterCall(receiver, symbol, call.span, branches)


def lost_writes(calls: Iterator[AlterCall]) -> Iterator[LostWrite]:
    """Each call whose alter writes a member that an earlier call's other alter wrote on
    the same receiver (once per pair of alters and receiver)."""
    seen: dict[str, list[AlterCall]] = {}
    writes: dict[int, frozenset[str]] = {}
    said: set[tuple[str, int, int]] = set()
    for call in calls:
        node = call.alter.node
        assert isinstance(node, ast.AlterDef)
        mine = writes.setdefault(id(node), written_members(node))
        earlier = seen.setdefault(call.receiver, [])
        for before in earlier:
            other = before.alter.node
            if other is node or not call.may_run_with(before):
                continue  # one alter asked twice runs once with both values
            assert isinstance(other, ast.AlterDef)
            common = mine & writes.setdefault(id(other), written_members(other))
            key = (call.receiver, id(other), id(node))
            if common and key not in said:
                said.add(key)
                yield LostWrite(before, call, tuple(sorted(common)))
        earlier.append(call)
