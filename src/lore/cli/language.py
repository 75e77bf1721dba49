"""The language a command speaks: Japanese or English, as the locale asks.

A command's texts are a catalogue with the same keys in both languages (``Catalogue``);
the locale's environment variables choose one, as gettext reads them (``LANGUAGE``, then
``LC_ALL``, ``LC_MESSAGES``, ``LANG``): a value starting with ``ja`` is Japanese, any
other (or none) English. ``LORE_LANG=ja`` (or ``en``) comes first, for one command line.
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping
from dataclasses import dataclass

LANGUAGES = ("en", "ja")
VARIABLES = ("LORE_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def chosen_language(environ: Mapping[str, str] | None = None) -> str:
    """``"ja"`` or ``"en"``, from the first locale variable that is set."""
    env = os.environ if environ is None else environ
    for name in VARIABLES:
        value = env.get(name, "")
        if not value:
            continue
        first = value.split(":")[0].lower()  # LANGUAGE may list several: ja:en
        return "ja" if first.startswith("ja") else "en"
    return "en"


@dataclass(frozen=True, slots=True)
class Catalogue:
    """Texts by key in each language; a text's ``{fields}`` are filled by ``text``."""

    texts: Mapping[str, Mapping[str, str]]  # language -> key -> text

    def text(self, key: str, language: str | None = None, /, **fields: object) -> str:
        chosen = language or chosen_language()
        return self.texts[chosen][key].format(**fields)

    def problems(self) -> list[str]:
        """What is wrong with the catalogue: a language missing, a key missing in one
        language, an empty text, fields that differ between the languages."""
        found = [f"no texts in '{lang}'" for lang in LANGUAGES if lang not in self.texts]
        if found:
            return found
        keys = {lang: set(self.texts[lang]) for lang in LANGUAGES}
        for lang in LANGUAGES:
            for other in LANGUAGES:
                found += [
                    f"'{key}' is in '{other}' but not in '{lang}'"
                    for key in sorted(keys[other] - keys[lang])
                ]
        for key in sorted(keys["en"] & keys["ja"]):
            fields = {lang: _fields(self.texts[lang][key]) for lang in LANGUAGES}
            if fields["en"] != fields["ja"]:
                found.append(
                    f"'{key}' has the fields {fields['en']} in 'en', {fields['ja']} in 'ja'"
                )
            found += [
                f"'{key}' is empty in '{lang}'"
                for lang in LANGUAGES
                if not self.texts[lang][key].strip()
            ]
        return found


def _fields(text: str) -> list[str]:
    return sorted({name for _, name, _, _ in string.Formatter().parse(text) if name})
