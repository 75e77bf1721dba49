"""What ``lore test`` says, in English and in Japanese (``lore.cli.language``)."""

from __future__ import annotations

from lore.cli.language import Catalogue

_HEADER_EXAMPLE = '{{"play": "scenario.lore", "seed": 0}}'
_TEST_FILES = "NAME.answers.json (or answers.json) with NAME.transcript.jsonl beside it"
_TEST_FILES_JA = "NAME.answers.json（または answers.json）と、その横の NAME.transcript.jsonl"

TEXTS = Catalogue(
    {
        "en": {
            "error": "error",
            "warning": "warning",
            "status_ok": "ok",
            "status_failed": "FAILED",
            "status_new": "new",
            "status_blessed": "blessed",
            "status_broken": "ERROR",
            "no_such_path": "no such file or folder: {path}",
            "not_answers": f"{{path}} is not an answers file: a test is {_TEST_FILES}",
            "no_tests": f"no tests under {{path}}: a test is {_TEST_FILES}",
            "no_lore": (
                "{answers}: cannot play it: {problem} (the header names the Lore file to play:"
                ' "$test": {{"play": "FILE.lore"}}; by default NAME.lore or scenario.lore)'
            ),
            "read_failed": "cannot read {path}: {problem}",
            "header_not_object": f"{{where}} must be an object like {_HEADER_EXAMPLE}",
            "header_unknown": (
                '{where}: unknown member {names} (a header has "play" and "seed": '
                f"{_HEADER_EXAMPLE})"
            ),
            "header_play": (
                '{where}: "play" names the Lore file to play, relative to the answers file'
                " (got {value})"
            ),
            "header_seed": '{where}: "seed" is a whole number, 0 or more (got {value})',
            "never_asked": "{where} is for the question {query!r}, never asked",
            "bad_save": "{path} is not a valid save: {problem}",
            "unplayable": "{path} cannot be played",
            "not_utf8": "{path}: not UTF-8 text",
            "new_hint": "no blessed transcript yet: lore test --bless writes {transcript}",
            "differs": (
                "the transcript differs from {transcript} from line {line} on (the first"
                " difference below; lore test --bless accepts the new transcript)"
            ),
            "more_differences": "... and {count} more places differ",
            "blessed_label": "{transcript} (blessed)",
            "played_label": "{transcript} (played now)",
            "replay": "to replay it: {command}",
            "wrote": "wrote {transcript}",
            "write_failed": "cannot write {path}: {problem}",
            "count_ok": "{count} ok",
            "count_failed": "{count} failed",
            "count_new": "{count} new",
            "count_blessed": "{count} blessed",
            "count_broken": "{count} with errors",
            "separator": ", ",
        },
        "ja": {
            "error": "エラー",
            "warning": "警告",
            "status_ok": "OK",
            "status_failed": "失敗",
            "status_new": "新規",
            "status_blessed": "承認",
            "status_broken": "エラー",
            "no_such_path": "ファイルもフォルダーもありません: {path}",
            "not_answers": f"{{path}} は答えファイルではありません。テストは {_TEST_FILES_JA} です",
            "no_tests": f"{{path}} の下にテストがありません。テストは {_TEST_FILES_JA} です",
            "no_lore": (
                "{answers}: 再生できません: {problem}（再生する Lore ファイルは"
                'ヘッダーで指定します: "$test": {{"play": "FILE.lore"}}。'
                "指定がなければ NAME.lore か scenario.lore）"
            ),
            "read_failed": "{path} を読めません: {problem}",
            "header_not_object": f"{{where}} は {_HEADER_EXAMPLE} のようなオブジェクトにします",
            "header_unknown": (
                '{where}: 知らないメンバー {names}（ヘッダーに書けるのは "play" と "seed" です: '
                f"{_HEADER_EXAMPLE}）"
            ),
            "header_play": (
                '{where}: "play" には再生する Lore ファイルを答えファイルからの相対パスで書きます'
                "（{value} が書かれています）"
            ),
            "header_seed": '{where}: "seed" は 0 以上の整数です（{value} が書かれています）',
            "never_asked": "{where} は質問 {query!r} への答えですが、その質問はされませんでした",
            "bad_save": "{path} は正しいセーブではありません: {problem}",
            "unplayable": "{path} を再生できません",
            "not_utf8": "{path}: UTF-8 のテキストではありません",
            "new_hint": (
                "承認済みの記録がまだありません。lore test --bless で {transcript} を書きます"
            ),
            "differs": (
                "記録が {transcript} と {line} 行目から違います（最初の違いを下に示します。"
                "lore test --bless で新しい記録を承認します）"
            ),
            "more_differences": "…ほかに {count} か所が違います",
            "blessed_label": "{transcript}（承認済み）",
            "played_label": "{transcript}（今回の再生）",
            "replay": "再生し直すには: {command}",
            "wrote": "{transcript} を書きました",
            "write_failed": "{path} を書けません: {problem}",
            "count_ok": "OK {count}",
            "count_failed": "失敗 {count}",
            "count_new": "新規 {count}",
            "count_blessed": "承認 {count}",
            "count_broken": "エラー {count}",
            "separator": "、",
        },
    }
)
