"""The ORM library (``orm.lore``, seed 003): every rule, each with fixed dice.

Each test runs a small scenario that imports the library, with the faces of the dice given
in the order the rules roll them and the players' answers scripted, and reads what the
rules told the GM.
"""

from __future__ import annotations

from lore.dice import FixedSource
from lore.engine.session import Session
from lore.engine.system_commands import chat_roll
from tests.engine.harness import Answers, faces, messages, offered, records, run_handler, told

GRID = """<?xml version="1.0" encoding="UTF-8"?>
<geometry xmlns="http://www.xgmtk.org/Lore/Sectioned2D" scale="1[m]" type="4">
 <line><section /><section /><section /><section /><section /></line>
 <line><section /><section prohibited="true" /><section /><section /><section /></line>
 <line><section /><section /><section /><section /><section /></line>
</geometry>"""

# A 5 x 3 map (a wall at [1,1]), weapons, armour, and makers of a PC and an enemy:
# a PC has 反射 12 (判定値 4, level 3), 筋力 9 (3, level 2), 感覚 9 (3, level 2), 知力 10
# (3, level 2), 精神 7 (2, level 2), HP 20, 行動値 8; an enemy 反射 6 (2, level 2), 筋力 6,
# 精神 3 (1, level 1), HP 10, 行動値 5, 識別値 8, an unreborn with an axe.
HEAD = (
    """import "basic.lore":url;
import "orm.lore":url;
section t {
 field = { location = "/":loc; geometry = [=[
"""
    + GRID
    + """
]=]:xml; }:Area;
 sword = { name = "長剣"; kind = AttackKind.light; power = 6; accuracy = 1; }:Weapon;
 axe = { name = "戦斧"; kind = AttackKind.heavy; power = 8; }:Weapon;
 bow = { name = "弓"; kind = AttackKind.shooting; power = 4; reach = 3; }:Weapon;
 mail = { name = "鎧"; weaponDefence = 3; heatDefence = 1; impactDefence = 2;
  internalDefence = 0; }:Armor;
 function pc(name : string, seat : jid, place : loc) : Character {
  result = pcWith(name, seat, place, 12, 3, sword);
 }
 function stocked(name : string, seat : jid, place : loc, stock : list<Supply>) : Character {
  result = { name = name; player = seat; location = place; features = list<Feature>.empty;
   items = list<Item>.empty; knownSecrets = list<string>.empty; side = Side.pc;
   strength = 9; reflex = 12; sense = 9; intellect = 10; spirit = 7;
   strengthLevel = 2; reflexLevel = 3; senseLevel = 2; intellectLevel = 2; spiritLevel = 2;
   hp = 20; maxHp = 20; actionBase = 8; move = 3; weapon = sword; armor = mail;
   supplies = stock; }:Character;
 }
 function pcWith(name : string, seat : jid, place : loc, reflexBase : integer, squares : integer,
   arm : Weapon) : Character {
  result = { name = name; player = seat; location = place; features = list<Feature>.empty;
   items = list<Item>.empty; knownSecrets = list<string>.empty; side = Side.pc;
   strength = 9; reflex = reflexBase; sense = 9; intellect = 10; spirit = 7;
   strengthLevel = 2; reflexLevel = 3; senseLevel = 2; intellectLevel = 2; spiritLevel = 2;
   hp = 20; maxHp = 20; mp = 6; maxMp = 6; actionBase = 8; move = squares;
   weapon = arm; weapons = {arm, bow}; armor = mail; }:Character;
 }
 function scholar(name : string, seat : jid, known : list<Skill>, later : list<Skill>) : Character {
  result = { name = name; player = seat; location = "/[0,0]":loc; features = list<Feature>.empty;
   items = list<Item>.empty; knownSecrets = list<string>.empty; side = Side.pc;
   strength = 9; reflex = 12; sense = 9; intellect = 10; spirit = 7;
   strengthLevel = 2; reflexLevel = 3; senseLevel = 2; intellectLevel = 2; spiritLevel = 5;
   hp = 20; maxHp = 20; mp = 6; maxMp = 6; actionBase = 8; move = 3; weapon = sword;
   armor = mail; skills = known; learnable = later; }:Character;
 }
 function foe(name : string, place : loc) : Character {
  result = foeWith(name, place, 8, {
   { low = 2; high = 9; name = "爪"; price = 20; }:Loot,
   { low = 10; high = 12; name = "結晶"; price = 150; }:Loot });
 }
 function foeWith(name : string, place : loc, known : integer, table : list<Loot>) : Character {
  result = { name = name; location = place; features = list<Feature>.empty; loot = table;
   items = list<Item>.empty; knownSecrets = list<string>.empty; side = Side.enemy;
   strength = 6; reflex = 6; sense = 6; intellect = 3; spirit = 3;
   strengthLevel = 2; reflexLevel = 2; senseLevel = 2; intellectLevel = 1; spiritLevel = 1;
   hp = 10; maxHp = 10; actionBase = 5; move = 2;
   weapon = axe; armor = mail; unreborn = true; identifyValue = known; level = 2; }:Character;
 }
"""
)

