"""Diagnostics over the protocol: as lore check finds them, in UTF-16 columns, never
for a superseded version."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lore.semantics.check import check_paths, ordered_diagnostics
from lore.syntax.source import SourceFile
from lore.world.static import check_world
from tests.lsp.client import REPO, Client

CLEAN = "section s {\n    alpha = 1;\n    b = alpha + 1;\n}\n"
TYPO = "section s {\n    alpha = 1;\n    b = alpah + 1;\n}\n"


def test_a_typo_appears_and_goes_away(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "edit.lore"
    path.write_text(CLEAN, encoding="utf-8")
    uri = client.open(path)
    assert client.diagnostics(uri, 1)["diagnostics"] == []
    version = client.change(uri, TYPO)
    found = client.diagnostics(uri, version)["diagnostics"]
    assert [d["code"] for d in found] == ["check.undefined"]
    assert found[0]["range"] == {
        "start": {"line": 2, "character": 8},
        "end": {"line": 2, "character": 13},
    }
    assert "undefined name 'alpah'" in found[0]["message"]
    assert "did you mean 'alpha'?" in found[0]["message"]
    version = client.change(uri, CLEAN)
    assert client.diagnostics(uri, version)["diagnostics"] == []


@pytest.mark.parametrize("before", ['"リン"', '"竜🐉の巣"', '"ｱｲｳ" + "かな"'])
def test_columns_count_utf16_units_on_japanese_text(
    client: Client, tmp_path: Path, before: str
) -> None:
    line = f"    a = {before}; b = zz;"
    path = tmp_path / "japanese.lore"
    path.write_text(f"section s {{\n{line}\n}}\n", encoding="utf-8")
    uri = client.open(path)
    found = client.diagnostics(uri, 1)["diagnostics"]
    start = line.index("zz")
    units = len(line[:start].encode("utf-16-le")) // 2
    assert units != start or "🐉" not in before  # a character outside the BMP counts two
    assert found[0]["range"]["start"] == {"line": 1, "character": units}
    assert found[0]["range"]["end"] == {"line": 1, "character": units + 2}


def test_utf8_positions_when_the_client_asks_for_them(tmp_path: Path) -> None:
    other = Client(encodings=["utf-8"])
    try:
        assert other.initialized["capabilities"]["positionEncoding"] == "utf-8"
        line = '    a = "リン"; b = zz;'
        path = tmp_path / "bytes.lore"
        path.write_text(f"section s {{\n{line}\n}}\n", encoding="utf-8")
        uri = other.open(path)
        found = other.diagnostics(uri, 1)["diagnostics"]
        start = len(line[: line.index("zz")].encode("utf-8"))
        assert found[0]["range"]["start"] == {"line": 1, "character": start}
    finally:
        other.close()


def test_200_rapid_edits_publish_nothing_stale(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "rapid.lore"
    path.write_text(CLEAN, encoding="utf-8")
    uri = client.open(path)
    client.diagnostics(uri, 1)
    last = 1
    for index in range(200):  # odd edits have the typo, even ones not
        last = client.change(uri, TYPO if index % 2 == 0 else CLEAN + "\n" * index)
    final = client.diagnostics(uri, last)
    assert final["diagnostics"] == []  # the 200th edit is clean
    # nothing else for this file came before the newest version's own publication
    seen = [p for p in client.publications() if p["uri"] == uri]
    assert seen == []
    # a symbol request answers for the newest text, too
    assert client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})


def test_publications_are_in_version_order_and_match_their_text(
    client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "ordered.lore"
    path.write_text(CLEAN, encoding="utf-8")
    uri = client.open(path)
    client.diagnostics(uri, 1)
    typo_in: dict[int, bool] = {}
    last = 1
    for index in range(60):
        typo = index % 3 == 0
        last = client.change(uri, TYPO if typo else CLEAN)
        typo_in[last] = typo
        if index % 10 == 9:
            time.sleep(0.05)  # let some publications through
    final = client.diagnostics(uri, last)
    time.sleep(0.2)
    seen = [p for p in client.publications() if p["uri"] == uri]
    assert seen == []  # none after the newest version's
    assert bool(final["diagnostics"]) == typo_in[last]


def test_publications_in_between_carry_their_own_version(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "between.lore"
    path.write_text(CLEAN, encoding="utf-8")
    uri = client.open(path)
    client.diagnostics(uri, 1)
    typo_in: dict[int, bool] = {}
    published: list[dict[str, object]] = []
    last = 1
    for index in range(30):
        last = client.change(uri, TYPO if index % 2 else CLEAN)
        typo_in[last] = bool(index % 2)
        time.sleep(0.03)
        published.extend(p for p in client.publications() if p["uri"] == uri)
    if not published or published[-1]["version"] != last:
        published.append(client.diagnostics(uri, last))
    versions = [int(p["version"]) for p in published]  # type: ignore[call-overload]
    assert versions == sorted(set(versions))
    assert len(versions) > 1
    for publication, version in zip(published, versions, strict=True):
        assert bool(publication["diagnostics"]) == typo_in[version]


def _invalid_programs() -> list[Path]:
    corpus = REPO / "tests" / "semantics" / "corpus" / "invalid"
    return sorted(corpus.glob("*.lore"))[::6]


EXAMPLES = sorted(
    path
    for path in (REPO / "examples").rglob("*.lore")
    if path.name in ("scenario.lore", "hello.lore", "game.lore")
)


@pytest.mark.parametrize(
    "path", EXAMPLES + _invalid_programs(), ids=lambda p: str(p.relative_to(REPO))
)
def test_every_diagnostic_of_lore_check_comes_over_the_protocol(client: Client, path: Path) -> None:
    result = check_paths([path])
    expected = ordered_diagnostics(result.program, result.diagnostics + check_world(result))
    root = next(m for m in result.program.modules if m.is_root)
    wanted = sorted(
        (*_place(d.source, d.span.start), *_place(d.source, d.span.end), d.code, d.message)
        for d in expected
        if d.source is root.source
    )
    uri = client.open(path)
    found = client.diagnostics(uri, 1)["diagnostics"]
    got = sorted(
        (
            d["range"]["start"]["line"],
            d["range"]["start"]["character"],
            d["range"]["end"]["line"],
            d["range"]["end"]["character"],
            d["code"],
            d["message"].split("\nhint: ")[0],
        )
        for d in found
    )
    assert got == wanted
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def _place(source: SourceFile, offset: int) -> tuple[int, int]:
    """A line (from 0) and a column in UTF-16 units, counted here on the line's text."""
    position = source.position(offset)
    before = source.line_text(position.line)[: position.column - 1]
    return position.line - 1, len(before.encode("utf-16-le")) // 2
