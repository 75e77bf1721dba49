"""新クトゥルフ神話TRPG's full-auto fire (BCDice's ``FAR``), for ``Cthulhu7th``.

``FAR(bullets,skill,malfunction[,dice[,stop[,volley]]])``: volleys of ``volley`` bullets
(the skill / 10, at least 3) until the bullets are spent. Each volley is a percentile roll
with one more penalty die than the last, from ``dice`` (-2 to 2); past two penalty dice
the difficulty rises instead (hard, extreme, critical: a roll of 96 or more fumbles
when what the difficulty leaves of the skill is below 50), and firing ends after the
critical one, or when the difficulty would pass ``stop`` (``r``, ``h``, ``e``, ``c``). A
roll that meets the difficulty hits with half the volley's bullets (at least one), an
extreme success or a critical (below the critical difficulty) with all, half of them
(at least one) penetrating. A roll of the malfunction number or more jams the weapon:
firing ends and that volley is not spent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.dice.result import RollResult
from lore.dice.source import Tray
from lore.dice.systems.cthulhu7th import level, percentile

_FAR = re.compile(
    r"FAR\((-?[0-9]{1,9}),(-?[0-9]{1,9}),(-?[0-9]{1,9})(?:,([+-]?[0-9]{0,9}))?"
    r"(?:,([RHEC]?))?(?:,(-?[0-9]{0,9}))?\)"
)
MAX_BULLETS = 100
LEVELS = {"失敗": -1, "ファンブル": -1, "レギュラー成功": 0, "ハード成功": 1}
LEVELS.update({"イクストリーム成功": 2, "クリティカル": 3})
DIFFICULTIES = ("R", "H", "E", "C")
NAMES = ("レギュラー", "ハード", "イクストリーム", "クリティカル")
SPACE = "\u3000"
DIVISORS = (1, 2, 5, 10**9)  # the value a difficulty leaves: 1/1, 1/2, 1/5, none


@dataclass(frozen=True, slots=True)
class Fire:
    bullets: int
    skill: int
    malfunction: int
    dice: int
    stop: str  # "" or one of DIFFICULTIES
    volley: int | None


def parse(word: str) -> Fire | None:
    found = _FAR.fullmatch(word)
    if found is None:
        return None
    bullets, skill, malfunction = (int(found.group(index)) for index in (1, 2, 3))
    dice = int(found.group(4)) if found.group(4) not in (None, "", "+", "-") else 0
    if found.group(4) in ("+", "-"):
        return None
    volley = int(found.group(6)) if found.group(6) not in (None, "", "-") else None
    if found.group(6) == "-":
        return None
    return Fire(bullets, skill, malfunction, dice, found.group(5) or "", volley)


def volley_of(fire: Fire, said: list[str]) -> int | None:
    """The bullets of a volley (None: refused, told in ``said``)."""
    most = max(fire.skill // 10, 3)
    if fire.volley is None:
        return most
    if fire.volley <= 0:
        said.append("ボレーの弾丸の数は正の数です。")
        return None
    if fire.skill // 10 < 4 and fire.volley > 3:
        said.append(
            "技能値が39以下ではボレーの弾丸の数の上限および下限は3発です。"
            "ボレーの弾丸の数を3発に変更します。"
        )
        return 3
    if fire.volley > most:
        said.append(
            "ボレーの弾丸の数の上限は[技能値÷10（切り捨て）]発なので、それより高い数を"
            f"指定できません。ボレーの弾丸の数を{most}発に変更します。"
        )
        return most
    if fire.volley < 3:
        said.append("ボレーの弾丸の数の下限は3発です。ボレーの弾丸の数を3発に変更します。")
        return 3
    return fire.volley


def roll_fire(fire: Fire, tray: Tray) -> RollResult:
    if fire.bullets <= 0:
        return RollResult("弾薬は正の数です。")
    if fire.skill <= 0:
        return RollResult("目標値は正の数です。")
    if not -2 <= fire.dice <= 2:
        return RollResult("エラー。ボーナス・ペナルティダイスの値は-2～2です。")
    lines: list[str] = []
    bullets = fire.bullets
    if bullets > MAX_BULLETS:
        lines.append(f"弾薬が多すぎます。装填された弾薬を{MAX_BULLETS}発に変更します。")
        bullets = MAX_BULLETS
    malfunction = fire.malfunction
    if malfunction < 0:
        lines.append("故障ナンバーは正の数です。マイナス記号を外します。")
        malfunction = -malfunction
    volley = volley_of(fire, lines)
    if volley is None:
        return RollResult(lines[-1])
    lines.append(f"ボーナス・ペナルティダイス[{fire.dice}]")
    dice, difficulty, number = fire.dice, 0, 0
    normal = penetrating = 0
    last = DIFFICULTIES.index(fire.stop) if fire.stop else len(DIFFICULTIES) - 1
    while bullets > 0:
        number += 1
        shot = min(volley, bullets)
        results = percentile(tray, dice)
        roll = min(results) if dice >= 0 else max(results)
        found = level(roll, fire.skill)
        if roll >= 96 and fire.skill // DIVISORS[difficulty] < 50:
            found = "ファンブル"  # (against the value the difficulty leaves)
        head = f"{number}回目: ＞ {', '.join(map(str, results))} ＞ {found}"
        if roll >= malfunction:
            lines.append(f"{head}{SPACE}ジャム")
            break
        bullets -= shot
        hits = pierce = 0
        grade = LEVELS[found]
        if grade >= difficulty and grade >= 0:
            if grade >= 2 and difficulty <= 2:
                pierce = max(shot // 2, 1)
                hits = shot - pierce
            else:
                hits = max(shot // 2, 1)
        normal += hits
        penetrating += pierce
        lines.append(f"{head}{SPACE}（{hits}発が命中、{pierce}発が貫通）")
        if bullets <= 0:
            break
        if dice > -2:
            dice -= 1
            continue
        if difficulty >= last:
            if fire.stop:
                lines.append("【指定の難易度となったので、処理を終了します。】")
            break
        difficulty += 1
        lines.append(f"【難易度が{NAMES[difficulty]}に変更】")
    lines.append(f"＞ {normal}発が通常命中、{penetrating}発が貫通、残弾{bullets}発")
    return RollResult("\n".join(lines))