CAST = """
 aki = pc("Aki", "aki@x":jid, "/[0,0]":loc);
 ben = pc("Ben", "ben@x":jid, "/[2,0]":loc);
 orc = foe("Orc", "/[3,0]":loc);
 battle = { fighters = {aki, ben, orc};
  onEnd = @(o : string) { GM.message("end " + o); system.end(o); }; }:Battle;
"""


def run(
    handler: str,
    dice: list[int],
    answers: Answers | None = None,
    cast: str = CAST,
    all_dice: bool = True,
    stops: bool = False,
) -> Session:
    return run_handler(HEAD + cast, handler, dice, answers, stops, all_dice)


def said(session: Session) -> list[str]:
    return told(session, "GM")


# ------------------------------------------------------------ 行為判定


def test_a_check_is_the_abilitys_level_in_dice_plus_its_check_value() -> None:
    # 反射: level 3, base 12 -> 判定値 4; 2+3+4 = 9, +4 = 13 against 目標値 13.
    session = run(
        'c = check(aki, Ability.reflex, 0, 13, "登攀"); GM.message("" + c.total);', [2, 3, 4]
    )
    assert said(session) == ["Aki 登攀 (反射) ＞ 9[2,3,4]+4 ＞ 13 ＞ 成功", "13"]
    session = run('c = check(aki, Ability.strength, 1, 13, "運搬");', [6, 5])
    # 筋力: level 2 (two dice), base 9 -> 3, and a modifier of +1: 11+4 = 15.
    assert said(session) == ["Aki 運搬 (筋力) ＞ 11[6,5]+4 ＞ 15 ＞ 成功"]
    session = run('c = check(aki, Ability.reflex, 0, 14, "登攀");', [2, 3, 4])
    assert said(session) == ["Aki 登攀 (反射) ＞ 9[2,3,4]+4 ＞ 13 ＞ 失敗"]


def test_two_sixes_are_a_critical_worth_ten() -> None:
    session = run(
        'c = check(aki, Ability.reflex, 0, 30, "跳躍"); GM.message("" + c.critical + c.success);',
        [6, 6, 1],
    )
    assert said(session) == [
        "Aki 跳躍 (反射) ＞ 13[6,6,1]+4+10 ＞ 27 ＞ クリティカル！ ＞ 失敗",
        "truefalse",
    ]
    session = run('c = check(aki, Ability.reflex, 0, 0, "跳躍");', [6, 5, 1])
    assert said(session) == ["Aki 跳躍 (反射) ＞ 12[6,5,1]+4 ＞ 16"]


def test_all_ones_are_a_fumble_that_fails_whatever_the_total() -> None:
    session = run(
        'c = check(aki, Ability.reflex, 0, 5, "跳躍"); GM.message("" + c.fumble + c.success);',
        [1, 1, 1],
    )
    assert said(session) == [
        "Aki 跳躍 (反射) ＞ 3[1,1,1]+4 ＞ 7 ＞ ファンブル！",
        "truefalse",
    ]


def test_a_skill_adds_dice_to_the_checks_of_the_turn() -> None:
    cast = CAST + (
        ' focus = { name = "集中"; level = 2; timing = Timing.simple; effect = Effect.boost;'
        " cost = 2; }:Skill;\n"
    )
    session = run(
        "useSkill(aki, focus, battle.fighters, @{ schedule.then(@{"
        ' c = check(aki, Ability.reflex, 0, 0, "命中"); GM.message("MP " + aki.mp); }); });',
        [1, 2, 3, 4, 5],
        cast=cast,
    )
    # 集中 Lv2: two more dice (five in all) until the next start phase, for 2 MP.
    assert said(session)[-2:] == ["Aki 命中 (反射) ＞ 15[1,2,3,4,5]+4 ＞ 19", "MP 4"]


# ------------------------------------------------------------ 対決判定


def test_the_reaction_wins_a_tie_and_a_fumble_loses() -> None:
    session = run(
        'a = check(aki, Ability.reflex, 0, 0, "a"); r = check(orc, Ability.reflex, 0, 0, "r");'
        ' GM.message("" + actionWins(a, r));',
        [3, 3, 3, 6, 5],  # 9+4 = 13 against 11+2 = 13: a tie
    )
    assert said(session)[-1] == "false"
    session = run(
        'a = check(aki, Ability.reflex, 0, 0, "a"); r = check(orc, Ability.reflex, 0, 0, "r");'
        ' GM.message("" + actionWins(a, r));',
        [3, 3, 4, 6, 5],
    )
    assert said(session)[-1] == "true"
    session = run(
        'a = check(aki, Ability.reflex, 0, 0, "a"); r = check(orc, Ability.reflex, 0, 0, "r");'
        ' GM.message("" + actionWins(a, r));',
        [1, 1, 1, 1, 1],  # both fumble: the action's fumble comes first
    )
    assert said(session)[-1] == "false"
    session = run(
        'a = check(aki, Ability.reflex, 0, 0, "a"); r = check(orc, Ability.reflex, 0, 0, "r");'
        ' GM.message("" + actionWins(a, r));',
        [2, 1, 1, 1, 1],  # 8 against a fumbled 4
    )
    assert said(session)[-1] == "true"


