"""The texts of the command line in both languages: every catalogue whole, and an answers
file's errors said in Japanese when the locale asks."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import lore
from lore.cli.answers_file import load_answers, unknown_seats
from lore.cli.language import Catalogue


def catalogues() -> dict[str, Catalogue]:
    found = {}
    for module in pkgutil.walk_packages(lore.__path__, "lore."):
        if not module.name.endswith("_texts"):
            continue
        texts = getattr(importlib.import_module(module.name), "TEXTS", None)
        if isinstance(texts, Catalogue):
            found[module.name] = texts
    return found


def test_every_catalogue_has_every_text_in_both_languages() -> None:
    found = catalogues()
    assert {"lore.cli.answers_texts", "lore.cli.playtest_texts"} <= set(found)
    for name, texts in found.items():
        assert texts.problems() == [], name


@pytest.mark.parametrize(
    ("content", "english", "japanese"),
    [
        ("[1]", "expected an object like", "のようなオブジェクトにします"),
        ('{"GM": 3}', "the answers of 'GM' must be a list", "'GM' の答えはオブジェクト"),
        ('{"GM": [{"back": true, "query": 3}]}', "answer 1 of 'GM'", "'GM' の 1 番目の答え"),
    ],
)
def test_an_answers_files_errors_are_said_in_the_locales_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str, english: str, japanese: str
) -> None:
    path = tmp_path / "answers.json"
    path.write_text(content, encoding="utf-8")
    for language, expected in (("en", english), ("ja", japanese)):
        monkeypatch.setenv("LORE_LANG", language)
        with pytest.raises(ValueError, match=expected):
            load_answers(path)
    monkeypatch.setenv("LORE_LANG", "ja")
    said = unknown_seats({"ghost": []}, ["GM"])
    assert said == "答えファイルの 'ghost' はセッションに参加していません（参加者: 'GM'）"
