"""Roll cards on the wire: each seat's socket carries the cards of the rolls it may see,
with their dice, and never a secret roll's (checked on the text that came over it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lore.clients.seat import SeatClient
from tests.server.serving import ServerThread, links

# Aki and Ben in the hall, Cho in the cellar; a ghoul of the GM's in the hall. Each roll's
# title carries a marker, to look for in the bytes each seat was sent.
SCENARIO = """import "basic.lore":url;
section w {
 form Hero extends Actor { }
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/hall[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 ben = { name = "Ben"; player = "ben@example.org":jid; location = "/hall[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 cho = { name = "Cho"; player = "cho@example.org":jid; location = "/cellar[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 ghoul = { name = "Ghoul"; location = "/hall[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 world = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="hall" /><point label="cellar" />
</geometry>]=]:xml; }:Area;
 hall = { location = "/[hall]":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 cellar = { location = "/[cellar]":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 start = { ticks = 0; priority = 0; handler = @{
  aki.roll(3d6).titled("HITqzx").plus(2).withTarget(10).show;
  ghoul.roll(2d6).titled("DODGEqzx").show;
  aki.roll(1d100).titled("GMONLYjvw").forGM.show;
  ben.roll(1d20).titled("ROLLERwvj").forRoller.show;
  cho.roll(1d6).titled("CELLARxjq").show;
  GM.roll(1d6).titled("SCREENvqz").show;
  w = aki.query("wait", { n = integer.input; });
 }; }:Event;
}
"""

SEEN = {
    "GM": {"HITqzx", "DODGEqzx", "GMONLYjvw", "ROLLERwvj", "CELLARxjq", "SCREENvqz"},
    "aki@example.org": {"HITqzx", "DODGEqzx"},
    "ben@example.org": {"HITqzx", "DODGEqzx", "ROLLERwvj"},
    "cho@example.org": {"CELLARxjq"},
}


def cards(client: SeatClient) -> list[dict[str, Any]]:
    found = []
    for frame in map(json.loads, client.raw):
        messages = frame.get("messages") or frame.get("view", {}).get("messages") or []
        found += [m for m in messages if m.get("kind") == "roll"]
    return found


def test_each_socket_carries_only_the_roll_cards_its_seat_may_see(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "scenario.lore").write_text(SCENARIO, encoding="utf-8")
    with ServerThread(tmp_path, examples=[folder]) as server:
        seats = links(server.create("w"), server.base)
        clients = {seat: SeatClient(link) for seat, link in seats.items()}
        for client in clients.values():
            client.connect()
        # A player's secret chat roll: its result reaches that player and the GM alone.
        clients["aki@example.org"].request({"type": "chat", "text": "S2D6 CHATjjq"})
        for client in clients.values():
            client.pump(0.3)
        for seat, client in clients.items():
            text = "\n".join(client.raw)
            for marker in SEEN["GM"]:
                assert (marker in text) == (marker in SEEN[seat]), (seat, marker)
            assert ("CHATjjq" in text) == (seat in ("GM", "aki@example.org")), seat
        hit = next(c for c in cards(clients["aki@example.org"]) if c.get("title") == "HITqzx")
        assert hit["from"] == "aki@example.org" and hit["by"] == "Aki"
        assert [d["sides"] for d in hit["dice"]] == [6, 6, 6]
        assert hit["total"] == sum(d["face"] for d in hit["dice"]) + 2
        assert hit["modifiers"] == [2] and hit["target"] == 10
        assert hit["outcome"] == ("success" if hit["total"] >= 10 else "failure")
        assert "to" not in hit and "seat" not in hit  # whom else it went to is not said
        # The chat roll is a card too: its dice and total, beside BCDice's text.
        chat = next(c for c in cards(clients["aki@example.org"]) if c.get("comment"))
        assert [d["sides"] for d in chat["dice"]] == [6, 6]
        assert chat["total"] == sum(d["face"] for d in chat["dice"]) and chat["secret"]
        ben = cards(clients["ben@example.org"])
        hidden = [c for c in ben if c.get("secret") and c["from"] == "aki@example.org"]
        assert hidden and all(set(c) == {"kind", "tick", "from", "secret"} for c in hidden)
