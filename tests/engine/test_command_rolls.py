"""Dice commands from rules (``roll("2D6+3>=10")``), exact odds (``odds(...)``), fixed
dice for tests, and a rule system's own commands in rules and in the chat."""

from __future__ import annotations

import pytest

from lore.dice import FixedSource, RollResult
from lore.dice.odds import odds as dice_odds
from lore.engine.session import Session
from lore.engine.system_commands import chat_roll, help_lines
from lore.runtime.errors import RuleError
from tests.engine.harness import errors, messages, play, records

HEAD = """import "basic.lore":url;
section t {
 form Hero extends Actor {
  rule check { r = roll("2D6+1"); GM.message(r.by + " " + r.text); }
 }
 aki = { name = "Aki"; player = "aki@x":jid; location = "/[0]":loc;
  features = list<Feature>.empty; items = list<Item>.empty;
  knownSecrets = list<string>.empty; }:Hero;
 place = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Point"><point label="0" /></geometry>]=]:xml; }:Area;
"""


def program(handler: str, extra: str = "") -> str:
    event = f" go = {{ ticks = 0; priority = 0; handler = @{{ {handler} }}; }}:Event;\n"
    return HEAD + extra + event + "}\n"


def test_a_command_gives_a_roll_with_text_total_faces_and_flags() -> None:
    session = play(
        program(
            'r = roll("2D6+3>=10");'
            ' GM.message(r.text + "|" + r.total + "|" + r.faces.length + "|" + r.success'
            ' + r.failure + r.critical + r.fumble + r.secret + "|" + r.command);'
        ),
        dice=[6, 3],
    )
    assert messages(session) == [
        "(2D6+3>=10) ＞ 9[6,3]+3 ＞ 12 ＞ 成功|12|2|truefalsefalsefalsefalse|2D6+3>=10"
    ]
    [record] = records(session, "dice")
    assert record == {
        "tick": 0,
        "kind": "dice",
        "by": "GM",
        "seat": "GM",
        "dice": "2D6",
        "how": "command",
        "faces": [6, 3],
        "total": 12,
        "command": "2D6+3>=10",
        "text": "(2D6+3>=10) ＞ 9[6,3]+3 ＞ 12 ＞ 成功",
        "success": True,
    }


def test_pools_count_successes_and_keep_every_die() -> None:
    # 3R6[6]>=5: the 6 is rolled again; successes are counted over every die.
    session = play(
        program('r = roll("3R6[6]>=5"); GM.message("" + r.total + " " + r.faces.length);'),
        dice=[6, 2, 5, 4],
    )
    assert messages(session) == ["2 4"]
    assert records(session, "dice")[0]["faces"] == [6, 2, 5, 4]


def test_an_actor_rolls_a_command_in_its_name_and_secret_rolls_say_so() -> None:
    session = play(program('r = aki.roll("S1D6"); aki.check;'), dice=[4, 1, 2])
    first, second = records(session, "dice")
    assert (first["by"], first["seat"], first.get("secret")) == ("Aki", "aki@x", True)
    # Inside a form of actors, roll(...) is the actor's own roll.
    assert second["by"] == "Aki" and messages(session) == ["Aki (2D6+1) ＞ 3[1,2]+1 ＞ 4"]


def test_the_dice_come_from_the_handlers_own_stream() -> None:
    text = program('r = roll("4D6"); GM.message(r.text);')
    first, again = play(text, seed=7), play(text, seed=7)
    assert messages(first) == messages(again)
    faces = records(first, "dice")[0]["faces"]
    assert len(faces) == 4 and all(1 <= f <= 6 for f in faces)


def test_text_that_is_no_command_is_a_rule_error_at_the_call() -> None:
    session = play(program('r = roll("hello"); GM.message("not reached");'), dice=[])
    assert errors(session) == ["'hello' is not a dice command"]
    [error] = records(session, "error")
    assert error["where"] == "test.lore:11:51"  # the call roll("hello")
    assert messages(session) == []


