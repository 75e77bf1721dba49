"""The ninja library (``ninja.lore``, seed 004): every rule, each with fixed dice.

As for ORM, each test runs a small scenario importing the library with the faces of the
dice given in the order the rules roll them, and reads what the rules told.
"""

from __future__ import annotations

from lore.dice import FixedSource
from lore.engine.session import Session
from lore.engine.system_commands import chat_roll
from tests.engine.harness import Answers, faces, messages, offered, records, run_handler, told

ROW = " <line>" + "<section />" * 8 + "</line>\n"
STREET = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="2[m]" type="4">\n'
    + ROW * 2
    + "</geometry>"
)

# Two scenes side by side: the street (8 x 2) and the Kotodama (3 x 1), no way between
# them. Makers of a PC and an enemy: 能力値 アクト 3 and リアクト 2, 近接 2, 回避 1, 電制 3,
# a カタナ (2 damage), HP 3, 戦闘移動 2; an enemy has the arts it is given.
HEAD = (
    """import "basic.lore":url;
import "ninja.lore":url;
section t {
 world = { location = "/":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Linked"><node label="street" /><node label="kotodama" />
</geometry>]=]:xml; }:Area;
 street = { location = "/[street]":loc; geometry = [=[
"""
    + STREET
    + """
]=]:xml; }:Area;
 kotodama = { location = "/[kotodama]":loc; geometry = [=[<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="1[m]" type="4">
<line><section /><section /><section /></line></geometry>]=]:xml; }:Area;
 katana = { name = "カタナ"; skill = "近接"; damage = 2; }:Weapon;
 skills = { { name = "近接"; value = 2; }:Skill, { name = "回避"; value = 1; }:Skill,
  { name = "電制"; value = 3; }:Skill };
 dive = { name = "ダイブ"; timing = Timing.act; cost = 1; effect = Effect.connect; }:Art;
 full = { name = "完全ダイブ"; timing = Timing.act; cost = 1; effect = Effect.connect;
  connection = Connection.fullDive; }:Art;
 out = { name = "ログアウト"; timing = Timing.act; cost = 1; effect = Effect.connect;
  connection = Connection.recognition; }:Art;
 spike = { name = "スパイク"; timing = Timing.act; cost = 2; effect = Effect.strike; power = 1;
  overRange = true; }:Art;
 breath = { name = "チャドー"; timing = Timing.setup; cost = 0; effect = Effect.boost;
  power = 2; }:Art;
 function who(name : string, seat : jid, place : loc, dl : integer, init : integer,
   link : Connection) : Character {
  result = { name = name; player = seat; location = place; features = list<Feature>.empty;
   items = list<Item>.empty; knownSecrets = list<string>.empty; side = Side.pc; karma = 2;
   dl = dl; hp = 3; maxHp = 3; act = 3; react = 2; skills = skills; weapon = katana;
   arts = {dive, full, out, spike, breath}; initiative = init; speed = 2;
   connection = link; }:Character;
 }
 function enemy(name : string, place : loc, init : integer, link : Connection, own : list<Art>)
   : Character {
  result = { name = name; location = place; features = list<Feature>.empty;
   items = list<Item>.empty; knownSecrets = list<string>.empty; side = Side.enemy; karma = 0;
   hp = 3; maxHp = 3; act = 3; react = 2; skills = skills; weapon = katana;
   arts = own; initiative = init; speed = 2; connection = link; }:Character;
 }
"""
)

CAST = """
 yamato = who("Yamato", "y@x":jid, "/street[0,0]":loc, 1, 8, Connection.standalone);
 midori = who("Midori", "m@x":jid, "/street[0,1]":loc, 0, 6, Connection.recognition);
 yakuza = enemy("Yakuza", "/street[3,0]":loc, 8, Connection.standalone, list<Art>.empty);
 daemon = enemy("Daemon", "/kotodama[2,0]":loc, 1, Connection.fullDive, {spike});
 battle = { fighters = {yamato, midori, yakuza, daemon}; entry = "/kotodama[0,0]":loc;
  onEnd = @(o : string) { GM.message("end " + o); system.end(o); }; }:Battle;
"""


