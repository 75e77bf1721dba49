"""The README's examples work as the README says."""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.semantics.check import check_text

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_lore_examples_check_clean() -> None:
    found = blocks("lore")
    assert found
    for text in found:
        result = check_text(text, "README.md", base=REPO)
        assert [d.render() for d in result.diagnostics] == []


def lore_commands() -> list[list[str]]:
    commands = []
    for block in blocks("sh"):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "lore":
                commands.append(words[1:])
    return commands


def test_run_commands_work_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = [c for c in lore_commands() if c[0] == "run"]
    assert len(commands) == 2
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(REPO / "examples")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # nobody at the terminal
    first = main(commands[0])
    assert first == 0
    records = [
        json.loads(line) for line in Path("out.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert records[-1]["kind"] == "end"
    assert main(commands[1]) == 0
    assert "session resumed" in capsys.readouterr().err


def test_the_play_through_tests_it_shows_pass_as_it_says(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (command,) = [c for c in lore_commands() if c[0] == "test"]
    monkeypatch.chdir(REPO)
    assert main(command) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert f"lore {' '.join(command)}             # {last}" in readme


def test_server_commands_are_understood() -> None:
    from lore.cli.main import build_parser

    others = [c for c in lore_commands() if c[0] not in ("run", "test")]
    assert [c[0] for c in others] == ["serve", "join", "sessions", "sim", "serve"]
    for command in others:
        build_parser().parse_args(command)