def test_roll_takes_dice_or_a_command_only() -> None:
    session = play(program("r = aki.roll(5);"), dice=[])
    assert errors(session) == ['roll takes dice (3d6) or a dice command ("2D6+3>=10"), not 5']


def test_too_many_dice_in_a_command_is_a_limit() -> None:
    session = play(program('r = roll("x100 200D6");'))
    assert errors(session) == ["the dice command 'x100 200D6': a command rolls at most 10,000 dice"]


# ------------------------------------------------------------ fixed dice


def test_given_dice_are_rolled_in_order_by_every_kind_of_roll() -> None:
    source = FixedSource([3, 5, 6, 2, 9])
    session = play(
        program(
            'a = d6.roll; b = (2d6).roll; r = GM.roll(1d6); c = roll("1D10");'
            ' GM.message("" + a + " " + b + " " + r.total + " " + c.total);'
        ),
        dice=source,
    )
    assert messages(session) == ["3 11 2 9"]
    assert source.left == 0


def test_running_out_of_given_dice_is_an_error() -> None:
    session = play(program('r = roll("3D6");'), dice=[1, 2])
    assert errors(session) == [
        "the dice command '3D6': the command rolls more dice than the 2 faces given"
    ]


# ------------------------------------------------------------ odds


def test_odds_are_exact() -> None:
    session = play(
        program(
            'o = odds("7R10[10]>=8"); GM.message(o.atLeastExact(3) + " " + o.measure);'
            ' s = odds("3D6"); GM.message(s.chanceOfExact("[6]>=2") + " "'
            ' + s.chanceOfExact("[1]=all") + " " + s.mean + " " + s.outcomes.length + " "'
            " + s.exactly(3));"
            ' t = odds("2D6+3>=10");'
            ' GM.message("" + t.success + " " + t.atMost(9) + " " + t.atLeast(10));'
        ),
        dice=[],
    )
    first, second, third = messages(session)
    assert first == "207877533/500000000 successes"
    assert second == f"2/27 1/216 10.5 16 {1 / 216!r}"
    sure = dice_odds("2D6+3>=10")
    assert (
        third
        == f"{float(sure.success)!r} {float(1 - sure.at_least(10))!r} {float(sure.at_least(10))!r}"
    )


def test_opposed_odds() -> None:
    session = play(
        program('o = odds("2D6+4"); GM.message("" + o.beats("2D6+3") + " " + o.ties("2D6+3"));')
    )
    wins = ties = 0
    for a1 in range(1, 7):
        for a2 in range(1, 7):
            for b1 in range(1, 7):
                for b2 in range(1, 7):
                    wins += a1 + a2 + 4 > b1 + b2 + 3
                    ties += a1 + a2 + 4 == b1 + b2 + 3
    assert messages(session) == [f"{wins / 1296!r} {ties / 1296!r}"]


def test_odds_of_what_has_none_is_a_rule_error() -> None:
    session = play(program('o = odds("choice[a,b]");'))
    assert errors(session)[0].startswith("no odds of 'choice[a,b]'")


# ------------------------------------------------------------ system commands

COMMANDS = """
 nj = {
  pattern = "NJ{pool}(@{difficulty=1})?";
  help = "NJ7@2: a pool of d10s";
  handler = @(n : list<integer>) : Roll {
   r = roll("" + n.get(0) + "R10[10]>=8");
   ok = r.total >= n.get(1);
   shown = "(NJ" + n.get(0) + "@" + n.get(1) + ") ＞ " + r.total;
   result = r.withText(shown).judged(ok, false, false);
  };
 }:Command;
 noisy = {
  pattern = "NOISY";
  help = "";
  handler = @(n : list<integer>) : Roll { GM.message("hi"); result = roll("1D6"); };
 }:Command;
 changes = {
  pattern = "HURT";
  help = "";
  handler = @(n : list<integer>) : Roll {
   aki.relocate("/[0]":loc); system.count("x", 1); result = roll("1D6");
  };
 }:Command;
 moves = {
  pattern = "MOVE";
  help = "";
  handler = @(n : list<integer>) : Roll { aki.relocate("/[0]":loc); result = roll("1D6"); };
 }:Command;
 asks = {
  pattern = "ASK";
  help = "";
  handler = @(n : list<integer>) : Roll {
   a = GM.query("?", { n = integer.input; }); result = roll("1D6");
  };
 }:Command;
"""


