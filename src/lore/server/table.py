"""A session's table: its seats, and the stream of updates each seat is sent.

The table applies the entries of the session's log in order: answers (given to the
session master), chat lines and dice, and the GM's commands. After each entry it works
out, for every seat, what changed for that seat (its view, its open questions, the
messages it is told, the seats and the status) and makes it an update with the next
sequence number of that seat's stream. A seat is sent nothing about what it may not know:
its view is the engine's view for its participant, its questions are its own, and
messages go only to whom they are for (the GM sees all).

The table does no I/O and keeps no clock: applying the same entries to a table of the
same program gives the same streams, number for number, which is how a restored session
lets its clients go on from the last update they saw.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import msgspec

from lore.engine.queries import Query
from lore.engine.roll_rulings import set_rule_rolls
from lore.engine.session import Limits
from lore.engine.table_view import PARTS
from lore.engine.views import GM
from lore.runtime.compiler import CompiledProgram
from lore.server.chat import clean_html
from lore.server.master import Master
from lore.server.protocol import Code, encode
from lore.server.shown import answer_parts
from lore.server.shown_cards import chat_card, ruling_item, shown_card
from lore.server.store import LogEntry
from lore.server.wireview import (
    area_map,
    query_spec,
    query_specs,
    seat_view,
    table_part,
    view_delta,
    view_lists,
)

HISTORY_BYTES = 64 * 1024  # updates kept per seat for clients that reconnect
# How far past ``HISTORY_BYTES`` a seat's kept updates may grow before the oldest are
# dropped: dropped in a batch now and then, not one per update made (``Stream.trim``).
HISTORY_SLACK = 16 * 1024
SHOWN_TICKS = 60  # the clients show the time to the minute (a tick is a second)
KEPT_MESSAGES = 300  # messages a snapshot holds (the earlier ones are asked for: ``history``)
HISTORY_PAGE = 48 * 1024  # bytes of messages in a history frame (at least one message)
# The members of the transcript's records that a message sent is made of (every message
# and answer has them: ``lore.engine.transcript``), read by one call.
_MESSAGE = itemgetter("tick", "to", "text", "format")
_ANSWER = itemgetter("tick", "from", "values")


# A rule's message and an answer as a seat is told them: encoded as the dicts of their
# members in this order would be (``{"kind": "message", "tick": ..., ...}``), with the
# members' names encoded once, not for every update. (No cycle goes through them: they
# are not tracked by the collector.) The GM is told a message the rules sent to several
# seats at once (the same text at the same time, in one update) once: to its first seat,
# and ``also`` to the others. An answer the GM gave for a seat is ``by`` the GM.
class Told(msgspec.Struct, tag_field="kind", tag="message", omit_defaults=True, gc=False):
    tick: int
    to: str
    text: str
    format: str
    also: list[str] | None = None


class Answered(msgspec.Struct, tag_field="kind", tag="answer", omit_defaults=True, gc=False):
    tick: int
    seat: str = msgspec.field(name="from")
    values: dict[str, Any] = msgspec.field(default_factory=dict)
    shown: list[dict[str, Any]] | None = None  # as people read it (``shown.answer_parts``)
    by: str | None = None
    # The question answered (for the log and its export): its title, and the purpose of
    # an engine's own question (which the client titles in its language).
    question: str | None = None
    purpose: str | None = None


# An update of messages and questions alone (``Table.publish``'s common one): encoded as
# its dict would be, the members it lacks left out.
class Update(msgspec.Struct, tag_field="type", tag="update", omit_defaults=True, gc=False):
    seq: int
    opened: list[Any] | None = None
    closed: list[str] | None = None
    messages: list[Any] | None = None
    view: dict[str, int] | None = None


@dataclass
class Stream:
    """What one seat has been sent: the numbered updates and the state they built."""

    seat: str
    label: str
    seq: int = 0
    view_seq: int = 0  # the last update that changed the seat's view (beyond the time)
    view: dict[str, Any] | None = None
    maps: set[str] = field(default_factory=set)
    open: dict[str, dict[str, Any]] = field(default_factory=dict)
    asked_at: dict[str, int] = field(default_factory=dict)  # question id -> update opening it
    messages: list[Any] = field(default_factory=list)  # every message the seat was told
    # The updates kept, numbered ``seq - len(history) + 1`` to ``seq``: an update is
    # either kept or, made for nobody, drops those before it (``skip``).
    history: deque[bytes] = field(default_factory=deque)
    history_bytes: int = 0

    def close(self, questions: Iterable[str]) -> None:
        """Forget the open ``questions`` (their update was made)."""
        known = self.open
        asked_at = self.asked_at
        for qid in questions:
            del known[qid]
            asked_at.pop(qid, None)

    def trim(self) -> None:
        """Drop the oldest updates kept while they are more than ``HISTORY_BYTES`` (the
        last is kept whatever its size). ``Table.publish`` keeps each update it makes in
        ``history``, adding its size to ``history_bytes``, and trims only when that is
        ``HISTORY_SLACK`` more: the updates a client can catch up with are the newest
        within ``HISTORY_BYTES`` all the same (``caught_up``), as if each update made
        had been trimmed at once."""
        while self.history_bytes > HISTORY_BYTES and len(self.history) > 1:
            dropped = self.history.popleft()
            self.history_bytes -= len(dropped)

    def caught_up(self, last: int) -> list[bytes] | None:
        """The updates after ``last`` among the newest kept whose sizes add up to
        ``HISTORY_BYTES`` at most (at least the last one), or None when they do not
        follow ``last`` (some of those after it are no longer kept)."""
        missed: list[bytes] = []
        size = 0
        first = None
        seq = self.seq + 1
        for frame in reversed(self.history):
            seq -= 1
            if seq <= last:
                break
            size += len(frame)
            if size > HISTORY_BYTES and missed:
                return None  # (an update after ``last`` is out of the kept ones)
            missed.append(frame)
            first = seq
        if first != last + 1:
            return None
        missed.reverse()
        return missed

    def skip(self) -> None:
        """An update was numbered but not made (nobody listens): the updates kept before
        it no longer lead to the seat's state (a client catching up gets a snapshot)."""
        if self.history:
            self.history.clear()
            self.history_bytes = 0


