"""Compiled XML Schemas are kept between processes, and only read back when safe."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import xmlschema

from lore.world import schema_cache, schemas

NAMESPACE = "http://www.xgmtk.org/Point"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "cache"
    monkeypatch.setenv("LORE_CACHE_DIR", str(folder))
    schemas.schema.cache_clear()
    yield folder
    schemas.schema.cache_clear()


def kept(folder: Path) -> list[Path]:
    return sorted(folder.glob("schema-*.pickle"))


def test_a_schema_compiled_once_is_loaded_by_later_processes(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = f'<point xmlns="{NAMESPACE}" scale="5[m]"/>'
    first = schemas.schema("Point", NAMESPACE)
    (path,) = kept(cache)
    assert path.stat().st_mode & 0o077 == 0
    schemas.schema.cache_clear()  # as a new process would

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr(xmlschema.XMLSchema, "__init__", refuse)
    again = schemas.schema("Point", NAMESPACE)
    assert again is not first
    assert again.is_valid(sample) == first.is_valid(sample)


def test_a_file_others_may_write_is_not_loaded(cache: Path) -> None:
    schemas.schema("Point", NAMESPACE)
    (path,) = kept(cache)
    name = path.name.removeprefix("schema-").removesuffix(".pickle")
    assert schema_cache.load(name) is not None
    path.chmod(0o666)
    assert schema_cache.load(name) is None
    path.chmod(0o600)
    cache.chmod(0o777)
    assert schema_cache.load(name) is None


def test_a_corrupt_file_is_compiled_anew_and_replaced(cache: Path) -> None:
    schemas.schema("Point", NAMESPACE)
    (path,) = kept(cache)
    path.write_bytes(b"not a pickle")
    schemas.schema.cache_clear()
    assert isinstance(schemas.schema("Point", NAMESPACE), xmlschema.XMLSchema)
    name = path.name.removeprefix("schema-").removesuffix(".pickle")
    assert isinstance(schema_cache.load(name), xmlschema.XMLSchema)


def test_an_empty_cache_dir_turns_the_cache_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_CACHE_DIR", "")
    schemas.schema.cache_clear()
    try:
        assert isinstance(schemas.schema("Point", NAMESPACE), xmlschema.XMLSchema)
    finally:
        schemas.schema.cache_clear()
    assert schema_cache.cache_dir() is None
    assert not list(tmp_path.iterdir())