def test_several_reactors_each_react_against_one_action_roll() -> None:
    cast = CAST + ' gob = foe("Gob", "/[4,0]":loc);\n'
    session = run(
        'a = check(aki, Ability.intellect, 0, 0, "範囲魔法");'
        ' lost = losers(a, {orc, gob}, Ability.spirit, "抵抗");'
        ' GM.message(lost.length + " " + lost.get1st.name);',
        [4, 4, 6, 2],  # the action once (8+3 = 11); Orc 1 die +1 = 7; Gob 2+1 = 3
        cast=cast,
        all_dice=False,
    )
    assert said(session) == [
        "Aki 範囲魔法 (知力) ＞ 8[4,4]+3 ＞ 11",
        "Orc 抵抗 (精神) ＞ 6[6]+1 ＞ 7",
        "Gob 抵抗 (精神) ＞ 2[2]+1 ＞ 3",
        "2 Orc",
    ]


# ------------------------------------------------------------ the combat turn


def test_a_turn_start_initiative_set_process_and_end() -> None:
    answers: Answers = {
        "aki@x": [
            {"act": "move"},
            {"goal": "/[0,2]"},
            {"act": "move"},
            {"goal": "/[1,2]"},
            {"act": "done"},
        ],
        "GM": [{"target": "Ben"}],
        "ben@x": [{"act": "done"}, {"act": "attack"}, {"target": "Orc"}],
    }
    dice = [3, 2, 6]  # 先制値: Aki 8+3 = 11, Ben 8+2 = 10, Orc 5+6 = 11
    dice += [4, 4, 2, 1, 1, 6, 1]  # Orc hits Ben (10 against 8): 8+7-3 = 12 damage
    dice += [4, 6, 6, 5, 2, 5, 3]  # Ben: a critical (31 against 9): 6+8+10-3 = 21 damage
    session = run("fight(battle);", dice, answers)
    assert said(session) == [
        "戦闘開始",
        "ターン 1: スタートフェイズ",
        "Aki の先制値 8+[3] = 11",
        "Ben の先制値 8+[2] = 10",
        "Orc の先制値 5+[6] = 11",
        # A PC acts before an NPC of the same 先制値.
        "セットフェイズ: Aki (先制値 11)",
        "Aki は [0,2] へ移動 (2Sq)",
        "Aki は [1,2] へ移動 (1Sq)",
        "セットフェイズ: Orc (先制値 11)",
        "Orc 命中判定: 重武器攻撃 (戦斧) (筋力) ＞ 8[4,4]+2 ＞ 10",
        "Ben リアクション (反射) ＞ 4[2,1,1]+4 ＞ 8",
        "Orc のダメージロール ＞ 7[6,1]+8 ＞ 15 - 武器防御力 3 = Ben に 12 点のダメージ",
        "セットフェイズ: Ben (先制値 10)",
        "Ben 命中判定: 軽武器攻撃 (長剣) (反射) ＞ 16[4,6,6]+5+10 ＞ 31 ＞ クリティカル！",
        "Orc リアクション (反射) ＞ 7[5,2]+2 ＞ 9",
        "Ben のダメージロール ＞ 8[5,3]+6+10 ＞ 24 - 武器防御力 3 = Orc に 21 点のダメージ",
        "Orc は戦闘不能 (HP -11)",
        "戦闘終了 (勝利)",
        "end won",
    ]
    # The process phase: two simple actions, then the main phase.
    titles = [r["title"] for r in records(session, "query") if r["to"] == "aki@x"]
    assert titles == [
        "Aki のシンプルフェイズ",
        "move in /",
        "Aki のシンプルフェイズ",
        "move in /",
        "Aki のメインフェイズ",
    ]
    assert records(session, "end")[-1]["outcome"] == "won"


def test_the_end_phase_leads_to_the_next_turn_whose_start_ends_effects() -> None:
    answers: Answers = {
        "aki@x": [{"act": "done"}, {"act": "done"}],
        "ben@x": [{"act": "done"}, {"act": "done"}],
        "GM": [{"target": "Ben"}],
    }
    dice = [3, 2, 1]  # 先制値 11, 10, 6
    dice += [1, 1, 1, 6, 6]  # the Orc fumbles, Ben dodges
    dice += [6, 1, 1]  # turn 2's 先制値
    session = run(
        "aki.addBoost(2); fight(battle); schedule.add({ ticks = 11[sec]; priority = 0;"
        ' handler = @{ GM.message("boost " + aki.boost); }; }:Event);',
        dice,
        answers,
        stops=True,
    )
    shown = said(session)
    # The start phase ended the boost; the end phase led to the next turn.
    end, boost, start = (
        shown.index(text)
        for text in ("ターン 1: エンドフェイズ", "boost 0", "ターン 2: スタートフェイズ")
    )
    assert end < boost < start
    assert shown[start + 1] == "Aki の先制値 8+[6] = 14"


