"""Dice read one by one: barabara (``5B6>=4``) and tallies (``20TY6``, ``5TZ6``).

BCDice's ``BarabaraDice`` and ``TallyDice``::

    barabara := "S"? pool ("+" pool)* (CMP add)?     pool  := term "B" term
    tally    := "S"? term "T" ("Y" | "Z") term

Counts, sides and the target are whole-number expressions (``(1*2)B(2+4)>3``). A
barabara roll shows every face and, with a target, the number of faces meeting it
(``成功数2``). A tally counts each face: ``TY`` lists the faces that came up, ``TZ``
every face from 1 (a tally has at most 20 sides).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from lore.dice.arithmetic import Expr, parse_add, parse_term
from lore.dice.lexer import CMP, ParseError, TokenParser, compare, first_word, format_cmp
from lore.dice.result import RollResult
from lore.dice.source import Tray

TALLY_MAX_SIDES = 20


@dataclass(frozen=True, slots=True)
class Barabara:
    secret: bool
    pools: tuple[tuple[Expr, Expr], ...]  # (times, sides)
    op: str | None = None
    target: Expr | None = None


@dataclass(frozen=True, slots=True)
class Tally:
    secret: bool
    times: Expr
    sides: Expr
    zeros: bool  # TZ: list faces that did not come up too


def parse_pools(parser: TokenParser, letter: str) -> tuple[tuple[Expr, Expr], ...]:
    """``pool ("+" pool)*`` with ``pool := term LETTER term`` (also for R and U)."""
    pools = []
    while True:
        times = parse_term(parser)
        parser.expect(letter)
        pools.append((times, parse_term(parser)))
        mark = parser.pos
        if not parser.accept("+"):
            return tuple(pools)
        try:
            parse_term(parser)
            parser.expect(letter)
        except ParseError:
            parser.pos = mark
            return tuple(pools)
        parser.pos = mark + 1


def parse_barabara(text: str) -> Barabara | None:
    try:
        parser = TokenParser(first_word(text))
        secret = parser.accept("S") is not None
        pools = parse_pools(parser, "B")
        if parser.at(CMP):
            op = parser.cmp()
            target = parse_add(parser)
            parser.end()
            return Barabara(secret, pools, op, target)
        parser.end()
        return Barabara(secret, pools)
    except ParseError:
        return None


def roll_barabara(command: Barabara, tray: Tray) -> RollResult:
    pools = [(times.eval(), sides.eval()) for times, sides in command.pools]
    target = command.target.eval() if command.target is not None else None
    faces: list[int] = []
    for times, sides in pools:
        faces.extend(tray.barabara(times, sides))
    shown = "+".join(f"{times}B{sides}" for times, sides in pools)
    steps = [
        f"({shown}{format_cmp(command.op)}{'' if target is None else target})",
        ",".join(map(str, faces)),
    ]
    total = None
    if command.op is not None and target is not None:
        total = sum(compare(face, command.op, target) for face in faces)
        steps.append(f"成功数{total}")
    return RollResult(" ＞ ".join(steps), total, secret=command.secret)


def parse_tally(text: str) -> Tally | None:
    try:
        parser = TokenParser(first_word(text))
        secret = parser.accept("S") is not None
        times = parse_term(parser)
        parser.expect("T")
        if parser.accept("Y"):
            zeros = False
        else:
            parser.expect("Z")
            zeros = True
        sides = parse_term(parser)
        parser.end()
        return Tally(secret, times, sides, zeros)
    except ParseError:
        return None


def roll_tally(command: Tally, tray: Tray) -> RollResult | None:
    times, sides = command.times.eval(), command.sides.eval()
    if times <= 0 or sides <= 0:
        return None
    shown = f"{times}T{'Z' if command.zeros else 'Y'}{sides}"
    if sides > TALLY_MAX_SIDES:
        return RollResult(f"({shown}) ＞ 面数は1以上、{TALLY_MAX_SIDES}以下としてください")
    faces = tray.barabara(times, sides)
    counts = Counter(faces)
    listed = [
        f"[{face}]×{counts[face]}" for face in range(1, sides + 1) if counts[face] or command.zeros
    ]
    text = " ＞ ".join([f"({shown})", ",".join(map(str, faces)), ", ".join(listed)])
    return RollResult(text, secret=command.secret)
