"""Folding constant arithmetic: the value of ``1 / (2 - 2)`` is known before any session runs.

The checker folds the right operand of ``/`` and ``%`` to report a division by zero in
the file (``check.division-by-zero``) rather than when a rule first runs it. Only numbers
written in the file, and section values made of them, are folded.
"""

from __future__ import annotations

from collections.abc import Callable

from lore.semantics.symbols import Symbol, VarSymbol
from lore.syntax import ast

Number = int | float
# How far the folding follows section values (`a = b; b = c; ...`).
MAX_FOLLOWED = 16
MAX_BITS = 13_000  # whole numbers past this are not folded (the engine refuses them too)


def fold(
    expr: ast.Expr, symbol_of: Callable[[ast.Expr], Symbol | None], followed: int = 0
) -> Number | None:
    """The value of ``expr`` when it is constant arithmetic; None otherwise (or when it
    divides by zero itself: that is reported where it happens)."""
    if isinstance(expr, ast.IntLit | ast.RealLit):
        return expr.value
    if isinstance(expr, ast.Unary) and expr.op == "-":
        inner = fold(expr.operand, symbol_of, followed)
        return -inner if inner is not None else None
    if isinstance(expr, ast.Binary) and expr.op in "+-*/%":
        left = fold(expr.left, symbol_of, followed)
        right = fold(expr.right, symbol_of, followed)
        if left is None or right is None:
            return None
        return _apply(expr.op, left, right)
    if isinstance(expr, ast.Name) and followed < MAX_FOLLOWED:
        symbol = symbol_of(expr)
        if isinstance(symbol, VarSymbol) and symbol.node is not None and symbol.node.type is None:
            return fold(symbol.node.value, symbol_of, followed + 1)
    return None


def _apply(op: str, left: Number, right: Number) -> Number | None:
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        whole = isinstance(left, int) and isinstance(right, int)
        if whole and abs(int(left)).bit_length() + abs(int(right)).bit_length() > MAX_BITS:
            return None
        return left * right
    if right == 0:
        return None
    if op == "/":
        if isinstance(left, int) and isinstance(right, int):
            quotient = abs(left) // abs(right)
            return quotient if (left >= 0) == (right >= 0) else -quotient
        return left / right
    return left % right