def run(
    handler: str,
    dice: list[int],
    answers: Answers | None = None,
    cast: str = CAST,
    stops: bool = False,
) -> Session:
    return run_handler(HEAD + cast, handler, dice, answers, stops)


def said(session: Session) -> list[str]:
    return told(session, "GM")


# ------------------------------------------------------------ checks


def test_a_pool_is_ability_and_skill_and_two_dice_a_dl() -> None:
    session = run(
        'GM.message("" + pool(yamato, 3, 2) + " " + pool(midori, 3, 2));'
        ' yamato.addBonus(1); schedule.then(@{ GM.message("" + pool(yamato, 3, 2)); });',
        [],
    )
    # Yamato is a ninja of DL 1 (+2 dice); an art's bonus adds its dice until cleanup.
    assert said(session) == ["7 5", "8"]


def test_dice_of_eight_or_more_succeed_and_a_ten_reads_zero() -> None:
    session = run(
        'c = check(midori, 5, 0, "登攀"); GM.message("" + c.total + c.success);', [8, 9, 7, 3, 2]
    )
    assert said(session) == ["Midori 登攀 (5d10) ＞ 8,9,7,3,2 ＞ 達成数2 ＞ 成功", "2true"]


def test_the_difficulty_must_be_reached_and_no_difficulty_needs_one_success() -> None:
    session = run('c = check(midori, 3, 2, "跳躍");', [8, 9, 2])
    assert said(session) == ["Midori 跳躍 (3d10) ＞ 8,9,2 ＞ 達成数2 ＞ 成功"]
    session = run('c = check(midori, 3, 3, "跳躍");', [8, 9, 2])
    assert said(session) == ["Midori 跳躍 (3d10) ＞ 8,9,2 ＞ 達成数2 ＞ 失敗"]
    session = run('c = check(midori, 3, 0, "跳躍");', [7, 6, 2])
    assert said(session) == ["Midori 跳躍 (3d10) ＞ 7,6,2 ＞ 達成数0 ＞ 失敗"]


def test_a_ten_counts_and_rolls_again() -> None:
    session = run(
        'c = check(midori, 3, 0, "タツジン"); GM.message("" + c.total + c.critical);',
        [10, 3, 2, 10, 9],  # the first 10 rolls again: a 10, which rolls again: a 9
    )
    assert said(session) == [
        "Midori タツジン (3d10) ＞ 10,3,2 + 10 + 9 ＞ 達成数3 ＞ タツジン！ ＞ 成功",
        "3true",
    ]


def test_a_failure_with_a_one_costs_a_point_of_karma() -> None:
    session = run(
        'a = check(midori, 3, 0, "a"); b = check(midori, 3, 0, "b"); c = check(midori, 3, 3, "c");'
        ' schedule.then(@{ GM.message("karma " + midori.karma); });',
        faces([1, 2, 3], [4, 5, 6], [1, 8, 2]),
    )
    assert said(session) == [
        "Midori a (3d10) ＞ 1,2,3 ＞ 達成数0 ＞ ウカツ！",
        "Midori b (3d10) ＞ 4,5,6 ＞ 達成数0 ＞ 失敗",  # no 1: just a failure
        "Midori c (3d10) ＞ 1,8,2 ＞ 達成数1 ＞ 失敗",  # one success: no ウカツ！
        "karma 1",
    ]


def test_opposed_checks_leave_the_active_side_what_it_has_over_the_passive() -> None:
    for dice, verdict in (([8, 9, 2, 8, 2], "1 true"), ([8, 2, 2, 8, 2], "0 false")):
        session = run(
            'a = check(midori, 3, 0, "a"); p = check(yakuza, 2, 0, "p");'
            ' GM.message(margin(a, p) + " " + activeWins(a, p));',
            dice,
        )
        assert said(session)[-1] == verdict


