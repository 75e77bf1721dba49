"""How deep a rule may nest: limits that keep the compiled Python inside Python's own.

Every body becomes one generated Python function (``runtime/compiler.py``), and Python
refuses a function whose brackets nest 200 deep or whose blocks nest 100 deep. So that
what ``lore check`` accepts always runs, the checker bounds, in each body:

- expressions inside expressions at ``MAX_EXPRESSION_DEPTH`` levels (a level of Lore
  becomes at most three of Python). Parentheses that only group add no level, and a
  chain of one operator (``a + b - c + ...``, ``x & y & ...``) counts as one level
  however long: the compiler does not nest it;
- blocks inside blocks (``if``, ``select`` arms) at ``MAX_BLOCK_DEPTH`` levels. An
  ``else if`` chain is one level.

A lambda, a rule or a function defined inside a body starts again from nothing: it is a
function of its own. The limits are far beyond what a person writes; a generated or
hostile program meets them with an error at the place, and the hint to name a part.
"""

from __future__ import annotations

from collections.abc import Iterator

from lore.records import field_names
from lore.syntax import ast
from lore.syntax.diagnostics import Diagnostic, Severity
from lore.syntax.source import SourceFile, Span

MAX_EXPRESSION_DEPTH = 40
MAX_BLOCK_DEPTH = 40
# A chain of more binary operations than this is compiled flat (``FOLD_CHAINS_OVER`` of
# the compiler); a shorter one nests one level a link.
FLAT_CHAINS_OVER = 16

_CALLABLES = (ast.RuleDef, ast.FunctionDef, ast.AccessorDef, ast.AlterDef, ast.Lambda)
_CONTAINERS = (ast.Module, ast.SectionDef, ast.FormDef, ast.EnumDef, ast.EnumValue)
# (node, expression depth, block depth)
_Item = tuple[ast.Node, int, int]


def check_nesting(module: ast.Module, source: SourceFile) -> list[Diagnostic]:
    """The places of ``module`` nested past a limit (the first of each body)."""
    found: list[Diagnostic] = []
    reported: set[int] = set()  # bodies (by id of their callable) already reported
    stack: list[tuple[ast.Node, int, int, int]] = [(module, 0, 0, 0)]
    while stack:
        node, depth, blocks, body = stack.pop()
        if isinstance(node, _CALLABLES):
            depth, blocks, body = 0, 0, id(node)
        elif depth > MAX_EXPRESSION_DEPTH or blocks > MAX_BLOCK_DEPTH:
            if body not in reported:
                reported.add(body)
                found.append(_too_deep(node, source, depth > MAX_EXPRESSION_DEPTH))
            continue
        stack.extend((child, d, b, body) for child, d, b in _children(node, depth, blocks))
    return found


def _too_deep(node: ast.Node, source: SourceFile, expression: bool) -> Diagnostic:
    if expression:
        message = f"this expression nests more than {MAX_EXPRESSION_DEPTH} levels deep"
        hint = "give a part of it a name first: part = ...;"
    else:
        message = f"blocks nest more than {MAX_BLOCK_DEPTH} levels deep here"
        hint = "move the inner part into a rule or a function"
    end = node.span.end if expression else node.span.start + 1
    span = Span(node.span.start, max(end, node.span.start + 1))
    return Diagnostic(Severity.ERROR, "check.nesting", message, source, span, hint)


def _children(node: ast.Node, depth: int, blocks: int) -> Iterator[_Item]:
    """The children of ``node`` with the depths they are compiled at."""
    if isinstance(node, _CONTAINERS):
        yield from ((child, 0, 0) for child in _nodes(node))
    elif isinstance(node, ast.Block):
        yield from ((statement, 0, blocks) for statement in node.statements)
    elif isinstance(node, ast.If):
        yield from _if_children(node, blocks)
    elif isinstance(node, ast.Select):
        inner = blocks + 1 if node.arms else blocks
        yield node.subject, 0, blocks
        for arm in node.arms:
            if isinstance(arm, ast.CaseArm):
                yield from ((value, 0, blocks) for value in arm.values)
            yield arm.body, 0, inner
        if node.default is not None:
            yield node.default, 0, inner
    elif isinstance(node, ast.Binary):
        yield from _binary_children(node, depth, blocks)
    elif isinstance(node, ast.VarDef | ast.UnitDef | ast.Entry) and depth == 0:
        yield node.value, 0, blocks  # a definition's value: a statement of its own
    else:
        yield from ((child, depth + 1, blocks) for child in _nodes(node))


def _if_children(node: ast.If, blocks: int) -> Iterator[_Item]:
    """An ``if`` and its ``else if`` chain: one level, but for a condition that needs
    statements before it (a ``select`` in it), which the compiler nests in an ``else``."""
    current: ast.If | ast.Block | None = node
    inner = blocks
    while isinstance(current, ast.If):
        if current is not node and _has_select(current.condition):
            inner += 1
        yield current.condition, 0, inner
        yield current.then, 0, inner + 1
        current = current.otherwise
    if current is not None:
        yield current, 0, inner + 1


def _binary_children(node: ast.Binary, depth: int, blocks: int) -> Iterator[_Item]:
    """A chain of ``&`` or of ``|`` is compiled flat; so is a long chain of other
    operators (it nests to the left); a short one nests a level a link."""
    logical = node.op in ("&", "|")
    chain: list[ast.Binary] = []
    bottom: ast.Expr = node
    while isinstance(bottom, ast.Binary) and (
        bottom.op == node.op if logical else bottom.op not in ("&", "|")
    ):
        chain.append(bottom)
        bottom = bottom.left
    if logical or len(chain) > FLAT_CHAINS_OVER:
        yield bottom, depth + 1, blocks
        yield from ((link.right, depth + 1, blocks) for link in chain)
    else:
        yield node.left, depth + 1, blocks
        yield node.right, depth + 1, blocks


def _has_select(expr: ast.Node) -> bool:
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Select):
            return True
        if not isinstance(node, ast.Lambda):
            stack.extend(_nodes(node))
    return False


def _nodes(node: ast.Node) -> Iterator[ast.Node]:
    for name in field_names(node):
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, tuple):
            yield from (item for item in value if isinstance(item, ast.Node))