def test_pcs_of_the_same_initiative_go_by_their_reflex_base() -> None:
    cast = (
        CAST
        + ' cid = pcWith("Cid", "cid@x":jid, "/[4,2]":loc, 15, 3, sword);\n'
        + " fast = { fighters = {aki, cid, orc}; onEnd = @(o : string) { }; }:Battle;\n"
    )
    session = run(
        "aki.setInitiative(11); cid.setInitiative(11); orc.setInitiative(12);"
        ' schedule.then(@{ GM.message(order(fast).map(@(c : Character) c.name).join("、")); });',
        [],
        cast=cast,
    )
    assert said(session) == ["Orc、Cid、Aki"]


# ------------------------------------------------------------ the square map


def moves(cast: str, who: str) -> list[str]:
    session = run(f"moveOf({who}, battle.fighters);", [], {f"{who}@x": []}, cast=cast, stops=True)
    [choices] = offered(session, "move in /")
    return list(choices["goal"])


def test_moves_go_four_ways_up_to_the_move_value() -> None:
    cast = CAST.replace(
        'pc("Aki", "aki@x":jid, "/[0,0]":loc)',
        'pcWith("Aki", "aki@x":jid, "/[2,2]":loc, 12, 1, sword)',
    )
    assert sorted(moves(cast, "aki")) == ["/[1,2]", "/[2,1]", "/[2,2]", "/[3,2]"]


def test_enemies_block_the_way() -> None:
    # With the wall at [1,1] and enemies at [2,0] and [2,2], the right side is walled off.
    cast = """
 aki = pcWith("Aki", "aki@x":jid, "/[0,0]":loc, 12, 6, sword);
 orc = foe("Orc", "/[2,0]":loc);
 gob = foe("Gob", "/[2,2]":loc);
 battle = { fighters = {aki, orc, gob}; onEnd = @(o : string) { }; }:Battle;
"""
    assert sorted(moves(cast, "aki")) == ["/[0,0]", "/[0,1]", "/[0,2]", "/[1,0]", "/[1,2]"]


def test_two_allies_fill_a_square_that_can_still_be_passed() -> None:
    cast = """
 aki = pcWith("Aki", "aki@x":jid, "/[0,0]":loc, 12, 2, sword);
 ben = pc("Ben", "ben@x":jid, "/[1,0]":loc);
 cid = pc("Cid", "cid@x":jid, "/[1,0]":loc);
 orc = foe("Orc", "/[4,2]":loc);
 battle = { fighters = {aki, ben, cid, orc}; onEnd = @(o : string) { }; }:Battle;
"""
    assert sorted(moves(cast, "aki")) == ["/[0,0]", "/[0,1]", "/[0,2]", "/[2,0]"]


# ------------------------------------------------------------ attacks and damage

ARMED = """
 light = pcWith("Light", "l@x":jid, "/[2,0]":loc, 12, 3, sword);
 heavy = pcWith("Heavy", "h@x":jid, "/[4,0]":loc, 12, 3, axe);
 archer = pcWith("Archer", "a@x":jid, "/[0,0]":loc, 12, 3, bow);
 orc = foe("Orc", "/[3,0]":loc);
 bolt = { name = "雷撃"; timing = Timing.main; effect = Effect.attack; kind = AttackKind.magic;
  ability = Ability.intellect; power = 2; reach = 4; element = Element.heat; }:Skill;
 battle = { fighters = {light, heavy, archer, orc}; onEnd = @(o : string) { }; }:Battle;
"""


def test_each_kind_of_attack_uses_its_ability_and_its_reaction() -> None:
    session = run(
        "attack(light, weaponAttack(light), {orc}, {light, orc}, @{});"
        " attack(heavy, weaponAttack(heavy), {orc}, {heavy, orc}, @{});"
        " attack(archer, weaponAttack(archer), {orc}, {archer, orc}, @{});"
        " attack(archer, skillAttack(archer, bolt), {orc}, {archer, orc}, @{});",
        faces([1, 2, 3, 6, 6], [1, 2, 6, 6], [1, 2, 6, 6], [1, 2, 6]),
        cast=ARMED,
    )
    checks = [text for text in said(session) if "＞" in text]
    assert checks == [
        "Light 命中判定: 軽武器攻撃 (長剣) (反射) ＞ 6[1,2,3]+5 ＞ 11",
        "Orc リアクション (反射) ＞ 12[6,6]+2+10 ＞ 24 ＞ クリティカル！",
        "Heavy 命中判定: 重武器攻撃 (戦斧) (筋力) ＞ 3[1,2]+3 ＞ 6",
        "Orc リアクション (反射) ＞ 12[6,6]+2+10 ＞ 24 ＞ クリティカル！",
        "Archer 命中判定: 射撃攻撃 (弓) (感覚) ＞ 3[1,2]+3 ＞ 6",
        "Orc リアクション (反射) ＞ 12[6,6]+2+10 ＞ 24 ＞ クリティカル！",
        # Magic: 知力 to hit, 精神 to resist.
        "Archer 命中判定: 雷撃 (知力) ＞ 3[1,2]+3 ＞ 6",
        "Orc リアクション (精神) ＞ 6[6]+1 ＞ 7",
    ]


