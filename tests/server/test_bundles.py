"""Bundles: uploads are bounded and cannot leave their folder; imports and loadXML stay
inside the bundle and Lore's library; errors are shown with the file, line and caret."""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from pathlib import Path

import pytest

from lore.server.bundles import (
    MAX_FILE,
    BundleError,
    checked,
    choose_entry,
    confined,
    materialize,
    read_zip,
    title_of,
)
from lore.server.sources import load
from tests.server.serving import EXAMPLES, PAPER


def zipped(files: dict[str, bytes], links: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


@pytest.mark.parametrize(
    # (".": a path of no parts, whose first part was looked at: an IndexError, a 500)
    "name",
    ["../escape.lore", "/abs.lore", "a/../../b.lore", "c:\\x.lore", "a\\..\\b.lore", "."],
)
def test_entries_outside_the_folder_are_refused(name: str) -> None:
    with pytest.raises(BundleError, match="outside the bundle"):
        read_zip(zipped({name: b"x", "scenario.lore": b"x"}))


def test_links_big_files_and_non_zips_are_refused() -> None:
    with pytest.raises(BundleError, match="symbolic link"):
        read_zip(zipped({"scenario.lore": b"x"}, links=("rules.lore",)))
    with pytest.raises(BundleError, match="larger than"):
        read_zip(zipped({"scenario.lore": b"x" * (MAX_FILE + 1)}))
    with pytest.raises(BundleError, match="not a zip"):
        read_zip(b"PK\x03\x04 nonsense")
    with pytest.raises(BundleError, match="twice"):
        read_zip(zipped({"a/Scenario.lore": b"x", "a/scenario.lore": b"y"}))


def damaged(data: bytes) -> bytes:
    """A zip of one deflated file with a byte of its compressed data changed, so that
    inflating it fails (``invalid distance too far back``, say)."""
    start = data.index(b"scenario.lore") + len("scenario.lore")
    for at in range(start + 8, start + 60):
        changed = data[:at] + bytes([data[at] ^ 0xA5]) + data[at + 1 :]
        try:
            with zipfile.ZipFile(io.BytesIO(changed)) as archive:
                archive.read("scenario.lore")
        except zlib.error:
            return changed
        except zipfile.BadZipFile:
            continue
    raise AssertionError("no change broke the compressed data")


def test_entries_that_cannot_be_inflated_or_have_no_name_are_refused() -> None:
    # The server fuzzing's uploads: a changed byte in deflated data raised zlib.error,
    # an entry with an empty name an IndexError in ZipInfo.is_dir: each a 500.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("scenario.lore", "section s { x = 1; }\n" * 200)
    with pytest.raises(BundleError, match=r"'scenario\.lore' cannot be unpacked"):
        read_zip(damaged(buffer.getvalue()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("scenario.lore", "x")
        info = zipfile.ZipInfo("_")
        info.filename = ""
        archive.writestr(info, "y")
    with pytest.raises(BundleError, match="outside the bundle"):
        read_zip(buffer.getvalue())


@pytest.mark.parametrize(
    ("files", "refusal"),
    [
        ({"scenario.lore": b"x", "scenario.lore/b.lore": b"y"}, "is a file and a folder"),
        ({"scenario.lore": b"x", "a.md": b"", "A.MD/b.lore": b"y"}, "is a file and a folder"),
        ({"scenario.lore": b"x", "a" * 300 + ".png": b"x"}, "over 100 characters long"),
        ({"scenario.lore": b"x", "/".join(["d"] * 2000) + "/a.lore": b"x"}, "folders deep"),
    ],
)
def test_paths_no_folder_could_hold_are_refused(files: dict[str, bytes], refusal: str) -> None:
    with pytest.raises(BundleError, match=refusal):
        read_zip(zipped(files))


def test_a_lore_file_that_is_not_text_is_refused_with_its_name(tmp_path: Path) -> None:
    folder = materialize(tmp_path, "d2", {"scenario.lore": b"section s {\0}"})
    with pytest.raises(BundleError) as caught:
        checked(folder, "scenario.lore")
    (problem,) = caught.value.problems
    assert problem.file == "scenario.lore" and "not a text file" in problem.text()


def test_a_bundle_that_cannot_be_written_out_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="cannot be written out"):
        materialize(tmp_path, "d3", {"a.lore": b"x", "a.lore/b.lore": b"y"})
    assert list(tmp_path.iterdir()) == []


def test_a_zip_of_one_folder_is_that_folders_files_and_others_are_left_out() -> None:
    files = read_zip(zipped({"game/scenario.lore": b"s", "game/map.xml": b"m", "game/x.exe": b"!"}))
    assert files == {"scenario.lore": b"s", "map.xml": b"m"}
    assert choose_entry(files) == "scenario.lore"
    assert choose_entry({"save.lore": b"", "scenario.lore": b""}) == "save.lore"
    with pytest.raises(BundleError, match="which file starts"):
        choose_entry({"a.lore": b"", "b.lore": b""})


@pytest.mark.parametrize(
    "text",
    [
        'import "/etc/passwd":url;',
        'import "../outside.lore":url;',
        'import "file:///etc/hosts":url;',
        'section s { g = ("../../etc/x.xml":url).loadXML; }',
        'section s { g = ("/etc/x.xml":url).loadXML; }',
    ],
)
def test_files_named_outside_the_bundle_are_refused_before_anything_is_read(text: str) -> None:
    problems = confined({"scenario.lore": text.encode()})
    assert len(problems) == 1
    assert problems[0].file == "scenario.lore" and problems[0].line == 1
    assert "outside the bundle" in problems[0].message


def test_imports_inside_the_bundle_and_the_library_are_fine() -> None:
    files = {
        "scenario.lore": b'import "basic.lore":url; import "rules/r.lore":url;',
        "rules/r.lore": b'import "../maps/m.lore":url; section r { g = ("x.xml":url).loadXML; }',
    }
    assert confined(files) == []


def test_errors_name_the_file_in_the_bundle_with_line_and_caret(tmp_path: Path) -> None:
    files = {
        "scenario.lore": b'import "basic.lore":url;\nimport "rules.lore":url;\n',
        "rules.lore": b"section r {\n x = list<Featur>.empty;\n}\n",
    }
    folder = materialize(tmp_path, "d1", files)
    with pytest.raises(BundleError) as caught:
        checked(folder, "scenario.lore")
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == ("rules.lore", 2)
    headline, _, source, caret = problem.text().splitlines()[:4]
    assert headline == f"rules.lore:2:{problem.column}: error: unknown type 'Featur'"
    assert source == "2 |  x = list<Featur>.empty;" and "^^^^^^" in caret
    assert str(tmp_path) not in problem.text()


def test_examples_load_as_bundles() -> None:
    bundle = load(PAPER)
    assert bundle.entry == "scenario.lore" and "dungeon.xml" in bundle.files
    assert bundle.title == "シナリオ・サンプル"
    single = load(EXAMPLES / "hello.lore")
    assert single.entry == "hello.lore" and set(single.files) == {"hello.lore"}
    assert title_of({"x.lore": b"section s {}"}, "x.lore", "fallback") == "fallback"
