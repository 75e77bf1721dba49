"""Rule errors: what a Python exception in a rule becomes (a ``RuleError`` with the Lore
places it passed through), and telling the GM of it."""

from __future__ import annotations

from types import CodeType, TracebackType
from typing import TYPE_CHECKING

from lore.engine.event_queue import Entry
from lore.engine.transcript import Record
from lore.runtime.errors import Frame, LimitExceeded, RuleError
from lore.runtime.python_errors import plain_message
from lore.runtime.values import LoreObject

if TYPE_CHECKING:
    from lore.engine.session import Session

PRELUDE_NAME = "<lore>/prelude.lore"


def rule_error(session: Session, error: BaseException, trace: TracebackType | None) -> RuleError:
    if isinstance(error, RuleError):
        found = error
    elif isinstance(error, RecursionError):
        found = LimitExceeded(
            "rules call each other too deeply", "a rule probably calls itself without end"
        )
    elif isinstance(error, ZeroDivisionError):
        found = RuleError("division by zero")
    elif isinstance(error, OverflowError | MemoryError):
        found = LimitExceeded(f"a value grew too large ({type(error).__name__})")
    elif isinstance(error, KeyError) and (owner := reader_of(session, trace)) is not None:
        # A rule read a member of its own object (``_v[name]``) that has no value.
        found = RuleError(
            f"{owner!r} has no value for {error.args[0]!r}",
            "give it a value where the object is written",
        )
    else:
        found = RuleError(plain_message(error))
    if not found.frames:
        found.frames = frames(session, trace)
        if isinstance(found, LimitExceeded) and found.at_entry and len(found.frames) > 1:
            found.frames.pop()  # the rule just entered: the call that entered it is the place
        while len(found.frames) > 1 and found.frames[-1].source.name == PRELUDE_NAME:
            found.frames.pop()  # a prelude function (roll): the place is where it was called
    return found


def reader_of(session: Session, trace: TracebackType | None) -> LoreObject | None:
    """The object whose rule raised the error, if it was raised by generated code
    itself (not by something it called)."""
    if trace is None:
        return None
    while trace.tb_next is not None:
        trace = trace.tb_next
    frame = trace.tb_frame
    if frame.f_code.co_filename not in session.program.line_maps:
        return None
    owner = frame.f_locals.get("self")
    return owner if isinstance(owner, LoreObject) else None


def frames(session: Session, trace: TracebackType | None) -> list[Frame]:
    frames: list[Frame] = []
    # A runaway recursion passes the same places thousands of times: each is found once.
    known: dict[tuple[CodeType, int, int], Frame | None] = {}
    while trace is not None:
        key = (trace.tb_frame.f_code, trace.tb_lineno, trace.tb_lasti)
        if key not in known:
            known[key] = frame_at(session, *key)
        found = known[key]
        if found is not None:
            frames.append(found)
        trace = trace.tb_next
    return frames


def frame_at(session: Session, code: CodeType, line: int, instruction: int) -> Frame | None:
    """The Lore place of a generated function's instruction, or None (not Lore's)."""
    line_map = session.program.line_maps.get(code.co_filename)
    if line_map is None:
        return None
    index = line - 1
    span = line_map.span_at(index, code, instruction)
    if span is None and 0 <= index < len(line_map.spans):
        span = line_map.spans[index]
    if span is None:
        span = next((s for s in reversed(line_map.spans[:index]) if s), None)
    if span is None:
        return None
    rule, source = line_map.origin(index)  # (a line may hold another function's code)
    return Frame(rule, source, span)


def report(session: Session, error: RuleError, again: bool = False) -> None:
    """Tell the GM of a rule error; ``again``: its step runs again (``ask_again``)."""
    session.errors.append(error)
    record: Record = {
        "tick": session.ticks,
        "kind": "error",
        "to": "GM",
        "message": error.message,
        "where": error.location(),
    }
    if again:
        record["again"] = True
    session.transcript.add(record)
    gm = session.participants.get("GM")
    if gm is not None:
        gm.tell(record)


def handler_frames(session: Session, entries: list[Entry]) -> list[Frame]:
    """Where the first handler of a step is written (for an error of the whole step)."""
    for _, fn, _ in entries[:1]:
        code = getattr(fn, "__code__", None)
        line_map = session.program.line_maps.get(code.co_filename) if code else None
        span = next((s for s in line_map.spans if s is not None), None) if line_map else None
        if line_map is not None and span is not None:
            return [Frame(line_map.rule, line_map.source, span)]
    return []
