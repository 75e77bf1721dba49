"""Parser benchmark: how fast the Lore front end reads a large, realistic rules file.

Run from the project root::

    .venv/bin/python benchmarks/parse.py [--lines N] [--repeat R] [--json] [--profile [K]]

It generates (deterministically, seeded) a Lore source of at least N lines and a Python
source of the same line count, then measures in one run:

- the lexer alone (tokens/s), against CPython's ``tokenize`` module;
- ``lore.syntax.parser.parse`` (lines/s), against CPython's ``ast.parse``;
- parse + check via ``lore.semantics.check.check_text`` (lines/s), against ``compile``;
- the memory the AST keeps alive and the peak during the parse (bytes per source line,
  by ``tracemalloc``), against ``ast.parse`` of the Python file.

Speeds are the best of R runs; each timed run includes a collection of the young
garbage-collector generations, so that collector work a run leaves for later is counted.
It prints a table with the targets marked PASS/FAIL (or the figures as JSON) and exits 0,
as it is a report; 1 if the generated Lore source does not parse without diagnostics.
``--profile`` adds the top of a cProfile of one parse.
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import gc
import io
import json
import random
import sys
import time
import tokenize as py_tokenize
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import CodeType, FunctionType
from typing import Any

from lore.syntax import ast as syntax_ast
from lore.syntax import diagnostics as syntax_diagnostics
from lore.syntax import source as syntax_source
from lore.syntax import tokens as syntax_tokens
from lore.syntax.lexer import tokenize
from lore.syntax.parser import ParseResult, parse
from lore.syntax.source import SourceFile

TARGET_PARSE_LINES_PER_S = 50_000
TARGET_CHECK_LINES_PER_S = 25_000
TARGET_AST_BYTES_PER_LINE = 2_048
SEED = 1
NAME = "bench.lore"

# ---------------------------------------------------------------- vocabulary

_REGIONS = tuple("north south east west upper lower inner outer far".split())
_THEMES = tuple("combat travel camp trade hunt siege watch ruins river".split())
_FAMILIES = tuple("Beast Folk Spirit Construct Monster Raider Vermin".split())
_CREATURES = tuple(
    "Goblin Troll Wyvern Kobold Ogre Harpy Wraith Golem Ghoul Bandit Wolf Cultist".split()
)
_MOODS = tuple("calm angry afraid curious sleepy hungry proud wary".split())
_PLACES = tuple("cave ford tower marsh ridge crypt mill gate bridge".split())
_NAMES = tuple(
    "grik snaga bolg ugluk azog lurtz gorbag shagrat muzgash radbug lagduf ufthak grishnak "
    "mauhur".split()
)
_VERBS = tuple(
    "drill scout forage guard ambush regroup pillage track rest signal hide charge".split()
)
_SHOUTS = ("Grr!", "For the chief!", "Run!", "Who goes there?", "Mine!", "To arms!")


@dataclass
class _World:
    """What one generated section defines, so that its code refers only to real names."""

    index: int
    region: str
    theme: str
    base: str  # base form, extends Actor
    kin: str  # first sub form (the party's type)
    other: str  # second sub form
    chief: str  # extends kin
    mood: str  # enum
    moods: list[str]
    terrain: str  # enum
    terrains: list[str]
    party: list[str]  # instances of kin
    others: list[str]  # instances of other
    boss: str  # instance of chief
    turn: str  # section unit
    stride: str  # section unit


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, depth: int, text: str = "") -> None:
        self.lines.append("  " * depth + text if text else "")


# ---------------------------------------------------------------- Lore generator


def generate_lore(min_lines: int, rng: random.Random) -> str:
    """A Lore file of at least ``min_lines`` lines: a header and many sections."""
    out = _Writer()
    out(0, 'docinfo{encoding="UTF-8", version="http://xgmtk.org/lore/1.0":url}')
    out(0, 'desc("Benchmark realm"){"Generated rules for the parser benchmark"}')
    out(0, 'author("Bench Writer"){"mailto:bench@example.org":url,')
    out(1, '"bench@xmpp.example.org":jid}')
    out(0, 'history("2014-08-01T00:00:00+09:00":date){reviser="Bench Writer", desc="made"}')
    out(0)
    out(0, "// The standard library: Event, Actor, GM, schedule and the units.")
    out(0, 'import "basic.lore":url;')
    index = 0
    while len(out.lines) < min_lines:
        index += 1
        out(0)
        _lore_section(out, rng, index)
    return "\n".join(out.lines) + "\n"


def _new_world(rng: random.Random, k: int) -> _World:
    kin, other = rng.sample(_CREATURES, 2)
    names = rng.sample(_NAMES, rng.randint(4, 6))
    return _World(
        index=k,
        region=rng.choice(_REGIONS),
        theme=rng.choice(_THEMES),
        base=f"{rng.choice(_FAMILIES)}{k}",
        kin=f"{kin}{k}",
        other=f"{other}{k}",
        chief=f"Chief{kin}{k}",
        mood=f"Mood{k}",
        moods=rng.sample(_MOODS, rng.randint(3, 5)),
        terrain=f"Terrain{k}",
        terrains=rng.sample(_PLACES, rng.randint(3, 5)),
        party=names[:-2],
        others=names[-2:-1],
        boss=names[-1],
        turn=f"turn{k}",
        stride=f"stride{k}",
    )


def _lore_section(out: _Writer, rng: random.Random, k: int) -> None:
    w = _new_world(rng, k)
    out(0, "/*")
    out(0, f" Section {k}: {w.theme} rules of the {w.region} marches.")
    out(0, " Generated for the parser benchmark; every name is defined here or in basic.lore.")
    out(0, "*/")
    out(0, f"section {w.region}_{k}.{w.theme} {{")
    out(1, "// units and constants of this section")
    out(1, f"[{w.turn}] = {rng.randint(1, 10)}[min];")
    out(1, f"[{w.stride}] = {rng.randint(1, 4)}[m];")
    out(1, f"[march{k}] = {rng.randint(2, 9)}[km];")
    out(1, f"step_time = {rng.randint(1, 4)}[{w.turn}];")
    out(1, f"reach = {rng.randint(2, 9)}[m];")
    near = rng.randint(5, 20)
    out(1, f"near = 0[m],...<{near}[m];")
    out(1, f"far = {near}[m],...,{rng.randint(2, 5)}[km];")
    out(1, f'lair = "/{w.region}/{w.terrains[0]}[{rng.randint(0, 9)},{rng.randint(0, 9)}]":loc;')
    out(1, f'guide = "http://example.org/{w.region}/{w.theme}/{k}":url;')
    out(1, f"levels = {{{', '.join(str(rng.randint(1, 9)) for _ in range(rng.randint(2, 5)))}}};")
    if rng.random() < 0.5:
        out(1, f"private secret_bonus = {rng.randint(1, 5)}; // not visible to other sections")
    out(0)
    _lore_enums(out, rng, w)
    _lore_forms(out, rng, w)
    _lore_instances(out, rng, w)
    _lore_rules(out, rng, w)
    if not out.lines[-1]:
        out.lines.pop()
    out(0, "}")


def _lore_enums(out: _Writer, rng: random.Random, w: _World) -> None:
    out(1, f"enum {w.mood} {{")
    for weight, mood in enumerate(w.moods, 1):
        out(2, f'{mood}{{caption = "{mood}"; weight = {weight};}}')
    out(1, "}")
    out(0)
    out(1, f"enum {w.terrain} {{ {', '.join(w.terrains)} }}")
    out(0)


def _lore_forms(out: _Writer, rng: random.Random, w: _World) -> None:
    out(1, f"form {w.base} extends Actor {{")
    out(2, "hp : integer;")
    out(2, "max_hp : integer;")
    out(2, "level : integer = 1;")
    out(2, f"mood : {w.mood};")
    out(2, f"terrain : {w.terrain};")
    out(2, f"armor = {rng.randint(0, 4)};")
    out(2, f"speed = {rng.randint(3, 9)}[m];")
    out(2, "// accessors: G14 arrows and G13 colons")
    out(2, "bonus(step : integer) -> integer {")
    out(3, f"base = self.level * step + {rng.choice(('armor', 'self.armor'))};")
    out(3, f"result = base - {rng.randint(0, 3)};")
    out(2, "}")
    out(2, "alive : boolean {")
    out(3, "result = self.hp > 0;")
    out(2, "}")
    out(2, "wounded -> boolean {")
    out(3, f"result = self.hp * 2 < self.max_hp | self.mood == {w.mood}.{w.moods[-1]};")
    out(2, "}")
    out(2, "// an alter receives every value requested in the same step")
    out(2, "alter damaged(amounts : list<integer>) {")
    out(3, "self.hp := self.hp - amounts.sum;")
    out(2, "}")
    out(2, "alter healed(amounts : list<integer>) {")
    out(3, "self.hp = self.hp + amounts.sum;")
    out(2, "}")
    out(2, "alter moved(goals : list<loc>) {")
    out(3, "self.location := goals.get1st;")
    out(2, "}")
    out(2, "rule shout(text : string) {")
    out(3, "GM.message(text);")
    out(2, "}")
    out(1, "}")
    out(0)
    out(1, f"form {w.kin} extends {w.base} {{")
    out(2, "greed : integer;")
    out(2, f"override armor = {rng.randint(0, 2)};")
    out(2, "loot(roll : integer) : integer {")
    out(3, f"share = roll * greed / {rng.randint(2, 4)};")
    out(3, f"result = share + {rng.randint(1, 3)};")
    out(2, "}")
    out(2, "rule taunt {")
    out(3, f'self.shout("{rng.choice(_SHOUTS)}");')
    out(2, "}")
    out(1, "}")
    out(0)
    out(1, f"form {w.other} extends {w.base} {{")
    out(2, "stride : unit[m];")
    out(2, "cunning(rounds : integer) -> integer {")
    out(3, f"result = rounds * self.level % {rng.randint(3, 7)} + 1;")
    out(2, "}")
    out(1, "}")
    out(0)
    out(1, f"form {w.chief} extends {w.kin} {{")
    out(2, f"followers : list<{w.kin}>;")
    out(2, "override bonus(step : integer) -> integer {")
    out(3, f"result = step * {rng.randint(2, 4)} + followers.length;")
    out(2, "}")
    out(1, "}")
    out(0)


def _lore_creature(out: _Writer, rng: random.Random, w: _World, name: str, form: str) -> None:
    hp = rng.randint(3, 30)
    x, y = rng.randint(0, 9), rng.randint(0, 9)
    out(1, f"{name} = {{")
    out(2, f'name = "{name.capitalize()}";')
    out(2, rng.choice(("location = lair;", f'location = "/{w.region}[{x},{y}]":loc;')))
    out(2, f"hp = {hp};")
    out(2, f"max_hp = {hp + rng.randint(0, 5)};")
    out(2, f"level = {rng.randint(1, 6)};")
    out(2, f"mood = {w.mood}.{rng.choice(w.moods)};")
    out(2, f"terrain = {w.terrain}.{rng.choice(w.terrains)};")
    if form == w.other:
        out(2, f"stride = {rng.randint(1, 3)}[{w.stride}];")
    else:
        out(2, f"greed = {rng.randint(1, 9)};")
    if form == w.chief:
        out(2, f"followers = {{{', '.join(w.party)}}};")
    out(1, f"}}:{form};")
    out(0)


def _lore_instances(out: _Writer, rng: random.Random, w: _World) -> None:
    for name in w.party:
        _lore_creature(out, rng, w, name, w.kin)
    for name in w.others:
        _lore_creature(out, rng, w, name, w.other)
    _lore_creature(out, rng, w, w.boss, w.chief)
    out(1, f"party = {{{', '.join(w.party)}}};")
    out(0)
    out(1, "// the event that starts this section")
    out(1, "start = {")
    out(2, "ticks = 0;")
    out(2, f"priority = {rng.randint(0, 2)};")
    out(2, "handler = @{")
    out(3, "opening;")
    out(2, "};")
    out(1, "}:Event;")
    out(0)


def _lore_rules(out: _Writer, rng: random.Random, w: _World) -> None:
    _rule_opening(out, rng, w)
    _rule_attack(out, rng, w)
    _rule_patrol(out, rng, w)
    _rule_greet(out, rng, w)
    _rule_rally(out, rng, w)
    _functions(out, rng, w)
    for verb in rng.sample(_VERBS, rng.randint(1, 4)):
        _rule_chore(out, rng, w, verb)


def _schedule(out: _Writer, rng: random.Random, depth: int, delay: str, call: str) -> None:
    out(depth, "schedule.add({")
    out(depth + 1, f"ticks = schedule.current + {delay};")
    out(depth + 1, f"priority = {rng.randint(0, 3)};")
    out(depth + 1, "handler = @{")
    out(depth + 2, f"{call};")
    out(depth + 1, "};")
    out(depth, "}:Event);")


def _rule_opening(out: _Writer, rng: random.Random, w: _World) -> None:
    out(1, "rule opening {")
    out(2, "// greet the party and plan the first patrol")
    out(2, f'GM.message("The {w.region} {w.theme} begins.");')
    out(2, "first = party.get1st;")
    out(2, f"delay = {rng.randint(1, 4)}[{w.turn}] + step_time;")
    _schedule(out, rng, 2, "delay", f"patrol(first, {rng.randint(1, 9)}[m])")
    out(1, "}")
    out(0)


def _rule_attack(out: _Writer, rng: random.Random, w: _World) -> None:
    dice = rng.choice(("2D6", "3d6", "1D20", "d8", "4d"))
    out(1, f"rule attack(attacker : {w.base}, target : {w.base}) {{")
    out(2, f"roll = ({dice}+{rng.randint(1, 5)}).roll + attacker.bonus({rng.randint(1, 3)});")
    sides, bonus = rng.choice((4, 6, 8)), rng.randint(0, 3)
    out(2, f"power = attacker.level d{sides} + {bonus};  // x dN: a computed number of dice")
    out(2, f"burst = (attacker.level + {rng.randint(1, 2)})d6;")
    first, *rest = w.moods
    out(2, "select(target.mood) {")
    out(3, f"case({w.mood}.{first}) {{")
    out(4, "target.damaged(roll - target.armor);")
    out(3, "}")
    out(3, f"case({', '.join(f'{w.mood}.{m}' for m in rest[:2])}) {{")
    out(4, f'attacker.shout("{rng.choice(_SHOUTS)}");')
    out(4, "target.damaged(power.roll + burst.max);")
    out(3, "}")
    out(3, "default {")
    out(4, 'GM.message("Nothing happens.");')
    out(3, "}")
    out(2, "}")
    out(1, "}")
    out(0)


def _rule_patrol(out: _Writer, rng: random.Random, w: _World) -> None:
    out(1, f"rule patrol(who : {w.kin}, distance : unit[m]) {{")
    out(2, "select(distance) {")
    out(3, f"case(0[m],...<{rng.randint(2, 5)}[m]) {{")
    out(4, "who.taunt;")
    out(3, "}")
    out(3, "case(near) {")
    out(4, f'who.moved("/{w.region}/{rng.choice(w.terrains)}[{rng.randint(0, 9)},2]":loc);')
    out(3, "}")
    out(3, "default {")
    out(4, "/* too far: wait a turn, then try again */")
    _schedule(out, rng, 4, f"1[{w.turn}]", "patrol(who, distance - reach)")
    out(3, "}")
    out(2, "}")
    out(1, "}")
    out(0)


def _rule_greet(out: _Writer, rng: random.Random, w: _World) -> None:
    out(1, "rule greet(actor : Actor) {")
    out(2, "select(actor) {")
    out(3, f"as(chief : {w.chief}) {{")
    out(4, f'chief.shout("{rng.choice(_SHOUTS)}");')
    out(3, "}")
    out(3, f"as(kin : {w.kin}) {{")
    out(4, "kin.taunt;")
    out(3, "}")
    out(3, "default {")
    out(4, "GM.message(actor.name);")
    out(3, "}")
    out(2, "}")
    out(1, "}")
    out(0)


def _rule_rally(out: _Writer, rng: random.Random, w: _World) -> None:
    out(1, "rule rally(amount : integer) {")
    out(2, f"party.foreach(@(member : {w.kin}){{")
    out(3, f"gain = member.bonus({rng.randint(1, 3)}) + amount;")
    out(3, "member.healed(gain);")
    out(2, "});")
    out(2, f"weakest = party.find1st(@(member : {w.kin}) -> boolean {{")
    out(3, f"result = member.hp < {rng.randint(2, 6)} | member.wounded;")
    out(2, "});")
    out(2, f"hurt = list<{w.kin}>.empty;")
    out(2, "hurt = hurt.add(weakest);")
    out(2, "count = hurt.length + party.length;")
    out(2, "total = levels.sum * count;")
    out(2, "label = select(weakest.mood) {")
    out(3, f"case({w.mood}.{w.moods[0]}) {{")
    out(4, 'result = "steady";')
    out(3, "}")
    out(3, "default {")
    out(4, 'result = "restless";')
    out(3, "}")
    out(2, "};")
    out(2, "GM.message(label);")
    out(2, f"{w.boss}.followers.get(0).healed(total % {rng.randint(3, 9)});")
    out(1, "}")
    out(0)


def _functions(out: _Writer, rng: random.Random, w: _World) -> None:
    colon = rng.random() < 0.5
    out(1, f"function threat(level : integer, sides : integer) {':' if colon else '->'} integer {{")
    out(2, f"base = level * sides + {rng.randint(1, 9)};")
    out(2, f"spread = (base - {rng.randint(1, 4)}) / {rng.randint(2, 5)} % {rng.randint(3, 9)};")
    out(2, "result = base + spread * -1;")
    out(1, "}")
    out(0)
    out(1, "function in_reach(gap : unit[m]) -> boolean {")
    wide, exact = rng.randint(2, 4), rng.randint(1, 9)
    out(2, f"result = gap <= reach * {wide} & gap > 0[m] | gap == {exact}[m];")
    out(1, "}")
    out(0)


def _int_expr(rng: random.Random, terms: list[str], depth: int = 0) -> str:
    if depth > 1 or rng.random() < 0.3:
        return rng.choice(terms) if rng.random() < 0.7 else str(rng.randint(1, 12))
    left = _int_expr(rng, terms, depth + 1)
    right = _int_expr(rng, terms, depth + 1)
    text = f"{left} {rng.choice('+-*/%')} {right}"
    return f"({text})" if depth and rng.random() < 0.5 else text


def _rule_chore(out: _Writer, rng: random.Random, w: _World, verb: str) -> None:
    out(1, f"// {verb}: a routine for the {w.kin} band")
    out(1, f"rule {verb}(who : {w.kin}, times : integer) {{")
    terms = ["times", "who.level", "who.hp", "who.greed", f"threat(times, {rng.randint(4, 12)})"]
    for step in range(rng.randint(2, 5)):
        local = f"{verb}_{step}"
        out(2, f"{local} = {_int_expr(rng, terms)};")
        terms.append(local)
    roll = rng.choice(("2D6+3", "d20", "3d6-1", "times d6", f"({terms[-1]})d4"))
    out(2, f"check = ({roll}).roll; // a roll against the band's mood")
    out(2, "select(who.terrain) {")
    for place in rng.sample(w.terrains, rng.randint(1, len(w.terrains) - 1)):
        out(3, f"case({w.terrain}.{place}) {{")
        out(4, f"who.damaged(check - {rng.choice(terms)});")
        out(3, "}")
    out(3, "default {")
    out(4, f"who.healed({rng.choice(terms)});")
    out(3, "}")
    out(2, "}")
    if rng.random() < 0.5:
        _schedule(out, rng, 2, f"{rng.randint(1, 3)}[{w.turn}]", f"{verb}(who, times - 1)")
    else:
        out(2, f"who.healed(who.loot({rng.choice(terms)}));")
    out(1, "}")
    out(0)


# ---------------------------------------------------------------- Python baseline


def generate_python(lines: int, rng: random.Random) -> str:
    """Realistic Python of exactly ``lines`` lines (classes, functions, ifs, comprehensions)."""
    out = _Writer()
    out(0, '"""Generated for the parser benchmark: the CPython baseline."""')
    out(0)
    out(0, "from __future__ import annotations")
    out(0)
    out(0)
    out(0, "class Actor:")
    out(1, "def __init__(self, name: str, location: str) -> None:")
    out(2, "self.name = name")
    out(2, "self.location = location")
    out(0)
    index = 0
    while True:
        block = _Writer()
        index += 1
        _python_block(block, rng, index)
        if len(out.lines) + len(block.lines) > lines:
            break
        out.lines.extend(block.lines)
    while len(out.lines) < lines:
        out(0, f"LIMIT_{len(out.lines)} = {rng.randint(1, 99)} * 3 + {rng.randint(0, 9)}")
    return "\n".join(out.lines) + "\n"


def _python_block(out: _Writer, rng: random.Random, k: int) -> None:
    kind = f"{rng.choice(_CREATURES)}{k}"
    out(0)
    out(0, f"class {kind}(Actor):")
    out(1, f'"""A {rng.choice(_MOODS)} creature of the {rng.choice(_REGIONS)} marches."""')
    out(0)
    out(1, "def __init__(self, name: str, hp: int, level: int = 1) -> None:")
    out(2, f'super().__init__(name, "/{rng.choice(_PLACES)}[{rng.randint(0, 9)}]")')
    out(2, "self.hp = hp")
    out(2, "self.level = level")
    out(2, f"self.armor = {rng.randint(0, 4)}")
    out(0)
    out(1, "def bonus(self, step: int) -> int:")
    out(2, "base = self.level * step + self.armor")
    out(2, f"return base - {rng.randint(0, 3)}")
    out(0)
    out(1, "def damaged(self, amount: int) -> bool:")
    out(2, "# armour soaks part of the blow")
    out(2, "if amount > self.armor:")
    out(3, "self.hp -= amount - self.armor")
    out(2, "elif amount > 0:")
    out(3, "self.hp -= 1")
    out(2, "else:")
    out(3, "return False")
    out(2, "return self.hp > 0")
    out(0)
    out(0)
    out(0, f"def rally_{k}(party: list[{kind}], amount: int) -> dict[str, int]:")
    out(1, "for member in party:")
    out(2, f"member.hp += member.bonus({rng.randint(1, 3)}) + amount")
    out(1, f"weakest = [m for m in party if m.hp < {rng.randint(2, 6)} or m.level > 3]")
    out(1, "total = sum(m.level for m in party) * len(weakest)")
    out(1, f"spread = (total - {rng.randint(1, 4)}) // {rng.randint(2, 5)} % {rng.randint(3, 9)}")
    out(1, "if weakest and spread > 1:")
    out(2, f'print("{rng.choice(_SHOUTS)}", weakest[0].name, total)')
    out(1, "return {m.name: m.hp % spread if spread else m.hp for m in party}")
    out(0)


# ---------------------------------------------------------------- measuring


@dataclass
class Report:
    lore_lines: int
    lore_chars: int
    python_lines: int
    repeat: int
    lore_tokens: int
    python_tokens: int
    lexer_tokens_per_s: float
    baseline_tokenize_tokens_per_s: float
    parse_lines_per_s: float
    baseline_ast_parse_lines_per_s: float
    check_lines_per_s: float | None
    check_diagnostics: int | None
    check_note: str | None
    baseline_compile_lines_per_s: float
    ast_retained_bytes_per_line: float
    ast_peak_bytes_per_line: float
    baseline_ast_retained_bytes_per_line: float
    baseline_ast_peak_bytes_per_line: float

    def passes(self) -> dict[str, bool | None]:
        check = self.check_lines_per_s
        return {
            "parse": self.parse_lines_per_s >= TARGET_PARSE_LINES_PER_S,
            "parse+check": None if check is None else check >= TARGET_CHECK_LINES_PER_S,
            "memory": self.ast_retained_bytes_per_line < TARGET_AST_BYTES_PER_LINE,
        }


def best_time(run: Callable[[], object], repeat: int) -> float:
    """The shortest wall time of ``repeat`` calls; each result is dropped before the next.

    The time includes a collection of the young generations right after the call, so
    that collector work that a call leaves for later (by pausing the collector) counts.
    """
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = run()
        gc.collect(1)
        elapsed = time.perf_counter() - start
        del result
        best = min(best, elapsed)
    return best


def traced_memory(run: Callable[[], object]) -> tuple[int, int]:
    """(retained, peak) bytes allocated by ``run``; its result is kept alive while measured."""
    gc.collect()
    tracemalloc.start()
    try:
        result = run()
        gc.collect()
        retained, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return retained, peak


def python_tokens(text: str) -> int:
    return sum(1 for _ in py_tokenize.generate_tokens(io.StringIO(text).readline))


def load_checker() -> Callable[[str, str], Any] | None:
    try:
        from lore.semantics.check import check_text  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    checker: Callable[[str, str], Any] = check_text
    return checker


def measure(lore_text: str, python_text: str, repeat: int) -> Report:
    lore_lines = lore_text.count("\n")
    python_lines = python_text.count("\n")

    def lore_source() -> SourceFile:
        return SourceFile(NAME, lore_text)

    tokens = len(tokenize(lore_source()).tokens)
    py_tokens = python_tokens(python_text)
    lex_time = best_time(lambda: tokenize(lore_source()), repeat)
    py_lex_time = best_time(lambda: python_tokens(python_text), repeat)
    parse_time = best_time(lambda: parse(lore_source()), repeat)
    ast_time = best_time(lambda: ast.parse(python_text, "bench.py"), repeat)
    compile_time = best_time(lambda: compile(python_text, "bench.py", "exec"), repeat)

    check_rate: float | None = None
    check_diagnostics: int | None = None
    note: str | None = None
    checker = load_checker()
    if checker is None:
        note = "not available (lore.semantics.check missing)"
    else:
        try:
            check_diagnostics = len(checker(lore_text, NAME).diagnostics)
            check_rate = lore_lines / best_time(lambda: checker(lore_text, NAME), repeat)
        except Exception as error:  # a report, not a test: show what went wrong and go on
            note = f"failed: {type(error).__name__}: {error}"

    source = lore_source()
    retained, peak = traced_memory(lambda: parse(source))
    py_retained, py_peak = traced_memory(lambda: ast.parse(python_text, "bench.py"))
    return Report(
        lore_lines=lore_lines,
        lore_chars=len(lore_text),
        python_lines=python_lines,
        repeat=repeat,
        lore_tokens=tokens,
        python_tokens=py_tokens,
        lexer_tokens_per_s=tokens / lex_time,
        baseline_tokenize_tokens_per_s=py_tokens / py_lex_time,
        parse_lines_per_s=lore_lines / parse_time,
        baseline_ast_parse_lines_per_s=python_lines / ast_time,
        check_lines_per_s=check_rate,
        check_diagnostics=check_diagnostics,
        check_note=note,
        baseline_compile_lines_per_s=python_lines / compile_time,
        ast_retained_bytes_per_line=retained / lore_lines,
        ast_peak_bytes_per_line=peak / lore_lines,
        baseline_ast_retained_bytes_per_line=py_retained / python_lines,
        baseline_ast_peak_bytes_per_line=py_peak / python_lines,
    )


# ---------------------------------------------------------------- reporting


def _status(ok: bool | None) -> str:
    return "-" if ok is None else "PASS" if ok else "FAIL"


def format_table(report: Report) -> str:
    passes = report.passes()
    rows: list[tuple[str, float | None, float, str, str, str]] = [
        (
            "lexer tokens/s",
            report.lexer_tokens_per_s,
            report.baseline_tokenize_tokens_per_s,
            "tokenize",
            "",
            "-",
        ),
        (
            "parse lines/s",
            report.parse_lines_per_s,
            report.baseline_ast_parse_lines_per_s,
            "ast.parse",
            f">= {TARGET_PARSE_LINES_PER_S:,}",
            _status(passes["parse"]),
        ),
        (
            "parse+check lines/s",
            report.check_lines_per_s,
            report.baseline_compile_lines_per_s,
            "compile",
            f">= {TARGET_CHECK_LINES_PER_S:,}",
            _status(passes["parse+check"]),
        ),
        (
            "AST retained bytes/line",
            report.ast_retained_bytes_per_line,
            report.baseline_ast_retained_bytes_per_line,
            "ast.parse",
            f"< {TARGET_AST_BYTES_PER_LINE:,}",
            _status(passes["memory"]),
        ),
        (
            "parse peak bytes/line",
            report.ast_peak_bytes_per_line,
            report.baseline_ast_peak_bytes_per_line,
            "ast.parse",
            "",
            "-",
        ),
    ]
    lines = [
        f"Lore: {report.lore_lines:,} lines, {report.lore_chars:,} chars, "
        f"{report.lore_tokens:,} tokens; Python baseline: {report.python_lines:,} lines, "
        f"{report.python_tokens:,} tokens; speeds are the best of {report.repeat}",
        "",
        f"{'figure':<24} {'lore':>12} {'baseline':>12} {'(CPython)':<10} {'ratio':>7}"
        f"  {'target':<10} status",
    ]
    for label, value, baseline, what, target, status in rows:
        if value is None:
            shown, ratio = "n/a", "n/a"
        else:
            shown, ratio = f"{value:,.0f}", f"{value / baseline:.2f}x"
        lines.append(
            f"{label:<24} {shown:>12} {baseline:>12,.0f} {what:<10} {ratio:>7}"
            f"  {target:<10} {status}"
        )
    if report.check_note is not None:
        lines.append(f"parse+check: {report.check_note}")
    elif report.check_diagnostics:
        lines.append(
            f"note: the checker reported {report.check_diagnostics} diagnostics "
            "on the generated source"
        )
    return "\n".join(lines)


def _generated_names() -> dict[int, str]:
    """Names for the ``__init__``/``__new__`` that dataclasses and named tuples generate.

    They all come from ``<string>``, and pstats (which keys functions by file, line and
    name) would fold them into one row; keyed by code object id, each keeps its class.
    """
    names: dict[int, str] = {}
    for module in (syntax_ast, syntax_source, syntax_tokens, syntax_diagnostics):
        for cls in vars(module).values():
            if not isinstance(cls, type) or cls.__module__ != module.__name__:
                continue
            for method in ("__init__", "__new__"):
                function = cls.__dict__.get(method)
                if isinstance(function, staticmethod):  # how a class keeps its __new__
                    function = function.__func__
                if isinstance(function, FunctionType):
                    names[id(function.__code__)] = f"{cls.__name__}.{method}"
    return names


def _label(code: CodeType | str, names: dict[int, str]) -> str:
    if isinstance(code, str):
        return code
    if id(code) in names:
        return names[id(code)]
    where = "/".join(code.co_filename.replace("\\", "/").split("/")[-2:])
    return f"{where}:{code.co_firstlineno}({code.co_name})"


def print_profile(source: SourceFile, count: int) -> None:
    """The top ``count`` functions of a cProfile of one parse, by own time."""
    names = _generated_names()
    profiler = cProfile.Profile()
    profiler.enable()
    parse(source)
    profiler.disable()
    rows: dict[str, tuple[int, float, float]] = {}
    for entry in profiler.getstats():
        label = _label(entry.code, names)
        calls, own, cumulative = rows.get(label, (0, 0.0, 0.0))
        rows[label] = (
            calls + entry.callcount,
            own + entry.inlinetime,
            cumulative + entry.totaltime,
        )
    total = sum(own for _, own, _ in rows.values())
    print()
    print(
        f"cProfile of one parse ({total:.3f} s of own time under the profiler), "
        f"top {count} by own time:"
    )
    print(f"{'calls':>9} {'own s':>8} {'own %':>6} {'cumul. s':>9}  function")
    ranked = sorted(rows.items(), key=lambda item: item[1][1], reverse=True)
    for label, (calls, own, cumulative) in ranked[:count]:
        print(f"{calls:>9,} {own:>8.3f} {own / total:>6.1%} {cumulative:>9.3f}  {label}")


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    options.add_argument("--lines", type=int, default=50_000, help="minimum Lore lines")
    options.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    options.add_argument("--json", action="store_true", help="print the figures as JSON")
    options.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=25,
        default=0,
        metavar="K",
        help="also print the top K entries of a cProfile of one parse",
    )
    args = options.parse_args(argv)
    repeat = max(1, args.repeat)

    rng = random.Random(SEED)
    lore_text = generate_lore(args.lines, rng)
    result: ParseResult = parse(SourceFile(NAME, lore_text))
    if result.diagnostics:
        print(
            f"the generated Lore source has {len(result.diagnostics)} diagnostics:", file=sys.stderr
        )
        for diagnostic in result.diagnostics[:10]:
            print(diagnostic.render(), file=sys.stderr)
        return 1
    del result
    python_text = generate_python(lore_text.count("\n"), rng)
    ast.parse(python_text, "bench.py")  # the baseline must be valid Python

    report = measure(lore_text, python_text, repeat)
    if args.json:
        figures: dict[str, Any] = asdict(report)
        figures["targets"] = {
            "parse_lines_per_s": TARGET_PARSE_LINES_PER_S,
            "check_lines_per_s": TARGET_CHECK_LINES_PER_S,
            "ast_bytes_per_line": TARGET_AST_BYTES_PER_LINE,
        }
        figures["pass"] = report.passes()
        print(json.dumps(figures, indent=2))
    else:
        print(format_table(report))
    if args.profile:
        print_profile(SourceFile(NAME, lore_text), args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
