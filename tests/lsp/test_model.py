"""The program model: parsed files kept by their text, imported bodies checked once per
set of texts, open files read from the editor's text, dependents checked again."""

from __future__ import annotations

from pathlib import Path

from lore.lsp.model import ProgramModel
from tests.lsp.client import REPO, Client

SCENARIO = REPO / "examples" / "orm" / "scenario.lore"
LIB = "section lib {\n    bonus = 2;\n}\n"
MAIN = 'import "lib.lore":url;\n\nsection main {\n    total = bonus + 1;\n}\n'


def test_an_edit_checks_the_imported_bodies_once() -> None:
    model = ProgramModel()
    text = SCENARIO.read_text(encoding="utf-8")
    model.open(SCENARIO, text, 1)
    first = model.check(SCENARIO)
    assert model.full_checks == 1
    orm = next(m for m in first.result.program.modules if m.source.name.endswith("orm.lore"))
    model.open(SCENARIO, text + "\n// an edit\n", 2)
    second = model.check(SCENARIO)
    assert model.full_checks == 1  # the library's bodies were not checked again
    assert second.version == 2 and second.result.diagnostics == []
    again = next(m for m in second.result.program.modules if m.source.name.endswith("orm.lore"))
    assert again.parsed is orm.parsed  # nor parsed again
    # the uses found in the library's bodies still count (references into it)
    assert len(second.index.by_file[orm.source.name]) == len(first.index.by_file[orm.source.name])


def test_an_edited_import_is_read_from_the_editor(tmp_path: Path) -> None:
    (tmp_path / "lib.lore").write_text(LIB, encoding="utf-8")
    main = tmp_path / "main.lore"
    main.write_text(MAIN, encoding="utf-8")
    model = ProgramModel()
    model.open(main, MAIN, 1)
    assert model.check(main).result.diagnostics == []
    model.open(tmp_path / "lib.lore", LIB.replace("bonus", "malus"), 1)  # not saved
    checked = model.check(main)
    assert [d.code for d in checked.result.diagnostics] == ["check.undefined"]
    assert model.full_checks == 2  # the import's new text: its bodies checked anew
    assert model.dependents(tmp_path / "lib.lore") == [main.resolve()]


def test_an_open_file_that_imports_an_edited_one_is_checked_again(
    client: Client, tmp_path: Path
) -> None:
    (tmp_path / "lib.lore").write_text(LIB, encoding="utf-8")
    main = tmp_path / "main.lore"
    main.write_text(MAIN, encoding="utf-8")
    main_uri = client.open(main)
    assert client.diagnostics(main_uri, 1)["diagnostics"] == []
    lib_uri = client.open(tmp_path / "lib.lore")
    client.diagnostics(lib_uri, 1)
    version = client.change(lib_uri, LIB.replace("bonus", "malus"))
    client.diagnostics(lib_uri, version)
    found = client.diagnostics(main_uri, 1)["diagnostics"]
    assert [d["code"] for d in found] == ["check.undefined"]
    client.change(lib_uri, LIB)
    assert client.diagnostics(main_uri, 1)["diagnostics"] == []


def test_a_saved_import_checks_its_open_dependents_again(client: Client, tmp_path: Path) -> None:
    lib = tmp_path / "lib.lore"
    lib.write_text(LIB, encoding="utf-8")
    main = tmp_path / "main.lore"
    main.write_text(MAIN, encoding="utf-8")
    main_uri = client.open(main)
    assert client.diagnostics(main_uri, 1)["diagnostics"] == []
    lib.write_text(LIB.replace("bonus", "malus"), encoding="utf-8")  # not open: on disk
    client.notify(
        "workspace/didChangeWatchedFiles", {"changes": [{"uri": lib.as_uri(), "type": 2}]}
    )
    found = client.diagnostics(main_uri, 1)["diagnostics"]
    assert [d["code"] for d in found] == ["check.undefined"]
