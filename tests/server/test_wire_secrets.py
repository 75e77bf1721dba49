"""No frame sent to a player holds what is hidden from it: checked on the text that came
over each player's socket, over randomized sessions with hidden objects, triggers that
reveal them to whoever searches, questions offering the items where a player's hero is
(``Item.choice(system.itemsAt(...))``), private messages, whispers and secret rolls.

Every secret thing carries a random marker (in its variable name, its name, its
description, its secret's key and the message revealing it); a marker of an object whose
key a player's actors never learned must never reach that player, nor may another seat's
whisper, a secret roll's result, a link token of another seat, or a GM-only field.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from lore.clients.seat import SeatClient, acknowledged
from tests.server.serving import ServerThread, links

SESSIONS = 3
STUCK = 20.0  # seconds without a question to answer or an end: the session is stuck


def scenario(rng: random.Random, players: int, hidden: list[str]) -> str:
    """A 4x4 room with players walking and searching, and hidden things (each marked)."""
    cells = [f"{x},{y}" for x in range(4) for y in range(4)]
    lines = [
        'import "basic.lore":url;',
        "section w {",
        " enum Act { look; walk; wait; take; }",
        " form Hero extends Actor {",
        "  rule turn {",
        '   a = self.query("turn", { act = Act.input; });',
        "   select (a.act) {",
        "    case (Act.look) { self.action(Act.look); }",
        "    case (Act.walk) {",
        "     route = self.currentArea.choiceRoute(self);",
        "     self.moved(route.goal);",
        "    }",
        "    case (Act.take) {",
        "     here = system.itemsAt(self.location).add(rock);",
        '     got = self.query("take", { item = Item.choice(here); });',
        "    }",
        "    default { }",
        "   }",
        "   if (schedule.current + 1[sec] <= 30[sec]) {",
        "    schedule.add({ ticks = schedule.current + 1[sec]; priority = 0;"
        " handler = @{ self.turn; }; }:Event);",
        "   }",
        "  }",
        "  alter moved(goals : list<loc>) { self.location := goals.get1st; }",
        " }",
        ' room = { location = "/":loc; geometry = [=[<?xml version="1.0"?>',
        '<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="1[m]" type="4">',
        *["<line>" + '<section terrain="floor"/>' * 4 + "</line>" for _ in range(4)],
        "</geometry>]=]:xml; }:Area;",
        # (Offered by every "take" besides the items where the hero is.)
        ' rock = { name = "Rock"; location = "/[0,0]":loc; features = list<Feature>.empty; }:Item;',
    ]
    for i in range(players):
        lines.append(
            f' p{i} = {{ name = "Hero{i}"; player = "p{i}@example.org":jid;'
            f' location = "/[{rng.choice(cells)}]":loc; features = list<Feature>.empty;'
            " items = list<Item>.empty; knownSecrets = list<string>.empty; }:Hero;"
        )
    for mark in hidden:
        cell = rng.choice(cells)
        lines += [
            f' h_{mark} = {{ name = "N{mark}"; description = "D{mark}";'
            f' location = "/[{cell}]":loc; features = list<Feature>.empty;'
            f' secrets = {{ {{ key = "k{mark}"; mode = Secret.Mode.hide; }}:Secret }}; }}:Item;',
            f' t_{mark} = {{ location = "/[{cell}]":loc; effectiveRange = 0[m],...,1[m];'
            " actions = {Act.look}; handler = @(actor : Actor) {"
            f' actor.addKnownSecret("k{mark}"); actor.message("M{mark}"); }}; }}:Trigger;',
        ]
    lines += [
        " start = { ticks = 0; priority = 0; handler = @{",
        "  system.allPC.foreach(@(a : Actor) { select (a) { as (h : Hero) { h.turn; }"
        " default { } } });",
        " }; }:Event;",
        "}",
    ]
    return "\n".join(lines) + "\n"


def marker(rng: random.Random) -> str:
    return "".join(rng.choice("qwxzjv") for _ in range(12))


def play(clients: dict[str, SeatClient], gm: SeatClient, rng: random.Random) -> dict[str, str]:
    """Answer at random until the session ends; each player whispers to the GM once (its
    whisper's marker returned by seat) and the GM rolls secretly."""
    whispers = {}
    for seat, client in clients.items():
        whispers[seat] = marker(rng)
        client.request({"type": "chat", "text": f"W{whispers[seat]}", "to": "GM"})
    gm.request({"type": "chat", "text": "/roll 3D6", "secret": True})
    moved = time.monotonic()
    while gm.state.status.get("ended") is None:
        for client in clients.values():
            client.pump(0.01)
            for query_id, spec in list(client.state.questions.items()):
                values = {i["name"]: rng.choice(i["choices"])["id"] for i in spec["inputs"]}
                assert acknowledged(client.answer(query_id, values)) is not None
                moved = time.monotonic()
        gm.pump(0.01)
        # Stuck: no question to answer and no end for long (the next question of an
        # answer may still be on its way for a while on a busy machine).
        assert time.monotonic() - moved < STUCK, "no question and no end"
    for client in clients.values():
        client.pump(0.05)
    return whispers


def keys_known(gm: SeatClient, seat: str) -> set[str]:
    return {
        key
        for actor in gm.state.view["actors"].values()
        if actor["id"].startswith("w.p") and f"{actor['id'][3:]}@" in seat
        for key in actor.get("knownSecrets", [])
    }


def walk(value: Any) -> list[tuple[str, Any]]:
    """Every (key, value) pair in a JSON value."""
    found: list[tuple[str, Any]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.extend(item.items())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def check_player(raw: list[str], seat: str, secrets: list[str], tokens: list[str]) -> None:
    text = "\n".join(raw)
    for secret in secrets:
        assert secret not in text, f"{seat} was sent hidden marker {secret}"
    for token in tokens:
        assert token not in text, f"{seat} was sent another seat's link"
    for frame in map(json.loads, raw):
        assert frame["type"] not in ("links", "log"), frame
        for key, value in walk(frame):
            assert key not in ("hidden", "seenBy", "where", "links", "records", "seed"), (
                key,
                frame,
            )
            if key == "seats":
                assert all(set(s) == {"seat", "label"} for s in value)
            if key == "objects":
                items = value if isinstance(value, list) else []
                assert all("knownSecrets" not in o for o in items if isinstance(o, dict))
        for message in frame.get("messages", []):
            if message.get("secret"):
                assert set(message) == {"kind", "tick", "from", "secret"}, message


def test_no_frame_to_a_player_holds_what_is_hidden_from_it(tmp_path: Path) -> None:
    rng = random.Random(7)
    revealed = 0
    examples = []
    plans = []
    for number in range(SESSIONS):
        folder = tmp_path / f"w{number}"
        folder.mkdir()
        hidden = [marker(rng) for _ in range(rng.randint(3, 6))]
        players = rng.randint(2, 3)
        (folder / "scenario.lore").write_text(scenario(rng, players, hidden), encoding="utf-8")
        examples.append(folder)
        plans.append(hidden)
    with ServerThread(tmp_path, examples=examples) as server:
        for number, hidden in enumerate(plans):
            created = server.create(f"w{number}")
            seats = links(created, server.base)
            gm = SeatClient(seats.pop("GM"))
            gm.connect()
            clients = {seat: SeatClient(link) for seat, link in seats.items()}
            for client in clients.values():
                client.connect()
            whispers = play(clients, gm, rng)
            gm.pump(0.05)
            for seat, client in clients.items():
                known = keys_known(gm, seat)
                secrets = [m for m in hidden if f"k{m}" not in known]
                revealed += sum(m in "\n".join(client.raw) for m in hidden if f"k{m}" in known)
                secrets += [w for other, w in whispers.items() if other != seat]
                tokens = [link.split("#")[1] for other, link in seats.items() if other != seat]
                tokens.append(gm.token)
                check_player(client.raw, seat, secrets, tokens)
            # The GM sees everything: every hidden thing, marked as hidden, and all whispers.
            gm_text = "\n".join(gm.raw)
            assert all(f"N{m}" in gm_text for m in hidden)
            assert all(w in gm_text for w in whispers.values())
            assert any(key == "hidden" for f in map(json.loads, gm.raw) for key, _ in walk(f))
    assert revealed > 0  # searching did reveal things: the check above is not vacuous
