"""The `lore` command itself: the list of commands, and what each command imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lore.cli.main import COMMANDS, build_parser, main, plain_arguments

REPO = Path(__file__).resolve().parents[2]


def test_help_lists_every_command_with_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    for name, (_, help_text) in COMMANDS.items():
        assert f"    {name}" in out
        assert help_text in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_has_its_arguments_and_handler(name: str) -> None:
    parser = build_parser(name)
    choices = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    sub = choices[name]
    assert sub.get_default("handler") is not None
    assert sub.description  # `lore NAME --help` says what the command does


def imported_by(*argv: str) -> set[str]:
    """The modules of Lore that running `lore ARGV` imports (in a fresh interpreter)."""
    code = (
        "import json, sys\n"
        "from lore.cli.main import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_version_imports_no_command() -> None:
    modules = imported_by("--version")
    assert not {name for name in modules if name.startswith("lore.cli.")} - {"lore.cli.main"}
    assert "lore.syntax.parser" not in modules


def test_check_imports_neither_the_engine_nor_slow_libraries() -> None:
    modules = imported_by("check", "examples/hello.lore")
    assert "lore.semantics.checker" in modules
    for slow in ("lore.engine.session", "lore.analysis.simulate", "xmlschema", "tqdm"):
        assert slow not in modules, slow
    assert "multiprocessing" not in modules
    assert "lore.world.geometry" not in modules  # hello.lore has no map


# Libraries that cost `lore check` milliseconds each to import, and that a check of a
# small file does not use (see benchmarks/startup.py): dataclasses imports inspect (with
# ast, dis and tokenize), difflib is for "did you mean" hints, the cache of parsed library
# files uses marshal (not pickle, hashlib or tempfile), msgspec and asyncio are the server's.
NOT_FOR_A_SMALL_CHECK = (
    "argparse",  # a plain `lore check FILE...` is read without it
    "gettext",
    "locale",
    "dataclasses",
    "pickle",
    "inspect",
    "difflib",
    "hashlib",
    "tempfile",
    "random",
    "asyncio",
    "msgspec",
    "xml.parsers.expat",
    "lore.dice",
    "lore.runtime",
    "lore.server",
    "lore.lsp",  # the language server, and the framework it runs on
    "pygls",
    "lsprotocol",
)


@pytest.mark.parametrize("cache", ["on", "off"])
def test_check_of_a_small_file_imports_none_of_the_slow_libraries(
    cache: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_CACHE_DIR", str(tmp_path) if cache == "on" else "")
    imported_by("check", "examples/hello.lore")  # fills the cache
    modules = imported_by("check", "examples/hello.lore")
    assert "lore.semantics.checker" in modules
    assert not {name for name in NOT_FOR_A_SMALL_CHECK if name in modules}
    assert not [name for name in modules if name.startswith(("lore.engine", "lore.dice."))]


def test_the_command_flushes_its_output_and_exit_code_before_it_ends(tmp_path: Path) -> None:
    bad = tmp_path / "bad.lore"
    bad.write_text("section s {\n x = 1 + ;\n}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "lore", "check", str(bad)], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "bad.lore:2:" in done.stdout
    assert "1 error" in done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "a.lore"],
        ["check", "a.lore", "dir/b.lore", "c d.lore"],
        ["check", "ファイル.lore"],
    ],
)
def test_a_plain_check_line_is_read_as_the_parser_reads_it(argv: list[str]) -> None:
    quick = plain_arguments(argv)
    assert quick is not None
    assert vars(quick) == vars(build_parser("check").parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["check"],
        ["check", "-h"],
        ["check", "--", "-a.lore"],
        ["check", "a", "--x"],
        ["run", "a"],
    ],
)
def test_other_lines_are_left_to_the_parser(argv: list[str]) -> None:
    assert plain_arguments(argv) is None


# reST's inline markup: ``literal``, :role:`target`, `interpreted`, **strong**.
MARKUP = ("``", ":class:", ":func:", ":mod:", ":meth:", "`", "**")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_commands_help_is_plain_text(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([name, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert [mark for mark in MARKUP if mark in out] == [], out
    assert f"lore {name}" in out


def test_the_serve_help_reads_without_markup(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(or with lore join), the rules run on the server" in out
    assert "default lore-sessions.db" in out and "with --new a session" in out
