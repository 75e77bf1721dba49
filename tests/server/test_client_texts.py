"""The web client's texts: every text it shows comes from its one catalogue
(``src/lore/web/i18n.js``), in Japanese and in English.

Read from the sources: the catalogue's two languages must have the same keys, none empty;
every key the page's code or HTML names (``t("key")``, ``tf("key", ...)``, ``data-i18n``
and its ``-aria`` and ``-placeholder`` kinds) must be in it; so must a text for every
error code of the protocol (the client shows ``error_<code>``). And no text is written
in the code or the HTML themselves: a string shown (put in an element by ``node``, set as
``textContent``, ``title``, ``placeholder``, or asked by ``confirm``) holds no letters,
only marks (``→``, ``●``, a die).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from lore.server.protocol import Code
from tests.server.serving import REPO

WEB = REPO / "src" / "lore" / "web"
STRING = r'"((?:[^"\\\n]|\\.)*)"'
SHOWN_HTML_ATTRIBUTES = ("aria-label", "placeholder", "title", "alt")
PRODUCT = "Lore"  # the name of the program: the same in every language


def catalogue(source: str) -> dict[str, dict[str, str]]:
    """The languages of ``TEXTS`` in i18n.js, each as key -> text."""
    found: dict[str, dict[str, str]] = {}
    body = source[source.index("const TEXTS = {") :]
    for match in re.finditer(r"^  (\w+): \{\n(.*?)^  \},", body, re.M | re.S):
        entries = {}
        for line in match.group(2).splitlines():
            if line.strip().startswith("//"):
                continue  # (a comment heading a block of texts)
            entry = re.fullmatch(rf"\s*(\w+): {STRING},?\s*", line)
            assert entry is not None, f"i18n.js: not a text of the catalogue: {line!r}"
            key = entry.group(1)
            assert key not in entries, f"i18n.js: '{key}' twice in '{match.group(1)}'"
            entries[key] = entry.group(2)
        found[match.group(1)] = entries
    return found


def scripts() -> dict[str, str]:
    return {path.name: path.read_text("utf-8") for path in sorted(WEB.glob("*.js"))}


def keys_named(sources: dict[str, str]) -> set[tuple[str, str]]:
    """(file, key) of every catalogue key the code and the HTML name as a literal: the
    strings of a ``t(...)`` or ``tf(...)`` call's first argument (``t(away ? "a" :
    "b")`` names both; a key made by a template, ``error_${code}``, is left to the test
    of the error codes), ``data-i18n`` attributes and the keys a dialog is locked by."""
    named = set()
    patterns = [
        r"data-i18n(?:-aria|-placeholder)?=\"([^\"]*)\"",
        rf"\"data-i18n(?:-aria|-placeholder)?\": {STRING}",
        rf"dataset\.i18n\w* = {STRING}",
        rf"setLocked\({STRING}",
        rf"locked = {STRING}",
    ]
    for name, source in sources.items():
        for pattern in patterns:
            named.update((name, match.group(1)) for match in re.finditer(pattern, source))
        for match in re.finditer(r"\btf?\(", source):
            first = arguments(source, match.end() - 1)[0]
            if "${" not in first:
                named.update((name, key) for key in shown_literals(first))
    return named


def arguments(source: str, start: int) -> list[str]:
    """The arguments of the call whose "(" is at ``start``, as source text."""
    depth, quote, current, found = 0, "", "", []
    i = start + 1
    while i < len(source):
        char = source[i]
        if quote:
            current += char
            if char == "\\":
                current += source[i + 1]
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'`":
            quote = char
            current += char
        elif char in "([{":
            depth += 1
            current += char
        elif char in ")]}" and depth > 0:
            depth -= 1
            current += char
        elif char == ")" or (char == "," and depth == 0):
            found.append(current.strip())
            current = ""
            if char == ")":
                return found
        else:
            current += char
        i += 1
    raise AssertionError("a call is not closed")


def shown_literals(expression: str) -> list[str]:
    """The literal texts an expression may show: its strings and the fixed parts of its
    template strings, leaving out those that are keys (``t("…")``), compared (``=== "…"``)
    or looked up (``["…"]``)."""
    found = []
    spans = re.finditer(rf"{STRING}|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`", expression)
    for match in spans:
        before = expression[: match.start()].rstrip()
        after = expression[match.end() :].lstrip()
        if re.search(r"\btf?\($|[=!]==?$|\[$|\.includes\($", before) or after.startswith(
            ("===", "!==")
        ):
            continue
        text = next(g for g in match.groups() if g is not None) if any(match.groups()) else ""
        found.append(re.sub(r"\$\{[^}]*\}", "", text))
    return found


def has_letters(text: str) -> bool:
    """Whether a text (escapes such as ``\\n`` aside, and the program's name) has
    letters."""
    text = re.sub(r"\\.", "", text).replace(PRODUCT, "")
    return any(unicodedata.category(char).startswith("L") for char in text)


def hard_coded(name: str, source: str) -> list[str]:
    """The texts with letters that a script shows without the catalogue."""
    problems = []
    places: list[tuple[int, str]] = []
    for match in re.finditer(r"\bnode\(", source):
        given = arguments(source, match.end() - 1)
        if len(given) >= 4:
            places.append((match.start(), given[3]))
    for match in re.finditer(r"\b(?:window\.)?(?:confirm|prompt|alert)\(", source):
        places.append((match.start(), arguments(source, match.end() - 1)[0]))
    for match in re.finditer(r"\.(?:textContent|title|placeholder) = ([^;]*);", source):
        places.append((match.start(), match.group(1)))
    for at, expression in places:
        for text in shown_literals(expression):
            if has_letters(text):
                line = source.count("\n", 0, at) + 1
                problems.append(f"{name}:{line}: {text!r} is shown but not in the catalogue")
    return problems


def html_texts(html: str) -> list[str]:
    """The texts an HTML page shows itself (not through data-i18n)."""
    problems = []
    for match in re.finditer(r">([^<]+)<", html):
        text = match.group(1).strip()
        if has_letters(text):
            problems.append(f"index.html: the text {text!r} is not in the catalogue")
    for attribute in SHOWN_HTML_ATTRIBUTES:
        for match in re.finditer(rf"\s{attribute}=\"([^\"]*)\"", html):
            if has_letters(match.group(1)):
                problems.append(f"index.html: {attribute}={match.group(1)!r} is not translated")
    return problems


@pytest.fixture(scope="module")
def texts() -> dict[str, dict[str, str]]:
    return catalogue((WEB / "i18n.js").read_text("utf-8"))


def test_the_catalogue_has_both_languages_for_every_key(texts: dict[str, dict[str, str]]) -> None:
    assert set(texts) == {"en", "ja"}
    en, ja = texts["en"], texts["ja"]
    assert sorted(set(en) - set(ja)) == [], "in English only"
    assert sorted(set(ja) - set(en)) == [], "in Japanese only"
    assert [key for key in en if not en[key].strip() or not ja[key].strip()] == []
    assert len(en) > 50  # (the catalogue was read, not an empty match)


def test_every_key_the_client_names_is_in_the_catalogue(texts: dict[str, dict[str, str]]) -> None:
    sources = scripts()
    sources["index.html"] = (WEB / "index.html").read_text("utf-8")
    named = keys_named(sources)
    assert len(named) > 40
    missing = sorted(f"{name}: {key}" for name, key in named if key not in texts["en"])
    assert missing == []


def test_every_error_code_has_a_text(texts: dict[str, dict[str, str]]) -> None:
    missing = [code.value for code in Code if f"error_{code.value}" not in texts["en"]]
    assert missing == []


def test_the_client_shows_no_text_outside_the_catalogue() -> None:
    problems = []
    for name, source in scripts().items():
        problems.extend(hard_coded(name, source))
    problems.extend(html_texts((WEB / "index.html").read_text("utf-8")))
    assert problems == []


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    """The scans themselves: a hard-coded text, a key in one language, a key unknown."""
    assert hard_coded("x.js", 'node("p", {}, box, "Nothing to decide");') != []
    assert hard_coded("x.js", 'el.textContent = role === "gm" ? "GM" : label;') != []
    assert hard_coded("x.js", 'node("p", {}, box, `${n} left`);') != []
    assert hard_coded("x.js", 'window.confirm("Sure?")') != []
    assert hard_coded("x.js", 'node("p", {}, box, t("waiting")); x.textContent = "→";') == []
    assert html_texts('<select aria-label="area"></select><p>Hello</p>') != []
    half = (
        'const TEXTS = {\n  en: {\n    a: "A",\n    b: "B",\n  },\n  ja: {\n    a: "ア",\n  },\n};'
    )
    found = catalogue(half)
    assert set(found["en"]) - set(found["ja"]) == {"b"}
    assert keys_named({"x.js": 'tf("seatQuestions", {}); t(a ? "nope" : "you")'}) == {
        ("x.js", "seatQuestions"),
        ("x.js", "nope"),
        ("x.js", "you"),
    }
