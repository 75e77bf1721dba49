"""The chat commands of the bundled rule systems (``orm.lore``, ``ninja.lore``) write their
results as BCDice's game systems do, in the table's language: the golden texts of both
languages for fixed dice (``golden/chat_rolls.txt``; ``pytest --update-golden`` rewrites
it), and the same text on the cards of the rules' own checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.dice import FixedSource
from lore.engine.participants import Participants, Scripted
from lore.engine.rollers import language_of, set_language, speaking
from lore.engine.session import Session
from lore.engine.system_commands import chat_roll
from tests.conftest import Golden
from tests.engine.harness import compiled, play, records

GOLDEN = Path(__file__).parent / "golden" / "chat_rolls.txt"
STARTED = ' go = { ticks = 0; priority = 0; handler = @{ GM.message("ready"); }; }:Event;\n}\n'

# (system, command, faces): each case is rolled in Japanese and in English.
CASES = [
    ("orm", "ORM3+4>=12", [6, 6, 1]),  # a critical: +10, and the outcome
    ("orm", "ORM3+4>=30", [6, 6, 1]),  # a critical that falls short
    ("orm", "ORM3+4>=12", [1, 1, 1]),  # a fumble: a failure by itself
    ("orm", "ORM3+4>=12", [2, 3, 4]),
    ("orm", "ORM3+4>=14", [2, 3, 4]),
    ("orm", "ORM3", [2, 5, 5]),  # no bonus (no +0), no target (no outcome)
    ("orm", "ORM2", [6, 6]),  # a critical without a bonus
    ("orm", "ORM3-2>=5", [2, 1, 1]),
    ("orm", "ORM1+3", [6]),  # one 6 is no critical
    ("orm", "ORD8", [3, 4]),
    ("orm", "ORDC8", [3, 4]),
    ("orm", "ORD0", [1, 2]),
    ("ninja", "NJ4@2", [10, 8, 1, 3, 9]),  # a 10 rolled again, after a +
    ("ninja", "NJ2", [10, 10, 10, 3, 4]),  # a 10 again and again: a round each
    ("ninja", "NJ4@2", [10, 10, 3, 4, 10, 2, 8]),
    ("ninja", "NJ3@5", [10, 5, 6, 9]),  # a タツジン！ that falls short
    ("ninja", "NJ3", [1, 2, 3]),  # ウカツ！: a failure by itself
    ("ninja", "NJ3@2", [4, 5, 6]),
    ("ninja", "NJ1", [8]),
    ("ninja", "NJ0", []),
    ("ninja", "NJ2VS2", [8, 9, 8, 2]),
    ("ninja", "NJ2VS3", [1, 2, 8, 10, 3, 9]),  # the active side's ウカツ！; a tie is the passive's
    ("ninja", "NJE5@3", [8, 2, 2, 2, 2, 9, 10, 2, 1]),
    ("ninja", "NJE5@3", [8, 8, 2, 2, 2, 2, 2, 2, 2]),  # the pools run out: 失敗 once
    ("ninja", "NJE1@1", [1]),
]


def started(system: str) -> Session:
    return play(f'import "basic.lore":url;\nimport "{system}.lore":url;\nsection s {{\n' + STARTED)


def line(system: str, session: Session, command: str, faces: list[int], language: str) -> str:
    source = FixedSource(faces)
    result = chat_roll(session, command, "GM", source, language=language)
    assert result is not None and source.left == 0, command
    assert [die.value for die in result.dice] == faces
    flags = " ".join(
        name for name in ("success", "failure", "critical", "fumble") if getattr(result, name)
    )
    return f"{language} {command} {faces}: {result.text}  (total {result.total}; {flags or '-'})\n"


def test_the_chat_rolls_of_both_systems_in_both_languages(golden: Golden) -> None:
    sessions = {system: started(system) for system in ("orm", "ninja")}
    text = "".join(
        line(system, sessions[system], command, faces, language)
        for system, command, faces in CASES
        for language in ("ja", "en")
    )
    golden(text, GOLDEN)


def test_a_chat_roll_in_english_leaves_the_tables_language_as_it_was() -> None:
    session = started("orm")
    assert language_of(session) == "ja"
    english = chat_roll(session, "ORM2", "GM", FixedSource([2, 3]), language="en")
    assert english is not None and language_of(session) == "ja"
    plain = chat_roll(session, "ORM2", "GM", FixedSource([1, 1]))
    assert plain is not None and plain.text == "(ORM2) ＞ 2[1,1] ＞ 2 ＞ ファンブル！"
    set_language(session, "en")
    again = chat_roll(session, "ORM2", "GM", FixedSource([1, 1]))
    assert again is not None and again.text == "(ORM2) ＞ 2[1,1] ＞ 2 ＞ Fumble!"
    with speaking(session, "ja"):
        assert language_of(session) == "ja"
    assert language_of(session) == "en"
    with pytest.raises(ValueError, match="a table reads ja or en"):
        set_language(session, "fr")


CHECKS = """import "basic.lore":url;
import "{system}.lore":url;
section s {{
 go = {{ ticks = 0; priority = 0; handler = @{{ {handler} }}; }}:Event;
}}
"""


def card_texts(system: str, handler: str, faces: list[int], language: str) -> list[str]:
    session = Session(
        compiled(CHECKS.format(system=system, handler=handler)),
        1,
        Participants({"GM": Scripted([])}),
        dice=FixedSource(faces),
    )
    set_language(session, language)
    session.run()
    return [record["text"] for record in records(session, "roll")]


def test_the_rules_checks_show_the_same_text_in_the_tables_language() -> None:
    # The GM's own checks through the commands' rules: a card each.
    orm = 'r = judge(GM.roll(3d6), 4, 12, "登攀").titled("登攀"); r.show;'
    assert card_texts("orm", orm, [6, 6, 1], "ja") == [
        "登攀 ＞ 13[6,6,1]+4+10 ＞ 27 ＞ クリティカル！ ＞ 成功"
    ]
    assert card_texts("orm", orm, [6, 6, 1], "en") == [
        "登攀 ＞ 13[6,6,1]+4+10 ＞ 27 ＞ Critical! ＞ Success"
    ]
    ninja = 'r = judge(poolRoll(GM.roll(3d10)), 2, "跳躍").titled("跳躍"); r.show;'
    assert card_texts("ninja", ninja, [10, 2, 3, 8], "en") == [
        "跳躍 ＞ 10,2,3 + 8 ＞ 2 successes ＞ Tatsujin! ＞ Success"
    ]
