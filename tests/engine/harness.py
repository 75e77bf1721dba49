"""Running a small Lore program in a test, with fixed dice and scripted answers.

``play(text, dice=[6, 6, 1], answers={...})`` checks the text (as a file in the repository
root, so bundled libraries import by name), runs it with the faces given in the order
the rules roll them (``lore.dice.FixedSource``), and gives the session. A test fixes its
dice this way instead of searching for a seed whose dice happen to fit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lore.dice import FixedSource
from lore.engine.participants import Participants, Scripted
from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from lore.syntax.diagnostics import Severity

Answers = dict[str, list[dict[str, Any]]]


def compiled(text: str, name: str = "test.lore") -> Any:
    result = check_text(text, name)
    problems = [d.render() for d in result.diagnostics if d.severity is Severity.ERROR]
    assert not problems, "\n".join(problems)
    return compile_program(result)


def play(
    text: str,
    dice: Iterable[int] | FixedSource | None = None,
    answers: Answers | None = None,
    seed: int = 1,
    max_steps: int = 5_000,
) -> Session:
    """Run ``text`` to its end; ``dice`` are the faces rolled, in order (give a
    ``FixedSource`` to see afterwards how many were left); without dice, the seed's."""
    seats = {who: Scripted(list(given)) for who, given in (answers or {}).items()}
    seats.setdefault("GM", Scripted([]))
    source = dice if isinstance(dice, FixedSource) or dice is None else FixedSource(list(dice))
    session = Session(
        compiled(text),
        seed,
        Participants(seats),
        Limits(max_steps=max_steps),
        dice=source,
    )
    session.run()
    return session


def run_handler(
    program: str,
    handler: str,
    dice: list[int],
    answers: Answers | None = None,
    stops: bool = False,
    all_dice: bool = True,
) -> Session:
    """Run ``program`` (a section left open) with ``handler`` as an event at tick 0.

    Every die given must be rolled (unless ``all_dice`` is false), no rule may go wrong,
    and the session must end by itself (or, with ``stops``, when the answers run out)."""
    event = f" go = {{ ticks = 0; priority = 0; handler = @{{ {handler} }}; }}:Event;\n}}\n"
    source = FixedSource(dice)
    session = play(program + event, dice=source, answers=answers)
    assert not errors(session), errors(session)
    end = records(session, "end")[-1]["reason"]
    assert end == "no-answer" if stops else end in ("no-events", "ended"), end
    if all_dice:
        assert source.left == 0, f"{source.left} dice were not rolled"
    return session


def offered(session: Session, title: str) -> list[dict[str, Any]]:
    """The choices of every question of this title."""
    return [r["choices"] for r in records(session, "query") if r["title"] == title]


def faces(*rolls: list[int]) -> list[int]:
    """The faces of several rolls, in order (written roll by roll for the reader)."""
    return [face for rolled in rolls for face in rolled]


def messages(session: Session, to: str | None = None) -> list[str]:
    return [
        r["text"]
        for r in session.transcript.records
        if r["kind"] == "message" and (to is None or r["to"] == to)
    ]


def told(session: Session, to: str) -> list[str]:
    """What a seat reads, in order: the rules' messages to it, and the text of every roll
    card it is shown (``r.show``)."""
    return [
        r["text"]
        for r in session.transcript.records
        if (r["kind"] == "message" and r["to"] == to) or (r["kind"] == "roll" and to in r["to"])
    ]


def records(session: Session, kind: str) -> list[dict[str, Any]]:
    return [r for r in session.transcript.records if r["kind"] == kind]


def errors(session: Session) -> list[str]:
    return [error.message for error in session.errors]


def outcome(session: Session) -> str | None:
    end = records(session, "end")
    return end[-1].get("outcome") if end else None
