"""The table a seat sees: the sheets it may read (its own actors' lines for the owner, the
lines shown to everyone of the others it may see, every line for the GM), derived values
worked out, bars with their maximum, hidden actors without a sheet or a place in a
tracker's order, and whom the table waits for."""

from __future__ import annotations

from typing import Any

from lore.engine.session import Session
from lore.engine.table_view import table_key, table_view
from lore.engine.views import GM
from tests.engine.test_update_rounds import session_of
from tests.engine.test_waiting import Later

TABLE = """
section t {
 form Hero extends Actor {
  secrets : list<Secret>;
  hp : integer; maxHp : integer; luck : integer = 3; plot : string = "traitor";
  twice -> integer { result = hp * 2; }
  alter hurt(amounts : list<integer>) { self.hp := hp - amounts.sum; }
 }
 aki = { name = "Aki"; player = "aki@example.org":jid; hp = 8; maxHp = 10; }:Hero;
 ben = { name = "Ben"; player = "ben@example.org":jid; hp = 6; maxHp = 6; }:Hero;
 ghost = { name = "Ghost"; hp = 1; maxHp = 1;
  secrets = { { key = "seen"; mode = Secret.Mode.hide; }:Secret }; }:Hero;
 sheet = {
  of = "Hero";
  sections = {
   { label = "Body"; labelJa = "体"; entries = {
     { member = "hp"; label = "HP"; max = "maxHp"; shown = SheetEntry.Shown.everyone; }:SheetEntry,
     { member = "twice"; label = "Twice"; labelJa = "二倍"; }:SheetEntry,
     { member = "luck"; label = "Luck"; }:SheetEntry
   }; }:SheetSection,
   { label = "Secrets"; entries = {
     { member = "plot"; label = "Plot"; shown = SheetEntry.Shown.gm; }:SheetEntry
   }; }:SheetSection
  };
 }:Sheet;
 fight = { label = "Fight"; labelJa = "戦闘"; }:Tracker;
 go = { ticks = 0; priority = 0; handler = @{
  fight.setRound(1); fight.setPhase("set"); fight.setOrder({ghost, ben, aki});
  fight.setCurrent({ben});
 }; }:Event;
 hit = { ticks = 1; priority = 0; handler = @{ aki.hurt(5); }; }:Event;
 ask = { ticks = 2; priority = 0; handler = @{
  ben.query("Go?", { ok = integer.input; }); }; }:Event;
}
"""

AKI, BEN = "aki@example.org", "ben@example.org"


def stepped(steps: int) -> Session:
    """The session after its first ``steps`` steps."""
    session = session_of(TABLE)
    session.start()
    for _ in range(steps):
        session.step()
    return session


