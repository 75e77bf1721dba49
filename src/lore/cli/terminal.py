"""The interactive terminal participant: numbered menus and typed values.

Every bad entry is explained and asked again (in the words of ``lore join``:
``lore.clients.asking_again``); end of input (Ctrl-D) means no answer; ``<`` typed at a
prompt goes back: the participant's last answer of the step is taken back and its question
asked again (``engine/withdrawal.py``), when nothing followed from it. A line beginning
with ``/`` is a GM's ruling (``lore.cli.gm_commands``): one person sits at the terminal,
the GM among the participants it plays.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any, ClassVar, TextIO

from lore.cli.gm_commands import is_command
from lore.clients.asking_again import (
    BACK_HINT,
    GO_BACK,
    ask_again,
    menu_reason,
    menu_span,
    value_reason,
)
from lore.engine.participants import BACK, PENDING, Back, Pending
from lore.engine.queries import Input, Query
from lore.engine.randomness import Stream


class _GoingBack(Exception):
    """``<`` was typed at a prompt."""


class _Ruling(Exception):
    """A GM's ruling was typed at a prompt (``lore.cli.gm_commands``)."""


class Terminal:
    """One participant at the terminal (several share it, each named in the prompt)."""

    # Whether a terminal waits for a line now (a signal then interrupts the read).
    reading: ClassVar[bool] = False

    def __init__(
        self,
        name: str,
        read: Callable[[str], str] | None = None,
        out: TextIO | None = None,
        label_of: Callable[[str], str] = str,
    ) -> None:
        self.name = name  # the participant's id
        self.read = read or input
        self.out = out or sys.stdout
        self.label_of = label_of  # how people know a participant (``Aki``, not its jid)
        self.captions: dict[str, str] = {}  # the inputs' captions of the question asked
        self.hinted = False  # whether BACK_HINT was said
        # The GM's rulings typed at a prompt, for the run to make (``gm_commands``): the
        # question waits meanwhile, and is asked again.
        self.rulings: list[str] = []

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def line(self, prompt: str) -> str:
        """A line typed at ``prompt`` (EOFError at the end of input)."""
        Terminal.reading = True
        try:
            text = self.read(prompt)
        except (KeyboardInterrupt, EOFError):  # Ctrl-C (or a signal), Ctrl-D
            self.say("")  # what is said next starts on a line of its own, not the prompt's
            raise
        finally:
            Terminal.reading = False
        if text.strip() == GO_BACK:
            raise _GoingBack
        if is_command(text):  # (one person at the terminal: the GM too)
            self.rulings.append(text)
            raise _Ruling
        return text

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | Back | Pending | None:
        try:
            return self.asked(query)
        except _GoingBack:
            return BACK
        except _Ruling:
            return PENDING

    def asked(self, query: Query) -> dict[str, Any] | None:
        self.say(f"\n== {self.label_of(self.name)}: {query.title}")
        if not self.hinted:  # (said once: the prompts stay as they are)
            self.hinted = True
            self.say(BACK_HINT)
        for name, text in query.texts:
            if name == "map":
                self.say("\n".join("   " + line for line in text.splitlines()))
            else:
                self.say(f"   {text}" if name == "message" else f"   {name}: {text}")
        answer: dict[str, Any] = {}
        self.captions = dict(query.captions)  # (each input's prompt says it by its caption)
        for item in query.inputs:
            value = self.ask_input(item)
            if value is None:
                return None
            answer[item.name] = value
        return answer

    def ask_input(self, item: Input) -> Any:
        default = item.default_answer() if item.default is not None else None
        while True:
            try:
                if item.choices:
                    return self.choose(item, default)
                shown = f", Enter for {default}" if default is not None else ""
                text = self.line(
                    f"{self.label(item)} ({item.type}"
                    f"{', ' + str(item.allowed) if item.allowed else ''}{shown})> "
                )
            except EOFError:
                return None
            if not text.strip() and default is not None:
                return default
            value = parse_typed(item, text.strip())
            if value is not None:
                return value
            self.say(ask_again(value_reason(str(item.type))))

    def label(self, item: Input) -> str:
        """An input as its prompt names it: its caption, else its member name."""
        return self.captions.get(item.name, item.name)

    def choose(self, item: Input, default: Any = None) -> Any:
        """A numbered menu; one number (several, for a pick of several), or Enter for
        the default."""
        choices = item.choices or ()
        captions = item.captions or choices
        for number, (choice, caption) in enumerate(zip(choices, captions, strict=False), 1):
            mark = " (default)" if choice == default else ""
            self.say(
                f"   {number}. {caption}" + (f" ({choice})" if caption != choice else "") + mark
            )
        span = menu_span(len(choices), item.multiple, item.least, item.most)
        while True:
            text = self.line(f"{self.label(item)} {span}> ").strip()
            if not text and default is not None:
                return default
            if not text and item.multiple and item.least == 0:
                return []
            picked = [self.numbered(choices, word) for word in text.split()] or [None]
            if item.multiple and None not in picked:
                return picked
            if len(picked) == 1 and picked[0] is not None:
                return picked[0]
            if text in choices:
                return [text] if item.multiple else text
            self.say(ask_again(menu_reason(len(choices), item.multiple)))

    @staticmethod
    def numbered(choices: tuple[str, ...], word: str) -> str | None:
        number = _whole(word)
        if number is not None and 1 <= number <= len(choices):
            return choices[number - 1]
        return word if word in choices else None

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        self.say(ask_again(reason))
        return True

    def tell(self, record: dict[str, Any]) -> None:
        pass  # the run command prints every message once, as it happens


def _whole(text: str) -> int | None:
    """A whole number typed in plain digits (not ``²``, not 5,000 of them), or None."""
    digits = text.removeprefix("-")
    if not digits or len(digits) > 300 or not all("0" <= c <= "9" for c in digits):
        return None
    return int(text)


def parse_typed(item: Input, text: str) -> Any:
    kind, name = item.type.kind, item.type.name
    if kind == "unit" or name in ("integer", "real", "number"):
        number = _whole(text)
        if number is not None or name == "integer":
            return number
        try:
            value = float(text)
        except ValueError:
            return None
        return value if math.isfinite(value) and len(text) <= 320 else None
    if name == "boolean":
        lowered = text.lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        return None
    return text or None
