"""The mutation fuzzer: cases made by changing a seed's files a little (or a lot).

Each case takes a seed (an example, a snippet of the reference, a corpus program, a save),
changes one of its files a few times, and picks a command to run on it: ``check``,
``fmt``, ``run`` (with the seed's answers, or at the terminal with random input) or
``sim``. The changes are those that broke Lore before: characters anywhere, pieces of
Lore (or XML, or JSON) that reach limits, spans repeated hundreds of times (long chains,
deep nesting), extreme numbers, pieces of other seeds, files cut short.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence

from tests.fuzz.harness import Case
from tests.fuzz.seeds import Seed

# Pieces of Lore that have reached limits or odd corners of the front end and the engine.
FRAGMENTS = (
    "{",
    "}",
    "(",
    ")",
    ";",
    ",",
    ".",
    "=",
    "@{",
    "@<>",
    "->",
    ":",
    "[",
    "]",
    "&",
    "|",
    "!",
    "select(x) {",
    "case(1) {",
    "as(y : integer) {",
    "default {",
    "if (true) {",
    "} else {",
    "} else if (false) {",
    "rule r {",
    "function f(x : integer) : integer {",
    "result = 1;",
    "section s {",
    "form F extends Actor {",
    "enum E { a; b; }",
    "alter hit(n : integer) {",
    "1d99999999999",
    "99999999999d6",
    "0d0",
    "(1+2)d6",
    "3D6+2",
    "d",
    "2 D 6",
    "99999999999999999999999999999999",
    "1e999",
    "-0.0",
    "1.5e-400",
    "0x10",
    "1_000",
    "1[m]",
    "5[sec]",
    "1[R]",
    "1[マス]",
    "[x] = 2[x];",
    "[u] = 0;",
    "x.toReal / 0.0",
    "1 / 0",
    "1 % 0",
    "x * x * x * x",
    '""',
    '"\\""',
    "'a'",
    "[=[ ]=]",
    "[==[",
    "]=]",
    ":xml",
    ":url",
    ":loc",
    ":jid",
    ":date",
    ":html",
    '"/region[a]":loc',
    '"/[0,0]":loc',
    '"http://[x":url',
    '"file:///etc/passwd":url',
    '"../../../../etc/passwd":url',
    'import "/etc/passwd":url;',
    'import "../../x.lore":url;',
    'import "//[x":url;',
    'import "a.lore":url;',
    'import "' + "a" * 300 + '.lore":url;',
    '("/dev/zero":url).loadXML',
    '("map.xml":url).loadXML',
    '("missing.xml":url).loadXML',
    '"<?xml version=\\"1.0\\" encoding=\\"foo\\"?><a/>":xml',
    '"<!DOCTYPE a [<!ENTITY x \\"y\\">]><a>&x;</a>":xml',
    "schedule.add({ ticks = schedule.current; priority = 0; handler = @{ }; }:Event);",
    "schedule.add({ ticks = schedule.current + 1[sec]; priority = 1; handler = @{ }; }:Event);",
    'GM.message("x");',
    'GM.query("q", { a = integer.input; });',
    "self",
    "result",
    'system.end("won");',
    "schedule.events",
    "schedule.current",
    "x.foreach(@(e) { });",
    "{1, 2, 3}.filter(@(e) -> e > 1)",
    "list<integer>.empty",
    "unit[m].input",
    "integer.input(1,...,3, 2)",
    "Actor.input",
    "{}:Event",
    "{ a = 1; }",
    "override",
    "private",
    "constant",
    'docinfo{encoding="UTF-8"}',
    'history("x":date){}',
    "//",
    "/*",
    "*/",
    "\u3000",
    "（",
    "）",
    "；",
    "“",
    "”",
    "「",
    "」",
    "、",
    "\u00a0",
    "\ufeff",
    "\u200b",
    "\x00",
    "\x85",
    "\u2028",
    "𝕏",
    "🎲",
    "椎",
    "ﾃﾞ",
    "\r",
    "\t",
    "\\",
)
XML_FRAGMENTS = (
    "<section/>",
    "<line>",
    "</line>",
    '<section terrain="x" prohibited="maybe"/>',
    ' scale="0[m]"',
    ' scale="5[sec]"',
    ' scale="-5[m]"',
    ' scale="1e999[m]"',
    ' height="1e999[m]"',
    ' type="5"',
    ' a="x"',
    ' label=""',
    '<node label="n"/>',
    '<link to="nowhere" distance="-1"/>',
    "<description><plain>",
    "</plain></description>",
    '<!DOCTYPE geometry [<!ENTITY e "e">]>',
    "&e;",
    "<![CDATA[x]]>",
    "<?pi x?>",
    "<!-- -->",
    '<?xml version="1.0" encoding="foo"?>',
    '<?xml version="1.0" encoding="UTF-16"?>',
    'xmlns="http://www.xgmtk.org/Unknown"',
    "\x00",
    "&#0;",
    "&#x110000;",
    "]]>",
)
EXTREME_NUMBERS = (
    "0",
    "-1",
    "1",
    "2147483648",
    "9223372036854775808",
    "1" + "0" * 400,
    "0.0",
    "-0.0",
    "1e308",
    "1e-308",
    "1e999",
    "3.5",
    "100000",
    "1000001",
)
EXTREME_JSON = (
    0,
    -1,
    10**30,
    "__BIG__",
    1.5,
    1e308,
    "NaN",
    "",
    "x" * 1000,
    "²",
    "１",
    True,
    None,
    [],
    {},
    [[[[[[[[[[]]]]]]]]]],
    {"": {}},
    "/region[x]",
    "\u0000",
    "\ud7ff",
)
# Random answers typed at the terminal.
TYPED = ("1", "2", "0", "-1", "99", "", "abc", "1.5", "²", "１", "y", "n", "\x04", "1 2")


class Mutator:
    """Makes cases from seeds with a random source of its own (a seed makes it
    repeatable)."""

    def __init__(self, rng: random.Random, seeds: Sequence[Seed]) -> None:
        self.rng = rng
        self.seeds = seeds

    # ------------------------------------------------------------ cases

    def case(self) -> Case:
        rng = self.rng
        seed = rng.choice(self.seeds)
        files = dict(seed.files)
        names = sorted(files)
        target = seed.entry if rng.random() < 0.65 or len(names) == 1 else rng.choice(names)
        data = files[target]
        steps: list[str] = []
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 5))):
            data, step = self.mutate(target, data)
            steps.append(step)
        files[target] = data
        argv, stdin = self.command(seed)
        return Case(f"{seed.name}: {target}: {', '.join(steps)}", files, argv, stdin)

    def command(self, seed: Seed) -> tuple[tuple[str, ...], bytes]:
        rng = self.rng
        entry = seed.entry
        pick = rng.random()
        if pick < 0.35:
            return ("check", entry), b""
        if pick < 0.45:
            return (("fmt", "--check", entry) if rng.random() < 0.3 else ("fmt", entry)), b""
        if pick < 0.85:
            argv = ["run", entry, "--max-steps", str(rng.choice((50, 500, 3000)))]
            if rng.random() < 0.3:
                argv += ["--seed", str(rng.randrange(1000))]
            if rng.random() < 0.3:
                argv += ["--transcript", "out.jsonl", "--save", "out.lore"]
            if seed.answers is not None and rng.random() < 0.8:
                return (*argv, "--answers", seed.answers), b""
            typed = "\n".join(rng.choice(TYPED) for _ in range(rng.randrange(30)))
            return tuple(argv), typed.encode()
        return ("sim", entry, "--runs", "2", "--max-steps", "500", "--seed", "7"), b""

    # ------------------------------------------------------------ changes

    def mutate(self, name: str, data: bytes) -> tuple[bytes, str]:
        rng = self.rng
        if rng.random() < 0.08:
            return self.bytes_noise(data)
        text = data.decode("utf-8", errors="replace")
        if name.endswith(".json") and rng.random() < 0.7:
            changed = self.json_change(text)
            if changed is not None:
                return changed[0].encode(), changed[1]
        pieces = XML_FRAGMENTS if name.endswith(".xml") or ":xml" in text else FRAGMENTS
        changes: list[Callable[[str], tuple[str, str]]] = [
            lambda t: self.insert(t, pieces),
            lambda t: self.insert(t, FRAGMENTS),
            self.delete,
            self.repeat,
            self.nest,
            self.number,
            self.rename,
            self.splice,
            self.swap_lines,
            self.truncate,
        ]
        text, step = rng.choice(changes)(text)
        return text.encode("utf-8", errors="surrogatepass"), step

    def position(self, text: str) -> int:
        """A place to change: often at white space (between tokens)."""
        if not text:
            return 0
        index = self.rng.randrange(len(text) + 1)
        if self.rng.random() < 0.7:
            found = text.find(" ", index)
            return found if found >= 0 else index
        return index

    def insert(self, text: str, pieces: Sequence[str]) -> tuple[str, str]:
        piece = self.rng.choice(pieces)
        at = self.position(text)
        return text[:at] + piece + text[at:], f"insert {piece[:30]!r}"

    def delete(self, text: str) -> tuple[str, str]:
        at = self.position(text)
        size = self.rng.choice((1, 1, 2, 5, 20, 200))
        return text[:at] + text[at + size :], f"delete {size}"

    def repeat(self, text: str) -> tuple[str, str]:
        """A span written again many times: long chains, long lists, big files."""
        rng = self.rng
        at = self.position(text)
        span = text[at : at + rng.choice((1, 3, 8, 20, 60))]
        times = rng.choice((2, 3, 10, 50, 210, 500, 3000))
        return text[:at] + span * times + text[at:], f"repeat {span[:20]!r} x{times}"

    def nest(self, text: str) -> tuple[str, str]:
        """An opening written many times and its closing as often, further on."""
        rng = self.rng
        opening, closing = rng.choice(
            (
                ("(", ")"),
                ("{", "}"),
                ("-(", ")"),
                ("!(", ")"),
                ("if (true) { ", " }"),
                ("select(1) { case(1) { ", " } }"),
                ("@{ ", " }"),
                ("{ a = ", "; }"),
                ("<plain>", "</plain>"),
                ("[", "]"),
            )
        )
        times = rng.choice((5, 39, 41, 99, 150, 201, 500))
        start = self.position(text)
        end = min(len(text), start + rng.choice((0, 1, 5, 30)))
        return (
            text[:start] + opening * times + text[start:end] + closing * times + text[end:],
            f"nest {opening!r} x{times}",
        )

    def number(self, text: str) -> tuple[str, str]:
        found = list(re.finditer(r"\d+(?:\.\d+)?", text))
        if not found:
            return self.insert(text, EXTREME_NUMBERS)
        match = self.rng.choice(found)
        value = self.rng.choice(EXTREME_NUMBERS)
        return text[: match.start()] + value + text[match.end() :], f"number {value[:12]}"

    def rename(self, text: str) -> tuple[str, str]:
        """A name written where another one was."""
        names = list(re.finditer(r"[A-Za-z_]\w*", text))
        if len(names) < 2:
            return self.delete(text)
        old, new = self.rng.choice(names), self.rng.choice(names).group()
        return text[: old.start()] + new + text[old.end() :], f"rename {old.group()}->{new}"

    def splice(self, text: str) -> tuple[str, str]:
        other = self.rng.choice(self.seeds)
        data = other.files[self.rng.choice(sorted(other.files))].decode("utf-8", "replace")
        start = self.rng.randrange(len(data) + 1)
        piece = data[start : start + self.rng.choice((10, 80, 400))]
        at = self.position(text)
        return text[:at] + piece + text[at:], f"splice from {other.name}"

    def swap_lines(self, text: str) -> tuple[str, str]:
        lines = text.split("\n")
        if len(lines) < 2:
            return self.delete(text)
        a, b = self.rng.randrange(len(lines)), self.rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
        return "\n".join(lines), "swap lines"

    def truncate(self, text: str) -> tuple[str, str]:
        at = self.rng.randrange(len(text) + 1)
        return text[:at], "truncate"

    def bytes_noise(self, data: bytes) -> tuple[bytes, str]:
        changed = bytearray(data)
        for _ in range(self.rng.choice((1, 2, 8))):
            at = self.rng.randrange(len(changed) + 1)
            changed[at:at] = bytes([self.rng.randrange(256)])
        return bytes(changed), "bytes"

    def json_change(self, text: str) -> tuple[str, str] | None:
        """An answers file or other JSON with one value made extreme."""
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return None
        paths: list[list[object]] = []
        _paths(value, [], paths)
        if not paths:
            return None
        path = self.rng.choice(paths)
        new = self.rng.choice(EXTREME_JSON)
        if new == "NaN":
            new = float("nan")
        changed = _replace(value, path, new)
        encoded = json.dumps(changed, ensure_ascii=self.rng.random() < 0.5)
        encoded = encoded.replace('"__BIG__"', "1" + "0" * 5000)  # past what json.dumps writes
        if self.rng.random() < 0.1:
            encoded = "[" * 5000 + encoded + "]" * 5000
        return encoded, f"json {path[-3:]} = {str(new)[:20]}"


def _paths(value: object, path: list[object], found: list[list[object]]) -> None:
    found.append(path)
    if len(found) > 500:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _paths(item, [*path, key], found)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _paths(item, [*path, index], found)


def _replace(value: object, path: list[object], new: object) -> object:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {
            key: _replace(item, rest, new) if key == head else item for key, item in value.items()
        }
    if isinstance(value, list):
        return [
            _replace(item, rest, new) if index == head else item for index, item in enumerate(value)
        ]
    return value