def test_damage_is_power_and_2d6_and_ten_on_a_critical_less_the_defence() -> None:
    session = run(
        "dealDamage(light, orc, weaponAttack(light), false);"
        " dealDamage(light, orc, weaponAttack(light), true);"
        " dealDamage(archer, orc, skillAttack(archer, bolt), false);"
        ' dealDamage(archer, orc, { title = "x"; kind = AttackKind.light; ability = Ability.reflex;'
        " power = 0; accuracy = 0; reach = 1; element = Element.weapon; }:Attack, false);"
        ' schedule.then(@{ GM.message("HP " + orc.hp); });',
        [3, 4, 3, 4, 5, 5, 1, 1],
        cast=ARMED,
    )
    assert said(session) == [
        "Light のダメージロール ＞ 7[3,4]+6 ＞ 13 - 武器防御力 3 = Orc に 10 点のダメージ",
        "Light のダメージロール ＞ 7[3,4]+6+10 ＞ 23 - 武器防御力 3 = Orc に 20 点のダメージ",
        # 雷撃 Lv1: 攻撃力 2+1, 炎熱 (防御力 1).
        "Archer のダメージロール ＞ 10[5,5]+3 ＞ 13 - 炎熱防御力 1 = Orc に 12 点のダメージ",
        "Archer のダメージロール ＞ 2[1,1] ＞ 2 - 武器防御力 3 = Orc に 0 点のダメージ",
        "HP -32",
        # 10 - 42: the Orc (筋力 6) died at -18 or less.
    ]


# ------------------------------------------------------------ 戦闘不能 and death


def test_at_zero_hp_a_character_falls_cannot_react_and_dies_at_three_times_its_strength() -> None:
    session = run(
        "dealDamage(light, orc, weaponAttack(light), false);"
        " schedule.then(@{ tell(orc); attack(light, weaponAttack(light), {orc}, battle.fighters,"
        ' @{ GM.message("HP " + orc.hp + " " + orc.dead); }); });',
        faces([6, 6], [1, 2, 3], [4, 4]),
        cast=ARMED,
    )
    assert said(session) == [
        "Light のダメージロール ＞ 12[6,6]+6 ＞ 18 - 武器防御力 3 = Orc に 15 点のダメージ",
        "Orc は戦闘不能 (HP -5)",
        "Light 命中判定: 軽武器攻撃 (長剣) (反射) ＞ 6[1,2,3]+5 ＞ 11",
        # No reaction: the blow lands.
        "Orc は戦闘不能: リアクションできない",
        "Light のダメージロール ＞ 8[4,4]+6 ＞ 14 - 武器防御力 3 = Orc に 11 点のダメージ",
        # -16 is above -(6 x 3): still alive.
        "Orc は戦闘不能 (HP -16)",
        "HP -16 false",
    ]
    session = run(
        "orc.wound({ amount = 28; unreborn = false; }:Hit);"
        ' schedule.then(@{ tell(orc); GM.message("" + orc.dead); });',
        [],
        cast=ARMED,
    )
    assert said(session) == ["Orc は死亡した", "true"]


def test_a_pc_killed_by_an_unreborn_becomes_one_and_goes_to_the_gm() -> None:
    session = run(
        "ben.wound({ amount = 50; unreborn = true; }:Hit);"
        ' schedule.then(@{ tell(ben); GM.message(ben.player + " " + ben.unreborn);'
        ' ben.message("mine"); });',
        [],
    )
    assert said(session) == [
        "Ben は死亡し、アンリバースとなった。キャラクターシートはGMへ。",
        "GM true",
        "mine",  # Ben's messages now go to the GM
    ]


def test_when_the_fight_ends_a_fallen_pc_gets_up_with_one_hp() -> None:
    session = run(
        "ben.wound({ amount = 25; unreborn = false; }:Hit);"
        " orc.wound({ amount = 10; unreborn = false; }:Hit);"
        " schedule.then(@{ finish(battle, battle.outcome); });",
        [],
    )
    assert said(session) == ["戦闘終了 (勝利)", "Ben はHP 1で起き上がった", "end won"]


