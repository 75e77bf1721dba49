"""Sums of dice: ``2D6+3>=10``, ``(2D6+1D4)*2``, ``4D6KH3``, ``3D6MAX``, ``D20``, ``1D6/2U``.

BCDice's ``AddDice``. The grammar (a word, upper-cased; ``S`` first makes it secret)::

    command := "S"? add (CMP (add | "?"))?
    add     := mul (("+" | "-") mul)*            a - -b is written a+b
    mul     := unary ("*" unary | "/" unary ("F" | "U" | "C" | "R")?)*
    unary   := ("+" | "-")* dice                 two minus signs cancel
    dice    := term "D" term? filter? | "D" term filter? | term
    filter  := ("KH" | "KL" | "DH" | "DL") term? | "MAX" | "MIN"
    term    := "(" add ")" | NUMBER

The left side must roll dice, the target must not, and counts and sides are worked out
before rolling (``(2+3)D6`` is shown as ``5D6``). A missing number of sides is 6; ``D66``
alone is the ``D66`` command, but ``2D66`` rolls two d66 here. Division rounds down
unless a letter says otherwise (``U`` and ``C`` up, ``R`` half away from zero); dividing
by zero gives 1, as in BCDice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lore.dice.arithmetic import checked, divide
from lore.dice.lexer import CMP, NUMBER, ParseError, TokenParser, compare, first_word, format_cmp
from lore.dice.result import RollResult
from lore.dice.source import Tray

IMPLICIT_SIDES = 6
FILTERS = {("K", "H"): "KH", ("K", "L"): "KL", ("D", "H"): "DH", ("D", "L"): "DL"}
SHORTHANDS = {("M", "A", "X"): "KH", ("M", "I", "N"): "KL"}
ROUNDING = {"F": "F", "U": "U", "C": "U", "R": "R"}
UNDECIDED = "?"


@dataclass(frozen=True, slots=True)
class Num:
    value: int


@dataclass(frozen=True, slots=True)
class Neg:
    body: Node


@dataclass(frozen=True, slots=True)
class BinOp:
    op: str  # "+", "-", "*"
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Div:
    left: Node
    right: Node
    rounding: str  # "" (down), "U", "R", "F"


@dataclass(frozen=True, slots=True)
class Paren:
    body: Node


@dataclass(frozen=True, slots=True)
class Roll:
    """``times`` dice of ``sides`` sides (None: the implicit 6), summed; with a filter
    ("KH", "KL", "DH", "DL") only the kept ones count."""

    times: Node
    sides: Node | None
    filter: str | None = None
    count: Node | None = None


Node = Num | Neg | BinOp | Div | Paren | Roll


@dataclass(frozen=True, slots=True)
class AddDice:
    secret: bool
    left: Node
    op: str | None = None
    target: Node | str | None = None


Run = Callable[["Roller"], tuple[int, str]]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A sum ready to roll: its echo, its target and its parts compiled to closures
    (worked out once per text, since sessions roll the same commands again and again)."""

    command: AddDice
    echo: str
    target: int | None
    single: bool  # one plain roll: BCDice shows no middle step for one die
    run: Run


def has_dice(node: Node) -> bool:
    if isinstance(node, Roll):
        return True
    if isinstance(node, Neg | Paren):
        return has_dice(node.body)
    if isinstance(node, BinOp | Div):
        return has_dice(node.left) or has_dice(node.right)
    return False


