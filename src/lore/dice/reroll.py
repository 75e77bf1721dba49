"""Dice that roll again: reroll pools (``3R6[6]>=5``) and upper rolls (``4U6[6]``).

BCDice's ``RerollDice`` and ``UpperDice``::

    reroll := "S"? pool ("+" pool)* (CMP add)? | ... "[" CMP? add "]" (CMP add)?
            | ... (CMP add)? "@" CMP? add                          pool := term "R" term
    upper  := "S"? pool ("+" pool)* ("[" add "]")? modifier? (CMP add)? ("@" add)?
                                                                   pool := term "U" term

A reroll pool rolls its dice, then as many dice again as met the reroll condition (the
bracket, or after ``@``; a bare number takes the target's operator, or ``>=``; without
one the target is the threshold), until no die meets it, and counts the faces meeting
the target among all of them. A condition that could reroll for ever is refused with
BCDice's message. An upper roll adds a die again to itself while it shows the threshold
or more, and gives the highest and the total, or with a target the count of dice whose
sum (with the modifier) meets it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from lore.dice.arithmetic import Expr, Number, parse_add
from lore.dice.lexer import CMP, ParseError, TokenParser, compare, first_word, format_cmp
from lore.dice.pools import parse_pools
from lore.dice.result import RollResult
from lore.dice.source import Tray

REROLL_LIMIT = 10_000  # throws of one reroll command
INVALID_REROLL = (
    "条件が間違っています。2R6>=5 あるいは 2R6[5] のように振り足し目標値を指定してください。"
)
INVALID_UPPER = "無限ロールの条件がまちがっています"


@dataclass(frozen=True, slots=True)
class Reroll:
    source: str
    secret: bool
    pools: tuple[tuple[Expr, Expr], ...]
    op: str | None = None
    target: Expr | None = None
    reroll_op: str | None = None
    threshold: Expr | None = None


@dataclass(frozen=True, slots=True)
class Upper:
    secret: bool
    pools: tuple[tuple[Expr, Expr], ...]
    modifier: Expr
    op: str | None = None
    target: Expr | None = None
    threshold: Expr | None = None


def optional_target(parser: TokenParser) -> tuple[str | None, Expr | None]:
    if not parser.at(CMP):
        return None, None
    op = parser.cmp()
    return op, parse_add(parser)


def condition(parser: TokenParser, closing: str | None) -> tuple[str | None, Expr]:
    """``CMP? add`` (then the closing bracket, if any)."""
    op = parser.cmp() if parser.at(CMP) else None
    threshold = parse_add(parser)
    if closing:
        parser.expect(closing)
    return op, threshold


def parse_reroll(text: str) -> Reroll | None:
    word = first_word(text)
    try:
        parser = TokenParser(word)
        secret = parser.accept("S") is not None
        pools = parse_pools(parser, "R")
        reroll_op, threshold = None, None
        if parser.accept("["):
            reroll_op, threshold = condition(parser, "]")
        op, target = optional_target(parser)
        if threshold is None and parser.accept("@"):
            reroll_op, threshold = condition(parser, None)
        parser.end()
        return Reroll(word, secret, pools, op, target, reroll_op, threshold)
    except ParseError:
        return None


def can_end(op: str, threshold: int, sides: int) -> bool:
    """Whether a reroll condition leaves a face that does not roll again."""
    if op == "<=":
        return threshold < sides
    if op == "<":
        return threshold <= sides
    if op == ">=":
        return threshold > 1
    if op == ">":
        return threshold >= 1
    if op == "!=":
        return 1 <= threshold <= sides
    return True


def roll_reroll(command: Reroll, tray: Tray) -> RollResult:
    pools = [(times.eval(), sides.eval()) for times, sides in command.pools]
    op = command.op
    target = command.target.eval() if command.target is not None else None
    reroll_op = command.reroll_op or op or ">="
    threshold = command.threshold.eval() if command.threshold is not None else target
    if threshold is None or not all(can_end(reroll_op, threshold, s) for _, s in pools):
        return RollResult(f"{command.source} ＞ {INVALID_REROLL}", secret=command.secret)
    throws: list[list[int]] = []
    queue = deque(pools)
    while queue and len(throws) < REROLL_LIMIT:
        times, sides = queue.popleft()
        faces = tray.barabara(times, sides)
        throws.append(faces)
        again = sum(compare(face, reroll_op, threshold) for face in faces)
        if again:
            queue.append((again, sides))
    successes = 0
    if op is not None and target is not None:
        successes = sum(compare(face, op, target) for faces in throws for face in faces)
    shown = "+".join(f"{times}R{sides}" for times, sides in pools)
    reroll_shown = "" if reroll_op == op else format_cmp(reroll_op)
    target_shown = "" if target is None else str(target)
    steps = [
        f"({shown}[{reroll_shown}{threshold}]{format_cmp(op)}{target_shown})",
        " + ".join(",".join(map(str, faces)) for faces in throws),
        f"成功数{successes}",
    ]
    return RollResult(" ＞ ".join(steps), successes, secret=command.secret)


def parse_upper(text: str) -> Upper | None:
    try:
        parser = TokenParser(first_word(text))
        secret = parser.accept("S") is not None
        pools = parse_pools(parser, "U")
        threshold = None
        if parser.accept("["):
            threshold = parse_add(parser)
            parser.expect("]")
        modifier: Expr = Number(0)
        if parser.peek().kind in ("+", "-"):
            modifier = parse_add(parser)
        op, target = optional_target(parser)
        if threshold is None and parser.accept("@"):
            threshold = parse_add(parser)
        parser.end()
        return Upper(secret, pools, modifier, op, target, threshold)
    except ParseError:
        return None


def format_modifier(number: int) -> str:
    if number == 0:
        return ""
    return f"+{number}" if number > 0 else str(number)


def roll_upper(command: Upper, tray: Tray) -> RollResult | None:
    pools = [(times.eval(), sides.eval()) for times, sides in command.pools]
    if any(times < 0 for times, _ in pools):
        return None
    threshold = command.threshold.eval() if command.threshold is not None else 0
    modifier = command.modifier.eval()
    target = command.target.eval() if command.target is not None else None
    shown = "+".join(f"{times}U{sides}" for times, sides in pools)
    target_shown = "" if target is None else str(target)
    expr = f"{shown}[{threshold}]{format_modifier(modifier)}{format_cmp(command.op)}{target_shown}"
    if threshold <= 1:
        return RollResult(f"({expr}) ＞ {INVALID_UPPER}", secret=command.secret)
    chains = [upper_chain(tray, sides, threshold) for times, sides in pools for _ in range(times)]
    sums = [sum(chain) for chain in chains]
    interim = ",".join(
        str(total) if len(chain) == 1 else f"{total}[{','.join(map(str, chain))}]"
        for total, chain in zip(sums, chains, strict=True)
    )
    if command.op is not None and target is not None:
        total = sum(compare(value + modifier, command.op, target) for value in sums)
        outcome = f"成功数{total}"
    else:
        total = sum(sums) + modifier
        best = str(max(sums) + modifier) if sums else ""
        outcome = f"{best}/{total}(最大/合計)"
    text = " ＞ ".join([f"({expr})", interim + format_modifier(modifier), outcome])
    return RollResult(text, total, secret=command.secret)


def upper_chain(tray: Tray, sides: int, threshold: int) -> list[int]:
    """One die of an upper roll: rolled again while it shows ``threshold`` or more."""
    chain = [tray.once(sides)]
    while chain[-1] >= threshold:
        chain.append(tray.once(sides))
    return chain