@dataclass(frozen=True)
class Refusal:
    code: Code
    message: str


Frames = dict[str, bytes]  # seat -> the update it is sent
Audience = set[str] | tuple[str, ...] | None  # None: every seat


class Table:
    def __init__(self, master: Master, seats: list[tuple[str, str]], digest: str) -> None:
        self.master = master
        self.streams: dict[str, Stream] = {}
        for seat, label in [(GM, "GM"), *seats]:
            self.streams.setdefault(seat, Stream(seat, label))
        self.image_base = f"/bundle/{digest}"
        self.shown = 0  # transcript records routed so far
        self.paused = False
        self.closed = False  # ended by the GM
        self.applied = 0  # log entries applied
        self.maps: dict[str, dict[str, Any]] = {}
        self.seats_sent: dict[str, list[dict[str, Any]]] = {}
        self.seat_lists: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None = None
        self.view_key: tuple[Any, ...] | None = None  # what the views were made of
        self.table_key: tuple[Any, ...] = ()  # what the tables were made of (sheets.js)
        self.status_sent: dict[str, dict[str, Any]] = {}
        # The status as of the last update, and what it was made of (paused, closed, ended).
        self.status_now: dict[str, Any] = {}
        self.status_state: tuple[bool, bool, str | None, bool] | None = None
        self.recheck = True  # every seat's questions are looked at in the next update
        self.proxy: str | None = None  # the seat the GM is answering for (``told``)
        self.clock: set[str] = set()  # seats whose time moved with no update to carry it
        # The seats whose updates are made (None: every seat's). A seat nobody listened to
        # yet has its state and numbers kept as the others, but no update made for it: a
        # client that comes gets a snapshot.
        self.listening: set[str] | None = None
        # The answer applied last as people read it, for its transcript record.
        self.answer_shown: list[dict[str, Any]] | None = None
        # The question of ``answer_shown``: its title and the purpose of an engine's own.
        self.answer_question: tuple[str, str | None] | None = None

    # ------------------------------------------------------------ applying

    def start(self, chat: Iterable[LogEntry] = ()) -> Frames:
        """Start the session; ``chat``: the chat lines and rolls of the save it goes on
        from (``saved_chat``), shown again first, each to whom it was for."""
        self.master.start()
        items: list[tuple[Audience, dict[str, Any]]] = []
        for entry in chat:
            if entry.data.get("to") in (None, *self.streams):  # (a seat still there)
                items.extend(self.chat_items(entry))
        return self.publish(items, engine=True)

    def apply(self, entry: LogEntry) -> Refusal | Frames:
        """Apply a log entry: the updates it makes, or why it is refused (then nothing
        changed). Entries are numbered: the next must be ``applied + 1``. An answer's
        entry gets the participant asked and the question's title (``to``, ``title``),
        which a save needs, when it lacks them (``lore.server.saving``)."""
        data = entry.data
        kind = entry.kind
        query = None
        if kind == "answer":  # (``Master.question`` written out: one an answer)
            found = self.master.session.open.get(data["id"])
            if found is not None and isinstance(found[1], Query):
                query = found[1]
        # (the common answer, to its seat's open question, goes on without a call)
        if query is None or data.get("seat") != query.to or self.closed or self.paused:
            refusal = self.refusal(entry, query)
            if refusal is not None:
                return refusal
        items: list[tuple[Audience, dict[str, Any]]] = []
        engine = False
        if kind == "answer":
            problem = self.master.answer(data["id"], data["values"])
            if problem is not None:
                return Refusal(Code.BAD_ANSWER, problem)
            if query is not None:  # what a save needs of the question (see saving.py)
                data.setdefault("to", query.to)
                data.setdefault("title", query.title)
                if data["seat"] == GM and query.to != GM:
                    self.proxy = query.to
                self.answer_shown = answer_parts(query, data["values"], self.master)
                self.answer_question = (query.title, query.purpose or None)
            engine = True
        elif kind == "back":
            found = self.master.session.open.get(data["id"])
            problem = self.master.back(data["id"], data["seat"])
            if problem is not None:
                return Refusal(Code.NO_BACK, problem)
            if found is not None and isinstance(found[1], Query):  # (for a save: saving.py)
                data.setdefault("to", found[1].to)
                data.setdefault("title", found[1].title)
            engine = True
        elif kind == "assign":
            actor = next((a for a in self.master.actors() if a.label == data["actor"]), None)
            problem = self.master.assign(data["actor"], data["seat"])
            if problem is not None:
                return Refusal(Code.BAD_COMMAND, problem)
            engine = True
            self.seat_lists = None
            if actor is not None:
                items.append(self.moved(actor.label, actor.name, actor.participant, data["seat"]))
        elif kind == "ruling":
            problem = self.master.rule(data)
            if problem is not None:
                return Refusal(Code.BAD_RULING, problem)
            engine = True
        elif kind == "take_back":
            problem = self.master.take_back()
            if problem is not None:
                return Refusal(Code.BAD_RULING, problem)
            engine = True
        elif kind == "scene":
            problem = self.master.end_scene(data["scene"], data["outcome"])
            if problem is not None:
                return Refusal(Code.BAD_RULING, problem)
            engine = True
        elif kind == "arrival":
            problem = self.master.bring_in(data["arrival"], data["kind"], bool(data["secret"]))
            if problem is not None:
                return Refusal(Code.BAD_RULING, problem)
            engine = True
        elif kind == "check":  # the GM's improvised check: its card, to whom it is for
            card = data["card"]
            items.append((set(card["to"]), shown_card(card)))
        elif kind == "rule_rolls":
            set_rule_rolls(self.master.session, bool(data["every"]))
        elif kind == "seat":
            self.streams[data["seat"]] = Stream(data["seat"], data["label"])
            self.seat_lists = None
        elif kind == "unseat":
            self.unseat(data["seat"])
            self.recheck = True  # (questions may be waiting for a seat of that name)
        elif kind in ("chat", "roll"):
            data.setdefault("tick", self.master.tick)  # (kept with it, for a save's chat)
            items.extend(self.chat_items(entry))
        elif kind in ("pause", "resume"):
            self.paused = kind == "pause"
        elif kind == "end":
            self.closed = True
        self.applied = entry.index
        return self.publish(items, engine)

    def refusal(self, entry: LogEntry, question: Query | None) -> Refusal | None:
        """Why the entry is refused, or None (``question``: the open question an answer
        answers, if there is one)."""
        data, kind = entry.data, entry.kind
        seat = data.get("seat") if kind in ("answer", "back") else data.get("from")
        # Over (ended by the GM or by its rules): the people at the table may still talk
        # and roll; nothing else goes on.
        if self.closed and kind not in ("chat", "roll"):
            return Refusal(Code.ENDED, "the session is over")
        if kind == "answer":
            if question is None or (seat != GM and question.to != seat):
                return Refusal(
                    Code.UNKNOWN_QUESTION, f"no open question of yours is '{data['id']}'"
                )
            if self.paused and seat != GM:
                return Refusal(Code.PAUSED, "the GM has paused the session")
        elif kind == "back" and self.paused and seat != GM:
            return Refusal(Code.PAUSED, "the GM has paused the session")
        elif kind in ("chat", "roll"):
            to = data.get("to")
            if to is not None and to not in self.streams:
                return Refusal(Code.BAD_COMMAND, f"there is no seat '{to}'")
        elif kind == "assign" and data["seat"] not in self.streams:
            return Refusal(Code.BAD_COMMAND, f"there is no seat '{data['seat']}'")
        elif kind == "seat" and data["seat"] in self.streams:
            return Refusal(Code.BAD_COMMAND, f"there is a seat '{data['seat']}' already")
        elif kind == "unseat":
            return self.unseat_refusal(data["seat"])
        return None

    def unseat_refusal(self, seat: str) -> Refusal | None:
        """Why a seat cannot be removed: the GM's, none, or one that still plays actors
        (the GM moves them to another seat first: their questions would wait for it)."""
        if seat == GM or seat not in self.streams:
            return Refusal(Code.BAD_COMMAND, f"there is no seat '{seat}' to remove")
        playing = [a.name for a in self.master.actors() if a.participant == seat]
        if playing:
            label = self.streams[seat].label
            return Refusal(
                Code.BAD_COMMAND,
                f"the seat '{label}' still plays {', '.join(playing)}: move"
                " them to another seat first",
            )
        return None

    def unseat(self, seat: str) -> None:
        """Forget a seat the GM removed (``unseat_refusal`` said it may be)."""
        del self.streams[seat]
        self.seats_sent.pop(seat, None)
        self.status_sent.pop(seat, None)
        if self.listening is not None:
            self.listening.discard(seat)
        self.clock.discard(seat)
        self.seat_lists = None

    def chat_items(self, entry: LogEntry) -> list[tuple[Audience, dict[str, Any]]]:
        """A chat line or a roll, and who sees it: everyone, or the sender, the seat it
        is for and the GM. A secret roll's result reaches only the roller and the GM; the
        others see that there was one."""
        data = entry.data
        sender, to = data["from"], data.get("to")
        tick = data.get("tick", self.master.tick)
        item: dict[str, Any] = {"kind": entry.kind, "tick": tick, "from": sender}
        if to is not None:
            item["to"] = to
        item["text"] = data["text"]
        if entry.kind == "roll" and "roll" in data:
            item.update(chat_card(data["roll"]))
        if data.get("comment"):
            item["comment"] = data["comment"]
        if data.get("secret"):
            item["secret"] = True
            others = set(self.streams) - {GM, sender}
            hidden = {"kind": "roll", "tick": item["tick"], "from": sender, "secret": True}
            return [({GM, sender}, item), (others, hidden)]
        return [({sender, to, GM} if to is not None else None, item)]

    def moved(self, actor: str, name: str, before: str, after: str) -> tuple[Audience, Any]:
        """The GM gave an actor to another seat: the seat that had it, the seat that has
        it and the GM are told."""
        item = {"kind": "assign", "tick": self.master.tick, "actor": actor, "name": name}
        item.update({"from": before, "to": after})
        return {GM, before, after}, item

    # ------------------------------------------------------------ what each seat is sent

    def publish(self, items: list[tuple[Audience, dict[str, Any]]], engine: bool) -> Frames:
        """Each seat's update after an entry (``engine``: the engine ran). Only the seats
        something happened to are looked at (messages told, questions opened or closed);
        every seat when the views, the seats or the status changed. The others at most
        get their time in a clock frame (``take_clock``). A seat nobody listens to has
        its stream's state kept (numbers, questions, messages), but no update made."""
        streams = self.streams
        told = self.told(items)
        frames: Frames = {}
        views = tables = False
        parts: tuple[str, ...] = PARTS
        shared: dict[Any, Any] = {}  # (what the seats' tables share: made once)
        opens: dict[str, list[Any]] = {}  # seat -> the questions it is asked, as sent
        closes: dict[str, list[str]] = {}  # seat -> the questions no longer open
        if engine:
            key = self.master.view_key()
            views = key != self.view_key
            if views:
                self.seat_lists = None  # rules may have handed actors to other seats
            self.view_key = key
            table_key = self.master.table_key()
            tables = table_key != self.table_key  # (sheets, trackers: the views' table)
            if tables:  # (the parts of the tables to make again)
                old = self.table_key or ((),) * len(PARTS)
                parts = tuple(p for p, a, b in zip(PARTS, old, table_key, strict=False) if a != b)
            self.table_key = table_key
            self.questions(opens, closes)
        seat_lists = self.seat_lists
        seats_changed = seat_lists is None
        if seat_lists is None:  # made again when seats or actors' players change
            seat_lists = self.seat_lists = (self.seat_list(False), self.seat_list(True))
        session = self.master.session  # (``Master.ended`` and ``tick`` read without calls)
        state = self.status_state
        status_changed = (
            state is None
            or session.ended != state[2]
            or self.paused != state[0]
            or self.closed != state[1]
            or session.rule_rolls[0] != state[3]
        )
        if status_changed:
            self.status_state = (self.paused, self.closed, session.ended, session.rule_rolls[0])
            self.status_now = self.status()
        status = self.status_now
        every = views or tables or seats_changed or status_changed
        tick = session.ticks
        shown = tick // SHOWN_TICKS
        listening = self.listening
        clock = self.clock
        trim_at = HISTORY_BYTES + HISTORY_SLACK
        if not every:
            # Most updates (an answer's): messages and questions alone, the views, seats
            # and status as they were (every seat has a view: the update that last
            # changed the seats made one for each).
            now = {"tick": tick}  # (the time, for the updates of the seats behind it)
            for seat, stream in streams.items():
                messages = told.get(seat)
                opened = opens.get(seat)
                closed = closes.get(seat)
                view: Any = stream.view
                if not (messages or opened or closed):
                    if view["tick"] // SHOWN_TICKS != shown:
                        clock.add(seat)  # only the time shown moved: a clock frame
                    continue
                seq = stream.seq = stream.seq + 1
                if messages:
                    stream.messages.extend(messages)
                if clock:
                    clock.discard(seat)
                moved = view["tick"] != tick
                if moved:
                    view["tick"] = tick  # (the stream's own: each seat's view is made for it)
                if listening is not None and seat not in listening:
                    if stream.history:
                        stream.skip()
                    continue  # (no update made for nobody: the stream's state is kept)
                frame = frames[seat] = encode(
                    Update(seq, opened, closed, messages or None, now if moved else None)
                )
                stream.history.append(frame)
                stream.history_bytes += len(frame)
                if stream.history_bytes > trim_at:
                    stream.trim()
            return frames
        status_sent = self.status_sent
        for seat, stream in streams.items():
            messages = told.get(seat)
            opened = opens.get(seat)
            closed = closes.get(seat)
            view = stream.view
            # The frame's own fields first (the sequence number is set once known), so
            # that the update is encoded as it is, not copied into a frame.
            update: dict[str, Any] = {"type": "update", "seq": 0}
            changed_view = False
            new_seat = view is None  # (a seat added: nothing sent yet)
            sent: dict[str, Any] | None = status
            if views or new_seat:
                changed_view = self.update_view(stream, update, shared)
                view = stream.view
            elif tables:
                # (Not a change that makes answers stale: whom the table waits for moves
                # with every question.)
                self.update_table(stream, update, parts, shared)
                view = stream.view
            if status_changed or new_seat:
                sent = status_sent.get(seat)
            if opened:
                update["opened"] = opened
            if closed:
                update["closed"] = closed
            if seats_changed:
                seats = seat_lists[seat == GM]
                sent_seats = self.seats_sent.get(seat)
                if sent_seats is not seats:
                    self.seats_sent[seat] = seats
                    if sent_seats != seats:
                        update["seats"] = seats
            if messages:
                update["messages"] = messages
                stream.messages.extend(messages)
            assert view is not None
            if len(update) == 2 and sent == status:  # (nothing but the frame's own fields)
                if view["tick"] // SHOWN_TICKS != shown:
                    clock.add(seat)  # only the time shown moved: a clock frame
                continue
            # The time goes with every update (and only with one).
            if view["tick"] != tick:
                view["tick"] = tick  # (the stream's own: each seat's view is made for it)
                update.setdefault("view", {})["tick"] = tick
            if sent is not status and sent != status:
                status_sent[seat] = status
                update["status"] = status
            if clock:
                clock.discard(seat)
            seq = stream.seq = stream.seq + 1
            if changed_view:
                stream.view_seq = seq
            if listening is not None and seat not in listening:
                if stream.history:
                    stream.skip()
                continue
            update["seq"] = seq
            frame = frames[seat] = encode(update)
            stream.history.append(frame)  # (for a client that reconnects)
            stream.history_bytes += len(frame)
            if stream.history_bytes > trim_at:
                stream.trim()
        return frames

    def questions(self, opens: dict[str, list[Any]], closes: dict[str, list[str]]) -> None:
        """Fill ``opens`` (by seat, the questions it is asked since its last update, in
        the engine's order, as they are sent: a question for the GM and a player's seat
        encoded once, ``Raw``) and ``closes`` (by seat, the ids of those no longer open
        to it, in the order it was asked them), in one pass over the open questions: the
        GM's stream has them all, each with whom it asks, and a seat's stream has the
        GM's of those that ask it. A question asked of another seat now (its actor was
        given away) is closed for the one and opened for the other (the GM is told it
        again). Every seat's questions are looked at again when a seat was added, or the
        table restored (``recheck``). The streams keep what they are asked from now on
        (``Stream.open``), each question with the update that opens it: the seat's next
        (a seat a question opens or closes for gets one)."""
        master = self.master
        if self.recheck:
            self.recheck = False
            self.every_question(master.open_questions(), opens, closes)
            return
        asking = master.session.open  # (``Master.asking`` written out)
        streams = self.streams
        gm = streams[GM]
        known = gm.open
        size = len(known)  # (the new questions are kept in it as they are found)
        gm_asked = gm.asked_at
        gm_next = gm.seq + 1
        gm_sent: list[Any] = []
        shut: list[tuple[str, str]] = []  # (seat, question) closed for a player's seat
        kept = 0  # the questions still open that the GM's stream had
        for _, question, _ in asking.values():
            if not isinstance(question, Query):
                continue
            qid, to = question.id, question.to
            spec = known.get(qid)
            if spec is not None:
                kept += 1
                before = spec["to"]
                if before == to:
                    continue
                if before != GM:
                    shut.append((before, qid))
            spec, sent = query_specs(question, master)
            known[qid] = spec
            gm_asked[qid] = gm_next
            gm_sent.append(sent)
            if to != GM:
                stream = streams.get(to)
                if stream is not None:
                    stream.open[qid] = spec
                    stream.asked_at[qid] = stream.seq + 1
                    found = opens.get(to)
                    if found is None:
                        opens[to] = [sent]
                    else:
                        found.append(sent)
        if gm_sent:
            opens[GM] = gm_sent
        if kept < size:
            gm_closed = closes[GM] = []
            for qid, spec in known.items():  # (those found now are open: skipped)
                if qid not in asking:
                    gm_closed.append(qid)
                    if spec["to"] != GM:
                        shut.append((spec["to"], qid))
            for qid in gm_closed:  # (``Stream.close`` written out)
                del known[qid]
                gm_asked.pop(qid, None)
        if not shut:
            return
        for seat, qid in shut:
            gone = closes.get(seat)
            if gone is None:
                closes[seat] = [qid]
            else:  # (in the order the seat was asked them)
                gone.append(qid)
                if seat in streams:
                    order = streams[seat].open
                    closes[seat] = [key for key in order if key in gone]
        for seat, qid in shut:
            stream = streams.get(seat)
            if stream is not None:  # (``Stream.close`` of one question, written out)
                del stream.open[qid]
                stream.asked_at.pop(qid, None)

    def every_question(
        self,
        current: list[Query],
        opens: dict[str, list[Any]],
        closes: dict[str, list[str]],
    ) -> None:
        """``questions`` for every seat, each compared with what its stream has."""
        everything: dict[str, Query] = {}
        mine: dict[str, dict[str, Query]] = {}
        for question in current:
            everything[question.id] = question
            mine.setdefault(question.to, {})[question.id] = question
        specs: dict[tuple[str, str], dict[str, Any]] = {}  # made once, for every seat
        for seat, stream in self.streams.items():
            asked = everything if seat == GM else mine.get(seat, {})
            known = stream.open
            opened = []
            for key, q in asked.items():
                spec = known.get(key)
                if spec is None or spec["to"] != q.to:
                    spec = specs.get((key, q.to))
                    if spec is None:
                        spec = specs[key, q.to] = query_spec(q, self.master)
                    opened.append(spec)
            closed = [key for key in known if key not in asked]
            if closed:
                closes[seat] = closed
                stream.close(closed)
            if opened:
                opens[seat] = opened
                asked_at = stream.asked_at
                seq = stream.seq + 1
                for spec in opened:
                    key = spec["id"]
                    known[key] = spec
                    asked_at[key] = seq

    def told(self, items: list[tuple[Audience, dict[str, Any]]]) -> dict[str, list[Any]]:
        """The messages each seat is told, in order: the transcript's records made since
        the last update as messages, each to whom it is for, then ``items``. A record is
        for the GM (who sees all) and at most one other seat: a message for whom it is
        to, an answer for who gave it, an error for the GM alone; queries go as
        questions, the end as the status."""
        streams = self.streams
        to_gm: list[Any] = []
        told: dict[str, list[Any]] = {GM: to_gm}
        master = self.master  # (``Master.records`` written out: one call an update)
        start = self.shown - master.before
        records = master.transcript.records[start if start > 0 else 0 :]
        if records:
            self.shown += len(records)
            sent: dict[tuple[int, str, str], int] = {}  # a message -> its place in to_gm
            for record in records:
                kind = record["kind"]
                if kind == "message":
                    tick, seat, text, form = _MESSAGE(record)
                    if form == "html":
                        text = clean_html(text, self.image_base)
                    item: Any = Told(tick, seat, text, form)
                    if len(records) > 1 and self.told_again(to_gm, sent, item):
                        if seat != GM and seat in streams:
                            told.setdefault(seat, []).append(item)
                        continue
                elif kind == "answer":
                    tick, seat, values = _ANSWER(record)
                    shown = self.answer_shown
                    item = Answered(tick, seat, values, shown)
                    question = self.answer_question
                    if question is not None:
                        item.question, item.purpose = question
                        self.answer_question = None
                    if shown is not None:
                        # (The session log reads the answer as the seats were told it:
                        # the question's title, the captions of what was chosen.)
                        self.answer_shown = None
                        record["title"] = question[0] if question is not None else ""
                        record["shown"] = shown
                    if seat == self.proxy:
                        item.by, self.proxy = GM, None
                elif kind == "back":
                    seat = record["from"]
                    item = {"kind": kind, "tick": record["tick"], "from": seat}
                    item["title"] = record.get("title")
                elif kind == "error":
                    seat = GM
                    text, where = record["message"], record.get("where", "")
                    item = {"kind": kind, "tick": record["tick"], "text": text, "where": where}
                elif kind in ("roll", "ruling"):  # a roll a rule shows, a GM's ruling:
                    # to the seats that may see it
                    card = shown_card(record) if kind == "roll" else ruling_item(record)
                    for seat in record["to"]:
                        if seat in streams:
                            told.setdefault(seat, []).append(card)
                    continue
                else:
                    continue
                to_gm.append(item)
                if seat != GM and seat in streams:
                    found = told.get(seat)
                    if found is None:
                        told[seat] = [item]
                    else:
                        found.append(item)
        self.proxy = None
        for audience, message in items:
            for seat in streams if audience is None else audience:
                if seat in streams:
                    found = told.get(seat)
                    if found is None:
                        told[seat] = [message]
                    else:
                        found.append(message)
        return told

    @staticmethod
    def told_again(to_gm: list[Any], sent: dict[tuple[int, str, str], int], item: Told) -> bool:
        """Whether the GM was told ``item``'s text already in this update, to other seats
        (then the GM's message says it went to this one ``also``); else it is noted as
        told (``sent``: each message's place in ``to_gm``)."""
        key = (item.tick, item.text, item.format)
        place = sent.get(key)
        if place is None:
            sent[key] = len(to_gm)
            return False
        first: Told = to_gm[place]
        also = first.also or []
        if item.to == first.to or item.to in also:
            sent[key] = len(to_gm)  # told the same seat twice: two lines
            return False
        to_gm[place] = Told(first.tick, first.to, first.text, first.format, [*also, item.to])
        return True

    def listen(self, seat: str) -> None:
        """Make the seat's updates from now on (a client of it came)."""
        if self.listening is not None:
            self.listening.add(seat)

    def take_clock(self) -> set[str]:
        """The seats whose time shown (its minute) moved with no update to carry it
        (since the last call): they are sent a clock frame (``clock_frame``), outside
        their numbered stream. A seat whose time moved within the minute it shows gets
        the time with its next update."""
        due, self.clock = self.clock, set()
        return due

    def clock_frame(self) -> bytes:
        return encode({"type": "clock", "tick": self.master.tick})

    def behind(self, seat: str, shown: bool = False) -> bool:
        """Whether the seat's last update has an older time than the session's
        (``shown``: an older minute, what its clients show)."""
        view = self.streams[seat].view
        if view is None:
            return False
        seen: int = view["tick"]
        if shown:
            return seen // SHOWN_TICKS != self.master.tick // SHOWN_TICKS
        return seen != self.master.tick

    def update_view(
        self, stream: Stream, update: dict[str, Any], shared: dict[Any, Any] | None = None
    ) -> bool:
        """Put the seat's view delta in ``update`` (the time aside: ``publish`` sends it
        with the update, if there is one); whether the view changed."""
        before = stream.view
        after = seat_view(self.master, stream.seat, shared, self.image_base)
        delta = view_delta(before, after)
        if before is not None:
            delta.pop("tick", None)
            after["tick"] = before["tick"]
        stream.view = after
        if not delta:
            return False
        update["view"] = delta
        new_maps = {path: self.map_of(path) for path in after["areas"] if path not in stream.maps}
        if stream.seat == GM:
            new_maps = {n.path: self.map_of(n.path) for n in self.master.areas()}
            new_maps = {p: m for p, m in new_maps.items() if p not in stream.maps}
        if new_maps:
            stream.maps.update(new_maps)
            update["maps"] = new_maps
        return set(delta) != {"tick"}

    def update_table(
        self,
        stream: Stream,
        update: dict[str, Any],
        parts: tuple[str, ...],
        shared: dict[Any, Any],
    ) -> bool:
        """Put the seat's table delta in ``update`` when only the tables may have changed
        (the rest of its view as it was; of the tables, ``parts``); whether it changed."""
        before = stream.view
        assert before is not None
        old = before.get("table")
        made = table_part(self.master, stream.seat, old, parts, shared).get("table")
        if made is None:
            return False
        stream.view = {**before, "table": made}
        changed = {k: v for k, v in made.items() if old is None or old.get(k) != v}
        if not changed:
            return False
        update["view"] = {"table": changed}  # (as ``view_delta`` puts it: the parts changed)
        return True

    def map_of(self, path: str) -> dict[str, Any]:
        found = self.maps.get(path)
        if found is None:
            node = self.master.area(path)
            found = self.maps[path] = area_map(node) if node is not None else {"path": path}
        return found

    def seat_list(self, for_gm: bool) -> list[dict[str, Any]]:
        """The seats, for everyone; the GM also sees whose actors sit where."""
        seats: list[dict[str, Any]] = [
            {"seat": s.seat, "label": s.label} for s in self.streams.values()
        ]
        if for_gm:
            actors = self.master.actors()
            for seat in seats:
                seat["actors"] = [
                    {"label": a.label, "name": a.name}
                    for a in actors
                    if a.participant == seat["seat"]
                ]
        return seats

    def status(self) -> dict[str, Any]:
        """Whether the session is paused, and how it ended (None: it goes on). The time
        is the view's (``view.tick``)."""
        found = {"paused": self.paused, "ended": "closed" if self.closed else self.master.ended}
        if self.master.session.rule_rolls[0]:
            found["ruleRolls"] = True  # (the GM rules on every roll: roll_rulings)
        return found

    def stale(self, seat: str, query_id: str, seen: int) -> int | None:
        """The update a client must have seen to answer ``query_id`` (None when ``seen``
        is recent enough): the one that asked it, and the seat's last change of view. Other
        questions opening or closing meanwhile make no answer stale."""
        stream = self.streams[seat]
        needed = max(stream.view_seq, stream.asked_at.get(query_id, 0))
        return needed if seen < needed else None

    def last_sent(self, seat: str) -> int:
        """The sequence number of the seat's last update: an answer saying it saw a later
        one is refused (else a client could always pass the staleness check)."""
        return self.streams[seat].seq

    # ------------------------------------------------------------ snapshots

    def snapshot_state(self) -> bytes:
        """The whole table as bytes, between entries: the engine's snapshot and what each
        seat was sent (its numbers, view, questions and messages: each message once, in
        ``told``, the streams by their places there). The updates kept for reconnecting
        clients are not in it: a client older than it gets a snapshot."""
        told, places = self.told_once()
        master = self.master
        session = master.session
        state = {
            "engine": master.snapshot(),
            "ended": [session.ended, session.detail] if session.ended is not None else None,
            "before": [master.made, master.shown],
            "applied": self.applied,
            "paused": self.paused,
            "closed": self.closed,
            "streams": [
                {
                    "seat": stream.seat,
                    "label": stream.label,
                    "seq": stream.seq,
                    "view_seq": stream.view_seq,
                    "view": stream.view,
                    "maps": sorted(stream.maps),
                    "open": stream.open,
                    "asked_at": stream.asked_at,
                    "messages": places[stream.seat],
                }
                for stream in self.streams.values()
            ],
            "seats_sent": self.seats_sent,
            "status_sent": self.status_sent,
            "told": told,
        }
        return msgspec.msgpack.encode(state)

    def told_once(self) -> tuple[list[Any], dict[str, list[int]]]:
        """Every message the streams hold, each once (most are told several seats: the
        same object), and each stream's messages as their places in it."""
        told: list[Any] = []
        place: dict[int, int] = {}
        places: dict[str, list[int]] = {}
        for seat, stream in self.streams.items():
            mine = places[seat] = []
            for message in stream.messages:
                found = place.get(id(message))
                if found is None:
                    found = place[id(message)] = len(told)
                    told.append(message)
                mine.append(found)
        return told, places

    @classmethod
    def restore(
        cls,
        data: bytes,
        program: CompiledProgram,
        digest: str,
        limits: Limits | None = None,
    ) -> Table:
        """The table of ``snapshot_state`` (SnapshotError, or msgspec's errors, when the
        bytes do not fit)."""
        state = msgspec.msgpack.decode(data)
        # Each message once, the streams' messages their places in it (None: a snapshot of
        # an older Lore, whose streams hold their last messages themselves).
        told = state.get("told")
        ended = tuple(state["ended"]) if state["ended"] is not None else None
        before = (state["before"][0], state["before"][1])
        master = Master.restore(program, state["engine"], ended, before, limits)
        table = cls(master, [], digest)
        table.streams = {}
        for saved in state["streams"]:
            stream = Stream(saved["seat"], saved["label"], saved["seq"], saved["view_seq"])
            stream.view = saved["view"]
            stream.maps = set(saved["maps"])
            stream.open = saved["open"]
            stream.asked_at = saved["asked_at"]
            kept = saved["messages"]
            stream.messages.extend([told[n] for n in kept] if told is not None else kept)
            table.streams[stream.seat] = stream
        table.shown = master.made
        table.applied = state["applied"]
        table.paused = state["paused"]
        table.closed = state["closed"]
        table.seats_sent = state["seats_sent"]
        table.status_sent = state["status_sent"]
        return table

    # ------------------------------------------------------------ catching up

    def snapshot(self, seat: str) -> bytes:
        """Everything the seat's client shows, as of the seat's last update."""
        stream = self.streams[seat]
        view = stream.view or {"tick": 0, "actors": {}, "areas": {}, "objects": {}}
        return encode(
            {
                "type": "snapshot",
                "seq": stream.seq,
                "view": view_lists(view),
                "maps": {path: self.map_of(path) for path in sorted(stream.maps)},
                "messages": stream.messages[-KEPT_MESSAGES:],
                "first": max(0, len(stream.messages) - KEPT_MESSAGES),
                "questions": list(stream.open.values()),
                "seats": self.seats_sent.get(seat, self.seat_list(seat == GM)),
                "status": self.status_sent.get(seat, self.status()),
            }
        )

    def history(self, seat: str, before: int, ref: int | None = None) -> bytes:
        """The seat's messages just before its ``before``-th (numbered from 0, as a
        snapshot's ``first`` numbers its first), as many as fit in ``HISTORY_PAGE`` bytes
        (at least one), and the number of the first of them."""
        messages = self.streams[seat].messages
        end = first = max(0, min(before, len(messages)))
        size = 0
        while first > 0:
            size += len(encode(messages[first - 1]))
            if size > HISTORY_PAGE and first < end:
                break
            first -= 1
        frame = {"type": "history", "ref": ref, "first": first, "messages": messages[first:end]}
        return encode(frame)

    def catch_up(self, seat: str, last: int | None) -> list[bytes]:
        """What a client that saw the seat's updates up to ``last`` needs: the updates
        after it, or a snapshot when that is shorter (or they are no longer kept)."""
        stream = self.streams[seat]
        if last is not None and last == stream.seq:
            return []
        if last is None or last > stream.seq:
            return [self.snapshot(seat)]
        missed = stream.caught_up(last)
        if missed is None:
            return [self.snapshot(seat)]
        snapshot = self.snapshot(seat)
        if sum(len(frame) for frame in missed) >= len(snapshot):
            return [snapshot]
        return missed
