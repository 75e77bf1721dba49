"""Who rolls a rule system's command: its handler's dice are rolled in the name of the
one who typed it (or whose ``roll(...)`` ran it), and ``system.roller`` and
``participant.actors`` tell the handler who that is."""

from __future__ import annotations

from lore.dice import FixedSource
from lore.engine.system_commands import chat_roll
from tests.engine.harness import messages, play, records
from tests.engine.test_command_rolls import program

# WHO2: 2d6 for the one who types it, named in the text by their actors' names.
WHO = """
 mira = { name = "Mira"; location = "/[0]":loc; features = list<Feature>.empty;
  items = list<Item>.empty; knownSecrets = list<string>.empty; }:Hero;
 who = {
  pattern = "WHO{n}";
  help = "WHO2: 2d6 for the one who types it";
  handler = @(n : list<integer>) : Roll {
   me = system.roller;
   names = me.actors.map(@(a : Actor) : string { result = a.name; });
   r = GM.roll((n.get(0))d6);
   result = r.withText(names.join(",") + ": " + r.text);
  };
 }:Command;
"""


def test_a_command_a_player_types_rolls_in_their_name_and_knows_who() -> None:
    session = play(program('GM.message("ready");', WHO), dice=[])
    before = list(session.transcript.records)
    result = chat_roll(session, "WHO2", "aki@x", FixedSource([3, 4]))
    assert result is not None
    assert (result.text, result.total, result.secret) == ("Aki: [3 4]", 7, False)
    assert session.transcript.records == before  # the chat keeps its rolls
    by_gm = chat_roll(session, "SWHO1", "GM", FixedSource([5]))
    assert by_gm is not None and (by_gm.text, by_gm.secret) == ("Mira: [5]", True)
    # A seat that plays no actor (yet) is still the roller: it has no actors.
    nobody = chat_roll(session, "WHO1", "ren@x", FixedSource([2]))
    assert nobody is not None and nobody.text == ": [2]"


def test_in_rules_the_command_is_rolled_by_the_actors_player() -> None:
    """``aki.roll("WHO2")`` in a rule: the handler's dice, and the command's record in
    the transcript, are in Aki's name and seat; ``GM.roll`` inside it too."""
    session = play(program('r = aki.roll("WHO2"); GM.message(r.by + " " + r.text);', WHO), [1, 6])
    assert messages(session) == ["Aki Aki: [1 6]"]
    rolled, command = records(session, "dice")
    assert (rolled["by"], rolled["seat"], rolled["faces"]) == ("Aki", "aki@x", [1, 6])
    assert (command["by"], command["seat"], command["command"]) == ("Aki", "aki@x", "WHO2")
    assert command["text"] == "Aki: [1 6]"


def test_outside_a_command_the_roller_is_the_gm() -> None:
    session = play(
        program(
            'GM.message("" + (system.roller == GM) + " " + system.roller.actors.length);'
            ' r = roll("WHO1"); GM.message(r.by + " " + r.text);',
            WHO,
        ),
        dice=[4],
    )
    assert messages(session) == ["true 1", "GM Mira: [4]"]


def test_a_handler_run_in_rules_can_tell_the_roller() -> None:
    """In rules (not in the chat) the handler may also message: to the roller's seat."""
    tell = WHO.replace("r = GM.roll(", 'me.message("for you"); r = GM.roll(')
    session = play(program('r = aki.roll("WHO1");', tell), dice=[2])
    told = [(r["to"], r["text"]) for r in records(session, "message")]
    assert told == [("aki@x", "for you")]
