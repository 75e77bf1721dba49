"""``--answers ANSWERS.json``: each participant's answers, in order.

```
{"GM": [{"go": true}],
 "aki@example.org": [{"action": "move"}, {"query": "行き先", "values": {"goal": "/town[2]"}}]}
```

An answer maps input names to plain values; written as ``{"query": Q, "values": {...}}``
it names its question (the id a save records, or the title), and is given only to that
question: an answers file cannot silently shift. ``{"back": true}`` (optionally with
``"query"``) is not an answer but going back at the question asked: the participant's last
answer of the step is taken back and its question asked again (``engine/withdrawal.py``).
The file is read strictly (``engine/answer_json.py``): NaN, infinities, numbers too
long, nesting too deep are errors naming the place; a byte-order mark is fine.

A member named ``"$test"`` is no participant: it is the header of a play-through test
(``lore test``: the Lore file it plays and the seed, ``cli/playtest.py``), which
``lore run`` leaves aside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lore.cli.answers_texts import TEXTS
from lore.cli.io import unreadable
from lore.engine.answer_json import JSONError, loads
from lore.engine.participants import Scripted1
from lore.syntax.files import describe, read_bytes

Answers = dict[str, list[Scripted1]]

# The member of an answers file that is a play-through test's header, not a participant.
HEADER = "$test"


def load_answers(path: Path) -> Answers:
    """Read ANSWERS.json; raises ValueError with a message that names the place."""
    return load_answers_file(path)[0]


def load_answers_file(path: Path) -> tuple[Answers, Any]:
    """Read ANSWERS.json: the answers and the ``"$test"`` header (None without one, else
    as written: ``lore test`` checks it); raises ValueError naming the place."""
    problem = unreadable(path)
    if problem is not None:
        raise ValueError(problem)
    try:
        text = read_bytes(path).decode("utf-8")  # a regular file, of bounded size
    except UnicodeDecodeError:
        raise ValueError(TEXTS.text("not_utf8", path=path)) from None
    except OSError as error:
        raise ValueError(TEXTS.text("read_failed", path=path, problem=describe(error))) from None
    try:
        data = loads(text)
    except JSONError as error:
        raise ValueError(f"{path}:{error.where() or ' '}{error.message}") from None
    if not isinstance(data, dict):
        raise ValueError(TEXTS.text("not_object", path=path))
    found: Answers = {}
    header = data.pop(HEADER, None)
    for who, answers in data.items():
        if not isinstance(answers, list) or not all(isinstance(a, dict) for a in answers):
            raise ValueError(TEXTS.text("not_list", path=path, who=who))
        found[who] = [_answer(path, who, index, answer) for index, answer in enumerate(answers)]
    return found, header


def _answer(path: Path, who: str, index: int, answer: dict[str, Any]) -> Scripted1:
    where = TEXTS.text("where", file=path.name, number=index + 1, who=who)
    if answer.get("back") is True and set(answer) <= {"back", "query"}:
        query = answer.get("query")
        if query is not None and (not isinstance(query, str) or not query):
            raise ValueError(TEXTS.text("query", where=where))
        return Scripted1({}, query, where, back=True)
    if set(answer) == {"query", "values"} and isinstance(answer["values"], dict):
        if not isinstance(answer["query"], str) or not answer["query"]:
            raise ValueError(TEXTS.text("query", where=where))
        return Scripted1(answer["values"], answer["query"], where)
    return Scripted1(answer, None, where)


def unknown_seats(answers: Answers, seats: list[str]) -> str | None:
    """The error for participants of the answers file that the session does not have."""
    unknown = [who for who in answers if who not in seats]
    if not unknown:
        return None
    known = ", ".join(repr(seat) for seat in seats)
    return TEXTS.text("unknown_seats", unknown=", ".join(repr(u) for u in unknown), known=known)
