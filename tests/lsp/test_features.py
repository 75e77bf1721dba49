"""Hover, completion, outline, semantic tokens, quick fixes, formatting and inlay hints
over the protocol, and cancelled requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lore.lsp.outline import TOKEN_TYPES
from lore.syntax.parser import parse
from lore.syntax.printer import format_module
from lore.syntax.source import SourceFile
from tests.lsp.client import REPO, Client

PROGRAM = """import "basic.lore":url;

section s {
    // How far a step goes.
    stride = 5[m];
    word = "リン";
    n = word.length;
    pool = 3D6;
    rule check {
        r = GM.roll("2D6>=7");
    }
}
"""
WHOLE = {"start": {"line": 0, "character": 0}, "end": {"line": 999, "character": 0}}


@pytest.fixture
def program(client: Client, tmp_path: Path) -> str:
    path = tmp_path / "program.lore"
    path.write_text(PROGRAM, encoding="utf-8")
    uri = client.open(path)
    client.diagnostics(uri, 1)
    return uri


def _hover(client: Client, uri: str, line: int, character: int) -> str:
    found = client.request("textDocument/hover", client.at(uri, line, character))
    assert found is not None
    return str(found["contents"]["value"])


def test_hover_shows_type_unit_and_doc_comment(client: Client, program: str) -> None:
    text = _hover(client, program, 4, 6)
    assert "value s.stride : unit[m]" in text
    assert "unit: [m]" in text
    assert "How far a step goes." in text


def test_hover_on_a_builtin_shows_its_reference_entry(client: Client, program: str) -> None:
    text = _hover(client, program, 6, 15)  # word.length
    assert "(builtin) length" in text
    assert "integer" in text


def test_hover_on_a_name_from_an_import(client: Client) -> None:
    uri = client.open(REPO / "examples" / "orm" / "scenario.lore")
    client.diagnostics(uri, 1)
    lines = (REPO / "examples" / "orm" / "scenario.lore").read_text(encoding="utf-8")
    line = next(i for i, t in enumerate(lines.splitlines()) if "side = Side.pc;" in t)
    text = _hover(client, uri, line, 17)
    assert "enum orm.Side" in text and "defined in <lore>/orm.lore" in text


def _labels(client: Client, uri: str, line: int, character: int) -> list[str]:
    found = client.request("textDocument/completion", client.at(uri, line, character))
    return [item["label"] for item in found["items"]]


def test_completion_of_names_members_units_and_dice(client: Client, program: str) -> None:
    in_scope = _labels(client, program, 6, 8)
    assert {"stride", "pool", "check", "word", "GM", "section", "max"} <= set(in_scope)
    edited = PROGRAM.replace("n = word.length;", "n = word.;").replace("pool = 3D6", "pool = 3[")
    client.change(program, edited)
    members = _labels(client, program, 6, 13)
    assert "length" in members and "stride" not in members
    assert {"m", "km", "sec"} <= set(_labels(client, program, 7, 13))
    assert "2D6>=7" in _labels(client, program, 9, 21)


def test_completion_of_enum_values(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "enum.lore"
    path.write_text("section s {\n    enum Colour { red, green }\n    c = Colour.red;\n}\n")
    uri = client.open(path)
    client.diagnostics(uri, 1)
    assert {"red", "green"} <= set(_labels(client, uri, 2, 15))


def test_document_symbols_nest(client: Client, program: str) -> None:
    found = client.request("textDocument/documentSymbol", {"textDocument": {"uri": program}})
    assert [s["name"] for s in found] == ["s"]
    children = [c["name"] for c in found[0]["children"]]
    assert children == ["stride", "word", "n", "pool", "check"]
    assert found[0]["children"][0]["selectionRange"]["start"] == {"line": 4, "character": 4}


def _tokens(client: Client, uri: str) -> dict[tuple[int, int], tuple[int, str]]:
    data = client.request("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})[
        "data"
    ]
    assert len(data) % 5 == 0
    found: dict[tuple[int, int], tuple[int, str]] = {}
    line = column = 0
    for index in range(0, len(data), 5):
        delta_line, delta_column, length, kind, _ = data[index : index + 5]
        line += delta_line
        column = column + delta_column if delta_line == 0 else delta_column
        found[(line, column)] = (length, TOKEN_TYPES[kind])
    return found


def test_semantic_tokens(client: Client, program: str) -> None:
    found = _tokens(client, program)
    assert found[(0, 0)] == (6, "keyword")  # import
    assert found[(2, 0)] == (7, "keyword")  # section
    assert found[(3, 4)] == (23, "comment")
    assert found[(4, 4)] == (6, "variable")  # stride
    assert found[(5, 11)] == (4, "string")  # "リン" in UTF-16 units
    assert found[(6, 8)] == (4, "variable")  # word
    assert found[(7, 11)] == (3, "macro")  # 3D6
    assert found[(8, 9)] == (5, "function")  # check


def test_quick_fixes_from_the_checker_hints(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "fix.lore"
    path.write_text("section s {\n    alpha = 1;\n    b = alpah + 1\n}\n", encoding="utf-8")
    uri = client.open(path)
    found = client.diagnostics(uri, 1)["diagnostics"]
    assert {d["code"] for d in found} >= {"parse.expected"}
    fixes = client.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": WHOLE, "context": {"diagnostics": found}},
    )
    titles = {fix["title"]: fix["edit"]["changes"][uri][0] for fix in fixes}
    assert titles["add ';'"]["newText"] == ";"
    assert titles["add ';'"]["range"]["start"] == {"line": 2, "character": 17}
    assert titles["change to 'alpha'"]["newText"] == "alpha"
    assert titles["change to 'alpha'"]["range"]["start"] == {"line": 2, "character": 8}


def test_formatting_is_lore_fmt(client: Client, tmp_path: Path) -> None:
    messy = "section s{\nx=1;\n   y =   x+2;}\n"
    path = tmp_path / "messy.lore"
    path.write_text(messy, encoding="utf-8")
    uri = client.open(path)
    client.diagnostics(uri, 1)
    edits = client.request(
        "textDocument/formatting",
        {"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}},
    )
    expected = format_module(parse(SourceFile("messy.lore", messy)))
    assert [e["newText"] for e in edits] == [expected]
    assert expected != messy


def test_inlay_hints_of_units_and_dice_odds(client: Client, program: str) -> None:
    hints: list[dict[str, Any]] = client.request(
        "textDocument/inlayHint", {"textDocument": {"uri": program}, "range": WHOLE}
    )
    shown = {(h["position"]["line"], h["label"]) for h in hints}
    assert (4, ": unit[m]") in shown
    assert (7, "≈ mean 10.50") in shown  # 3D6
    assert (9, "≈ 58.3% success") in shown  # 2D6>=7: 21/36, as lore odds counts it


def test_cancelled_requests_are_skipped(client: Client, program: str) -> None:
    numbers = []
    for _ in range(20):
        number = client.send_request("textDocument/hover", client.at(program, 4, 6))
        client.notify("$/cancelRequest", {"id": number})
        numbers.append(number)
    answers = [client.response(number) for number in numbers]
    cancelled = [a for a in answers if "error" in a]
    assert cancelled and all(a["error"]["code"] == -32800 for a in cancelled)
    assert _hover(client, program, 4, 6)  # and the server goes on


def test_the_bundled_orm_library_itself(client: Client) -> None:
    path = REPO / "src" / "lore" / "lib" / "orm.lore"
    uri = client.open(path)
    assert client.diagnostics(uri, 1)["diagnostics"] == []
    found = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    (orm,) = [s for s in found if s["name"] == "orm"]
    names = {c["name"]: c["kind"] for c in orm["children"]}
    assert names["Side"] == 10 and names["Ability"] == 10  # enums
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(lines) if "side == Side.pc" in t)
    column = lines[line].index("Side.pc")
    (place,) = client.request("textDocument/definition", client.at(uri, line, column + 1))
    assert place["uri"] == uri
    assert place["range"]["start"]["line"] == next(
        i for i, t in enumerate(lines) if "enum Side" in t
    )
    tokens = _tokens(client, uri)
    assert tokens[(line, column)] == (4, "enum")
    text = _hover(client, uri, line, column + 6)  # pc
    assert "enum value orm.Side.pc" in text


def test_completion_of_the_location_paths_of_the_areas(client: Client, tmp_path: Path) -> None:
    lines = [
        "section s {",
        '    hall = { location = "/hall":loc; description = "広間"; }:Area;',
        '    cellar = { location = "/hall/cellar":loc; description = "地下"; }:Area;',
        '    here = "/ha',
        "}",
    ]
    path = tmp_path / "areas.lore"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    uri = client.open(path)
    client.diagnostics(uri, 1)
    found = client.request("textDocument/completion", client.at(uri, 3, len(lines[3])))
    items = {item["label"]: item for item in found["items"]}
    assert {"/hall", "/hall/cellar"} <= set(items)
    edit = items["/hall/cellar"]["textEdit"]
    assert edit["newText"] == "/hall/cellar"
    assert edit["range"]["start"] == {"line": 3, "character": lines[3].index("/ha")}
