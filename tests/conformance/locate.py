"""Where the shared conformance data lives: a ``shared/`` folder next to the checkout.

It is not part of the project: it holds the source documents and the test data of others
(the paper's sample programs, BCDice's own tests) that the project's CI lays beside the
checkout. On a clone with nothing beside it, the tests that need it are skipped, and the
run's last lines say how many and why. Where the data must be there (``.ci/run`` sets
``LORE_CONFORMANCE=required``), a missing folder fails those tests instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED = REPO_ROOT.parent / "shared"

SWITCH = "LORE_CONFORMANCE"
NEEDED = (
    "needs the conformance data in a 'shared' folder beside the checkout"
    " (the paper's sample programs and BCDice's test data, laid there by the project's CI;"
    f" not in the repository); {SWITCH}=required makes it fail instead"
)


def required() -> bool:
    """Whether a missing conformance folder fails the tests that need it (in CI)."""
    return os.environ.get(SWITCH, "") == "required"


def shared_dir(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.is_dir():
        if required():
            pytest.fail(
                f"conformance data missing: {path} (the 'shared' folder beside the"
                f" repository; {SWITCH}=required says it must be there)",
                pytrace=False,
            )
        pytest.skip(NEEDED)
    return path