def test_an_extended_check_loses_two_dice_a_try() -> None:
    session = run(
        'GM.message("" + extended(midori, 5, 3, "解錠"));',
        faces([8, 2, 2, 2, 2], [9, 2, 2], [8]),
    )
    assert said(session) == [
        "Midori 解錠 1回目 (5d10) ＞ 8,2,2,2,2 ＞ 達成数1 ＞ 成功",
        "Midori 解錠: 累積達成数 1/3",
        "Midori 解錠 2回目 (3d10) ＞ 9,2,2 ＞ 達成数1 ＞ 成功",
        "Midori 解錠: 累積達成数 2/3",
        "Midori 解錠 3回目 (1d10) ＞ 8 ＞ 達成数1 ＞ 成功",
        "Midori 解錠: 累積達成数 3/3",
        "true",
    ]
    session = run('GM.message("" + extended(midori, 4, 3, "解錠"));', faces([8, 2, 2, 2], [2, 2]))
    assert said(session)[-2:] == ["Midori 解錠: ダイスプールが尽きた (累積達成数 1/3)", "false"]


# ------------------------------------------------------------ rounds

DUEL = """
 yamato = who("Yamato", "y@x":jid, "/street[0,0]":loc, 1, 8, Connection.standalone);
 yakuza = enemy("Yakuza", "/street[1,0]":loc, 8, Connection.standalone, list<Art>.empty);
 battle = { fighters = {yamato, yakuza}; entry = "/kotodama[0,0]":loc;
  onEnd = @(o : string) { GM.message("end " + o); system.end(o); }; }:Battle;
"""


def test_a_round_setup_initiative_main_and_cleanup() -> None:
    answers: Answers = {
        "y@x": [
            {"use": True, "art": "チャドー"},
            {"act": "attack"},
            {"target": "Yakuza"},
            {"act": "end"},
        ],
        "GM": [{"target": "Yamato"}, {"target": "Yamato"}],
    }
    dice = faces(
        [8, 8, 1, 1, 1, 1, 1, 1, 1], [8, 1, 1]
    )  # 9 dice (3+2, DL 1: +2, art: +2) against 3
    dice += faces([2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2, 2])  # 0 against 0: the passive side holds
    dice += faces([8, 8, 2, 2, 2], [8, 2, 2, 2, 2, 2, 2])  # 2 against 1
    session = run("fight(battle);", dice, answers, cast=DUEL, stops=True)
    assert said(session) == [
        "ラウンド進行開始。勝利条件: 敵対しているキャラクターすべての戦闘不能、"
        "敗北条件: PC全員の戦闘不能",
        "ラウンド 1: セットアップフェイズ",
        "通常シーン: Yamato のアーツ「チャドー」",
        # A tie of イニシアティヴ値: the PC first. A ninja of DL 1 has 3 actions.
        "イニシアティヴ: Yamato (8)、行動回数 3",
        "Yamato カタナ で攻撃 → Yakuza (9d10) ＞ 8,8,1,1,1,1,1,1,1 ＞ 達成数2 ＞ 成功",
        "Yakuza 回避 (3d10) ＞ 8,1,1 ＞ 達成数1 ＞ 成功",
        "通常シーン: Yakuza に 2 ダメージ",
        "Yamato は残りの行動回数を破棄",
        "イニシアティヴ: Yakuza (8)、行動回数 2",
        "Yakuza カタナ で攻撃 → Yamato (5d10) ＞ 2,2,2,2,2 ＞ 達成数0 ＞ 失敗",
        "Yamato 回避 (7d10) ＞ 2,2,2,2,2,2,2 ＞ 達成数0 ＞ 失敗",
        "通常シーン: Yamato は攻撃を防いだ",
        "Yakuza カタナ で攻撃 → Yamato (5d10) ＞ 8,8,2,2,2 ＞ 達成数2 ＞ 成功",
        "Yamato 回避 (7d10) ＞ 8,2,2,2,2,2,2 ＞ 達成数1 ＞ 成功",
        "通常シーン: Yamato に 2 ダメージ",
        # No one 未行動: the cleanup phase, and the next round.
        "ラウンド 1: クリンナップフェイズ",
        "ラウンド 2: セットアップフェイズ",
    ]
    # After the cleanup phase the art's dice are gone; after the setup phase both are 未行動.
    state = run(
        "fight(battle); schedule.add({ ticks = 15[sec]; priority = 0; handler = @{"
        ' GM.message(yamato.bonus + " " + yamato.state.caption + " "'
        " + yakuza.state.caption); }; }:Event);",
        dice,
        answers,
        cast=DUEL,
        stops=True,
    )
    assert "0 行動完了 行動完了" in said(state)


