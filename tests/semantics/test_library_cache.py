"""Parsed library files are kept between processes, and a bad cache only costs a parse."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from lore.semantics import library_cache
from lore.semantics.program import LIBRARY_DIR, PRELUDE, load_program
from lore.syntax import parser
from lore.syntax.dump import dump
from lore.syntax.source import SourceFile, Span

REPO = Path(__file__).resolve().parents[2]
PRELUDE_PATH = LIBRARY_DIR / PRELUDE


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "cache"
    monkeypatch.setenv("LORE_CACHE_DIR", str(folder))
    yield folder


def prelude_source() -> SourceFile:
    return SourceFile.from_path(PRELUDE_PATH, "<lore>/prelude.lore")


def kept(folder: Path) -> Path:
    return folder / library_cache.cache_name(prelude_source())


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files parsed from now on."""
    parsed: list[str] = []
    real = parser.parse

    def counting(source: SourceFile) -> parser.ParseResult:
        parsed.append(source.name)
        return real(source)

    monkeypatch.setattr(library_cache, "parse", counting)
    return parsed


def test_a_library_file_parsed_once_is_read_back_as_the_same_tree(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parses = count_parses(monkeypatch)
    first = library_cache.parsed(prelude_source())
    assert parses == ["<lore>/prelude.lore"]
    assert kept(cache).stat().st_mode & 0o077 == 0
    again = library_cache.parsed(prelude_source())
    assert parses == ["<lore>/prelude.lore"]  # not parsed again
    assert again.module is not first.module
    assert dump(again.module) == dump(first.module)
    assert again.module == first.module  # spans too
    assert again.comments == first.comments and again.diagnostics == []
    assert again.source is not None and again.source.name == "<lore>/prelude.lore"


def test_programs_load_the_kept_prelude(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hello = REPO / "examples" / "hello.lore"
    fresh = load_program([hello])
    parses = count_parses(monkeypatch)
    kept_program = load_program([hello])
    assert parses == []  # the prelude and basic.lore both came from the cache
    assert [dump(m.tree) for m in kept_program.modules] == [dump(m.tree) for m in fresh.modules]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",
        lambda data: b"not a pickle at all",
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: data[:-40] + bytes(40),  # the end overwritten
        lambda data: data.replace(b"Event", b"Evenu"),  # the header's text differs
    ],
    ids=["empty", "garbage", "truncated", "zeroed-end", "other-text"],
)
def test_a_damaged_cache_file_is_parsed_anew_and_replaced(
    cache: Path, monkeypatch: pytest.MonkeyPatch, damage: object
) -> None:
    expected = library_cache.parsed(prelude_source())
    path = kept(cache)
    good = path.read_bytes()
    path.write_bytes(damage(good))  # type: ignore[operator]
    parses = count_parses(monkeypatch)
    result = library_cache.parsed(prelude_source())
    assert parses == ["<lore>/prelude.lore"]
    assert result.module == expected.module and result.comments == expected.comments
    assert path.read_bytes() == good  # written again


def test_an_edited_library_file_is_parsed_anew(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library_cache.parsed(prelude_source())
    edited = prelude_source()
    edited = SourceFile(edited.name, edited.text + "\nform Extra {}\n", edited.path)
    result = library_cache.parsed(edited)
    assert result.module.body[-1].name == "Extra"  # type: ignore[attr-defined]
    assert library_cache.parsed(prelude_source()).module != result.module


def test_a_cache_file_others_may_write_is_not_read(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library_cache.parsed(prelude_source())
    os.chmod(kept(cache), 0o666)
    parses = count_parses(monkeypatch)
    library_cache.parsed(prelude_source())
    assert parses == ["<lore>/prelude.lore"]


def test_a_cache_file_of_the_right_header_but_wrong_nodes_is_parsed_anew(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = prelude_source()
    expected = library_cache.parsed(source)
    header = library_cache._header(source)
    span = library_cache.node_classes().index(Span)
    for tree in ([span, 1], [span, 1, 2, 3], "text", [10**6, 1], (1, 2)):
        data = marshal.dumps((header, tree, []))
        kept(cache).write_bytes(zlib.crc32(data).to_bytes(4, "big") + data)
        parses = count_parses(monkeypatch)
        assert library_cache.parsed(source).module == expected.module
        assert parses == ["<lore>/prelude.lore"]


def test_encode_and_decode_agree(cache: Path) -> None:
    tree = library_cache.parsed(prelude_source()).module
    assert library_cache.decode(library_cache.encode(tree)) == tree
    with pytest.raises(library_cache.Unkept):
        library_cache.encode(Span(1, [2]))  # type: ignore[arg-type]


def test_a_file_with_problems_is_not_kept(cache: Path) -> None:
    broken = SourceFile("<lore>/broken.lore", "form X { x : ; }\n", None)
    result = library_cache.parsed(broken)
    assert result.diagnostics
    assert not (cache / library_cache.cache_name(broken)).exists()


def test_an_empty_cache_dir_turns_the_cache_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    parses = count_parses(monkeypatch)
    library_cache.parsed(prelude_source())
    library_cache.parsed(prelude_source())
    assert parses == ["<lore>/prelude.lore"] * 2
    assert list(tmp_path.iterdir()) == []


def test_a_cache_folder_that_cannot_be_made_only_costs_a_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would be", encoding="utf-8")
    monkeypatch.setenv("LORE_CACHE_DIR", str(blocker / "cache"))
    assert library_cache.parsed(prelude_source()).module.body


def test_lore_check_with_a_corrupt_cache_says_the_same(cache: Path) -> None:
    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "lore", "check", "examples/hello.lore", "examples/hello.lore"],
            capture_output=True,
            text=True,
            cwd=REPO,
            env={**os.environ, "LORE_CACHE_DIR": str(cache)},
            check=False,
        )

    first = check()
    assert first.returncode == 0, first.stdout + first.stderr
    for path in cache.iterdir():
        path.write_bytes(b"\x80\x05garbage")
    again = check()
    assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, first.stderr)
