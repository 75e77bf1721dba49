"""The ``lore`` command line.

Importing it makes a Ctrl-C that nothing catches end the process quietly, with status 130
and ``lore: interrupted``, as ``main`` ends one while a command runs: a Ctrl-C pressed
while the command still loads (before ``main`` runs) shows the user no traceback, and
neither does one that Python would swallow (see ``_interrupted_in_callback``), and one
that code loading swallows still stops the command (see ``take_ctrl_c``). Other uncaught
errors go to the hooks that were there before.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from sys import UnraisableHookArgs

INTERRUPTED = 130

_pressed = False  # see ``take_ctrl_c``


def take_ctrl_c() -> bool:
    """Whether a Ctrl-C came, not taken yet, while Python's way of raising it was in place
    (Lore loading): code that catches errors around an import may have swallowed it
    (ElementTree's own import turns one into an ImportError that it ignores), so a command
    checks this before it begins its work."""
    global _pressed
    pressed, _pressed = _pressed, False
    return pressed


def _ctrl_c(number: int, frame: FrameType | None) -> None:
    """Python's own handler (KeyboardInterrupt), noting that it ran."""
    global _pressed
    _pressed = True
    raise KeyboardInterrupt


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


def _end_interrupted() -> NoReturn:
    try:
        sys.stdout.flush()
        sys.stderr.write("lore: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # a closed or missing stream
        pass
    os._exit(INTERRUPTED)


def _interrupted(
    kind: type[BaseException],
    error: BaseException,
    trace: TracebackType | None,
    previous: object = sys.excepthook,
) -> None:
    if not by_ctrl_c(error):
        previous(kind, error, trace)  # type: ignore[operator]
        return
    _end_interrupted()


def _interrupted_in_callback(
    unraisable: UnraisableHookArgs, previous: object = sys.unraisablehook
) -> None:
    """A Ctrl-C that lands in code Python calls on its own (a weak reference's callback,
    as an import releases its lock; a ``__del__``) is not raised: Python shows "Exception
    ignored in ..." with a traceback and goes on as though no key was pressed. With
    Python's own handler in place (Lore still loading), it ends the process as any other
    Ctrl-C; another handler (``lore run``'s) has already done what it does for one."""
    if unraisable.exc_value is None or not by_ctrl_c(unraisable.exc_value):
        previous(unraisable)  # type: ignore[operator]
        return
    if signal.getsignal(signal.SIGINT) in (signal.default_int_handler, _ctrl_c):
        _end_interrupted()


if getattr(sys.excepthook, "__name__", "") != _interrupted.__name__:
    sys.excepthook = _interrupted
if getattr(sys.unraisablehook, "__name__", "") != _interrupted_in_callback.__name__:
    sys.unraisablehook = _interrupted_in_callback
if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    with contextlib.suppress(ValueError):  # outside the main thread Python's handler stays
        signal.signal(signal.SIGINT, _ctrl_c)