def test_the_fight_ends_when_a_condition_is_met() -> None:
    answers: Answers = {
        "y@x": [{"use": False, "art": "チャドー"}, {"act": "attack"}, {"target": "Yakuza"}]
    }
    dice = faces([8, 8, 8, 2, 2, 2, 2], [2, 2, 2])  # 3 against 0: 2 damage on 3 HP ... then again
    dice += faces([8, 8, 2, 2, 2, 2, 2], [2, 2, 2])
    answers["y@x"] += [{"act": "attack"}, {"target": "Yakuza"}]
    session = run("fight(battle);", dice, answers, cast=DUEL)
    assert said(session)[-3:] == [
        "通常シーン: Yakuza は戦闘不能",
        "ラウンド進行終了: 勝利条件を満たした",
        "end won",
    ]


def test_the_fight_is_lost_when_no_pc_fights() -> None:
    session = run(
        'yamato.wound(3); GM.message("[" + battle.outcome + "]");'
        ' schedule.then(@{ GM.message("[" + battle.outcome + "]"); });',
        [],
        cast=DUEL,
    )
    assert said(session) == ["[]", "[lost]"]


def test_a_condition_of_the_gms_own() -> None:
    cast = DUEL.replace(
        'entry = "/kotodama[0,0]":loc;',
        'entry = "/kotodama[0,0]":loc; defeat = "Yamato の負傷";'
        " lost = @(b : Battle) : boolean { result = yamato.hp < yamato.maxHp; };",
    )
    session = run(
        'yamato.wound(1); schedule.then(@{ GM.message("[" + battle.outcome + "]"); });',
        [],
        cast=cast,
    )
    assert said(session) == ["[lost]"]


# ------------------------------------------------------------ states and actions


def test_states_fall_die_and_get_up_as_they_were() -> None:
    session = run(
        "yamato.setState(State.done); schedule.then(@{ yamato.wound(3); schedule.then(@{"
        ' GM.message(yamato.state.caption + " " + yamato.fighting); yamato.heal(2);'
        " schedule.then(@{"
        ' GM.message(yamato.state.caption + " " + yamato.hp); yamato.wound(3); schedule.then(@{'
        " yamato.wound(1); schedule.then(@{ GM.message(yamato.state.caption); }); }); }); }); });",
        [],
        cast=DUEL,
    )
    assert said(session) == ["戦闘不能 false", "行動完了 2", "死亡"]


def test_action_counts_are_two_and_the_dl() -> None:
    cast = (
        DUEL
        + ' master = who("Master", "ms@x":jid, "/street[7,1]":loc, 3, 1, Connection.standalone);\n'
    )
    session = run(
        'GM.message(yakuza.actionCount + " " + yamato.actionCount + " " + master.actionCount);',
        [],
        cast=cast,
    )
    assert said(session) == ["2 3 5"]


def moves(handler: str, cast: str) -> list[str]:
    session = run(handler, [], {"y@x": []}, cast=cast, stops=True)
    [choices] = offered(session, "move in street")
    return sorted(choices["goal"])


def test_a_combat_move_cannot_leave_an_enemy_a_full_move_goes_three_times_as_far() -> None:
    # Yamato at [0,0] with the Yakuza next to him at [1,0]; 戦闘移動 2.
    assert moves("moveOf(battle, yamato, false);", DUEL) == [
        "/street[0,0]",
        "/street[1,1]",
        "/street[2,0]",
    ]
    far = moves("moveOf(battle, yamato, true);", DUEL)
    assert "/street[6,0]" in far and "/street[7,0]" not in far and "/street[1,0]" not in far
    # Without an enemy next to him, a combat move goes anywhere within 2.
    loose = DUEL.replace('"/street[1,0]":loc', '"/street[5,0]":loc')
    assert moves("moveOf(battle, yamato, false);", loose) == [
        "/street[0,0]",
        "/street[0,1]",
        "/street[1,0]",
        "/street[1,1]",
        "/street[2,0]",
    ]


