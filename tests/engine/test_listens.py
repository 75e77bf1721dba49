"""A participant that says it listens to nothing (``listens = False``, the server's) is
not handed a rule's messages; the transcript has them all the same, and one that listens
is told each, also through a replayed log once its answers are used up."""

from __future__ import annotations

from typing import Any

from lore.engine.participants import Participants, Replaying, ReplayLog
from lore.engine.queries import Query
from lore.engine.randomness import Stream
from lore.engine.session import Session
from tests.engine.harness import compiled

PROGRAM = """\
import "basic.lore":url;
section t {
 go = { ticks = 0; priority = 0; handler = @{
  GM.message("one");
  GM.message("two");
 }; }:Event;
}
"""


class Hears:
    """Answers nothing; keeps the texts it is told."""

    def __init__(self) -> None:
        self.heard: list[str] = []

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | None:
        return None

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return False

    def tell(self, record: dict[str, Any]) -> None:
        self.heard.append(record["text"])


class Deaf(Hears):
    listens = False


def transcript(gm: Any) -> list[str]:
    session = Session(compiled(PROGRAM), 0, Participants({"GM": gm}))
    session.run()
    return [r["text"] for r in session.transcript.records if r["kind"] == "message"]


def test_a_participant_that_listens_to_nothing_is_not_told() -> None:
    hears, deaf = Hears(), Deaf()
    assert transcript(deaf) == transcript(hears) == ["one", "two"]
    assert hears.heard == ["one", "two"]
    assert deaf.heard == []


def test_a_replaying_participant_listens_as_its_live_one() -> None:
    hears, deaf = Hears(), Deaf()
    assert Replaying(ReplayLog([]), "GM", hears).listens
    assert not Replaying(ReplayLog([]), "GM", deaf).listens
    assert not Replaying(ReplayLog([]), "GM", None).listens
    transcript(Replaying(ReplayLog([]), "GM", hears))
    transcript(Replaying(ReplayLog([]), "GM", deaf))
    assert hears.heard == ["one", "two"]
    assert deaf.heard == []
