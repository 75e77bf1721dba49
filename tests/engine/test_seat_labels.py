"""Participants by their actors' names, and game time as a day and a clock."""

from __future__ import annotations

from pathlib import Path

from lore.engine.game_clock import clock_text
from lore.engine.seat_labels import label_of, seat_labels
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_paths

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def session_of(path: Path) -> Session:
    session = Session(compile_program(check_paths([path])))
    session.start()
    return session


def test_a_player_is_known_by_the_names_of_its_actors() -> None:
    session = session_of(EXAMPLES / "tavern" / "scenario.lore")
    assert seat_labels(session) == {
        "GM": "GM",
        "aki@example.org": "Aki",
        "ren@example.org": "Ren",
    }
    assert label_of(session, "ren@example.org") == "Ren"
    assert label_of(session, "nobody@example.org") == "nobody@example.org"
    assert label_of(None, "ren@example.org") == "ren@example.org"


def test_game_time_is_a_day_and_a_clock() -> None:
    assert clock_text(0) == "Day 1, 00:00"
    assert clock_text(59) == "Day 1, 00:00"
    assert clock_text(2_700) == "Day 1, 00:45"
    assert clock_text(86_400 + 3_661) == "Day 2, 01:01"