def test_act_declarations_cost_actions() -> None:
    answers: Answers = {
        "y@x": [{"act": "fullMove"}, {"goal": "/street[2,0]"}, {"act": "end"}],
    }
    cast = DUEL.replace('"/street[1,0]":loc', '"/street[3,0]":loc')
    session = run(
        "yamato.setActions(yamato.actionCount); yakuza.setState(State.done);"
        " schedule.then(@{ mainPhase(battle, 1, yamato); });"
        ' schedule.add({ ticks = 1[sec]; priority = 0; handler = @{ GM.message("" + yamato.actions'
        ' + " " + yamato.state.caption); }; }:Event);',
        [],
        answers,
        cast=cast,
        stops=True,
    )
    menus = [
        r["choices"]["act"]
        for r in records(session, "query")
        if r["title"] == "Yamato のアクト宣言"
    ]
    # 3 actions: a full move costs 2; with 1 left, no full move but an attack next to the
    # Yakuza (and the arts of cost 1).
    assert menus == [["move", "fullMove", "art", "end"], ["move", "attack", "art", "end"]]
    # Dropping the rest leaves 0 and makes him 行動完了.
    shown = said(session)
    assert shown[shown.index("Yamato は残りの行動回数を破棄") :][-3:] == [
        "ラウンド 1: クリンナップフェイズ",
        "0 行動完了",
        "ラウンド 2: セットアップフェイズ",
    ]


# ------------------------------------------------------------ the IRC Kotodama scene


def test_the_four_connection_states_place_a_character_in_the_scenes() -> None:
    session = run(
        ' ok = @(c : Character) : string { result = c.name + ":" + c.scene.caption + "/"'
        " + c.isIn(Scene.normal) + c.isIn(Scene.kotodama) + c.perceives(Scene.normal)"
        " + c.perceives(Scene.kotodama); };"
        " GM.message(ok(yamato)); GM.message(ok(midori)); GM.message(ok(daemon));"
        " midori.connect({ connection = Connection.dive; entry = battle.entry; }:Link);"
        ' schedule.then(@{ GM.message(ok(midori) + " " + midori.location + " " + midori.body); });',
        [],
    )
    assert said(session) == [
        # スタンドアロン: the normal space only.
        "Yamato:通常シーン/truefalsetruefalse",
        # 認識: in the normal space, following the Kotodama.
        "Midori:通常シーン/truefalsetruetrue",
        # 完全ダイブ: the Kotodama only.
        "Daemon:コトダマシーン/falsetruefalsetrue",
        # ダイブ: played in the Kotodama, its body still in the street.
        "Midori:コトダマシーン/truetruetruetrue /kotodama[0,0] /street[0,1]",
    ]


def test_the_scenes_cannot_hear_each_other_but_recognition_follows_the_kotodama() -> None:
    session = run('tell(battle, Scene.kotodama, "0と1"); tell(battle, Scene.normal, "足音");', [])
    assert messages(session, "y@x") == ["通常シーン: 足音"]
    assert messages(session, "m@x") == ["コトダマシーン: 0と1", "通常シーン: 足音"]


def test_blows_do_not_cross_between_the_scenes_but_over_range_ones() -> None:
    session = run(
        "a = targets(battle, yamato, 9, false); b = targets(battle, yamato, 9, true);"
        " c = targets(battle, daemon, 9, false);"
        ' GM.message(a.length + " " + a.get1st.name + " / " + b.length + " / " + c.length);',
        [],
    )
    # Yamato reaches the Yakuza, and the Daemon only with an オーバーレンジ art; the
    # Daemon (in the Kotodama) reaches no one in the street.
    assert said(session) == ["1 Yakuza / 2 / 0"]


