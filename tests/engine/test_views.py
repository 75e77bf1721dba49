"""What a participant's view holds: another participant's actor is shown without the
secrets it knows (which secrets someone else knows is not for this participant); its own
actor and the GM's view keep them."""

from __future__ import annotations

from lore.engine.views import GM, view
from tests.engine.test_update_rounds import session_of

TWO = """
import "basic.lore":url;
section t {
 form Hero extends Actor { }
 room = { location = "/":loc; geometry = [=[<?xml version="1.0"?>
<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="1[m]" type="4">
<line><section terrain="floor"/><section terrain="floor"/></line>
</geometry>]=]:xml; }:Area;
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0,0]":loc;
  knownSecrets = {"vault"}; }:Hero;
 ben = { name = "Ben"; player = "ben@example.org":jid; location = "/[1,0]":loc;
  knownSecrets = {"door"}; }:Hero;
}
"""


def test_another_participants_actor_is_shown_without_its_secrets() -> None:
    session = session_of(TWO)
    session.run()
    seen = view(session, "ben@example.org", messages=False)
    (own,) = seen["actors"]
    assert own["id"] == "t.ben" and own["knownSecrets"] == ["door"]
    other = next(o for o in seen["objects"] if o["id"] == "t.aki")
    assert other["name"] == "Aki" and "knownSecrets" not in other
    everything = view(session, GM, messages=False)
    shown = [*everything["actors"], *everything["objects"]]
    assert {o["id"]: o.get("knownSecrets") for o in shown}["t.aki"] == ["vault"]
