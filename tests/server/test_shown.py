"""What the clients are given to show people rather than identifiers: a question's
captions (asked again, through the engine's and the wire's caches too), the answer as
captions and place names, the engine's destination questions' purpose, and the unit each
map measures in."""

from __future__ import annotations

import json
from pathlib import Path

from lore.runtime.compiler import compile_program
from lore.server.bundles import checked
from lore.server.master import Master
from lore.server.shown import place_name
from lore.server.store import LogEntry
from lore.server.table import Refusal, Table
from lore.server.wireview import area_map
from tests.server.serving import EXAMPLES, PAPER

SCENARIO = """import "basic.lore":url;
section t {
 enum Art { breath{caption="チャドー呼吸";} kick{caption="蹴り";} }
 form Hero extends Actor {
  rule ask(n : integer) {
   picked = self.query("アーツ", {
    captions = { use = "アーツを使う"; art = "アーツ"; };
    message = "何番目: " + n;
    use = boolean.input;
    art = Art.input;
   });
   if (n < 3) { self.ask(n + 1); }
  }
 }
 table = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
 aki = { name = "Aki"; player = "aki@example.org":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 go = { ticks = 0; priority = 0; handler = @{ aki.ask(1); }; }:Event;
}
"""
AKI = "aki@example.org"


def table_of(folder: Path, entry: str, seats: list[tuple[str, str]]) -> Table:
    program = compile_program(checked(folder, entry))
    return Table(Master(program, 1), seats, "digest")


def test_captions_reach_every_asking_and_the_answer_is_told_by_them(tmp_path: Path) -> None:
    (tmp_path / "scenario.lore").write_text(SCENARIO, encoding="utf-8")
    table = table_of(tmp_path, "scenario.lore", [(AKI, "Aki")])
    frames = table.start()
    for n, (use, art) in enumerate([(True, "breath"), (False, "kick"), (True, "kick")]):
        (spec,) = json.loads(frames[AKI])["opened"]
        assert spec["captions"] == {"use": "アーツを使う", "art": "アーツ"}
        assert spec["texts"] == [{"name": "message", "text": f"何番目: {n + 1}"}]
        assert [i["name"] for i in spec["inputs"]] == ["use", "art"]
        data = {"seat": AKI, "id": spec["id"], "values": {"use": use, "art": art}}
        frames_or_refusal = table.apply(LogEntry(table.applied + 1, "answer", data))
        assert not isinstance(frames_or_refusal, Refusal)
        frames = frames_or_refusal
        (answer,) = [m for m in json.loads(frames[AKI])["messages"] if m["kind"] == "answer"]
        caption = {"breath": "チャドー呼吸", "kick": "蹴り"}[art]
        assert answer["shown"] == [
            {"caption": "アーツを使う", "value": use},
            {"caption": "アーツ", "value": caption},
        ]
        assert answer["values"] == {"use": use, "art": art}  # (as before, for older clients)


def test_the_papers_walk_names_its_places_and_purpose_and_its_map_unit() -> None:
    player = "Chihiro_Shiiji@xmpp.xgmtk.org"
    table = table_of(PAPER, "scenario.lore", [(player, "Chihiro")])
    frames = table.start()
    (asked,) = json.loads(frames[player])["opened"]
    data = {"seat": player, "id": asked["id"], "values": {"action": "move"}}
    outcome = table.apply(LogEntry(table.applied + 1, "answer", data))
    assert not isinstance(outcome, Refusal)
    update = json.loads(outcome[player])
    (where,) = update["opened"]
    assert where["purpose"] == "route" and where["title"] == "route in region"
    (said,) = [m for m in update["messages"] if m["kind"] == "answer"]
    assert said["shown"] == [{"caption": None, "value": "移動する"}]
    data = {"seat": player, "id": where["id"], "values": {"goal": "/region[dungeon]"}}
    outcome = table.apply(LogEntry(table.applied + 1, "answer", data))
    assert not isinstance(outcome, Refusal)
    messages = json.loads(outcome[player])["messages"]
    (said,) = [m for m in messages if m["kind"] == "answer"]
    assert said["shown"] == [
        {"caption": None, "purpose": "route", "value": "ミニマムダンジョン所在地"}
    ]
    master = table.master
    region = master.area("/region")
    assert region is not None
    found = area_map(region)
    assert (found["unit"], found["unitMetres"]) == ("km", 1000.0)
    assert found["nodes"][0]["description"] == "スタート地点"
    assert place_name(master, "/region/dungeon[1,2]") == "[1,2] 祭壇"
    assert place_name(master, "/region/dungeon[2,2]") == "[2,2]"
    assert place_name(master, "/region[start_point]") == "スタート地点"
    assert place_name(master, "nowhere") == "nowhere"


def test_orms_fields_measure_in_squares() -> None:
    table = table_of(EXAMPLES / "orm", "scenario.lore", [])
    table.start()
    field = table.master.area("/")
    assert field is not None
    assert (area_map(field)["unit"], area_map(field)["unitMetres"]) == ("Sq", 1.0)


def test_a_menu_asked_again_keeps_its_captions(tmp_path: Path) -> None:
    """A question of enums alone is described once and encoded once (the wire's menus):
    its captions still come with every asking."""
    text = SCENARIO.replace("    use = boolean.input;\n", "").replace(' use = "アーツを使う";', "")
    (tmp_path / "scenario.lore").write_text(text, encoding="utf-8")
    table = table_of(tmp_path, "scenario.lore", [(AKI, "Aki")])
    frames = table.start()
    for _ in range(3):
        (spec,) = json.loads(frames[AKI])["opened"]
        assert spec["captions"] == {"art": "アーツ"}
        data = {"seat": AKI, "id": spec["id"], "values": {"art": "kick"}}
        outcome = table.apply(LogEntry(table.applied + 1, "answer", data))
        assert not isinstance(outcome, Refusal)
        frames = outcome
