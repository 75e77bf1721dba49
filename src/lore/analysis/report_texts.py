"""The texts of the simulation report (``lore sim --report``), in English and Japanese
(a ``lore.cli.language`` catalogue: the same keys and fields in both, a test checks it).
"""

from __future__ import annotations

from collections.abc import Mapping

from lore.cli.language import LANGUAGES, Catalogue

__all__ = ["LANGUAGES", "TEXTS", "texts"]

TEXTS = Catalogue(
    {
        "en": {
            "title": "Simulation report: {file}",
            "summary": "{sessions} sessions with bots (seeds {first}..{last}), {policy}.",
            "policyRandom": "every seat answering at random",
            "policyOf": "policies: {policies}",
            "limits": "Limits per session: {steps}; {ticks}.",
            "stepLimit": "{count} steps",
            "noStepLimit": "no step limit",
            "tickLimit": "{count} ticks of game time",
            "noTickLimit": "no limit of game time",
            "intervalNote": "Each rate is shown with its Wilson 95% interval (the whisker).",
            "ends": "How the sessions ended",
            "outcomes": "Outcomes the rules ended with",
            "noOutcomes": "No session ended with an outcome (system.end).",
            "end_ended": "ended by a rule",
            "end_no-events": "no events left",
            "end_no-answer": "no answer",
            "end_max-ticks": "stopped at the tick limit",
            "end_max-steps": "stopped at the step limit",
            "end_error": "error",
            "what": "what",
            "sessions": "sessions",
            "rate": "rate",
            "interval": "95% interval",
            "seats": "Win rates per seat",
            "seatsNote": "A seat wins a session when its score (the rules' SimBot) is the highest "
            "at the end; the seats of one side share it.",
            "noSeats": "The rules declare no SimBot score: no win rates per seat.",
            "seat": "seat",
            "sides": "Win rates per side",
            "sidesNote": "A side is the seats whose scores were equal in every session.",
            "meanScore": "mean score",
            "firstPlayer": "First-player advantage",
            "firstNote": "Wins of a seat when it was asked the first question of the session, "
            "against its wins when it was not (two-proportion z test).",
            "first": "asked first",
            "notFirst": "not first",
            "difference": "difference",
            "pValue": "p",
            "lengths": "Length of the sessions",
            "steps": "steps",
            "ticks": "game time (ticks)",
            "minMeanMax": "min {low}, mean {mean}, max {high}",
            "statistics": "Recorded statistics",
            "noStatistics": "The rules record no statistic (system.count, system.record).",
            "errors": "Rule errors",
            "noErrors": "No rule error in any session.",
            "place": "place",
            "message": "message",
            "times": "times",
            "runs": "Runs to replay",
            "runsNote": "Each file holds a run's answers: lore run replays it step by step.",
            "slowest": "the slowest run ({seconds} CPU seconds)",
            "oddest": "the oddest run: {why}",
            "oddError": "it met a rule error at {place}",
            "oddOutcome": "its outcome '{outcome}' is the rarest",
            "oddLength": "its length ({steps} steps) is the farthest from the mean",
            "compare": "Compared with {file}",
            "compareNote": "The same seeds and policies; the difference of each rate (second "
            "minus first) with a two-proportion z test: p below 0.05 is unlikely by chance.",
            "untilCi": (
                "Ran until every rate's 95% interval was within ±{width} ({sessions} sessions)."
            ),
            "untilCiShort": "Stopped at {sessions} sessions before every interval was within "
            "±{width} (the run limit).",
            "figures": "The figures as lore sim --json prints them",
            "throughput": "{runs} sessions in {seconds} CPU seconds ({rate} per CPU second).",
            "checks": "Check success rates per rule",
            "checksNote": "A check is a roll with a target (a dice command such as 1D100<=50, or "
            "a roll's card with withTarget); it belongs to the rule that made it.",
            "noChecks": "No session made a check (a roll with a target).",
            "rule": "rule",
            "made": "checks",
            "succeeded": "succeeded",
            "via": "via {function}",
            "dice": "Dice outcomes",
            "diceNote": "The totals each dice command gave (bars) beside its exact odds (dots, "
            "as lore odds gives them).",
            "noDice": "No session rolled dice.",
            "rolls": "{rolls} rolls, mean {mean} (exact {exact})",
            "noExact": "no exact odds",
            "total": "total",
            "seen": "seen",
            "exact": "exact",
            "orMore": "{value} or more",
        },
        "ja": {
            "title": "シミュレーション報告: {file}",
            "summary": "ボットによるセッション {sessions} 回（シード {first}..{last}）、{policy}。",
            "policyRandom": "全席がランダムに回答",
            "policyOf": "方針: {policies}",
            "limits": "1 セッションの上限: {steps}、{ticks}。",
            "stepLimit": "{count} ステップ",
            "noStepLimit": "ステップ数の上限なし",
            "tickLimit": "ゲーム内時間 {count} ティック",
            "noTickLimit": "ゲーム内時間の上限なし",
            "intervalNote": "各割合にはウィルソンの 95% 信頼区間（ひげ）を付けています。",
            "ends": "セッションの終わり方",
            "outcomes": "ルールが終えた結果",
            "noOutcomes": "結果（system.end）で終わったセッションはありません。",
            "end_ended": "ルールで終了",
            "end_no-events": "イベントなし",
            "end_no-answer": "回答なし",
            "end_max-ticks": "ティック上限で停止",
            "end_max-steps": "ステップ上限で停止",
            "end_error": "エラー",
            "what": "項目",
            "sessions": "セッション数",
            "rate": "割合",
            "interval": "95% 区間",
            "seats": "席ごとの勝率",
            "seatsNote": "終了時にスコア（ルールの SimBot）が最も高い席がそのセッションの勝ちです。"
            "同じ陣営の席は勝ちを共有します。",
            "noSeats": "ルールに SimBot のスコアがないため、席ごとの勝率はありません。",
            "seat": "席",
            "sides": "陣営ごとの勝率",
            "sidesNote": "陣営は、すべてのセッションでスコアが等しかった席の集まりです。",
            "meanScore": "平均スコア",
            "firstPlayer": "先手の有利",
            "firstNote": "セッションで最初に質問された席の勝率と、そうでなかったときの勝率"
            "（2 標本の比率の z 検定）。",
            "first": "先手",
            "notFirst": "先手以外",
            "difference": "差",
            "pValue": "p 値",
            "lengths": "セッションの長さ",
            "steps": "ステップ数",
            "ticks": "ゲーム内時間（ティック）",
            "minMeanMax": "最小 {low}、平均 {mean}、最大 {high}",
            "statistics": "記録された統計",
            "noStatistics": "ルールは統計（system.count、system.record）を記録していません。",
            "errors": "ルールのエラー",
            "noErrors": "どのセッションにもルールのエラーはありません。",
            "place": "場所",
            "message": "内容",
            "times": "回数",
            "runs": "再生できる実行",
            "runsNote": (
                "各ファイルは 1 回の実行の回答です。lore run で 1 ステップずつ再生できます。"
            ),
            "slowest": "最も遅い実行（CPU {seconds} 秒）",
            "oddest": "最も変わった実行: {why}",
            "oddError": "{place} でルールのエラーが起きた",
            "oddOutcome": "結果「{outcome}」が最も少ない",
            "oddLength": "長さ（{steps} ステップ）が平均から最も離れている",
            "compare": "{file} との比較",
            "compareNote": (
                "同じシードと方針で実行。各割合の差（後者 − 前者）と 2 標本の比率の z 検定: "
                "p が 0.05 未満なら偶然とは考えにくい差です。"
            ),
            "untilCi": "すべての割合の 95% 区間が ±{width} 以内になるまで実行しました"
            "（{sessions} セッション）。",
            "untilCiShort": "すべての区間が ±{width} 以内になる前に {sessions} セッションで"
            "止めました（実行回数の上限）。",
            "figures": "lore sim --json と同じ数値",
            "throughput": "{runs} セッションを CPU {seconds} 秒で実行（CPU 1 秒あたり {rate}）。",
            "checks": "ルールごとの判定の成功率",
            "checksNote": "判定は目標値のあるロール（1D100<=50 のようなダイスコマンド、"
            "withTarget を付けたロールのカード）で、それを行ったルールごとに数えます。",
            "noChecks": "判定（目標値のあるロール）を行ったセッションはありません。",
            "rule": "ルール",
            "made": "判定数",
            "succeeded": "成功",
            "via": "{function} 経由",
            "dice": "ダイスの出目",
            "diceNote": "ダイスコマンドごとに出た合計（棒）と正確な確率（点、lore odds と同じ）。",
            "noDice": "ダイスを振ったセッションはありません。",
            "rolls": "{rolls} 回、平均 {mean}（正確な平均 {exact}）",
            "noExact": "正確な確率なし",
            "total": "合計",
            "seen": "出現",
            "exact": "正確",
            "orMore": "{value} 以上",
        },
    }
)


def texts(language: str) -> Mapping[str, str]:
    return TEXTS.texts[language if language in TEXTS.texts else "en"]