class Parser(TokenParser):
    def __init__(self, word: str, implicit_sides: int = IMPLICIT_SIDES) -> None:
        super().__init__(word)
        self.implicit_sides = implicit_sides

    def command(self) -> AddDice:
        secret = self.accept("S") is not None
        left = self.add()
        if not has_dice(left):
            raise ParseError("no dice")
        if not self.at(CMP):
            self.end()
            return AddDice(secret, left)
        op = self.cmp()
        target: Node | str = UNDECIDED if self.accept("?") else self.add()
        self.end()
        if not isinstance(target, str) and has_dice(target):
            raise ParseError("dice in the target")
        return AddDice(secret, left, op, target)

    def add(self) -> Node:
        left = self.mul()
        while self.peek().kind in ("+", "-"):
            op = self.peek().kind
            self.pos += 1
            right = self.mul()
            if isinstance(right, Neg):
                op, right = ("+" if op == "-" else "-"), right.body
            left = BinOp(op, left, right)
        return left

    def mul(self) -> Node:
        left = self.unary()
        while True:
            if self.accept("*"):
                left = BinOp("*", left, self.unary())
            elif self.accept("/"):
                right = self.unary()
                rounding = self.rounding(ROUNDING)
                left = Div(left, right, rounding)
            else:
                return left

    def unary(self) -> Node:
        negative = self.signs() % 2 == 1
        body = self.dice()
        return Neg(body) if negative else body

    def dice(self) -> Node:
        if self.accept("D"):
            sides = self.plain_term()
            if isinstance(sides, Num) and sides.value == 66:
                raise ParseError("D66 is a command of its own")
            return self.filtered(Num(1), sides)
        times = self.term()
        if not self.accept("D"):
            return times
        if has_dice(times):
            raise ParseError("dice in a count of dice")
        explicit = self.plain_term() if self.peek().kind in (NUMBER, "(") else None
        if explicit is None and self.implicit_sides != IMPLICIT_SIDES:
            explicit = Num(self.implicit_sides)  # a game system's own (DoubleCross: 10)
        return self.filtered(times, explicit)

    def filtered(self, times: Node, sides: Node | None) -> Roll:
        if self.peek().kind not in ("K", "D", "M"):
            return Roll(times, sides)
        for pair, name in FILTERS.items():
            if self.at(*pair):
                self.pos += 2
                count = self.plain_term() if self.peek().kind in (NUMBER, "(") else Num(1)
                return Roll(times, sides, name, count)
        for word, name in SHORTHANDS.items():
            if self.at(*word):
                self.pos += 3
                return Roll(times, sides, name, Num(1))
        return Roll(times, sides)

    def plain_term(self) -> Node:
        node = self.term()
        if has_dice(node):
            raise ParseError("dice where a number is needed")
        return node

    def term(self) -> Node:
        if self.accept("("):
            self.enter()
            body = self.add()
            self.expect(")")
            self.leave()
            return Paren(body)
        return Num(self.number())


def parse(text: str, implicit_sides: int = IMPLICIT_SIDES) -> AddDice | None:
    """The sum ``text`` is (None: not one); ``implicit_sides`` are the sides of ``2D``
    (a game system may change them)."""
    try:
        return Parser(first_word(text), implicit_sides).command()
    except ParseError:
        return None


def prepare(text: str, implicit_sides: int = IMPLICIT_SIDES) -> Prepared | None:
    command = parse(text, implicit_sides)
    if command is None:
        return None
    try:
        target = None
        if command.target is not None and not isinstance(command.target, str):
            target = value(command.target)
        single = isinstance(command.left, Roll) and command.left.filter is None
        return Prepared(command, echo(command), target, single, compile_node(command.left))
    except OverflowError:
        return None


# -- rolling


class Roller:
    """Rolls the dice of one sum, and keeps its dice as BCDice's sum does (a d66 is one
    die here, though two d6 are rolled for it)."""

    def __init__(self, tray: Tray) -> None:
        self.tray = tray
        self.rolled = 0

    def roll(self, times: int, sides: int) -> list[int]:
        if sides == 66:
            values = [self.tray.d66() for _ in range(max(times, 0))]
        else:
            values = self.tray.barabara(times, sides)
        self.rolled += len(values)
        return values


def value(node: Node) -> int:
    """The value of a part without dice (counts, sides, targets)."""
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Neg):
        return -value(node.body)
    if isinstance(node, Paren):
        return value(node.body)
    if isinstance(node, Roll):
        raise ValueError("a roll has no value before it is rolled")
    return operation(node)(value(node.left), value(node.right))


