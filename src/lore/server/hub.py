"""The hub: what the server does with each message of each client.

A client first says ``hello`` with its link's token and the last sequence number it saw;
it gets ``welcome``, then what it missed (or a snapshot). Then each message is checked
(rate, size, schema), and dispatched:

- an answer, a chat line, a roll or a GM command becomes an entry of the session's log:
  it is applied to the table (which refuses it, changing nothing, when it does not fit),
  stored durably, and only then are its updates sent to the seats: the sender's own
  update carries the acknowledgement (``ack``, or an ``ack`` frame when its seat has no
  update). A crash before the store has the entry loses nothing anyone was told of;
- a route preview, the log, a seat's earlier messages (``history``) and a ping are
  answered at once and change nothing.

Entries of one session are applied one at a time (the room's lock); the engine runs on
worker threads, so a long step holds up its own session only. An answer (the most of the
entries) is committed without a coroutine when the room's lock is free (``commit_now``):
the store tells its ``Committing`` when the entry is durable, which then sends the
updates and releases the lock; the client's next message waits for that.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Coroutine
from typing import Any

import msgspec

from lore.dice import system
from lore.dice.systems import find as find_system
from lore.engine.arrivals import arrivals, describe_arrival
from lore.engine.gm_checks import CheckError, gm_checks, improvised_check
from lore.engine.rulings import describe_scene, scenes
from lore.engine.views import GM
from lore.runtime.errors import RuleError
from lore.server import protocol
from lore.server.admission import MAX_SEATS
from lore.server.chat import MAX_CHAT, RollError, chat_line_roll, dice_json
from lore.server.claiming import Moved, depose, moved_frame, reach
from lore.server.connection import CLOSE_ELSEWHERE, CLOSE_ERROR, CLOSE_REVOKED, Connection
from lore.server.protocol import MAX_MESSAGE, Code, Refused, decoder, encode, error_frame
from lore.server.rooms import Room, Rooms, new_token, seat_link
from lore.server.store import OPEN, LogEntry, StoreError
from lore.server.table import Refusal

log = logging.getLogger("lore.server")
FAILED = "the server failed: nothing was changed"
NOT_STORED = "the answer could not be stored: try again"


class Hub:
    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self.finishing: set[asyncio.Task[None]] = set()  # (``Committing.later``'s tasks)
        # The event loop the hub serves, kept: ``asyncio.get_running_loop`` costs a
        # ``getpid`` system call on each call (Python 3.11), and every answer needs it.
        # Set by the first answer (or hello) and again by every hello.
        self.loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------ joining

    async def hello(self, connection: Connection, data: str | bytes) -> Room | None:
        """Handle the first message; the room joined, or None (the client is told why and
        disconnected)."""
        try:
            message = protocol.decode(data)
        except Refused as refused:
            connection.send(error_frame(refused.code, refused.message))
            connection.close(protocol_close(refused.code))
            return None
        if not isinstance(message, protocol.Hello):
            connection.send(error_frame(Code.NOT_HELLO, "say hello first, with your link's token"))
            connection.close(4000)
            return None
        found = self.rooms.find(message.token)
        if found is None and self.rooms.nodes is not None:  # (one node of several)
            reached = await reach(self.rooms, message.token)
            if isinstance(reached, Moved):
                connection.send(moved_frame(reached))
                connection.close(CLOSE_ELSEWHERE)
                return None
            found = reached
        if found is None:
            session = await self.rooms.elsewhere(message.token)
            if session is not None:  # (another worker's: ``workers.py``)
                moved = {"type": "error", "code": Code.ELSEWHERE.value, "session": session}
                moved["message"] = "this session is served elsewhere: connect naming it"
                connection.send(encode(moved))
                connection.close(CLOSE_ELSEWHERE)
                return None
            broken = await self.rooms.broken_seat(message.token)
            if broken is not None:
                seat, why = broken
                told = f": {why}" if seat == GM else "; its GM is told why"
                text = f"this session could not be restored{told}"
                connection.send(error_frame(Code.UNRESTORABLE, text))
                connection.close(4001)
                return None
            found = await self.rooms.revive(message.token)  # (an ended session's link)
        if found is None:
            connection.send(error_frame(Code.BAD_TOKEN, "this link is unknown or was revoked"))
            connection.close(4001)
            return None
        room, seat = found
        connection.session, connection.seat = room.id, seat
        self.loop = asyncio.get_running_loop()
        async with room.lock:
            room = self.rooms.by_id[room.id]  # a reload may have replaced it
            first = not room.connections.get(seat)
            room.connections.setdefault(seat, set()).add(connection)
            connection.send(self.welcome(room, seat))
            room.table.listen(seat)
            if seat == GM:
                connection.send(self.links(room))
            for frame in room.table.catch_up(seat, message.seq):
                connection.send(frame)
            if room.table.behind(seat):
                connection.send(room.table.clock_frame())
            if first:
                room.broadcast(self.presence(room))
            else:
                connection.send(self.presence(room))
        return room

    def welcome(self, room: Room, seat: str) -> bytes:
        frame: dict[str, Any] = {
            "type": "welcome",
            "protocol": protocol.PROTOCOL,
            "session": {"id": room.id, "title": room.record.title},
            "seat": seat,
            "label": room.seats[seat].label,
            "role": "gm" if seat == GM else "player",
        }
        game = find_system(room.record.dice) if room.record.dice else None
        if game is not None:  # (the game system its chat rolls)
            frame["session"]["dice"] = dice_json(game)
        if seat == GM:  # (the rules' improvised checks: the GM calls them)
            checks = [c.describe() for c in gm_checks(room.table.master.session)]
            if checks:
                frame["checks"] = checks
            ended = [describe_scene(*found) for found in scenes(room.table.master.session)]
            if ended:
                frame["scenes"] = ended
            coming = [describe_arrival(*found) for found in arrivals(room.table.master.session)]
            if coming:
                frame["arrivals"] = coming
        if self.rooms.nodes is not None:  # (where to go when this node cannot be reached)
            frame["nodes"] = [self.rooms.nodes.url, *self.rooms.nodes.known]
        return encode(frame)

    def presence(self, room: Room) -> bytes:
        return encode({"type": "presence", "online": sorted(room.online())})

    def links(self, room: Room) -> bytes:
        """For the GM: the link of every seat (None when revoked)."""
        links = [
            {
                "seat": seat.seat,
                "label": seat.label,
                "link": seat_link(room.id, seat.token) if seat.token is not None else None,
            }
            for seat in room.seats.values()
        ]
        return encode({"type": "links", "links": links})

    async def leave(self, connection: Connection) -> None:
        room = self.rooms.by_id.get(connection.session)
        if room is None:
            return
        found = room.connections.get(connection.seat)
        if found is None or connection not in found:
            return
        found.discard(connection)
        if not found:
            room.broadcast(self.presence(room))

    # ------------------------------------------------------------ messages

    def receive(self, connection: Connection, data: str | bytes) -> Awaitable[object] | None:
        """One message from a client that has joined: what to await for it (None: it was
        handled at once). (Not a coroutine of its own: an answer's commit is awaited by
        the connection's task directly, one coroutine fewer to go through when the store
        wakes it. An answer, the most of the messages, goes through here, ``answer`` and
        ``commit_now`` alone.)"""
        if not connection.allow():
            connection.send(error_frame(Code.RATE_LIMITED, "too many messages: slow down"))
            return None
        try:
            if type(data) is bytes and len(data) <= MAX_MESSAGE:  # (``decode``: the most)
                message = decoder(data)
            else:
                message = protocol.decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as error:
            refused = protocol.refusal(error)
            connection.send(error_frame(refused.code, refused.message))
            return None
        except Refused as refused:
            connection.send(error_frame(refused.code, refused.message))
            return None
        room = self.rooms.by_id.get(connection.session)
        if room is None:
            connection.close(4001)
            return None
        if type(message) is protocol.Answer:  # (the most of them)
            try:
                return self.answer(room, connection, message)
            except Refused as refused:
                connection.send(error_frame(refused.code, refused.message, message.ref))
                return None
        return self.handle(room, connection, message)

    async def handle(self, room: Room, connection: Connection, message: Any) -> None:
        """A message other than an answer (a refusal is sent back as an error)."""
        try:
            await self.dispatch(room, connection, message)
        except Refused as refused:
            connection.send(error_frame(refused.code, refused.message, message.ref))

    async def dispatch(self, room: Room, connection: Connection, message: Any) -> None:
        seat = connection.seat
        if isinstance(message, protocol.GM_ONLY) and seat != GM:
            raise Refused(Code.FORBIDDEN, "only the GM may do that")
        if isinstance(message, protocol.Ping):
            connection.send(encode({"type": "pong", "ref": message.ref}))
        elif isinstance(message, protocol.Hello):
            raise Refused(Code.MALFORMED, "hello is said once, first")
        elif isinstance(message, protocol.Answer):
            room = self.rooms.by_id[room.id]  # (a reload may have replaced it meanwhile)
            committing = self.answer(room, connection, message)
            if committing is not None:
                await committing
        elif isinstance(message, protocol.Back):
            data = {"seat": seat, "id": message.id}
            await self.commit(room, connection, "back", data, message.ref)
        elif isinstance(message, protocol.Chat):
            await self.chat(room, connection, message)
        elif isinstance(message, protocol.Preview):
            await self.preview(room, connection, message)
        elif isinstance(message, protocol.Log):
            async with room.lock:
                records = await self.rooms.transcript(self.rooms.by_id[room.id])
            connection.send(encode({"type": "log", "ref": message.ref, "records": records}))
        elif isinstance(message, protocol.History):
            async with room.lock:
                frame = self.rooms.by_id[room.id].table.history(seat, message.before, message.ref)
            connection.send(frame)
        else:
            await self.command(room, connection, message)

    def answer(
        self, room: Room, connection: Connection, message: protocol.Answer
    ) -> Awaitable[object] | None:
        """Commit an answer (Refused at once when it is stale): at once when the room's
        lock is free and its steps are quick (``commit_now``: nothing to await), else the
        commit to await. (``room`` is the one ``rooms.by_id`` holds now: nothing was
        awaited since it was looked up.)"""
        seat = connection.seat
        table = room.table
        needed = table.stale(seat, message.id, message.seq)
        if needed is not None:
            raise Refused(
                Code.STALE, f"your view is older than update {needed}: look again and answer"
            )
        if message.seq > (last := table.last_sent(seat)):
            raise Refused(
                Code.MALFORMED, f"seq {message.seq} is past the last update sent to you ({last})"
            )
        data = {"seat": seat, "id": message.id, "values": message.values}
        lock = room.lock
        if room.slow or not lock.take():
            return self.commit(room, connection, "answer", data, message.ref)
        self.commit_now(room, connection, data, message.ref)
        return None

    def commit_now(
        self, room: Room, connection: Connection, data: dict[str, Any], ref: int | None
    ) -> None:
        """``commit`` of an answer, the room's lock taken (``room`` the one ``rooms.by_id``
        holds: nothing awaited since it was looked up), without a coroutine: the entry
        is applied and handed to the store, and its acknowledgement and updates are sent
        when the store says it is durable (``Committing``), in the store's wake-up
        itself: no task woken and no future per answer. The connection's next message
        waits for that (``Committing.settled``)."""
        table = room.table
        entry = LogEntry(table.applied + 1, "answer", data)
        loop = self.loop
        if loop is None:
            loop = self.loop = asyncio.get_running_loop()
        committing = Committing(self, room, connection, entry, ref, loop)
        connection.committing = committing
        try:
            outcome = self.rooms.quick(room, table.apply, entry)
        except Exception:
            log.exception("session %s: entry %s failed; reloading it", room.id, entry.index)
            committing.later(self.recover(room, connection, ref, FAILED))
            return
        if isinstance(outcome, Refusal):
            connection.send(error_frame(outcome.code, outcome.message, ref))
            committing.finish()
            return
        committing.outcome = outcome
        self.rooms.store.append_then(room.record.id, entry, committing)

    async def recover(
        self, room: Room, connection: Connection, ref: int | None, message: str
    ) -> None:
        """After an entry failed (the room's lock held): reload the room, and tell the
        client nothing was changed."""
        await self.reload(room)
        connection.send(error_frame(Code.INTERNAL, message, ref))

    async def chat(self, room: Room, connection: Connection, message: protocol.Chat) -> None:
        text = message.text.strip()
        if not text:
            raise Refused(Code.MALFORMED, "the chat line is empty")
        if len(text) > MAX_CHAT:
            raise Refused(Code.TOO_LARGE, f"a chat line is at most {MAX_CHAT} characters")
        data: dict[str, Any] = {"from": connection.seat, "to": message.to, "at": time.time()}
        master = room.table.master
        dice = room.record.dice or None
        try:
            # The rule system's own commands run its Lore rules: on the engine's side.
            async with room.lock:
                roll = await self.rooms.in_engine(
                    lambda: chat_line_roll(
                        text, session=master.session, seat=connection.seat, game=dice
                    )
                )
        except RollError as error:
            raise Refused(Code.BAD_ROLL, str(error)) from None
        if roll is None:
            data["text"] = text
            await self.commit(room, connection, "chat", data, message.ref)
            return
        result = roll.result
        data.update(text=result.text, roll=result.to_json(), secret=message.secret or result.secret)
        if roll.comment:
            data["comment"] = roll.comment
        await self.commit(room, connection, "roll", data, message.ref)

    async def preview(self, room: Room, connection: Connection, message: protocol.Preview) -> None:
        master = room.table.master
        async with room.lock:
            query = master.question(message.id)
            if query is None or (connection.seat != GM and query.to != connection.seat):
                raise Refused(Code.UNKNOWN_QUESTION, f"no open question of yours is '{message.id}'")
            found = await self.rooms.in_engine(lambda: master.route(query, message.goal))
        frame: dict[str, Any] = {"type": "route", "ref": message.ref, "id": message.id}
        frame["goal"] = message.goal
        if found is not None:
            frame.update(area=found[0], path=found[1], distance=found[2])
        connection.send(encode(frame))

    async def command(self, room: Room, connection: Connection, message: Any) -> None:
        """The GM's commands."""
        if isinstance(message, protocol.Pause | protocol.Resume):
            kind = "pause" if isinstance(message, protocol.Pause) else "resume"
            await self.commit(room, connection, kind, {"from": GM}, message.ref)
        elif isinstance(message, protocol.End):
            await self.commit(room, connection, "end", {"from": GM}, message.ref)
        elif isinstance(message, protocol.Assign):
            data = {"from": GM, "actor": message.actor, "seat": message.seat}
            await self.commit(room, connection, "assign", data, message.ref)
        elif isinstance(message, protocol.Rule):
            ruled: dict[str, Any] = {"from": GM, "object": message.object}
            ruled.update(member=message.member, value=message.value, secret=message.secret)
            await self.commit(room, connection, "ruling", ruled, message.ref)
        elif isinstance(message, protocol.TakeBack):
            await self.commit(room, connection, "take_back", {"from": GM}, message.ref)
        elif isinstance(message, protocol.EndScene):
            scene = {"from": GM, "scene": message.scene, "outcome": message.outcome}
            await self.commit(room, connection, "scene", scene, message.ref)
        elif isinstance(message, protocol.Arrive):
            arrival: dict[str, Any] = {"from": GM, "arrival": message.arrival}
            arrival.update(kind=message.kind, secret=message.secret)
            await self.commit(room, connection, "arrival", arrival, message.ref)
        elif isinstance(message, protocol.Check):
            await self.gm_check(room, connection, message)
        elif isinstance(message, protocol.RuleRolls):
            setting = {"from": GM, "every": message.every}
            await self.commit(room, connection, "rule_rolls", setting, message.ref)
        elif isinstance(message, protocol.AddSeat):
            label = message.label.strip()
            if not label:
                raise Refused(Code.BAD_COMMAND, "a new seat needs a name (its player's)")
            if len(room.seats) >= MAX_SEATS:  # (each seat's changes go to every seat)
                raise Refused(Code.BAD_COMMAND, f"a session has at most {MAX_SEATS} seats")
            seat_id = self.rooms.seat_id(room)
            data = {"from": GM, "seat": seat_id, "label": label}
            index = await self.commit(room, connection, "seat", data, message.ref)
            if index:
                await self.rooms.add_seat(room, seat_id, label, index)
                self.send_links(room)
        elif isinstance(message, protocol.RemoveSeat):
            data = {"from": GM, "seat": message.seat}
            if await self.commit(room, connection, "unseat", data, message.ref):
                await self.rooms.remove_seat(room, message.seat)
                for gone in list(room.connections.get(message.seat, ())):
                    gone.send(error_frame(Code.BAD_TOKEN, "the GM removed this seat"))
                    gone.close(CLOSE_REVOKED)
                self.send_links(room)
        elif isinstance(message, protocol.Revoke | protocol.NewLink):
            await self.relink(room, message)
            connection.send(encode({"type": "ack", "ref": message.ref}))

    async def gm_check(self, room: Room, connection: Connection, message: protocol.Check) -> None:
        """The GM's improvised check: rolled by the rules' handler on the engine's side,
        then its card kept in the log (a replay shows it again without rolling)."""
        session = room.table.master.session
        call = (message.check, message.actor, message.ability, message.modifier, message.target)
        try:
            async with room.lock:
                card = await self.rooms.in_engine(
                    lambda: improvised_check(session, *call, system(), message.secret)
                )
        except CheckError as error:
            raise Refused(Code.BAD_RULING, str(error)) from None
        except RuleError as error:
            raise Refused(Code.BAD_RULING, f"{error.message} ({error.location()})") from None
        await self.commit(room, connection, "check", {"from": GM, "card": card}, message.ref)

    async def relink(self, room: Room, message: protocol.Revoke | protocol.NewLink) -> None:
        if message.seat not in room.seats:
            raise Refused(Code.BAD_COMMAND, f"there is no seat '{message.seat}'")
        if message.seat == GM and isinstance(message, protocol.Revoke):
            raise Refused(Code.BAD_COMMAND, "the GM's own link is not revoked; make a new one")
        token = new_token() if isinstance(message, protocol.NewLink) else None
        await self.rooms.set_token(room, message.seat, token)
        for connection in list(room.connections.get(message.seat, ())):
            if message.seat != GM:
                connection.send(error_frame(Code.BAD_TOKEN, "the GM revoked this link"))
                connection.close(CLOSE_REVOKED)
        self.send_links(room)

    def send_links(self, room: Room) -> None:
        frame = self.links(room)
        for connection in room.connections.get(GM, ()):
            connection.send(frame)

    # ------------------------------------------------------------ the log

    async def commit(
        self, room: Room, connection: Connection, kind: str, data: dict[str, Any], ref: int | None
    ) -> int:
        """Apply, store, acknowledge and deliver an entry; its index (0: refused, and the
        client told why)."""
        lock = room.lock
        if not lock.take():  # (``async with room.lock`` written out: every entry takes it)
            await lock.wait()
        try:
            room = self.rooms.by_id[room.record.id]  # (a reload may have replaced it)
            table = room.table
            entry = LogEntry(table.applied + 1, kind, data)
            try:
                if room.slow:
                    outcome = await self.rooms.in_engine(lambda: table.apply(entry))
                else:  # (without a coroutine more: most entries)
                    outcome = self.rooms.quick(room, table.apply, entry)
            except Exception:
                log.exception("session %s: entry %s failed; reloading it", room.id, entry.index)
                await self.reload(room)
                raise Refused(Code.INTERNAL, FAILED) from None
            if isinstance(outcome, Refusal):
                raise Refused(outcome.code, outcome.message)
            try:
                await self.rooms.store.append(room.record.id, entry)
            except StoreError:
                log.exception("session %s: entry %s not stored; reloading", room.id, entry.index)
                await self.reload(room)
                raise Refused(Code.INTERNAL, NOT_STORED) from None
            if room.record.status == OPEN and room.over:  # (the GM's end, or the rules')
                await self.rooms.mark_ended(room)  # (kept so before anyone is told)
            room.deliver(outcome, connection, acknowledgement(entry.index, ref))
            if table.clock:
                room.tell_time(table.take_clock())
            if room.storing is not None or table.applied >= room.due_at:  # (``Rooms.due``)
                await self.rooms.snapshot_due(room)
            return entry.index
        except Refused as refused:
            connection.send(error_frame(refused.code, refused.message, ref))
            return 0
        finally:
            lock.release()

    async def reload(self, room: Room) -> None:
        """Build a room again from the store (after a failure left it unsure), and give
        each of its clients a fresh snapshot (a node that no longer holds the session
        sends them to the node that does)."""
        nodes = self.rooms.nodes
        if nodes is not None and not await nodes.holds(room.id):
            await depose(self.rooms, room)
            return
        restored = await self.rooms.restore(room.record)
        for seat, connections in restored.connections.items():
            for connection in connections:
                connection.send(restored.table.snapshot(seat))


class Committing:
    """An answer's entry being committed (``Hub.commit_now``), the room's lock held: a
    ``Waiter`` of the store, which gives it the entry's outcome on the event loop. Once
    the entry is durable, the updates are sent (the client's with its acknowledgement);
    then, or once work that must wait is done (a snapshot due, a reload after a
    failure: in a task of its own), the lock is released and the connection's next
    message may go on."""

    __slots__ = ("connection", "entry", "hub", "loop", "outcome", "ref", "room", "waiting")

    def __init__(
        self,
        hub: Hub,
        room: Room,
        connection: Connection,
        entry: LogEntry,
        ref: int | None,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.hub = hub
        self.room = room
        self.connection = connection
        self.entry = entry
        self.ref = ref
        self.outcome: dict[str, bytes] = {}
        self.loop = loop
        self.waiting: asyncio.Future[None] | None = None  # the connection's next message

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return self.loop

    def done(self) -> bool:
        return False

    def set_result(self, _: None) -> None:
        """The entry is durable: acknowledge and deliver it (as ``Hub.commit`` does)."""
        room = self.room
        if room.table.master.session.ended is not None and room.record.status == OPEN:
            self.later(self.ended())  # (the answer ended the session)
            return
        try:
            room.deliver(self.outcome, self.connection, acknowledgement(self.entry.index, self.ref))
            table = room.table
            if table.clock:
                room.tell_time(table.take_clock())
            if room.storing is not None or table.applied >= room.due_at:  # (``Rooms.due``)
                later = self.hub.rooms.due_now(room)
                if later is not None:  # (a snapshot: every few hundred entries)
                    self.later(later)
                    return
        except Exception:  # (the store's other waiters are settled all the same)
            log.exception("session %s: entry %s was not delivered", room.id, self.entry.index)
            self.connection.close(CLOSE_ERROR)
        self.finish()

    async def ended(self) -> None:
        """The answer ended the session by its rules: the store keeps it ended, then the
        entry is delivered (and a snapshot or records stored if due)."""
        room = self.room
        await self.hub.rooms.mark_ended(room)
        room.deliver(self.outcome, self.connection, acknowledgement(self.entry.index, self.ref))
        table = room.table
        if table.clock:
            room.tell_time(table.take_clock())
        await self.hub.rooms.snapshot_due(room)

    def set_exception(self, exception: BaseException) -> None:
        """The entry could not be stored: reload the room, and tell the client."""
        room = self.room
        log.error(
            "session %s: entry %s not stored; reloading",
            room.id,
            self.entry.index,
            exc_info=exception,
        )
        self.later(self.hub.recover(room, self.connection, self.ref, NOT_STORED))

    def later(self, work: Coroutine[Any, Any, None]) -> None:
        """Finish once ``work`` is done, in a task of its own (the lock held meanwhile)."""
        task = self.loop.create_task(self.finish_after(work))
        self.hub.finishing.add(task)
        task.add_done_callback(self.hub.finishing.discard)

    async def finish_after(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except Exception:
            log.exception("session %s: entry %s failed", self.room.id, self.entry.index)
            self.connection.close(CLOSE_ERROR)
        finally:
            self.finish()

    def finish(self) -> None:
        """Release the room's lock; the connection's next message may go on."""
        self.room.lock.release()
        connection = self.connection
        if connection.committing is self:
            connection.committing = None
        waiting = self.waiting
        if waiting is not None:
            self.waiting = None
            if not waiting.done():
                waiting.set_result(None)

    def settled(self) -> asyncio.Future[None]:
        """Done once this is finished (for the connection's next message)."""
        waiting = self.waiting
        if waiting is None:
            waiting = self.waiting = self.loop.create_future()
        return waiting


def acknowledgement(index: int, ref: int | None) -> bytes:
    """What an update carries to the client whose entry made it: ``"ack"``, the entry's
    index, and the ``ref`` of its message (the bytes to put before the update's closing
    brace)."""
    tail = f',"ack":{index}' if ref is None else f',"ack":{index},"ref":{ref}'
    return tail.encode()


def protocol_close(code: Code) -> int:
    return 1009 if code is Code.TOO_LARGE else 1008
