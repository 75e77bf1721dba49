"""Where the shared conformance data lives: a ``shared/`` folder next to the checkout.

It is not part of the project, so a missing folder fails the conformance tests loudly
instead of skipping them: CI always has it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED = REPO_ROOT.parent / "shared"


def shared_dir(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.is_dir():
        pytest.fail(
            f"conformance data missing: {path} (the 'shared' folder beside the repository)",
            pytrace=False,
        )
    return path
