"""Whole-number arithmetic inside commands: ``(2+3)B6``, ``4U6[6]+1+2``, ``C(10/3R)``.

BCDice's ``Arithmetic`` nodes: numbers, ``-x``, ``+ - *``, division with a rounding
letter (none: the game system's way, here rounding down; ``U`` or ``C`` up; ``R`` half
away from zero; ``F`` down) and parentheses, with the usual precedence. Division rounds
exactly (BCDice divides in floating point; they agree on every number a float holds).
A value past ``LIMIT`` raises ``OverflowError``: such a command is not rolled.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.dice.lexer import NUMBER, ParseError, TokenParser

LIMIT = 10**1000


def divide(dividend: int, divisor: int, rounding: str) -> int:
    """``dividend / divisor`` rounded: "C" up, "R" half away from zero, else down.
    Raises ``ZeroDivisionError`` for a divisor of 0."""
    if divisor == 0:
        raise ZeroDivisionError("division by zero")
    if rounding == "C":
        return -(-dividend // divisor)
    if rounding == "R":
        size, base = abs(dividend), abs(divisor)
        rounded = (2 * size + base) // (2 * base)
        return -rounded if (dividend < 0) != (divisor < 0) else rounded
    return dividend // divisor


def checked(value: int) -> int:
    if not -LIMIT < value < LIMIT:
        raise OverflowError("number too large")
    return value


@dataclass(frozen=True, slots=True)
class Number:
    value: int

    def eval(self) -> int:
        return self.value

    def output(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Negative:
    body: Expr

    def eval(self) -> int:
        return -self.body.eval()

    def output(self) -> str:
        return f"-{self.body.output()}"


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # "+", "-", "*"
    left: Expr
    right: Expr

    def eval(self) -> int:
        left, right = self.left.eval(), self.right.eval()
        if self.op == "+":
            return checked(left + right)
        if self.op == "-":
            return checked(left - right)
        return checked(left * right)

    def output(self) -> str:
        return f"{self.left.output()}{self.op}{self.right.output()}"


@dataclass(frozen=True, slots=True)
class Divide:
    left: Expr
    right: Expr
    rounding: str  # "", "C", "R", "F"

    def eval(self) -> int:
        return divide(self.left.eval(), self.right.eval(), self.rounding)

    def output(self) -> str:
        return f"{self.left.output()}/{self.right.output()}{self.rounding}"


@dataclass(frozen=True, slots=True)
class Group:
    """An expression in parentheses."""

    body: Expr

    def eval(self) -> int:
        return self.body.eval()

    def output(self) -> str:
        return f"({self.body.output()})"


Expr = Number | Negative | Binary | Divide | Group

ROUNDING = {"U": "C", "C": "C", "R": "R", "F": "F"}


def parse_add(parser: TokenParser) -> Expr:
    """``add := mul (("+" | "-") mul)*``"""
    left = parse_mul(parser)
    while parser.peek().kind in ("+", "-"):
        op = parser.peek().kind
        parser.pos += 1
        left = Binary(op, left, parse_mul(parser))
    return left


def parse_mul(parser: TokenParser) -> Expr:
    """``mul := unary ("*" unary | "/" unary rounding?)*``"""
    left = parse_unary(parser)
    while True:
        if parser.accept("*"):
            left = Binary("*", left, parse_unary(parser))
        elif parser.accept("/"):
            right = parse_unary(parser)
            rounding = parser.rounding(ROUNDING)
            left = Divide(left, right, rounding)
        else:
            return left


def parse_unary(parser: TokenParser) -> Expr:
    """``unary := "+" unary | "-" unary | term`` (signs in a row count as nesting)."""
    negations = parser.signs()
    body = parse_term(parser)
    for _ in range(negations):
        body = Negative(body)
    return body


def parse_term(parser: TokenParser) -> Expr:
    """``term := "(" add ")" | NUMBER``"""
    if parser.accept("("):
        parser.enter()
        body = parse_add(parser)
        parser.expect(")")
        parser.leave()
        return Group(body)
    if parser.peek().kind == NUMBER:
        return Number(parser.number())
    raise ParseError(f"expected a number, got {parser.peek().kind}")
