"""ソード・ワールド2.5 (BCDice's ``SwordWorld2.5``): rate tables and its other rolls.

- ``K20+5@10``: the rate table (威力表) of power 20: 2D6 looked up in the table, again
  while the roll reaches the critical value (``@10``, or ``[10]``; 10 unless given, none
  for ``h``/``oh``), then the modifier: ``KeyNo.20c[10]+5 ＞ 2D:[5,2]=7 ＞ 5+5 ＞ 10``.
  A 2 (two 1s) is ``**`` (0 and the end; on the first roll 自動的失敗). Options, in any
  order: ``$+1`` (the first roll +1; ``$12`` makes it 12; ``$~+1`` +1 up to 11), ``#1``
  (every roll +1), ``r10`` (the power rises by 10 a roll again), ``gf`` (one die,
  doubled), ``sf4`` (one die fixed at 4 on every roll), ``tf4`` (on the first), ``sz4``
  (a roll of 4 or less deals 0), ``ad2`` (2 more damage a roll again); ``h`` or a
  leading ``HK`` halves the damage, ``oh``/``OHK`` takes 1.5 times, ``db``/``DBK``
  doubles it (rounded up); a number right after ``h``, ``oh`` or ``db`` is added before,
  the rest after. The critical value must be 3 or more (with ``sf``, more).
- ``2D6@10+15>=30``: a check that rolls 2D6 again at 10 or more: 自動的成功 (a first 12),
  自動的失敗 (a first 2), 超成功 (a roll again, and more than the target + 10).
- ``gr``, ``gr3``: growth: a pair of abilities from two d6. ``ft``, ``tt``: the defence
  fumble and entanglement tables. ``Dru[a,b,c]+m``: 2D6 of 6 or less gives a, of 7 to 9
  b, of 10 or more c. ``Bib[n]+m>=t``: 2D6; a roll of n is 特殊失敗.
- ``ABT``, ``AABT``: the アビスカース表 and the 追加アビスカース表 (D66, in
  ``lore.dice.systems.swordworld2_5_tables``); a curse that says so rolls its category
  or element on a second line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.dice.arithmetic import parse_add
from lore.dice.lexer import ParseError, TokenParser, compare, format_cmp, normalize_cmp
from lore.dice.result import RollResult
from lore.dice.source import Tray
from lore.dice.systems.base import own_commands, steps
from lore.dice.systems.sw25_rates import MAX_POWER, RATES
from lore.dice.systems.swordworld2_5_tables import (
    CURSE,
    FOLLOWING,
    FUMBLE,
    MORE_CURSE,
    TANGLE,
)
from lore.dice.systems.tables import roll_table, shown

DEFAULT_CRITICAL = 10
NO_CRITICAL = 13
FACTOR = {"": "", "H": "/2", "OH": "*1.5", "DB": "*2"}
_HEAD = re.compile(r"(OHK|HK|DBK|K)([0-9]{1,3})")
_OPTION = re.compile(
    r"\[(?P<bracket>[0-9]+)\]|@(?P<at>[0-9]+)|\$(?P<m>~?[+-]?[0-9]+)|R(?P<r>[+-]?[0-9]+)"
    r"|#(?P<a>[+-]?[0-9]+)|(?P<gf>GF)|SF(?P<sf>[0-9]+)|TF(?P<tf>[0-9]+)|SZ(?P<sz>[0-9]+)"
    r"|AD(?P<ad>[0-9]+)|(?P<half>OH|H|DB)|(?P<mod>[+-][0-9+\-*/()]*)"
)
ABILITIES = ("器用度", "敏捷度", "筋力", "生命力", "知力", "精神力")


def arith(text: str) -> int:
    """The value of a modifier such as ``+5``, ``-3*2`` or ``+(1+1)``."""
    parser = TokenParser(text)
    value = parse_add(parser).eval()
    parser.end()
    return value


@dataclass(frozen=True, slots=True)
class Rate:
    power: int
    critical: int | None  # None: the default of the kind
    first: str  # the "$" option as written ("" none, "12", "+1", "~+1")
    rise: int | None  # r
    every: int | None  # "#"
    great: bool  # gf
    fixed: int | None  # sf
    first_fixed: int | None  # tf
    zero: int | None  # sz
    extra: int | None  # ad
    half: str  # "", "H", "OH", "DB"
    inner: int
    outer: int

    @property
    def limit(self) -> int:
        return NO_CRITICAL if self.half in ("H", "OH") else DEFAULT_CRITICAL


def parse_rate(word: str) -> Rate | None:
    head = _HEAD.match(word)
    if head is None:
        return None
    prefix = {"K": "", "HK": "H", "OHK": "OH", "DBK": "DB"}[head.group(1)]
    found: dict[str, str] = {}
    inner = outer = 0
    half, after = prefix, False
    position = head.end()
    try:
        while position < len(word):
            option = _OPTION.match(word, position)
            if option is None:
                return None
            position = option.end()
            kind = option.lastgroup
            assert kind is not None
            text = option.group(kind)
            if kind == "half":
                if half and half != text:
                    return None
                half, after = text, True
            elif kind == "mod":
                if after:
                    plain = re.match(r"[+-][0-9]+(?=[+-]|$)", text)
                    if plain is not None:
                        inner += int(plain.group())
                        text = text[plain.end() :]
                    if text:
                        outer += arith(text)
                else:
                    inner += arith(text)
            elif kind in ("bracket", "at"):
                if "critical" in found:
                    return None
                found["critical"] = text
            else:
                if kind in found:
                    return None
                found[kind] = text
    except (ParseError, ZeroDivisionError, OverflowError):
        return None

    def number(key: str) -> int | None:
        return int(found[key]) if key in found else None

    return Rate(
        int(head.group(2)),
        number("critical"),
        found.get("m", ""),
        number("r"),
        number("a"),
        "gf" in found,
        number("sf"),
        number("tf"),
        number("sz"),
        number("ad"),
        half,
        inner,
        outer,
    )


def header(rate: Rate, critical: int) -> str:
    parts = [f"KeyNo.{rate.power}"]
    if rate.critical is not None or critical < NO_CRITICAL:
        parts.append(f"c[{critical}]")
    if rate.first:
        parts.append(f"m[{rate.first}]")
    if rate.rise is not None:
        parts.append(f"r[{rate.rise}]")
    if rate.extra is not None:
        parts.append(f"ad[{rate.extra}]")
    if rate.great:
        parts.append("gf")
    for name, value in (("sf", rate.fixed), ("tf", rate.first_fixed), ("sz", rate.zero)):
        if value is not None:
            parts.append(f"{name}[{min(value, 6)}]" if name != "sz" else f"sz[{value}]")
    if rate.every is not None:
        parts.append(f"a[{rate.every:+d}]")
    if rate.inner:
        parts.append(f"{rate.inner:+d}")
    return "".join(parts)


def lowest_critical(rate: Rate) -> int:
    fixed = rate.fixed
    if fixed is None or fixed <= 1:
        return 3
    return min(min(fixed, 6) + (rate.every or 0) + 2, NO_CRITICAL)


def modified(total: int, rate: Rate, first: bool) -> int:
    value = total + (rate.every or 0)
    if first and rate.first:
        written = rate.first
        if written.startswith("~"):
            value = value + int(written[1:])
            if value > 11:
                value = max(total + (rate.every or 0), 11)
        elif written[0] in "+-":
            value += int(written)
        else:
            value = int(written)
    return min(value, 12)


def throw(rate: Rate, tray: Tray, first: bool) -> tuple[int, int]:
    """The two faces of one roll of the rate table, as shown."""
    if rate.great:
        face = tray.once(6)
        return face, face
    fixed = rate.fixed if rate.fixed is not None else (rate.first_fixed if first else None)
    if fixed is not None:
        return tray.once(6), min(fixed, 6)
    return tray.once(6), tray.once(6)


def roll_rate(rate: Rate, tray: Tray) -> RollResult:
    critical = rate.critical if rate.critical is not None else rate.limit
    lowest = lowest_critical(rate)
    if critical < lowest:
        return RollResult(f"C値を{lowest}以上にしてください")
    faces: list[str] = []
    sums: list[str] = []
    values: list[str] = []
    damage = 0
    rounds = 0
    fumble = False
    while True:
        first = not faces
        one, two = throw(rate, tray, first)
        faces.append(f"{one},{two}")
        if one + two == 2:
            sums.append("2")
            values.append("**")
            fumble = first
            break
        total = modified(one + two, rate, first)
        sums.append(str(total))
        power = min(max(rate.power + (rate.rise or 0) * rounds, 0), MAX_POWER)
        if rate.zero is not None and total <= rate.zero:
            value = 0
        else:
            value = RATES[power][min(max(total, 3), 12) - 3]
        values.append(str(value))
        damage += value
        if total < critical:
            break
        rounds += 1
    head = header(rate, critical)
    thrown = f"2D:[{' '.join(faces)}]={','.join(sums)}"
    if fumble:
        return RollResult(steps(head, thrown, "**", "自動的失敗"), 0, fumble=True)
    shown = ",".join(values)
    base = damage + rate.inner
    if rate.inner:
        shown += f"{rate.inner:+d}"
    if rate.extra and rounds:
        shown += f"+{rate.extra}*{rounds}"
        base += rate.extra * rounds
    factor = FACTOR[rate.half]
    if factor:
        if not shown.isdigit():
            shown = f"({shown})"
        shown += factor
        base = {"H": -(-base // 2), "OH": -(-base * 3 // 2), "DB": base * 2}[rate.half]
    if rate.outer:
        shown += f"{rate.outer:+d}"
    total_damage = base + rate.outer
    parts = [head, thrown, shown]
    if rounds:
        parts.append(f"{rounds}回転")
    if rounds or shown != str(total_damage):
        parts.append(str(total_damage))
    return RollResult(steps(*parts), total_damage, critical=rounds > 0)


_CHECK = re.compile(r"2D6@([0-9]+)((?:[+-][0-9+\-*/()]+)?)(?:([<>=!]+)([0-9+\-*/()]+))?")
_DRU = re.compile(r"DRU\[([0-9]+),([0-9]+),([0-9]+)\]((?:[+-][0-9+\-*/()]+)?)")
_BIB = re.compile(r"BIB\[([0-9]+)\]((?:[+-][0-9+\-*/()]+)?)(?:([<>=!]+)([0-9+\-*/()]+))?")
_GROWTH = re.compile(r"GR([0-9]{1,2})?")


def modifier_of(text: str) -> int:
    return arith(text) if text else 0


def numbers_of(match: re.Match[str]) -> tuple[int, int, str | None, int | None] | None:
    """The number in a check's brackets (or after ``@``), its modifier, comparison and
    target (None: a comparison BCDice does not read)."""
    op = normalize_cmp(match.group(3)) if match.group(3) else None
    if match.group(3) and op is None:
        return None
    target = arith(match.group(4)) if match.group(4) else None
    return int(match.group(1)), modifier_of(match.group(2)), op, target


def roll_check(match: re.Match[str], word: str, tray: Tray) -> RollResult | None:
    read = numbers_of(match)
    if read is None:
        return None
    critical, modifier, op, target = read
    head = f"({word})"
    if critical < 3:
        return RollResult(steps(head, "クリティカル値が小さすぎます。3以上を指定してください。"))
    rolls = []
    while True:
        pair = (tray.once(6), tray.once(6))
        rolls.append(pair)
        if sum(pair) < critical:
            break
    total = sum(sum(pair) for pair in rolls) + modifier
    shown = f"{total - modifier}{''.join(f'[{a},{b}]' for a, b in rolls)}"
    if modifier:
        shown += f"{modifier:+d}"
    parts = [head, shown, str(total)]
    if op is None or target is None:
        return RollResult(steps(*parts), total)
    first = sum(rolls[0])
    if first == 2:
        return RollResult(steps(*parts, "自動的失敗"), total, failure=True, fumble=True)
    if first == 12:
        return RollResult(steps(*parts, "自動的成功"), total, success=True, critical=True)
    success = compare(total, op, target)
    word_said = "失敗"
    if success:
        word_said = "超成功" if len(rolls) > 1 and total > target + 10 else "成功"
    return RollResult(steps(*parts, word_said), total, success=success, failure=not success)


def roll_word(word: str, tray: Tray) -> RollResult | None:
    try:
        return roll_any(word, tray)
    except (ParseError, ZeroDivisionError, OverflowError):
        return None


def roll_any(word: str, tray: Tray) -> RollResult | None:
    if word.startswith(("K", "HK", "OHK", "DBK")):
        rate = parse_rate(word)
        return None if rate is None else roll_rate(rate, tray)
    check = _CHECK.fullmatch(word)
    if check is not None:
        return roll_check(check, word, tray)
    growth = _GROWTH.fullmatch(word)
    if growth is not None:
        times = int(growth.group(1) or 1)
        if not 1 <= times <= 20:
            return None
        pairs = []
        for _ in range(times):
            one, two = tray.once(6), tray.once(6)
            names = (
                ABILITIES[one - 1]
                if one == two
                else f"{ABILITIES[one - 1]} or {ABILITIES[two - 1]}"
            )
            pairs.append(f"[{one},{two}]->({names})")
        return RollResult(" | ".join(pairs))
    if word in ("FT", "TT"):
        table = FUMBLE if word == "FT" else TANGLE
        face, row = table.draw(tray)
        return RollResult(shown(table.name, face, row), face)
    if word == "ABT":
        return roll_curse(tray)
    if word == "AABT":
        return roll_table(MORE_CURSE, tray)
    dru = _DRU.fullmatch(word)
    if dru is not None:
        low, middle, high = (int(dru.group(index)) for index in (1, 2, 3))
        modifier = modifier_of(dru.group(4))
        one, two = tray.once(6), tray.once(6)
        rolled = one + two
        value = low if rolled <= 6 else middle if rolled <= 9 else high
        echo = (
            f"(Dru[{low},{middle},{high}]{modifier:+d})"
            if modifier
            else f"(Dru[{low},{middle},{high}])"
        )
        said = f"{value}{modifier:+d}" if modifier else str(value)
        parts = [echo, f"2D[{one},{two}]={rolled}", said]
        if modifier:
            parts.append(str(value + modifier))
        return RollResult(steps(*parts), value + modifier)
    bib = _BIB.fullmatch(word)
    if bib is not None:
        return roll_bib(bib, tray)
    return None


def roll_curse(tray: Tray) -> RollResult:
    rolled, row = CURSE.draw(tray)
    lines = [shown(CURSE.name, rolled, row)]
    following = FOLLOWING.get(rolled)
    if following is not None:
        lines.append(shown(following.name, *following.draw(tray)))
    return RollResult("\n".join(lines))


def roll_bib(match: re.Match[str], tray: Tray) -> RollResult | None:
    read = numbers_of(match)
    if read is None:
        return None
    special, modifier, op, target = read
    one, two = tray.once(6), tray.once(6)
    rolled = one + two
    total = rolled + modifier
    compared = f"{format_cmp(op)}{target}" if op is not None and target is not None else ""
    echo = f"(Bib[{special}]{modifier:+d}{compared})" if modifier else f"(Bib[{special}]{compared})"
    shown = f"{rolled}[{one},{two}]" + (f"{modifier:+d}" if modifier else "")
    parts = [echo, shown, str(total)]
    if rolled == 2:
        return RollResult(steps(*parts, "自動的失敗"), total, failure=True, fumble=True)
    if rolled == 12:
        return RollResult(steps(*parts, "自動的成功"), total, success=True, critical=True)
    if rolled == special:
        return RollResult(steps(*parts, "特殊失敗"), total, failure=True, fumble=True)
    if op is None or target is None:
        return RollResult(steps(*parts), total)
    success = compare(total, op, target)
    return RollResult(
        steps(*parts, "成功" if success else "失敗"), total, success=success, failure=not success
    )


roll = own_commands(roll_word)