def test_items_heal_and_only_a_reviving_one_lifts_incapacitation() -> None:
    cast = CAST.replace(
        'pc("Aki", "aki@x":jid, "/[0,0]":loc);',
        'stocked("Aki", "aki@x":jid, "/[1,0]":loc, {potion, salts});'
        ' potion = { name = "薬"; heal = 5; }:Supply;'
        ' salts = { name = "気付け薬"; heal = 3; revive = true; }:Supply;',
    )
    answers: Answers = {
        "aki@x": [{"item": "薬", "target": "Ben"}, {"item": "気付け薬", "target": "Ben"}]
    }
    session = run(
        "ben.wound({ amount = 22; unreborn = false; }:Hit);"
        " schedule.then(@{ useItem(aki, battle.fighters); schedule.then(@{"
        " useItem(aki, battle.fighters); schedule.then(@{"
        ' GM.message("HP " + ben.hp + ", " + aki.supplies.length + " left"); }); }); });',
        [],
        answers,
        cast=cast,
    )
    assert said(session) == [
        "薬 では戦闘不能は治らない",
        "Ben は 気付け薬 で戦闘不能から回復",
        "HP 3, 0 left",
    ]
    # Healing stops at the maximum.
    session = run(
        "ben.wound({ amount = 2; unreborn = false; }:Hit);"
        " schedule.then(@{ useItem(aki, battle.fighters); schedule.then(@{"
        ' GM.message("HP " + ben.hp); }); });',
        [],
        {"aki@x": [{"item": "薬", "target": "Ben"}]},
        cast=cast,
    )
    assert said(session) == ["Ben は 薬 でHPが 5 回復", "HP 20"]


# ------------------------------------------------------------ 援護

PAIR = """
 aki = pc("Aki", "aki@x":jid, "/[2,0]":loc);
 ben = pc("Ben", "ben@x":jid, "/[2,0]":loc);
 orc = foe("Orc", "/[3,0]":loc);
 battle = { fighters = {aki, ben, orc}; onEnd = @(o : string) { }; }:Battle;
"""


def test_an_ally_in_the_square_covers_a_check_with_two_and_does_not_act() -> None:
    session = run(
        "attack(aki, weaponAttack(aki), {orc}, battle.fighters, @{"
        ' GM.message("acted " + ben.acted + ", HP " + orc.hp); });',
        [2, 2, 2, 3, 3, 1, 1],
        {"ben@x": [{"cover": "support"}]},
        cast=PAIR,
    )
    assert said(session) == [
        "Ben が援護 (+2)",
        "Aki 命中判定: 軽武器攻撃 (長剣) (反射) ＞ 6[2,2,2]+7 ＞ 13",
        "Orc リアクション (反射) ＞ 6[3,3]+2 ＞ 8",
        "Aki のダメージロール ＞ 2[1,1]+6 ＞ 8 - 武器防御力 3 = Orc に 5 点のダメージ",
        "acted false, HP 5",
    ]
    [question] = offered(session, "Ben の援護")
    assert question == {"cover": ["none", "support", "followUp"]}


def test_a_covering_ally_may_attack_the_target_again() -> None:
    session = run(
        "aki.setActed(true); schedule.then(@{"
        " attack(aki, weaponAttack(aki), {orc}, battle.fighters, @{"
        ' GM.message("HP " + orc.hp); }); });',
        faces([2, 2, 2, 3, 3, 1, 1], [2, 2, 2, 3, 3, 1, 1]),
        {"ben@x": [{"cover": "followUp"}]},
        cast=PAIR,
    )
    assert said(session) == [
        "Aki 命中判定: 軽武器攻撃 (長剣) (反射) ＞ 6[2,2,2]+5 ＞ 11",
        "Orc リアクション (反射) ＞ 6[3,3]+2 ＞ 8",
        "Aki のダメージロール ＞ 2[1,1]+6 ＞ 8 - 武器防御力 3 = Orc に 5 点のダメージ",
        "Ben の追撃",
        "Ben 命中判定: 軽武器攻撃 (長剣) (反射) ＞ 6[2,2,2]+5 ＞ 11",
        "Orc リアクション (反射) ＞ 6[3,3]+2 ＞ 8",
        "Ben のダメージロール ＞ 2[1,1]+6 ＞ 8 - 武器防御力 3 = Orc に 5 点のダメージ",
        "Orc は戦闘不能 (HP 0)",
        "HP 0",
    ]


def test_only_an_ally_that_has_not_acted_covers() -> None:
    session = run(
        "ben.setActed(true); schedule.then(@{"
        ' c = coveredCheck(aki, battle.fighters, Ability.reflex, 0, "登攀"); });',
        [2, 2, 2],
        cast=PAIR,
    )
    assert said(session) == ["Aki 登攀 (反射) ＞ 6[2,2,2]+4 ＞ 10"]
    assert offered(session, "Ben の援護") == []


# ------------------------------------------------------------ after the fight

TWO_FOES = """
 aki = pc("Aki", "aki@x":jid, "/[0,0]":loc);
 ben = pc("Ben", "ben@x":jid, "/[0,2]":loc);
 orc = foe("Orc", "/[3,0]":loc);
 gob = foeWith("Gob", "/[4,0]":loc, 7, {
  { low = 2; high = 6; name = "錆びた剣"; price = 5; }:Loot,
  { low = 7; high = 12; name = "銀貨"; price = 50; }:Loot });
 imp = foeWith("Imp", "/[4,2]":loc, 9, list<Loot>.empty);
 battle = { fighters = {aki, ben, orc, gob, imp}; onEnd = @(o : string) { }; }:Battle;
"""