def test_a_divers_body_can_be_struck_and_its_hp_are_one() -> None:
    answers: Answers = {"GM": [{"target": "Midori"}]}
    session = run(
        "midori.connect({ connection = Connection.dive; entry = battle.entry; }:Link);"
        " yakuza.setActions(2);"
        ' schedule.then(@{ GM.message(targets(battle, yakuza, 4, false).length + "");'
        ' attack(battle, yakuza, midori, 0, 2, "チャカ"); schedule.then(@{'
        ' GM.message("HP " + midori.hp + " " + midori.scene.caption); }); });',
        faces([8, 8, 8, 2, 2], [2, 2, 2]),
        answers,
    )
    assert said(session)[0] == "2"  # Yamato, and Midori's body 4 squares away
    assert said(session)[-1] == "HP 1 コトダマシーン"
    # Her player hears of the blow where it landed.
    assert "通常シーン: Midori に 2 ダメージ" in messages(session, "m@x")


def test_a_full_dive_leaves_the_street_and_checks_with_denshi() -> None:
    session = run(
        'GM.message("" + midori.skillOf("近接"));'
        " midori.connect({ connection = Connection.fullDive; entry = battle.entry; }:Link);"
        ' schedule.then(@{ GM.message(midori.skillOf("近接") + " "'
        " + targets(battle, yakuza, 9, false).length); midori.connect({"
        " connection = Connection.standalone; entry = battle.entry; }:Link);"
        ' schedule.then(@{ GM.message(midori.location + ""); }); });',
        [],
    )
    # 近接 2; in a full dive ≪電制≫ (3) may stand for any skill; the Yakuza no longer
    # finds her; logging out puts her back where her body was.
    assert said(session) == ["2", "3 1", "/street[0,1]"]


def test_an_art_connects_a_character() -> None:
    session = run(
        "midori.setActions(2); schedule.then(@{ useArt(battle, midori, dive); schedule.then(@{"
        " GM.message(midori.connection.caption); }); });",
        [],
    )
    assert said(session) == [
        "通常シーン: Midori のアーツ「ダイブ」",
        "通常シーン: Midori はダイブ (並列)状態になった",
        "ダイブ (並列)",
    ]


# ------------------------------------------------------------ chat commands


def started() -> Session:
    return run('GM.message("ready");', [])


def test_the_chat_commands_of_the_ninja_rules() -> None:
    session = started()
    check = chat_roll(session, "NJ4@2 ジャンプ", "y@x", FixedSource([10, 8, 1, 3, 9]))
    assert check is not None
    assert (check.text, check.total, check.success, check.critical) == (
        "(NJ4@2) ＞ 10,8,1,3 + 9 ＞ 達成数3 ＞ タツジン！ ＞ 成功",
        3,
        True,
        True,
    )
    assert [die.value for die in check.dice] == [10, 8, 1, 3, 9]
    miss = chat_roll(session, "nj3", "y@x", FixedSource([1, 2, 3]))
    assert miss is not None and miss.text == "(NJ3) ＞ 1,2,3 ＞ 達成数0 ＞ ウカツ！"
    assert miss.fumble and not miss.success
    opposed = chat_roll(session, "NJ2VS2", "GM", FixedSource([8, 9, 8, 2]))
    assert opposed is not None and opposed.text == (
        "(NJ2VS2) ＞ 能動側 8,9 ＞ 達成数2 ／ 受動側 8,2 ＞ 達成数1 ＞ 差1 ＞ 能動側の勝利"
    )
    extended = chat_roll(session, "NJE5@3", "GM", FixedSource([8, 8, 2, 2, 2, 2, 2, 2, 2]))
    # Pools of 5, 3 and 1: 2 successes in all, short of 3; the outcome said once, at the end.
    assert extended is not None and extended.text == (
        "(NJE5@3) ＞ 5個: 8,8,2,2,2 ＞ 達成数2 ＞ 累積2 ／ 3個: 2,2,2 ＞ 達成数0 ＞ 累積2"
        " ／ 1個: 2 ＞ 達成数0 ＞ 累積2 ＞ 失敗"
    )
    assert not extended.success
