"""A question's options never hold what is hidden from the participant asked:
``Item.choice(system.itemsAt(...))`` offers a hidden item only to a participant whose
actors know its secret (as ``Item.input`` does), and an answer naming it is refused."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from lore.engine.participants import Participants, Scripted
from lore.engine.queries import Query
from lore.engine.session import Session
from tests.engine.harness import compiled

ROOM = """
import "basic.lore":url;
section t {
 form Hero extends Actor {
  rule take {
   here = system.itemsAt(self.location);
   got = self.query("take", { item = Item.choice(here); });
   GM.message(self.name + " takes " + got.item.name);
   some = self.query("several", { items = Item.choices(here, 0, 3); });
   GM.message(self.name + " takes " + some.items.length);
  }
 }
 room = { location = "/":loc; geometry = [=[<?xml version="1.0"?>
<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="1[m]" type="4">
<line><section terrain="floor"/><section terrain="floor"/></line>
</geometry>]=]:xml; }:Area;
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0,0]":loc;
  knownSecrets = list<string>.empty; }:Hero;
 ben = { name = "Ben"; player = "ben@example.org":jid; location = "/[0,0]":loc;
  knownSecrets = {"vault"}; }:Hero;
 lamp = { name = "Lamp"; location = "/[0,0]":loc; }:Item;
 gem = { name = "HiddenGem"; description = "under the floor"; location = "/[0,0]":loc;
  secrets = { { key = "vault"; mode = Secret.Mode.hide; }:Secret }; }:Item;
 go = { ticks = 0; priority = 0; handler = @{ aki.take; ben.take; }; }:Event;
}
"""


@dataclass
class Asked(Scripted):
    """Scripted answers; what each question sent to the participant was (as JSON)."""

    sent: list[str] = field(default_factory=list)

    def ask(self, query: Query, stream: Any) -> dict[str, Any] | None:
        self.sent.append(json.dumps(query.record(), ensure_ascii=False))
        return super().ask(query, stream)


def run(aki: list[dict[str, Any]], ben: list[dict[str, Any]]) -> tuple[Session, Asked, Asked]:
    seats = {"GM": Scripted([]), "aki@example.org": Asked(aki), "ben@example.org": Asked(ben)}
    session = Session(compiled(ROOM), 1, Participants(seats))  # type: ignore[arg-type]
    session.run()
    return session, seats["aki@example.org"], seats["ben@example.org"]  # type: ignore[return-value]


def test_a_choice_offers_a_hidden_item_only_to_who_knows_its_secret() -> None:
    session, aki, ben = run(
        [{"item": "Lamp"}, {"items": ["Lamp"]}],
        [{"item": "HiddenGem"}, {"items": ["Lamp", "HiddenGem"]}],
    )
    assert len(aki.sent) == 2 and len(ben.sent) == 2
    for sent in aki.sent:
        assert "HiddenGem" not in sent and "gem" not in sent and "floor" not in sent
        assert "Lamp" in sent
    assert all("HiddenGem" in sent for sent in ben.sent)
    told = [r["text"] for r in session.transcript.records if r["kind"] == "message"]
    assert told == ["Aki takes Lamp", "Aki takes 1", "Ben takes HiddenGem", "Ben takes 2"]


def test_an_answer_naming_a_hidden_item_is_refused() -> None:
    session, _, _ = run([{"item": "HiddenGem"}], [])
    end = session.transcript.records[-1]
    assert end["kind"] == "end" and end["reason"] == "error", end
    assert "'item' is one of Lamp, not 'HiddenGem'" in end["message"]
    assert not any("takes HiddenGem" in str(r) for r in session.transcript.records)


def test_a_choice_of_only_hidden_items_is_a_rule_error_and_asks_nothing() -> None:
    text = ROOM.replace(' lamp = { name = "Lamp"; location = "/[0,0]":loc; }:Item;\n', "")
    seats = {"GM": Scripted([]), "aki@example.org": Asked([{"item": "HiddenGem"}])}
    session = Session(compiled(text), 1, Participants(seats))  # type: ignore[arg-type]
    session.run()
    assert seats["aki@example.org"].sent == []  # type: ignore[attr-defined]
    (error,) = [r for r in session.transcript.records if r["kind"] == "error"]
    assert error["to"] == "GM"
    assert error["message"] == "there is no Item aki@example.org may see to offer for 'item'"
