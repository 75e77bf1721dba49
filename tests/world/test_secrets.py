"""Hidden objects: an object with ``hide`` secrets exists for a participant only once its
actors know every one of their keys (one known key of two reveals nothing)."""

from __future__ import annotations

import json
from pathlib import Path

from lore.engine.views import view
from tests.world.helpers import scenario, started

PLAYER = "mio@example.org"

BODY = """\
 hall = {
  location = "/":loc;
  description = "A hall.";
  scale = 1[m];
  geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml;
 }:Area;
 mio = {
  name = "Mio";
  player = "mio@example.org":jid;
  location = "/[0]":loc;
  features = list<Feature>.empty;
  items = list<Item>.empty;
  knownSecrets = {"lock"};
 }:Actor;
 box = {
  name = "box";
  location = "/[0]":loc;
  features = list<Feature>.empty;
  secrets = { { key = "lock"; mode = Secret.Mode.hide; }:Secret };
 }:Item;
 vault = {
  name = "vault";
  location = "/[0]":loc;
  features = list<Feature>.empty;
  secrets = {
   { key = "lock"; mode = Secret.Mode.hide; }:Secret,
   { key = "seal"; mode = Secret.Mode.hide; }:Secret
  };
 }:Item;
"""


def seen(found: dict[str, object]) -> set[str]:
    objects = found["objects"]
    assert isinstance(objects, list)
    return {str(obj["id"]) for obj in objects}


def test_every_key_must_be_known(tmp_path: Path) -> None:
    session = started(tmp_path, {"scenario.lore": scenario(BODY)})
    player = view(session, PLAYER)
    assert "s.box" in seen(player)  # its one key is known
    assert "s.vault" not in seen(player)  # one key of two is not enough
    assert "vault" not in json.dumps(player, ensure_ascii=False)
    assert {"s.box", "s.vault"} <= seen(view(session, "GM"))

    mio = next(value for value in session.rt.g if getattr(value, "label", None) == "s.mio")
    mio.values["knownSecrets"] = ("lock", "seal")
    assert "s.vault" in seen(view(session, PLAYER))