def operation(node: BinOp | Div) -> Callable[[int, int], int]:
    if isinstance(node, Div):
        rounding = "C" if node.rounding == "U" else node.rounding
        return lambda a, b: 1 if b == 0 else divide(a, b, rounding)
    if node.op == "+":
        return lambda a, b: checked(a + b)
    if node.op == "-":
        return lambda a, b: checked(a - b)
    return lambda a, b: checked(a * b)


def compile_node(node: Node) -> Run:
    """A closure giving the value of a part and how it is shown once rolled
    (``8[5,3]+4``); counts, sides and filters are worked out here, once."""
    if isinstance(node, Num):
        fixed = (node.value, str(node.value))
        return lambda roller: fixed
    if isinstance(node, Neg | Paren):
        body = compile_node(node.body)
        if isinstance(node, Neg):
            return lambda roller: (-(found := body(roller))[0], f"-{found[1]}")
        return lambda roller: ((found := body(roller))[0], f"({found[1]})")
    if isinstance(node, Roll):
        return compile_roll(node)
    left, right, operate = compile_node(node.left), compile_node(node.right), operation(node)
    sign = f"/{{}}{node.rounding}" if isinstance(node, Div) else f"{node.op}{{}}"

    def run(roller: Roller) -> tuple[int, str]:
        left_value, left_shown = left(roller)
        right_value, right_shown = right(roller)
        return operate(left_value, right_value), left_shown + sign.format(right_shown)

    return run


def compile_roll(node: Roll) -> Run:
    times, sides = value(node.times), sides_of(node)
    if node.filter is None:

        def run(roller: Roller) -> tuple[int, str]:
            values = roller.roll(times, sides)
            total = sum(values)
            return total, f"{total}[{','.join(map(str, values))}]"

        return run
    assert node.count is not None
    name, count = node.filter, value(node.count)

    def run_kept(roller: Roller) -> tuple[int, str]:
        values = sorted(roller.roll(times, sides))
        total = sum(kept(values, name, count))
        return total, f"{total}[{','.join(map(str, values))}]"

    return run_kept


def sides_of(roll: Roll) -> int:
    return IMPLICIT_SIDES if roll.sides is None else value(roll.sides)


def kept(ordered: list[int], name: str, count: int) -> list[int]:
    """The faces a filter keeps from faces sorted in increasing order."""
    count = max(count, 0)
    if name == "KH":
        return ordered[::-1][:count]
    if name == "KL":
        return ordered[:count]
    if name == "DH":
        return ordered[::-1][count:]
    return ordered[count:]


def expr(node: Node) -> str:
    """How the command is echoed: counts and sides worked out (``(2+3)D6`` as ``5D6``)."""
    if isinstance(node, Num):
        return str(node.value)
    if isinstance(node, Neg):
        return f"-{expr(node.body)}"
    if isinstance(node, Paren):
        return f"({expr(node.body)})"
    if isinstance(node, BinOp):
        return f"{expr(node.left)}{node.op}{expr(node.right)}"
    if isinstance(node, Div):
        return f"{expr(node.left)}/{expr(node.right)}{node.rounding}"
    shown = f"{value(node.times)}D{sides_of(node)}"
    if node.filter is not None:
        assert node.count is not None
        shown += f"{node.filter}{value(node.count)}"
    return shown


def roll(prepared: Prepared, tray: Tray) -> RollResult:
    roller = Roller(tray)
    total, shown = prepared.run(roller)
    command = prepared.command
    steps = [f"({prepared.echo})"]
    if not (roller.rolled <= 1 and prepared.single):
        steps.append(shown)
    steps.append(str(total))
    success = failure = False
    if command.op is not None and prepared.target is not None:
        success = compare(total, command.op, prepared.target)
        failure = not success
        steps.append("成功" if success else "失敗")
    text = " ＞ ".join(steps)
    return RollResult(text, total, tuple(tray.dice), command.secret, success, failure)


def echo(command: AddDice) -> str:
    shown = expr(command.left)
    if command.op is not None:
        target = command.target
        assert target is not None
        shown += format_cmp(command.op) + (
            target if isinstance(target, str) else str(value(target))
        )
    return shown
