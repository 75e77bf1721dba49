"""The protocol over real sockets: answers round trip, reconnecting with the last sequence
number, and every kind of bad message refused with its code while the session goes on."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from lore.clients.seat import JoinError, SeatClient, acknowledged
from lore.server.admission import MAX_SEATS
from lore.server.connection import Limits
from tests.server.serving import EXAMPLES, PLAYER, ServerThread, links


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ServerThread, dict[str, str]]]:
    with ServerThread(tmp_path) as server:
        yield server, links(server.create(), server.base)


def joined(link: str) -> SeatClient:
    client = SeatClient(link)
    client.connect()
    client.pump()
    return client


def only_question(client: SeatClient) -> dict[str, Any]:
    (question,) = client.state.questions.values()
    return question


def updates(raw: list[str]) -> list[dict[str, Any]]:
    return [f for f in map(json.loads, raw) if f["type"] == "update"]


def test_an_answer_is_acknowledged_then_the_next_question_comes(served: Any) -> None:
    _, seats = served
    player = joined(seats[PLAYER])
    first = only_question(player)
    assert first["title"] == "どうしますか？"
    assert [c["caption"] for c in first["inputs"][0]["choices"]] == ["探す", "移動する", "寝る"]
    ack = player.answer(first["id"], {"action": "move"})
    assert acknowledged(ack) == 1
    player.pump()
    route = only_question(player)
    assert [c["id"] for c in route["inputs"][0]["choices"]] == ["/region[dungeon]"]
    assert route["area"] == "/region" and route["from"] == "start_point"
    preview = player.request({"type": "preview", "id": route["id"], "goal": "/region[dungeon]"})
    assert preview["path"] == ["start_point", "dungeon"] and preview["distance"] == 4000.0


def test_a_client_that_reconnects_gets_exactly_what_it_missed(served: Any) -> None:
    _, seats = served
    watcher = joined(seats[PLAYER])  # stays connected: sees every update once
    player = joined(seats[PLAYER])
    gm = joined(seats["GM"])
    player.answer(only_question(player)["id"], {"action": "move"})
    player.pump()
    last = player.state.seq
    assert last is not None
    player.close()
    # While the player is away, the GM answers for it: the walk to the dungeon.
    route = next(q for q in gm.pump() and gm.state.questions.values() if q["to"] == PLAYER)
    assert acknowledged(gm.answer(route["id"], {"goal": "/region[dungeon]"})) is not None
    gm.pump()
    watcher.pump()
    player.raw.clear()
    player.connect()
    player.pump()
    missed = updates(player.raw)
    expected = [u for u in updates(watcher.raw) if u["seq"] > last]
    assert missed and missed == expected  # nothing missed, nothing twice
    assert [u["seq"] for u in missed] == list(range(last + 1, last + 1 + len(missed)))
    assert player.state.questions == watcher.state.questions
    # Up to date: reconnecting again brings nothing.
    player.raw.clear()
    player.connect()
    player.pump()
    assert [json.loads(f)["type"] for f in player.raw] == ["welcome", "presence"]


def test_without_a_sequence_number_a_client_gets_a_snapshot(served: Any) -> None:
    _, seats = served
    player = SeatClient(seats[PLAYER])
    player.connect()
    frames = player.pump()
    snapshot = next(f for f in frames if f["type"] == "snapshot")
    assert snapshot["seq"] >= 1 and snapshot["questions"] and snapshot["view"]["actors"]


def test_a_stale_answer_is_refused_and_changes_nothing(served: Any) -> None:
    _, seats = served
    player = joined(seats[PLAYER])
    question = only_question(player)
    stale = player.request(
        {"type": "answer", "id": question["id"], "values": {"action": "move"}, "seq": 0}
    )
    assert stale["type"] == "error" and stale["code"] == "stale"
    assert acknowledged(player.answer(question["id"], {"action": "move"})) is not None


def test_two_open_questions_are_answered_one_right_after_the_other(served: Any) -> None:
    _, seats = served
    player = joined(seats[PLAYER])
    player.answer(only_question(player)["id"], {"action": "move"})
    player.pump()
    player.answer(only_question(player)["id"], {"goal": "/region[dungeon]"})
    player.pump()
    player.answer(only_question(player)["id"], {"action": "search"})
    player.pump()
    first, second = player.state.questions  # in the dungeon: two questions at once
    seen = player.state.seq
    assert acknowledged(player.answer(first, {"action": "search"})) is not None
    # Answered before the update closing the first arrived: not stale, the view is the same.
    late = player.request(
        {"type": "answer", "id": second, "values": {"action": "sleep"}, "seq": seen}
    )
    assert acknowledged(late) is not None


def test_an_answer_for_another_seat_is_refused(served: Any) -> None:
    _, seats = served
    gm = joined(seats["GM"])
    added = gm.request({"type": "add_seat", "label": "Aki"})
    assert acknowledged(added) is not None
    gm.pump()
    other_link = next(s["link"] for s in gm.state.links if s["label"] == "Aki")
    other = joined(gm.url.replace("ws://", "http://").removesuffix("/ws") + other_link)
    assert other.state.questions == {}
    player = joined(seats[PLAYER])
    question = only_question(player)
    refused = other.answer(question["id"], {"action": "move"})
    assert refused["type"] == "error" and refused["code"] == "unknown_question"
    assert other.answer("99/9/9", {})["code"] == "unknown_question"
    wrong = player.answer(question["id"], {"action": "dance"})
    assert wrong["code"] == "bad_answer" and "dance" in wrong["message"]
    assert question["id"] in player.state.questions
    assert acknowledged(player.answer(question["id"], {"action": "search"})) is not None


def raw_socket(server: ServerThread, token: str) -> Any:
    socket = connect(f"ws://127.0.0.1:{server.port}/ws", max_size=2**24, legacy=True)
    socket.send(json.dumps({"type": "hello", "token": token}))
    return socket


def frames_until(socket: Any, test: Any, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        frame: dict[str, Any] = json.loads(
            socket.recv(timeout=max(0.01, deadline - time.monotonic()))
        )
        if test(frame):
            return frame


def test_bad_messages_are_refused_with_their_codes_and_the_session_goes_on(served: Any) -> None:
    server, seats = served
    token = seats[PLAYER].split("#", 1)[1]
    socket = raw_socket(server, token)
    frames_until(socket, lambda f: f["type"] == "snapshot")
    cases = {
        "not json": "malformed",
        json.dumps({"type": "answer", "id": 5, "values": {}, "seq": 0}): "malformed",
        json.dumps({"type": "answer", "id": "x", "values": {}, "seq": 0, "extra": 1}): "malformed",
        json.dumps({"type": "teleport"}): "unknown_type",
        json.dumps({"no": "type"}): "unknown_type",
        json.dumps({"type": "chat", "text": "x" * 70_000}): "too_large",
        json.dumps({"type": "pause"}): "forbidden",
        json.dumps({"type": "log"}): "forbidden",
        json.dumps({"type": "chat", "text": "/roll 2X6"}): "bad_roll",
        json.dumps({"type": "chat", "text": "/roll"}): "bad_roll",
        json.dumps({"type": "hello", "token": token}): "malformed",
        # bytes that are not UTF-8, in a string and in a member's name
        b'{"type": "chat", "text": "\xff"}': "malformed",
        b'{"type": "chat", "text": "\xe3\x81"}': "malformed",
        b'{"type": "chat", "\xc3": 1}': "malformed",
        # a sequence number from the future: it would pass every staleness check
        json.dumps({"type": "answer", "id": "x", "values": {}, "seq": 2**60}): "malformed",
        # a type nested thousands deep (the server fuzzing's): the decoder's RecursionError
        # was a traceback in the log and a close 1011
        '{"type": ' + '{"a":' * 3000 + "1" + "}" * 3001: "malformed",
        '{"ref": 1, "type": ' + "[" * 5000 + "]" * 5000 + "}": "malformed",
    }
    for text, code in cases.items():
        socket.send(text)
        frame = frames_until(socket, lambda f: f["type"] == "error")
        assert frame["code"] == code, (text[:60], frame)
    socket.close()
    player = joined(seats[PLAYER])  # the session goes on
    assert acknowledged(player.answer(only_question(player)["id"], {"action": "move"})) is not None


def test_a_first_message_that_is_not_utf8_is_refused_as_malformed(served: Any) -> None:
    server, _seats = served
    socket = connect(f"ws://127.0.0.1:{server.port}/ws", legacy=True)
    socket.send(b'{"type": "hello", "token": "\xff\xfe"}')
    frame = frames_until(socket, lambda f: True)
    assert frame["code"] == "malformed" and "UTF-8" in frame["message"], frame
    with pytest.raises(ConnectionClosed):
        socket.recv(timeout=5)
    assert socket.close_code == 1008  # (docs/protocol.md: a first message refused)


def test_a_first_message_nested_thousands_deep_is_refused_as_malformed(served: Any) -> None:
    server, _seats = served
    socket = connect(f"ws://127.0.0.1:{server.port}/ws", legacy=True)
    socket.send('{"token": "x", "type": ' + "[" * 5000 + "]" * 5000 + "}")
    frame = frames_until(socket, lambda f: True)
    assert frame["code"] == "malformed" and "nested too deeply" in frame["message"], frame
    with pytest.raises(ConnectionClosed):
        socket.recv(timeout=5)
    assert socket.close_code == 1008


def test_a_frame_over_a_mebibyte_closes_the_connection(served: Any) -> None:
    server, seats = served
    socket = raw_socket(server, seats[PLAYER].split("#", 1)[1])
    frames_until(socket, lambda f: f["type"] == "snapshot")
    # The server may close while the frame is still being written: either the write or the
    # next read then sees the connection closed.
    with pytest.raises((ConnectionClosed, ConnectionResetError)):
        socket.send("x" * (2 * 1024 * 1024))
        frames_until(socket, lambda f: False)
    assert joined(seats[PLAYER]).state.questions  # the session goes on


def test_too_many_messages_are_refused_then_allowed_again(tmp_path: Path) -> None:
    with ServerThread(tmp_path, limits=Limits(rate=5.0, burst=5.0)) as server:
        seats = links(server.create(), server.base)
        socket = raw_socket(server, seats[PLAYER].split("#", 1)[1])
        frames_until(socket, lambda f: f["type"] == "snapshot")
        for _ in range(12):
            socket.send(json.dumps({"type": "ping"}))
        codes = []
        for _ in range(12):
            frame = frames_until(socket, lambda f: f["type"] in ("pong", "error"))
            codes.append(frame.get("code", "pong"))
        assert codes.count("pong") >= 5 and "rate_limited" in codes
        time.sleep(1.0)
        socket.send(json.dumps({"type": "ping"}))
        assert frames_until(socket, lambda f: f["type"] in ("pong", "error"))["type"] == "pong"


def test_a_link_must_be_known_and_hello_comes_first(served: Any) -> None:
    server, seats = served
    socket = raw_socket(server, "not-a-token")
    assert frames_until(socket, lambda f: True)["code"] == "bad_token"
    with pytest.raises(ConnectionClosed):
        socket.recv(timeout=5)
    socket = connect(f"ws://127.0.0.1:{server.port}/ws", legacy=True)
    socket.send(json.dumps({"type": "ping"}))
    assert frames_until(socket, lambda f: True)["code"] == "not_hello"
    with pytest.raises(JoinError):
        SeatClient(seats[PLAYER].split("#")[0] + "#wrong").connect()


def test_pause_stops_the_players_answers_not_the_gms(served: Any) -> None:
    _, seats = served
    gm = joined(seats["GM"])
    player = joined(seats[PLAYER])
    assert acknowledged(gm.request({"type": "pause"})) is not None
    player.pump()
    assert player.state.status["paused"] is True
    question = only_question(player)
    assert player.answer(question["id"], {"action": "move"})["code"] == "paused"
    assert acknowledged(gm.request({"type": "resume"})) is not None
    player.pump()
    assert acknowledged(player.answer(question["id"], {"action": "move"})) is not None


def test_presence_is_shown_to_all_and_a_revoked_link_stops_working(served: Any) -> None:
    _, seats = served
    gm = joined(seats["GM"])
    player = joined(seats[PLAYER])
    gm.wait_for(lambda f: f["type"] == "presence" and PLAYER in f["online"])
    player.close()
    gm.wait_for(lambda f: f["type"] == "presence" and PLAYER not in f["online"], timeout=5)
    player.connect()
    assert acknowledged(gm.request({"type": "revoke", "seat": PLAYER})) is not None
    assert next(s["link"] for s in gm.state.links if s["seat"] == PLAYER) is None
    with pytest.raises((ConnectionClosed, TimeoutError)):
        player.wait_for(lambda f: False, timeout=5)
    assert any(json.loads(f).get("code") == "bad_token" for f in player.raw)
    with pytest.raises(JoinError):
        player.connect()
    assert acknowledged(gm.request({"type": "new_link", "seat": PLAYER})) is not None
    link = next(s["link"] for s in gm.state.links if s["seat"] == PLAYER)
    assert link is not None
    assert joined(seats[PLAYER].split("/play")[0] + link).state.questions


def test_chat_private_messages_and_secret_rolls(served: Any) -> None:
    _, seats = served
    gm = joined(seats["GM"])
    player = joined(seats[PLAYER])
    assert acknowledged(player.request({"type": "chat", "text": "こんにちは"})) is not None
    assert acknowledged(gm.request({"type": "chat", "text": "内緒", "to": PLAYER})) is not None
    secret = {"type": "chat", "text": "/roll 3D6+1>=10", "secret": True}
    assert acknowledged(gm.request(secret)) is not None
    assert acknowledged(player.request({"type": "chat", "text": "/r 1d100"})) is not None
    gm.pump()
    player.pump()
    seen = [(m["kind"], m.get("text")) for m in player.state.messages if m["kind"] != "answer"]
    assert seen[:3] == [("chat", "こんにちは"), ("chat", "内緒"), ("roll", None)]
    assert seen[3][0] == "roll" and seen[3][1].startswith("(1D100) ＞ ")
    secret = next(m for m in gm.state.messages if m.get("secret"))
    assert secret["text"].startswith("(3D6+1>=10) ＞ ")
    # A player's own secret roll (BCDice's S prefix): the player and the GM see it.
    assert acknowledged(player.request({"type": "chat", "text": "S2D6"})) is not None
    gm.pump()
    player.pump()
    assert player.state.messages[-1]["text"].startswith("(2D6) ＞ ")
    assert gm.state.messages[-1]["text"] == player.state.messages[-1]["text"]


def test_a_rule_error_reaches_the_gm_and_other_sessions_go_on(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "scenario.lore").write_text(BROKEN, encoding="utf-8")
    with ServerThread(
        tmp_path, examples=[bad, Path(__file__).parents[2] / "examples/paper"]
    ) as server:
        broken = links(server.create("bad"), server.base)
        paper = links(server.create("paper"), server.base)
        gm = joined(broken["GM"])
        for choice in ("divide", "recurse"):
            question = only_question(gm)
            assert acknowledged(gm.answer(question["id"], {"what": choice})) is not None
            gm.pump()
        errors = [m for m in gm.state.messages if m["kind"] == "error"]
        assert errors[0]["text"] == "division by zero"
        assert "deep" in errors[1]["text"] and "scenario.lore:" in errors[1]["where"]
        assert only_question(gm)  # the broken session goes on too
        player = joined(paper[PLAYER])
        reply = player.answer(only_question(player)["id"], {"action": "move"})
        assert acknowledged(reply) is not None


BROKEN = """
import "basic.lore":url;
section bad {
 enum What { divide; recurse; }
 rule deeper(n : integer) { deeper(n + 1); }
 rule ask {
  answer = GM.query("what?", { what = What.input; });
  select (answer.what) {
   case (What.divide) { GM.message("x" + (1 / {0}.get(0))); }
   default { deeper(0); }
  }
 }
 first = { ticks = 0; priority = 0; handler = @{ bad.ask; }; }:Event;
 second = { ticks = 1; priority = 0; handler = @{ bad.ask; }; }:Event;
 third = { ticks = 2; priority = 0; handler = @{ bad.ask; }; }:Event;
}
"""


def test_an_actor_given_to_another_seat_takes_its_open_question_along(served: Any) -> None:
    _, seats = served
    gm = joined(seats["GM"])
    player = joined(seats[PLAYER])
    question = only_question(player)
    (actor,) = next(s["actors"] for s in gm.state.seats if s["seat"] == PLAYER)
    assert question["actor"] == {"label": actor["label"], "name": actor["name"]}
    assert acknowledged(gm.request({"type": "add_seat", "label": "Aki"})) is not None
    gm.pump()
    aki_seat = next(s["seat"] for s in gm.state.links if s["label"] == "Aki")
    aki_link = next(s["link"] for s in gm.state.links if s["label"] == "Aki")
    aki = joined(gm.url.replace("ws://", "http://").removesuffix("/ws") + aki_link)
    assert aki.state.questions == {}
    moved = gm.request({"type": "assign", "actor": actor["label"], "seat": aki_seat})
    assert acknowledged(moved) is not None
    player.pump()
    aki.pump()
    assert player.state.questions == {}  # closed at the seat that no longer plays it
    assert list(aki.state.questions) == [question["id"]]  # opened at the new one
    assert aki.state.questions[question["id"]]["to"] == aki_seat
    refused = player.answer(question["id"], {"action": "search"})
    assert refused["code"] == "unknown_question"
    assert acknowledged(aki.answer(question["id"], {"action": "search"})) is not None


def test_an_answer_is_acknowledged_by_the_update_it_makes_for_its_seat(served: Any) -> None:
    _, seats = served
    player = joined(seats[PLAYER])
    other = joined(seats[PLAYER])  # the same seat in another window
    query_id = only_question(player)["id"]
    reply = player.answer(query_id, {"action": "move"})
    # One frame: the seat's update, with the answer's log index and ref.
    assert reply["type"] == "update" and reply["closed"] == [query_id]
    assert acknowledged(reply) == 1 and reply["ref"] == 1
    seen = other.wait_for(lambda f: f["type"] == "update")
    assert seen["seq"] == reply["seq"] and "ack" not in seen and "ref" not in seen
    # The same update, but for the two keys.
    assert json.loads(other.raw[-1]) == {k: v for k, v in reply.items() if k not in ("ack", "ref")}


def minute_round(folder: Path) -> Path:
    """The round table with its turns a minute apart (the clock shows minutes)."""
    text = (EXAMPLES / "round" / "scenario.lore").read_text(encoding="utf-8")
    for before, after in (
        ("last = 60[sec];", "last = 60[min];"),
        ("3[sec]", "3[min]"),
        ("ticks = 1;", "ticks = 60;"),
        ("ticks = 2;", "ticks = 120;"),
    ):
        assert before in text
        text = text.replace(before, after)
    bundle = folder / "minutes" / "round"
    bundle.mkdir(parents=True)
    (bundle / "scenario.lore").write_text(text, encoding="utf-8")
    return bundle


def test_a_seat_whose_time_shown_alone_moved_gets_a_clock_frame_not_an_update(
    tmp_path: Path,
) -> None:
    with ServerThread(tmp_path, examples=[minute_round(tmp_path)]) as server:
        seats = links(server.create("round"), server.base)
        aki, ren, sora = (joined(seats[f"{name}@example.org"]) for name in ("aki", "ren", "sora"))
        sora_seq = sora.state.seq
        assert acknowledged(aki.answer(only_question(aki)["id"], {"move": "roll"})) == 1
        ren.wait_for(lambda f: f["type"] == "update" and bool(f.get("opened")))
        # Sora's turn is not yet, and nothing else changed for it: the time comes alone.
        clock = sora.wait_for(lambda f: f["type"] == "clock", timeout=5)
        assert clock == {"type": "clock", "tick": 60}
        assert sora.state.seq == sora_seq and sora.state.view["tick"] == 60
        assert "tick" not in sora.state.status  # (the time is the view's)
        assert not [f for f in sora.pump(0.7) if f["type"] != "clock"]
        # Sora's next update carries the time that moved meanwhile, once.
        assert acknowledged(ren.answer(only_question(ren)["id"], {"move": "rest"})) == 2
        turn = sora.wait_for(lambda f: f["type"] == "update")
        assert turn["seq"] == sora_seq + 1 and turn["view"] == {"tick": 120}


def test_a_seat_whose_time_moved_within_its_minute_waits_for_its_next_update(
    tmp_path: Path,
) -> None:
    with ServerThread(tmp_path, examples=[EXAMPLES / "round"]) as server:
        seats = links(server.create("round"), server.base)
        aki, ren, sora = (joined(seats[f"{name}@example.org"]) for name in ("aki", "ren", "sora"))
        sora_seq = sora.state.seq
        assert acknowledged(aki.answer(only_question(aki)["id"], {"move": "roll"})) == 1
        ren.wait_for(lambda f: f["type"] == "update" and bool(f.get("opened")))
        # The time moved a second, which Sora's clock (to the minute) does not show: no
        # frame at all, not even a clock frame (the server's timer waits a second).
        assert sora.pump(1.5) == [] and sora.state.view["tick"] == 0
        # Sora's next update carries the time that moved meanwhile, once.
        assert acknowledged(ren.answer(only_question(ren)["id"], {"move": "rest"})) == 2
        turn = sora.wait_for(lambda f: f["type"] == "update")
        assert turn["seq"] == sora_seq + 1 and turn["view"] == {"tick": 2}
        assert "status" not in turn  # (paused or ended did not change)
        # A client that comes back behind the time is told the time after catching up.
        aki.close()
        aki.raw.clear()
        aki.connect()
        aki.pump(0.2)
        kinds = [json.loads(f)["type"] for f in aki.raw]
        assert kinds[:3] == ["welcome", "clock", "presence"]  # (the timer's clock may follow)
        assert set(kinds[3:]) <= {"clock"}
        assert aki.state.view["tick"] == 2


def test_a_seat_needs_a_name_and_the_gm_removes_one_that_plays_no_actor(
    tmp_path: Path,
) -> None:
    """An empty name is refused (no seat called "player"); a seat still playing an
    actor is not removed until the GM moves the actor away; a removed seat is gone from
    every seat list, its link stops working, and so it stays after a restart."""
    with ServerThread(tmp_path) as server:
        created = server.create()
        seats = links(created, server.base)
        gm = joined(seats["GM"])
        empty = gm.request({"type": "add_seat", "label": "  "})
        assert empty["code"] == "bad_command" and "name" in empty["message"]
        assert acknowledged(gm.request({"type": "add_seat", "label": "Aki"})) is not None
        gm.pump()
        assert [s["label"] for s in gm.state.links] == ["GM", "Chihiro", "Aki"]
        aki_seat = next(s["seat"] for s in gm.state.links if s["label"] == "Aki")
        aki_link = next(s["link"] for s in gm.state.links if s["label"] == "Aki")
        (actor,) = next(s["actors"] for s in gm.state.seats if s["seat"] == PLAYER)
        assert gm.request({"type": "remove_seat", "seat": "GM"})["code"] == "bad_command"
        moved = gm.request({"type": "assign", "actor": actor["label"], "seat": aki_seat})
        assert acknowledged(moved) is not None
        refused = gm.request({"type": "remove_seat", "seat": aki_seat})
        assert refused["code"] == "bad_command"
        assert "Aki" in refused["message"] and actor["name"] in refused["message"]
        back = gm.request({"type": "assign", "actor": actor["label"], "seat": PLAYER})
        assert acknowledged(back) is not None
        assert acknowledged(gm.request({"type": "remove_seat", "seat": aki_seat})) is not None
        gm.pump()
        assert [s["label"] for s in gm.state.links] == ["GM", "Chihiro"]
        assert [s["label"] for s in gm.state.seats] == ["GM", "Chihiro"]
        with pytest.raises(JoinError):
            joined(seats["GM"].split("/play")[0] + aki_link)
        gm.close()
    with ServerThread(tmp_path) as server:  # restarted: the session restored from the store
        gm = joined(links(created, server.base)["GM"])
        assert [s["label"] for s in gm.state.seats] == ["GM", "Chihiro"]
        assert [s["label"] for s in gm.state.links] == ["GM", "Chihiro"]
        gm.close()


def test_a_session_has_at_most_so_many_seats(served: Any) -> None:
    _server, seats = served
    gm = joined(seats["GM"])
    for number in range(MAX_SEATS - 2):  # (the GM's and Chihiro's are there)
        assert acknowledged(gm.request({"type": "add_seat", "label": f"P{number}"})) is not None
    refused = gm.request({"type": "add_seat", "label": "one more"})
    assert refused["code"] == "bad_command" and f"at most {MAX_SEATS} seats" in refused["message"]
    gm.pump()
    assert len(gm.state.links) == MAX_SEATS
    gm.close()