def test_rules_roll_the_systems_commands_before_bcdices() -> None:
    session = play(
        program(
            'r = aki.roll("nj3@2"); GM.message(r.text + " " + r.success + " " + r.command);',
            COMMANDS,
        ),
        dice=[10, 9, 3, 1],
    )
    assert messages(session) == ["(NJ3@2) ＞ 2 true nj3@2"]
    inner, command = records(session, "dice")
    # The handler's own roll is in the name of the one who rolled the command.
    assert inner["by"] == command["by"] == "Aki"
    assert command["command"] == "nj3@2" and command["text"] == "(NJ3@2) ＞ 2"
    assert command["faces"] == [10, 9, 3, 1]


def started(extra: str = COMMANDS) -> Session:
    session = play(program('GM.message("ready");', extra), dice=[])
    assert messages(session) == ["ready"]
    return session


def test_the_chat_rolls_a_system_command_with_the_servers_dice() -> None:
    session = started()
    before = list(session.transcript.records)
    result = chat_roll(session, "SNJ2 the guard", "aki@x", FixedSource([8, 2]))
    assert result == RollResult(
        "(NJ2@1) ＞ 1", 1, result.dice, secret=True, success=True, failure=False
    )
    assert [(d.sides, d.value) for d in result.dice] == [(10, 8), (10, 2)]
    assert session.transcript.records == before  # the chat keeps its rolls, not the session


def test_the_chat_rolls_bcdice_commands_and_leaves_plain_lines() -> None:
    session = started()
    result = chat_roll(session, "2D6>=7 hit", "GM", FixedSource([3, 4]))
    assert result is not None and result.text == "(2D6>=7) ＞ 7[3,4] ＞ 7 ＞ 成功"
    assert chat_roll(session, "hello there", "GM", FixedSource([])) is None
    assert help_lines(session)[0] == ("NJ{pool}(@{difficulty=1})?", "NJ7@2: a pool of d10s")


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("NOISY", "a chat command only rolls dice: it cannot send a message"),
        ("HURT", "the command t.changes only rolls dice: it cannot change objects"),
        ("MOVE", "the command t.moves only rolls dice: it cannot change objects"),
        ("ASK", "a chat command only rolls dice: it cannot ask a question"),
    ],
)
def test_a_chat_command_may_only_roll(line: str, problem: str) -> None:
    session = started()
    before = (list(session.transcript.records), list(session.stats), session.outcome)
    with pytest.raises(RuleError) as caught:
        chat_roll(session, line, "GM", FixedSource([1]))
    assert caught.value.message.startswith(problem)
    assert caught.value.location().startswith("test.lore:")
    assert (list(session.transcript.records), list(session.stats), session.outcome) == before


def test_a_command_whose_pattern_cannot_be_read_is_told_at_the_start() -> None:
    bad = """
 broken = { pattern = "NJ{pool"; help = "";
  handler = @(n : list<integer>) : Roll { result = roll("1D6"); }; }:Command;
"""
    session = started_with_errors(bad)
    [error] = records(session, "error")
    assert error["message"] == (
        "the pattern of the command t.broken ('NJ{pool'), at character 3: '{' is not closed:"
        " write {name}"
    )
    assert error["where"] == "test.lore:12:2"
    assert chat_roll(session, "NJ3", "GM", FixedSource([])) is None  # left out


def started_with_errors(extra: str) -> Session:
    return play(program('GM.message("ready");', extra), dice=[])
