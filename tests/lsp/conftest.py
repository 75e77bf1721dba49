from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.lsp.client import Client


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    started = Client()
    yield started
    started.close()
