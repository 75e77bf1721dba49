"""What the player of the paper's scenario may see, before and after finding the chest."""

from __future__ import annotations

import json

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Limits, Session
from lore.engine.views import view
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_paths
from tests.conformance.locate import shared_dir
from tests.conformance.test_paper_run import ANSWERS, PLAYER


def session_until(max_ticks: int | None) -> Session:
    result = check_paths([shared_dir("conformance", "paper", "corrected") / "scenario.lore"])
    assert result.ok
    participants = Participants({PLAYER: Scripted(list(ANSWERS)), "GM": Scripted([])})
    session = Session(compile_program(result), 0, participants, Limits(max_ticks=max_ticks))
    session.run()
    return session


def ids(found: dict[str, object]) -> list[str]:
    objects = found["objects"]
    assert isinstance(objects, list)
    return [str(obj["id"]) for obj in objects]


def test_chest_is_hidden_until_the_secret_is_known() -> None:
    before = session_until(3000)
    player_view = view(before, PLAYER)
    assert player_view["actors"][0]["location"] == "/region/dungeon[4,2]"
    assert "scenario.chest" not in ids(player_view)
    assert "scenario.chest" not in json.dumps(player_view, ensure_ascii=False)
    assert "scenario.chest" in ids(view(before, "GM"))

    after = session_until(None)
    player_view = view(after, PLAYER)
    assert player_view["actors"][0]["knownSecrets"] == ["secret0"]
    assert "scenario.chest" in ids(player_view)


def test_views_are_json_and_hold_only_the_players_messages() -> None:
    session = session_until(None)
    player_view = view(session, PLAYER)
    json.dumps(player_view)
    assert [m["tick"] for m in player_view["messages"]] == [2700, 3300]
    assert {a["path"] for a in player_view["areas"]} == {"/region/dungeon"}
    assert {a["path"] for a in view(session, "GM")["areas"]} == {"/", "/region", "/region/dungeon"}
    assert "/region/dungeon[4,2]" in player_view["actors"][0]["routes"]
