"""Deep recursion: rules that end are not stopped however they reach each other, up to the
nesting limit (a resource limit of 10,000 calls, far above what rules need); a rule that
calls itself without end is stopped with a clear LimitExceeded and the session goes on.

Python runs the compiled rules: each nested Lore call takes Python frames (on the heap) and
none that goes through C code (which would take room on the machine's stack), so the
depth is safe on any stack Python starts with.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.runtime.errors import LimitExceeded
from lore.semantics.check import check_paths

DEEP = Path(__file__).parent / "lore" / "deep.lore"


def _run(limits: Limits | None = None, resumable: bool = False) -> tuple[list[str], Session]:
    result = check_paths([DEEP])
    assert result.ok, [d.render() for d in result.diagnostics]
    gm = Scripted([])
    session = Session(
        compile_program(result), 0, Participants({"GM": gm}), limits, resumable=resumable
    )
    assert session.run() == "no-events"
    return [str(r.get("text") or r.get("message")) for r in gm.told], session


# (A resumable session runs its steps in a greenlet of its own: the same room there.)
@pytest.mark.parametrize("resumable", [False, True])
def test_rules_that_end_run_nearly_as_deep_as_the_limit_along_every_path(resumable: bool) -> None:
    told, session = _run(resumable=resumable)
    assert told[:8] == [
        "down 9990",
        "lambda 4990",
        "map 4990",
        "sort 4990",
        "other 9990",
        "own 9990",
        "field 4990",
        "for 9990",
    ]
    assert told[-1] == "the session goes on"
    assert [type(e) for e in session.errors] == [LimitExceeded]
    error = session.errors[0]
    assert error.message == "rules call each other more than 10000 deep"
    assert error.frames[-1].rule == "function deep.forever"
    assert len(error.frames) == 10_000


@pytest.mark.parametrize("resumable", [False, True])
def test_the_limit_is_the_sessions(resumable: bool) -> None:
    told, session = _run(Limits(max_depth=5_000), resumable)
    assert told[0] == "rules call each other more than 5000 deep"
    assert all(e.message == "rules call each other more than 5000 deep" for e in session.errors)
    assert told[-1] == "the session goes on"
