"""The ``lore`` command line.

Importing it makes a Ctrl-C that nothing catches end the process quietly, with status 130
and ``lore: interrupted``, as ``main`` ends one while a command runs: a Ctrl-C pressed
while the command still loads (before ``main`` runs) shows the user no traceback. Other
uncaught errors go to the hook that was there before.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType

INTERRUPTED = 130


def by_ctrl_c(error: BaseException) -> bool:
    """Whether ``error`` is a Ctrl-C, or came of one: Python 3.11 turns one that arrives
    while a class is made (as a module is imported) into a RuntimeError caused by it."""
    seen: set[int] = set()
    found: BaseException | None = error
    while found is not None and id(found) not in seen:
        if isinstance(found, KeyboardInterrupt):
            return True
        seen.add(id(found))
        found = found.__cause__ or found.__context__
    return False


def _interrupted(
    kind: type[BaseException],
    error: BaseException,
    trace: TracebackType | None,
    previous: object = sys.excepthook,
) -> None:
    if not by_ctrl_c(error):
        previous(kind, error, trace)  # type: ignore[operator]
        return
    try:
        sys.stdout.flush()
        sys.stderr.write("lore: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # a closed or missing stream
        pass
    os._exit(INTERRUPTED)


if getattr(sys.excepthook, "__name__", "") != _interrupted.__name__:
    sys.excepthook = _interrupted
