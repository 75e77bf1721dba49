"""A participant that never draws (``draws = False``, the server's) is given no stream of
its own, and the bots of the same session draw exactly as they would otherwise."""

from __future__ import annotations

from typing import Any

from lore.engine.participants import NO_STREAM, Bot, Participants
from lore.engine.queries import Query
from lore.engine.randomness import Stream
from lore.engine.session import Session
from tests.engine.harness import compiled

# The GM (a bot) picks, then the player is asked in two foreach bodies (streams of other
# owners), then the GM picks again at the handler's own place.
PROGRAM = """\
import "basic.lore":url;
section t {
 enum Pick { p1; p2; p3; p4; p5; p6; p7; p8; p9; p10; p11; p12; }
 table = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 aki = {
  name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty; knownSecrets = list<string>.empty;
 }:Actor;
 go = { ticks = 0; priority = 0; handler = @{
  first = GM.query("first", { pick = Pick.input; });
  (1,...,2).foreach(@(n : integer) {
   said = aki.query("yours", { pick = Pick.input; });
   GM.message("aki " + said.pick);
  });
  second = GM.query("second", { pick = Pick.input; });
  GM.message("gm " + first.pick + " " + second.pick);
 }; }:Event;
}
"""


class Reads:
    """Answers at once, and takes the stream it is given (as a bot does), drawing none."""

    streams: list[Stream]

    def __init__(self) -> None:
        self.streams = []

    def ask(self, query: Query, stream: Stream) -> dict[str, Any]:
        self.streams.append(stream)
        return {"pick": "p3"}

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return False

    def tell(self, record: dict[str, Any]) -> None:
        pass


class DrawsNothing(Reads):
    draws = False


def told(player: Reads, seed: int) -> list[str]:
    participants = Participants({"GM": Bot(), "aki@example.org": player})
    session = Session(compiled(PROGRAM), seed, participants)
    session.run()
    return [r["text"] for r in session.transcript.records if r["kind"] == "message"]


def test_bots_draw_the_same_beside_a_participant_that_draws_nothing() -> None:
    for seed in range(6):
        reads, nothing = Reads(), DrawsNothing()
        assert told(nothing, seed) == told(reads, seed)
        assert nothing.streams == [NO_STREAM, NO_STREAM]
        assert all(type(stream) is Stream for stream in reads.streams)


def test_the_stream_given_in_place_refuses_draws() -> None:
    try:
        NO_STREAM.randint(1, 6)
    except AssertionError:
        return
    raise AssertionError("NO_STREAM drew")


class AnswersLater(Reads):
    """Says it always answers later: its ``ask`` is never called."""

    answers_later = True

    def ask(self, query: Query, stream: Stream) -> dict[str, Any]:
        raise AssertionError("a participant that answers later was asked")


def test_a_participant_that_answers_later_waits_without_being_asked() -> None:
    for seed in range(3):
        later = AnswersLater()
        participants = Participants({"GM": Bot(), "aki@example.org": later})
        session = Session(compiled(PROGRAM), seed, participants)
        asked = 0
        while session.run() == "waiting":
            for query in session.open_questions():
                assert query.to == "aki@example.org"
                assert session.answer(query.id, {"pick": "p3"}) is None
                asked += 1
        assert asked == 2  # (the two foreach bodies' questions)
        said = [r["text"] for r in session.transcript.records if r["kind"] == "message"]
        assert said == told(Reads(), seed)
