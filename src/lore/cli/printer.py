"""Showing a session at the terminal as it runs, and writing its transcript file.

The terminal shows the game time and the participants as the web client does (``Day 1,
00:10``, ``Aki``: ``lore.engine.game_clock``, ``lore.engine.seat_labels``); the transcript
keeps the ticks and the ids.

Neither may stop the session: a transcript that cannot be written (a full disk,
``/dev/full``) or a terminal that went away (``lore run ... | head -1``) is noted, the
session goes on (and is saved), and ``lore run`` reports the failure at the end.
"""

from __future__ import annotations

import re
import sys

from lore.cli.atomic import AtomicFile
from lore.engine.game_clock import clock_text
from lore.engine.seat_labels import actor_name, label_of
from lore.engine.session import Session
from lore.engine.transcript import Record, dumps

_TAG = re.compile(r"<[^>]*>")


class Printer:
    """Shows messages and errors as they happen and writes the transcript file."""

    def __init__(self, shown: int, out: AtomicFile | None) -> None:
        self.shown = shown  # records a resumed session made before: not shown again
        self.count = 0
        self.session: Session | None = None
        self.out = out
        self.failed: OSError | None = None  # why the transcript could not be written
        self.gone = False  # the terminal's output was closed

    def __call__(self, record: Record) -> None:
        if self.out is not None and self.failed is None:
            try:
                self.out.write(dumps(record) + "\n")
                self.out.flush()
            except OSError as error:
                self.failed = error
        self.count += 1
        if not self.gone:
            try:
                self.show(record)
            except OSError:  # stdout or stderr closed: the session goes on unseen
                self.gone = True

    def show(self, record: Record) -> None:
        if self.count <= self.shown and record["kind"] != "end":
            if self.count == self.shown and self.session is not None:
                print(resumed_summary(self.session), file=sys.stderr, flush=True)
            return
        kind = record["kind"]
        at = clock_text(record["tick"])
        if kind == "message":
            text = record["text"]
            if record.get("format") == "html":
                text = " ".join(_TAG.sub(" ", text).split())
            print(f"[{at}] {label_of(self.session, record['to'])}: {text}", flush=True)
        elif kind == "roll":  # a roll a rule showed: its card's text, for whom it is
            seats = ", ".join(label_of(self.session, seat) for seat in record["to"])
            ruled = f" (the GM ruled: {record['ruling']})" if record.get("ruling") else ""
            print(f"[{at}] {seats}: 🎲 {record['text']}{ruled}", flush=True)
        elif kind == "ruling":  # a GM's ruling on a value
            seats = ", ".join(label_of(self.session, seat) for seat in record["to"])
            said = "taken back: " if record.get("ruling") == "back" else ""
            if record.get("arrival") is not None:
                said += f"{record['label']}: {record['arrival']}"
            elif record.get("outcome") is not None:
                said += f"{record['label']} ends: {record['outcome']}"
            else:
                changed = f"{record['before']} → {record['after']}"
                said += f"{record['name']}'s {record['label']} {changed}"
            print(f"[{at}] {seats}: ⚖ GM ruling: {said}", flush=True)
        elif kind == "error":
            print(
                f"[{at}] rule error at {record['where']}: {record['message']}",
                file=sys.stderr,
                flush=True,
            )
            errors = self.session.errors if self.session is not None else []
            if errors and errors[-1].message == record["message"]:
                # The line, the hint and the Lore call stack, for the rule's author.
                for line in errors[-1].render().splitlines()[1:]:
                    print(f"    {line}", file=sys.stderr, flush=True)
        elif kind == "end":
            why = f": {record['message']}" if record.get("message") else ""
            if record.get("outcome"):
                why = f": {record['outcome']}"
            print(
                f"[{at}] session ended: {record['reason']}{why}",
                file=sys.stderr,
                flush=True,
            )


def resumed_summary(session: Session) -> str:
    """Where each actor stands when a saved session has caught up."""
    lines = [f"[{clock_text(session.ticks)}] session resumed"]
    system = session.rt.system
    actors = system.values.get("allPC", ()) if system is not None else ()
    for actor in actors:
        location = actor.values.get("location")
        secrets = actor.values.get("knownSecrets") or ()
        known = ", ".join(str(s) for s in secrets) if secrets else "nothing secret"
        lines.append(f"  {actor_name(actor)}: at {location}, knows {known}")
    return "\n".join(lines)