def test_one_loot_roll_per_fallen_enemy_the_pcs_in_turn() -> None:
    session = run(
        "orc.wound({ amount = 12; unreborn = false; }:Hit);"
        " gob.wound({ amount = 12; unreborn = false; }:Hit);"
        " schedule.then(@{ lootRolls(battle); schedule.then(@{"
        ' GM.message(aki.gains.join("、") + " " + ben.gains.join("、")); }); });',
        [3, 4, 6, 6],
        cast=TWO_FOES,
    )
    assert said(session) == [
        "Aki の戦利品ロール (Orc) [3 4] = 7: 爪 (20G)",
        "Ben の戦利品ロール (Gob) [6 6] = 12: 銀貨 (50G)",
        "爪 銀貨",
    ]


def test_identification_is_one_check_against_each_identify_value() -> None:
    session = run(
        "identify(aki, {orc, gob, imp}, battle.fighters); schedule.then(@{"
        ' GM.message("" + orc.identified + gob.identified + imp.identified); });',
        [3, 2],  # 知力 level 2, 判定値 3: 5+3 = 8
        cast=TWO_FOES,
    )
    assert said(session) == ["Aki エネミー識別 (知力) ＞ 5[3,2]+3 ＞ 8", "120"]
    assert messages(session, "aki@x") == [
        # Equal to the 識別値 (8): the name, the highest defence and the skills.
        "Orc: 防御力が高いのは武器 (3)、特技: なし",
        # Above it (7): the HP and the rest too.
        "Gob: 防御力が高いのは武器 (3)、特技: なし、HP 10/10、MP 0、レベル 2",
        "Imp の識別に失敗",
    ]


GROWTH = """
 focus = { name = "集中"; timing = Timing.simple; effect = Effect.boost; }:Skill;
 parry = { name = "見切り"; timing = Timing.set; effect = Effect.guard; power = 2; }:Skill;
 aki = scholar("Aki", "aki@x":jid, {focus}, {parry});
 orc = foe("Orc", "/[3,0]":loc);
 gob = foe("Gob", "/[4,0]":loc);
"""


def test_experience_is_the_objective_and_the_enemies_levels_shared() -> None:
    session = run(
        'GM.message("" + experienceOf(5, {orc, gob}, 2));'
        ' afterPlay({aki}, {orc, gob}, 5, @{ GM.message("exp " + aki.experience); });',
        [],
        {"aki@x": [{"growth": "done"}]},
        cast=GROWTH,
    )
    # (5 + 2 + 2) / 2, rounded down; for one player, 9.
    assert said(session) == ["4", "アフタープレイ: 経験点 9 点", "exp 9"]
    [question] = offered(session, "Aki の成長")
    assert question == {"growth": ["weapon", "armor", "done"]}


def test_a_level_up_costs_the_next_level_times_ten() -> None:
    answers: Answers = {
        "aki@x": [
            {
                "abilities": ["strength", "reflex", "spirit"],
                "first": "集中",
                "second": "集中",
                "third": "見切り",
            }
        ]
    }
    session = run(
        "aki.earn(25); schedule.then(@{"
        ' GM.message(growths(aki).map(@(g : Growth) g.caption).join("、"));'
        " spendOn(aki, Growth.levelUp); schedule.then(@{"
        ' GM.message("Lv" + aki.level + " exp " + aki.experience + " HP " + aki.maxHp + " MP "'
        ' + aki.maxMp + " " + aki.strength + "/" + aki.reflex + "/" + aki.spirit + " "'
        ' + focus.level + " " + aki.skills.length + " " + parry.level); }); });',
        [],
        answers,
        cast=GROWTH,
    )
    assert said(session) == [
        "レベルアップ、能力レベルの上昇、武器強化、防具強化、終わる",
        "Aki はレベル 2 になった",
        # 25 - (1+1) x 10; HP +5, MP +2; three bases +1; 集中 +2 levels, 見切り learnt.
        "Lv2 exp 5 HP 25 MP 8 10/13/8 3 2 1",
    ]


def test_ability_levels_cost_more_as_they_rise_and_stop_at_five() -> None:
    session = run(
        "aki.earn(25); schedule.then(@{ spendOn(aki, Growth.abilityLevel); schedule.then(@{"
        ' GM.message("" + aki.reflexLevel + " " + aki.experience); }); });',
        [],
        {"aki@x": [{"ability": "reflex"}]},
        cast=GROWTH,
    )
    assert said(session) == ["Aki の反射レベルが 4 に", "4 0"]  # (3 + 2) x 5
    [question] = offered(session, "能力レベルの上昇")
    # 精神 is at level 5 already; 20 points buy the others (level 2: 20, level 3: 25).
    assert question == {"ability": ["strength", "reflex", "sense", "intellect"]}


def test_weapons_and_armour_grow_for_five_points() -> None:
    session = run(
        "aki.earn(10); schedule.then(@{ spendOn(aki, Growth.weapon); schedule.then(@{"
        " spendOn(aki, Growth.armor); schedule.then(@{"
        ' GM.message(sword.power + " " + sword.accuracy + " " + mail.heatDefence + " "'
        " + aki.experience); }); }); });",
        [],
        {"aki@x": [{"power": True}, {"part": "heat"}]},
        cast=GROWTH,
    )
    assert said(session)[-1] == "7 1 2 0"


