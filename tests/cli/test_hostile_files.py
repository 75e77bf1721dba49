"""Files that are not what Lore expects: devices, pipes, binaries, huge files, files
outside the program's folders. Each is refused with a plain message, at once, and
nothing of another file's contents is shown."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.syntax import files

REPO = Path(__file__).resolve().parents[2]
HELLO = REPO / "examples" / "hello.lore"
NOT_REGULAR = "it is not a regular file (a device, a pipe or a socket)"
COMMANDS = [["check"], ["fmt"], ["run"], ["sim", "--runs", "1"]]
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="no /dev/zero or FIFOs")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def command(name: list[str], path: Path | str) -> list[str]:
    return [name[0], str(path), *name[1:]]


@posix_only
@pytest.mark.parametrize("name", COMMANDS, ids=lambda c: c[0])
def test_a_device_is_refused_by_every_command(
    name: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(command(name, "/dev/zero"), capsys)
    assert (status, out) == (2, "")
    assert err == f"lore: error: cannot read /dev/zero: {NOT_REGULAR}\n"


@posix_only
@pytest.mark.parametrize("name", COMMANDS, ids=lambda c: c[0])
def test_a_pipe_is_refused_without_waiting_for_a_writer(
    name: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipe = tmp_path / "pipe.lore"
    os.mkfifo(pipe)
    status, _, err = run(command(name, pipe), capsys)
    assert status == 2
    assert err == f"lore: error: cannot read {pipe}: {NOT_REGULAR}\n"


@posix_only
def test_answers_from_a_device_or_a_pipe_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipe = tmp_path / "answers.json"
    os.mkfifo(pipe)
    for answers in ("/dev/zero", str(pipe)):
        status, _, err = run(["run", str(HELLO), "--answers", answers], capsys)
        assert status == 2
        assert err == f"lore: error: cannot read {answers}: {NOT_REGULAR}\n"


@posix_only
def test_a_link_to_a_device_counts_as_the_device(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "zero.lore"
    link.symlink_to("/dev/zero")
    status, _, err = run(["check", str(link)], capsys)
    assert status == 2
    assert NOT_REGULAR in err


def test_an_entry_file_past_the_size_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 1000)
    big = tmp_path / "big.lore"
    big.write_text("section s {\n" + " x = 1;\n" * 200 + "}\n", encoding="utf-8")
    for name in COMMANDS:
        status, out, err = run(command(name, big), capsys)
        assert (status, out) == (2, "")
        size = big.stat().st_size
        assert err == (
            f"lore: error: cannot read {big}: it is too large ({size:,} bytes; Lore reads "
            "files of at most 1000 bytes)\n"
        )


def test_a_file_under_the_size_limit_but_of_too_many_tokens_is_refused_quickly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 15 MB of rules (200,000 of them): checking it all took a minute and gigabytes;
    # the lexer stops at the limit, and nothing of the file is parsed or checked.
    rule = ' rule r { x : integer = 1 + 2 * 3; if (x > 4) { GM.message("v" + x); } }\n'
    big = tmp_path / "many.lore"
    big.write_text("section s {\n" + rule * 200_000 + "}\n", encoding="utf-8")
    assert 14_000_000 < big.stat().st_size < files.MAX_FILE_BYTES
    status, out, err = run(["check", str(big)], capsys)
    assert (status, err) == (1, "1 error\n")
    assert out.startswith(
        f"{big}:16130:68: error: the file holds more than 500,000 tokens (names, numbers,"
        " texts and signs), more than Lore reads in one file; it was not checked\n"
    )
    assert "split it into files that import each other" in out


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc")
def test_a_file_longer_than_its_size_says_is_still_read_only_to_the_limit() -> None:
    # Files of /proc claim a size of 0 bytes and hold more.
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0
    with pytest.raises(files.FileRefused, match="too large"):
        files.read_bytes(status, 10)


def test_a_binary_import_is_refused_without_being_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tool.lore").write_bytes(b"\x7fELF\x02\x01\x01\0\0\0secret line\n" * 50)
    entry = tmp_path / "main.lore"
    entry.write_text('import "tool.lore":url;\nsection s { }\n', encoding="utf-8")
    status, out, _ = run(["check", str(entry)], capsys)
    assert status == 1
    assert "secret" not in out and "ELF" not in out
    assert "cannot read 'tool.lore': it is not a text file (it holds binary data)" in out


@pytest.mark.parametrize(
    "url",
    [
        "{outside}",
        "../outside/secret.lore",
        "file://{outside}",
        "file://localhost{outside}",
        "sub/../../outside/secret.lore",
    ],
)
def test_imports_outside_the_program_folders_are_refused_unread(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "outside" / "secret.lore"
    secret.parent.mkdir()
    secret.write_text("the secret of the other file\n", encoding="utf-8")
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    entry = project / "main.lore"
    written = url.format(outside=secret.as_posix())
    entry.write_text(f'import "{written}":url;\nsection s {{ }}\n', encoding="utf-8")
    status, out, _ = run(["check", str(entry)], capsys)
    assert status == 1
    assert "secret of the other file" not in out
    assert f"error: '{written}' is outside the folders Lore reads" in out


def test_a_link_out_of_the_project_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.lore"
    secret.write_text("the secret of the other file\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "rules.lore").symlink_to(secret)
    entry = project / "main.lore"
    entry.write_text('import "rules.lore":url;\nsection s { }\n', encoding="utf-8")
    status, out, _ = run(["check", str(entry)], capsys)
    assert status == 1
    assert "secret of the other file" not in out
    assert "error: 'rules.lore' is outside the folders Lore reads" in out


def test_lore_path_allows_a_folder_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "rules.lore").write_text("section rules { limit = 3; }\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    entry = project / "main.lore"
    entry.write_text(
        f'import "{(shared / "rules.lore").as_posix()}":url;\nsection s {{ x = rules.limit; }}\n',
        encoding="utf-8",
    )
    assert run(["check", str(entry)], capsys)[0] == 1
    monkeypatch.setenv("LORE_PATH", str(shared))
    assert run(["check", str(entry)], capsys) == (0, "", "")


def test_a_save_elsewhere_imports_its_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tavern = REPO / "examples" / "tavern"
    save = tmp_path / "save.lore"
    argv = [str(tavern / "scenario.lore"), "--answers", str(tavern / "answers.json")]
    assert main(["run", *argv, "--save", str(save)]) == 0
    capsys.readouterr()
    assert run(["check", str(save)], capsys) == (0, "", "")
    # A file that only looks like a save may not reach outside with what is not Lore.
    fake = tmp_path / "fake.lore"
    fake.write_text('import "/etc/passwd":url;\nsection _auto_stored { seed = 1; }\n', "utf-8")
    status, out, _ = run(["check", str(fake)], capsys)
    assert status == 1
    assert "'/etc/passwd' is outside the folders Lore reads" in out


def test_a_name_too_long_is_not_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = tmp_path / "main.lore"
    name = "a" * 300 + ".lore"
    entry.write_text(f'import "{name}":url;\nsection s {{ }}\n', encoding="utf-8")
    status, out, err = run(["check", str(entry)], capsys)
    assert status == 1
    assert f"error: cannot find '{name}'" in out
    assert "Traceback" not in out + err


def test_a_chain_of_350_imports_is_loaded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for index in range(350):
        text = f'import "c{index + 1}.lore":url;\n' if index < 349 else ""
        (tmp_path / f"c{index}.lore").write_text(
            f"{text}section c{index} {{ x = {index}; }}\n", encoding="utf-8"
        )
    (tmp_path / "c349.lore").write_text("section c349 { x = bad; }\n", encoding="utf-8")
    status, out, _ = run(["check", str(tmp_path / "c0.lore")], capsys)
    assert status == 1
    assert "c349.lore:1:20: error: undefined name 'bad'" in out


@posix_only
def test_load_xml_of_a_device_or_a_link_to_it_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "zero.xml").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "pipe.xml")
    expected = {
        "zero.xml": "error: 'zero.xml' is outside the folders Lore reads",
        "pipe.xml": f"error: cannot read 'pipe.xml': {NOT_REGULAR}",
    }
    for name, message in expected.items():
        entry = tmp_path / "main.lore"
        entry.write_text(
            f'section w {{ a = {{ location = "/":loc; geometry = ("{name}":url).loadXML; }}'
            ":Area; }\n",
            encoding="utf-8",
        )
        status, out, _ = run(["check", str(entry)], capsys)
        assert status == 1
        assert message in out


def test_load_xml_of_a_file_past_the_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    library = REPO / "src" / "lore" / "lib"
    limit = max(path.stat().st_size for path in library.rglob("*.lore")) + 1000
    monkeypatch.setattr(files, "MAX_FILE_BYTES", limit)
    text = "<a>" + "<b/>" * (limit // 4) + "</a>"
    (tmp_path / "big.xml").write_text(text, encoding="utf-8")
    entry = tmp_path / "main.lore"
    entry.write_text(
        'section w { a = { location = "/":loc; geometry = ("big.xml":url).loadXML; }:Area; }\n',
        encoding="utf-8",
    )
    status, out, _ = run(["check", str(entry)], capsys)
    assert status == 1
    assert (
        f"error: cannot read 'big.xml': it is too large ({len(text):,} bytes; Lore reads files "
        f"of at most {limit} bytes)"
    ) in out
    assert out.count(": error: ") == 1  # read once: the world check does not read it again


def test_a_program_built_without_folders_loads_no_xml(tmp_path: Path) -> None:
    # A Program made by hand (not by a Loader) names no folder it may read: loadXML of
    # any file is refused rather than read from anywhere.
    from lore.semantics.check import check_program
    from lore.semantics.program import Loader, Program

    (tmp_path / "map.xml").write_text('<geometry xmlns="http://www.xgmtk.org/Point"/>', "utf-8")
    loader = Loader()
    loader.load_prelude()
    loader.load_text('section w { g = ("map.xml":url).loadXML; }', "main.lore", tmp_path)
    assert check_program(loader.program()).ok
    bare = check_program(Program(loader.modules, loader.diagnostics))
    assert [d.code for d in bare.diagnostics if d.is_error] == ["check.outside-file"]
