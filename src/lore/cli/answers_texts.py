"""What reading an answers file says, in English and in Japanese (``lore.cli.language``)."""

from __future__ import annotations

from lore.cli.language import Catalogue

TEXTS = Catalogue(
    {
        "en": {
            "not_utf8": "{path}: not UTF-8 text",
            "read_failed": "cannot read {path}: {problem}",
            "not_object": '{path}: expected an object like {{"GM": [{{...}}, ...]}}',
            "not_list": (
                "{path}: the answers of '{who}' must be a list of objects "
                '(input name to value), like [{{"action": "move"}}]'
            ),
            "where": "{file}: answer {number} of '{who}'",
            "query": "{where}: 'query' names a question by its id or its title",
            "unknown_seats": (
                "the answers file names {unknown}, who does not take part in the session"
                " (its participants: {known})"
            ),
        },
        "ja": {
            "not_utf8": "{path}: UTF-8 のテキストではありません",
            "read_failed": "{path} を読めません: {problem}",
            "not_object": '{path}: {{"GM": [{{...}}, ...]}} のようなオブジェクトにします',
            "not_list": (
                "{path}: '{who}' の答えはオブジェクト（入力名から値へ）のリストにします。"
                '例: [{{"action": "move"}}]'
            ),
            "where": "{file}: '{who}' の {number} 番目の答え",
            "query": "{where}: 'query' には質問の ID かタイトルを書きます",
            "unknown_seats": (
                "答えファイルの {unknown} はセッションに参加していません（参加者: {known}）"
            ),
        },
    }
)