def test_each_pc_spends_its_points_until_it_is_done() -> None:
    session = run(
        "aki.earn(6); schedule.then(@{ grow({aki}, 0, @{"
        ' GM.message("done " + aki.experience + " " + sword.accuracy); }); });',
        [],
        {"aki@x": [{"growth": "weapon"}, {"power": False}]},
        cast=GROWTH,
    )
    # After 5 points, 1 is left: nothing more to buy, so no more questions.
    assert said(session)[-1] == "done 1 2"


# ------------------------------------------------------------ skills


def test_skills_of_each_timing_and_effect() -> None:
    cast = PAIR + (
        ' guard = { name = "鉄壁"; level = 2; timing = Timing.set; effect = Effect.guard;'
        " power = 1; }:Skill;\n"
        ' mend = { name = "治癒"; timing = Timing.main; effect = Effect.heal; power = 4;'
        " cost = 1; }:Skill;\n"
    )
    session = run(
        "ben.wound({ amount = 6; unreborn = false; }:Hit); useSkill(aki, guard, battle.fighters, @{"
        " schedule.then(@{ useSkill(aki, mend, battle.fighters, @{ schedule.then(@{"
        ' GM.message("defence " + aki.defence(Element.weapon) + ", Ben HP " + ben.hp'
        ' + ", MP " + aki.mp);'
        " }); }); }); });",
        [],
        {"aki@x": [{"target": "Ben"}]},
        cast=cast,
    )
    assert said(session) == [
        "Aki は特技「鉄壁」を使用",
        "Aki は特技「治癒」を使用",
        "Ben のHPが 4 回復",
        "defence 5, Ben HP 18, MP 5",
    ]


def test_skills_of_the_set_and_end_phases_are_offered_then() -> None:
    cast = GROWTH + (
        ' aki2 = scholar("Ben", "ben@x":jid, {parry}, list<Skill>.empty);\n'
        " battle = { fighters = {aki, aki2, orc}; onEnd = @(o : string) { }; }:Battle;\n"
    )
    session = run(
        'offerSkill(aki2, Timing.set, battle.fighters, @{ GM.message("next"); });'
        ' schedule.then(@{ GM.message("guard " + aki2.guard); });'
        ' offerSkill(aki, Timing.set, battle.fighters, @{ GM.message("no set skill"); });',
        [],
        {"ben@x": [{"use": True, "skill": "見切り"}]},
        cast=cast,
    )
    assert said(session) == ["Ben は特技「見切り」を使用", "next", "no set skill", "guard 2"]
    [question] = offered(session, "セットフェイズ の特技")
    assert question == {"skill": ["見切り"]}


# ------------------------------------------------------------ chat commands


def started() -> Session:
    return run('GM.message("ready");', [])


def test_the_chat_commands_of_orm() -> None:
    session = started()
    check = chat_roll(session, "ORM3+4>=12 回避", "aki@x", FixedSource([6, 6, 1]))
    assert check is not None
    assert (check.text, check.total, check.critical, check.success) == (
        "(ORM3+4>=12) ＞ 13[6,6,1]+4+10 ＞ 27 ＞ クリティカル！ ＞ 成功",
        27,
        True,
        True,
    )
    fumble = chat_roll(session, "orm2-1", "aki@x", FixedSource([1, 1]))
    assert fumble is not None and fumble.text == "(ORM2-1) ＞ 2[1,1]-1 ＞ 1 ＞ ファンブル！"
    assert fumble.fumble
    damage = chat_roll(session, "ORD8", "GM", FixedSource([3, 4]))
    assert damage is not None and (damage.text, damage.total) == ("(ORD8) ＞ 7[3,4]+8 ＞ 15", 15)
    critical = chat_roll(session, "SORDC8", "GM", FixedSource([3, 4]))
    assert critical is not None and critical.text == "(ORDC8) ＞ 7[3,4]+8+10 ＞ 25"
    assert critical.secret
    # BCDice's own commands still work beside them.
    plain = chat_roll(session, "2D6", "GM", FixedSource([3, 4]))
    assert plain is not None and plain.text == "(2D6) ＞ 7[3,4] ＞ 7"


def test_rules_can_roll_the_chat_commands_too() -> None:
    session = run('r = aki.roll("ORM3+4>=12"); GM.message(r.text + " " + r.by);', [2, 3, 4])
    assert said(session) == ["(ORM3+4>=12) ＞ 9[2,3,4]+4 ＞ 13 ＞ 成功 Aki"]


def test_standing_enemies_are_offered_as_targets_before_fallen_ones() -> None:
    # Orc, first among the fighters, is down (戦闘不能): still a target, but offered last.
    session = run(
        "orc.heal(-12); schedule.then(@{"
        " names = attackable(battle, aki).map(@(c : Character) c.caption);"
        ' GM.message(names.join(", ")); });',
        [],
        cast=TWO_FOES,
    )
    assert said(session)[-1] == "Gob, Imp, Orc (戦闘不能)"
