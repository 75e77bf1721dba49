"""Go to definition, references and rename over the protocol, across imports."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lsp.client import REPO, Client

SCENARIO = REPO / "examples" / "orm" / "scenario.lore"
ORM = REPO / "src" / "lore" / "lib" / "orm.lore"


def _line_of(path: Path, text: str) -> tuple[int, int]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if text in line:
            return number, line.index(text)
    raise AssertionError(text)


@pytest.fixture(scope="module")
def scenario(client: Client) -> str:
    uri = client.open(SCENARIO)
    client.diagnostics(uri, 1)
    return uri


def test_definition_across_an_import(client: Client, scenario: str) -> None:
    line, column = _line_of(SCENARIO, "side = Side.pc;")
    found = client.request("textDocument/definition", client.at(scenario, line, column + 8))
    assert found == [
        {
            "uri": ORM.resolve().as_uri(),
            "range": {
                "start": {"line": _line_of(ORM, "enum Side")[0], "character": 9},
                "end": {"line": _line_of(ORM, "enum Side")[0], "character": 13},
            },
        }
    ]


def test_definition_of_an_enum_value(client: Client, scenario: str) -> None:
    line, column = _line_of(SCENARIO, "side = Side.pc;")
    found = client.request("textDocument/definition", client.at(scenario, line, column + 13))
    (place,) = found
    assert place["uri"] == ORM.resolve().as_uri()
    defined = ORM.read_text(encoding="utf-8").splitlines()[place["range"]["start"]["line"]]
    start = place["range"]["start"]["character"]
    assert defined[start : place["range"]["end"]["character"]] == "pc"


def test_references_in_both_files(client: Client, scenario: str) -> None:
    line, column = _line_of(SCENARIO, "side = Side.pc;")
    params = {**client.at(scenario, line, column + 8), "context": {"includeDeclaration": True}}
    found = client.request("textDocument/references", params)
    files = {place["uri"] for place in found}
    assert files == {SCENARIO.resolve().as_uri(), ORM.resolve().as_uri()}
    in_scenario = [p for p in found if p["uri"] == scenario]
    text = SCENARIO.read_text(encoding="utf-8")
    assert len(in_scenario) == text.count("Side.")
    params["context"] = {"includeDeclaration": False}
    without = client.request("textDocument/references", params)
    assert len(without) == len(found) - 1


LIB = "section lib {\n    bonus = 2;\n    twice = bonus * 2;\n}\n"
MAIN = 'import "lib.lore":url;\n\nsection main {\n    total = bonus + lib.bonus;\n}\n'


def test_rename_across_files(client: Client, tmp_path: Path) -> None:
    (tmp_path / "lib.lore").write_text(LIB, encoding="utf-8")
    main = tmp_path / "main.lore"
    main.write_text(MAIN, encoding="utf-8")
    uri = client.open(main)
    assert client.diagnostics(uri, 1)["diagnostics"] == []
    where = client.at(uri, 3, 13)
    prepared = client.request("textDocument/prepareRename", where)
    assert prepared["start"] == {"line": 3, "character": 12}
    edit = client.request("textDocument/rename", {**where, "newName": "extra"})
    changes = edit["changes"]
    lib_uri = (tmp_path / "lib.lore").resolve().as_uri()
    assert set(changes) == {uri, lib_uri}
    assert sorted(e["range"]["start"]["character"] for e in changes[uri]) == [12, 24]
    assert sorted(e["range"]["start"]["line"] for e in changes[lib_uri]) == [1, 2]
    assert {e["newText"] for edits in changes.values() for e in edits} == {"extra"}


def test_rename_refuses_a_library_name_and_a_bad_name(client: Client, scenario: str) -> None:
    line, column = _line_of(SCENARIO, "side = Side.pc;")
    where = client.at(scenario, line, column + 8)
    assert client.request("textDocument/prepareRename", where) is None
    with pytest.raises(RuntimeError, match="Lore's library"):
        client.request("textDocument/rename", {**where, "newName": "Team"})
    line, column = _line_of(SCENARIO, "rin = {")
    with pytest.raises(RuntimeError, match="not a name"):
        client.request(
            "textDocument/rename", {**client.at(scenario, line, column), "newName": "1x"}
        )