def sheets(table: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    assert table is not None
    return {sheet["id"]: sheet for sheet in table["sheets"]}


def lines(sheet: dict[str, Any]) -> dict[str, Any]:
    return {e["member"]: e for s in sheet["sections"] for e in s["entries"]}


def test_the_owner_reads_its_own_sheet_and_what_everyone_sees_of_the_others() -> None:
    session = stepped(1)
    seen = sheets(table_view(session, AKI))
    assert set(seen) == {"t.aki", "t.ben"}  # (the ghost is hidden from Aki)
    own = lines(seen["t.aki"])
    assert seen["t.aki"]["mine"] and set(own) == {"hp", "twice", "luck"}
    assert own["hp"]["value"] == 8 and own["hp"]["max"] == 10
    assert own["twice"] == {
        "member": "twice",
        "label": "Twice",
        "labelJa": "二倍",
        "value": 16,
        "derived": True,
    }
    assert own["luck"]["labelJa"] == "Luck"  # (no Japanese label: the English one)
    other = seen["t.ben"]
    assert not other["mine"] and set(lines(other)) == {"hp"}
    assert [s["label"] for s in other["sections"]] == ["Body"]


def test_the_gm_reads_every_line_of_every_sheet() -> None:
    session = stepped(1)
    seen = sheets(table_view(session, GM))
    assert set(seen) == {"t.aki", "t.ben", "t.ghost"}
    assert lines(seen["t.ben"])["plot"]["value"] == "traitor"
    assert "plot" not in lines(sheets(table_view(session, BEN))["t.ben"])


def test_a_tracker_shows_the_order_without_hidden_actors() -> None:
    session = stepped(1)
    table = table_view(session, AKI)
    assert table is not None
    (tracker,) = table["trackers"]
    assert tracker["round"] == 1 and tracker["phase"] == "set"
    assert tracker["label"] == "Fight" and tracker["labelJa"] == "戦闘"
    assert [a["id"] for a in tracker["order"]] == ["t.ben", "t.aki"]
    assert tracker["current"] == ["t.ben"]
    gm = table_view(session, GM)
    assert gm is not None
    assert [a["name"] for a in gm["trackers"][0]["order"]] == ["Ghost", "Ben", "Aki"]


def test_the_sheet_follows_the_alters_and_the_key_changes_with_them() -> None:
    session = stepped(1)
    key = table_key(session)
    session.step()
    assert table_key(session) != key
    own = lines(sheets(table_view(session, AKI))["t.aki"])
    assert own["hp"]["value"] == 3 and own["twice"]["value"] == 6


def test_the_table_names_whom_it_waits_for() -> None:
    session = session_of(TABLE, **{BEN: Later()})
    session.run()
    table = table_view(session, AKI)
    assert table is not None
    assert table["waiting"] == [{"seat": BEN, "actor": "t.ben", "name": "Ben"}]


def test_a_program_without_sheets_or_trackers_has_no_table() -> None:
    session = session_of('section t { aki = { name = "Aki"; }:Actor; }')
    session.run()
    assert table_view(session, GM) is None and table_key(session) == ()


HELD = """
section t {
 form Pile { count : integer = 3; alter grow(by : list<integer>) { self.count := count + by.sum; } }
 form Hero extends Actor {
  piles : list<Pile> = {};
  size -> integer { result = piles.get1st.count; }
 }
 pile = { }:Pile;
 aki = { name = "Aki"; player = "aki@example.org":jid; piles = {pile}; }:Hero;
 sheet = { of = "Hero"; sections = { { label = "Cards"; entries = {
   { member = "size"; label = "Size"; }:SheetEntry }; }:SheetSection }; }:Sheet;
 grow = { ticks = 1; priority = 0; handler = @{ pile.grow(2); }; }:Event;
}
"""


def test_a_derived_line_follows_the_objects_its_object_holds() -> None:
    session = session_of(HELD)
    session.start()
    key = table_key(session)
    assert lines(sheets(table_view(session, AKI))["t.aki"])["size"]["value"] == 3
    session.step()
    assert table_key(session) != key
    assert lines(sheets(table_view(session, AKI))["t.aki"])["size"]["value"] == 5


FIELDS = """
section t {
 form Blade { name : string; alter renamed(names : list<string>) { self.name := names.get1st; } }
 form Hero extends Actor {
  hp : integer; steps : integer = 0; blade : Blade;
  alter walk(by : list<integer>) { self.steps := steps + by.sum; }
  alter hurt(by : list<integer>) { self.hp := hp - by.sum; }
 }
 edge = { name = "Edge"; }:Blade;
 aki = { name = "Aki"; player = "aki@example.org":jid; hp = 8; blade = edge; }:Hero;
 sheet = { of = "Hero"; sections = { { label = "Body"; entries = {
   { member = "hp"; label = "HP"; }:SheetEntry,
   { member = "blade"; label = "Blade"; }:SheetEntry }; }:SheetSection }; }:Sheet;
 walk = { ticks = 1; priority = 0; handler = @{ aki.walk(1); }; }:Event;
 hurt = { ticks = 2; priority = 0; handler = @{ aki.hurt(3); }; }:Event;
 rename = { ticks = 3; priority = 0; handler = @{ edge.renamed("Notched edge"); }; }:Event;
}
"""


def test_a_sheet_of_fields_is_made_again_only_when_a_field_it_shows_changes() -> None:
    """A sheet whose lines are all fields is made of those fields (an object in one by
    its name, as the line shows it): a member it does not show (the steps walked) changes
    neither the table's key nor the sheet, which is kept as it was made."""
    session = session_of(FIELDS)
    session.start()
    keys = [table_key(session)]
    made = [sheets(table_view(session, AKI))["t.aki"]]
    for _ in range(3):  # (the walk, the hurt, the blade renamed)
        session.step()
        keys.append(table_key(session))
        made.append(sheets(table_view(session, AKI))["t.aki"])
    assert keys[1] == keys[0] and made[1] is made[0]
    assert keys[2] != keys[1] and lines(made[2])["hp"]["value"] == 5
    assert keys[3] != keys[2] and lines(made[3])["blade"]["value"] == "Notched edge"
