"""The session master: the one place where a session's engine runs.

Everything the server asks of the engine goes through this module: starting a session
(also from a save), giving it an answer that came later, moving an actor to another seat,
the views of each participant, the open questions, route previews and the save. Clients
only render what the master's views hold and send answers.

A session is restored from its latest snapshot (``Session.snapshot``), then the entries
of its log after it; or, without a snapshot, by replaying the whole log: the engine is
deterministic (same files, seed and answers give the same session), so either way the
master is the same session, down to its dice. The transcript records made before the
snapshot are kept by the store, not here (``before`` counts them), and so are the
answers: the session keeps none (``Session.keep_answers`` off), the log has them all
(``lore.server.saving`` reads them from it for a save).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from operator import call, itemgetter
from pathlib import Path
from typing import Any

from lore.engine.arrivals import bring_in
from lore.engine.participants import PENDING, Participants, Pending, Replaying, ReplayLog
from lore.engine.queries import Query
from lore.engine.randomness import Stream
from lore.engine.rulings import RulingError, end_scene, take_back
from lore.engine.saves import Answer, SaveData, Stored, save_text
from lore.engine.seat_labels import actor_name
from lore.engine.session import Limits, Session
from lore.engine.snapshot import describe_queue
from lore.engine.table_view import table_key
from lore.engine.tokens import token_key, token_objects
from lore.engine.transcript import Record, Transcript
from lore.engine.views import GM, all_areas, hidden_keys, placed_objects, view
from lore.engine.world_natives import route_between, terrain_costs
from lore.engine.zones import zones_key
from lore.runtime.compiler import CompiledProgram
from lore.runtime.errors import RuleError
from lore.runtime.values import LoreObject, TypedString
from lore.world.model import AreaNode

WAITING = "waiting"
# The members of the placed objects and areas that the engine's view reads.
VIEW_MEMBERS = (
    "location",
    "player",
    "knownSecrets",
    "secrets",
    "name",
    "description",
    "environment",
)


def _nothing(values: dict[str, Any]) -> tuple[()]:
    return ()


class Later:
    """A participant at a client: asked now, answers whenever (``Master.answer``)."""

    # (No instance dict: what the engine reads of it per question and message, the
    # class's flags below, is found with no look-up in one.)
    __slots__ = ()
    draws = False  # (no stream is made for its questions: see ``Participant``)
    listens = False  # (its ``tell`` is not called: see ``Participant``)
    answers_later = True  # (its ``ask`` is not called: see ``Participant``)

    def ask(self, query: Query, stream: Stream) -> dict[str, Any] | Pending | None:
        return PENDING

    def rejected(self, query: Query, answer: dict[str, Any], reason: str) -> bool:
        return False

    def tell(self, record: dict[str, Any]) -> None:
        pass  # the master reads what was told from the transcript


@dataclass(frozen=True, slots=True)
class ActorInfo:
    label: str
    name: str
    participant: str


class Master:
    """One session's engine, driven from outside."""

    def __init__(
        self,
        program: CompiledProgram,
        seed: int,
        stored: Stored | None = None,
        limits: Limits | None = None,
        *,
        resumable: bool = True,
    ) -> None:
        self.program = program
        self.seed = seed
        self.transcript = Transcript()
        log = ReplayLog(stored.answers, "the save") if stored and stored.answers else None

        def participant(who: str) -> Later | Replaying:
            return Replaying(log, who, Later()) if log is not None else Later()

        self.session = Session(
            program,
            seed,
            Participants(default=participant),
            limits,
            self.transcript,
            resumable=resumable,
            keep_answers=False,  # the store's log has them (``Master.save`` is given them)
        )
        self.placed: list[LoreObject] | None = None
        self.placed_made: tuple[int, int] = (0, 0)  # (``view_key``) the made objects seen
        self.token_objects: list[LoreObject] = []  # (``view_key``) those with token members
        # (``view_key``) the placed objects' members, a getter of each, their sizes, and
        # how many times the getters were made
        self.view_dicts: list[dict[str, Any]] = []
        self.view_reads: list[Callable[[dict[str, Any]], Any]] = []
        self.view_sizes: tuple[int, ...] = ()
        self.view_made = 0
        self.by_label: tuple[Any, dict[str, LoreObject]] = ((), {})  # (allPC, its actors)
        self.before = 0  # transcript records made before the snapshot restored (not kept)
        self.before_shown = 0  # of them, those that are not the end

    @classmethod
    def restore(
        cls,
        program: CompiledProgram,
        data: bytes,
        ended: tuple[str, str] | None,
        before: tuple[int, int],
        limits: Limits | None = None,
    ) -> Master:
        """The master of a session snapshot (``snapshot``): ``ended`` is how its run
        ended (reason and detail), ``before`` how many transcript records (and of them,
        not the end) were made before it. SnapshotError when the snapshot does not fit
        the program."""
        master = cls.__new__(cls)
        master.program = program
        master.transcript = Transcript()
        master.session = Session.restore(
            program,
            data,
            participants=Participants(default=lambda who: Later()),
            transcript=master.transcript,
            limits=limits,
            resumable=True,
            keep_answers=False,
        )
        master.seed = master.session.seed
        if ended is not None:
            master.session.ended, master.session.detail = ended
        master.placed = None
        master.view_dicts, master.view_reads = [], []
        master.view_sizes, master.view_made = (), 0
        master.by_label = ((), {})
        master.before, master.before_shown = before
        return master

    def snapshot(self) -> bytes:
        """The engine's snapshot of the session (between entries)."""
        return self.session.snapshot()

    def trim(self, count: int) -> None:
        """Forget the first ``count`` transcript records kept here (the store has them)."""
        dropped = self.transcript.records[:count]
        del self.transcript.records[:count]
        self.before += len(dropped)
        self.before_shown += sum(1 for r in dropped if r["kind"] != "end")

    # ------------------------------------------------------------ running

    def start(self) -> None:
        self.session.run()

    @property
    def ended(self) -> str | None:
        return self.session.ended

    @property
    def tick(self) -> int:
        return self.session.ticks

    @property
    def made(self) -> int:
        """How many transcript records the session has made."""
        return self.before + len(self.transcript.records)

    @property
    def shown(self) -> int:
        """How many of them are not the end (what a save counts)."""
        return self.before_shown + sum(1 for r in self.transcript.records if r["kind"] != "end")

    def records(self, start: int) -> list[Record]:
        """The transcript records from number ``start`` on (at least ``before``)."""
        return self.transcript.records[max(0, start - self.before) :]

    def open_questions(self) -> list[Query]:
        found = []
        for _, query, _ in self.session.open.values():  # (no comprehension's function)
            if isinstance(query, Query):
                found.append(query)
        return found

    def asking(self) -> dict[str, tuple[Any, Any, Any]]:
        """The session's open requests by id, questions (``Query``, by their ids) and
        others, in the order they were made: to be read, not changed, and read anew
        after the session ran (it makes another)."""
        return self.session.open

    def question(self, query_id: str) -> Query | None:
        found = self.session.open.get(query_id)
        return found[1] if found is not None and isinstance(found[1], Query) else None

    def answer(self, query_id: str, values: dict[str, Any]) -> str | None:
        """Give an open question its answer and run on; the reason when it does not fit
        (then nothing changed)."""
        problem = self.session.answer(query_id, values)
        if problem is None:
            self.session.run()
        return problem

    def back(self, query_id: str, seat: str) -> str | None:
        """Go back at an open question of ``seat`` (the GM may for any seat): the answer
        before it is taken back and run on; the reason when it cannot be (then nothing
        changed)."""
        problem = self.session.back(query_id, seat=None if seat == GM else seat)
        if problem is None:
            self.session.run()
        return problem

    def assign(self, actor_label: str, participant: str) -> str | None:
        """Give an actor to another participant (``GM`` takes it back); the reason when
        there is no such actor. The actor's questions already open follow it."""
        actor = self.actor(actor_label)
        if actor is None:
            return f"there is no actor '{actor_label}'"
        self.session.settle()  # a step kept waiting runs again, with the new player
        actor.values["player"] = TypedString("jid", participant)  # "GM": the GM's seat
        session = self.session
        for query_id, (key, query, spec) in list(session.open.items()):
            if query.actor == actor_label:
                session.open[query_id] = (key, replace(query, to=participant), spec)
        return None

    def rule(self, data: dict[str, Any]) -> str | None:
        """A GM's ruling (``lore.engine.rulings``): a member of an object set over the
        rules; the reason when it cannot be (then nothing changed). What it set off
        (the hooks on an alter it went through, a trigger) runs now, after a step that
        waits for answers."""
        try:
            self.session.rule_value(data["object"], data["member"], data["value"], data["secret"])
        except RulingError as error:
            return str(error)
        self.session.run()
        return None

    def take_back(self) -> str | None:
        """The GM takes back the last ruling (``lore.engine.rulings.take_back``); the
        reason when it cannot be (then nothing changed)."""
        try:
            take_back(self.session)
        except RulingError as error:
            return str(error)
        return None

    def bring_in(self, arrival: str, kind: str, secret: bool) -> str | None:
        """The GM brings an actor in by ruling (``lore.engine.arrivals``): the rules'
        handler makes it, in a step run now (after a step that waits for answers); the
        reason when it cannot be (then nothing changed)."""
        try:
            bring_in(self.session, arrival, kind, secret)
        except RulingError as error:
            return str(error)
        self.session.run()
        return None

    def end_scene(self, scene: str, outcome: str) -> str | None:
        """The GM ends a scene by ruling (``lore.engine.rulings.end_scene``); the reason
        when it cannot be (then nothing changed)."""
        try:
            end_scene(self.session, scene, outcome)
        except RulingError as error:
            return str(error)
        return None

    # ------------------------------------------------------------ reading

    def actor(self, label: str) -> LoreObject | None:
        """The actor labelled ``label`` (by a table of the actors, made again when
        ``system.allPC`` is another list: actors were made or removed)."""
        system = self.session.rt.system
        found = system.values.get("allPC", ()) if system is not None else ()
        if self.by_label[0] is not found:
            table = {a.label: a for a in found if isinstance(a, LoreObject) and a.label}
            self.by_label = (found, table)
        return self.by_label[1].get(label)

    def actor_objects(self) -> tuple[LoreObject, ...]:
        system = self.session.rt.system
        found = system.values.get("allPC", ()) if system is not None else ()
        return tuple(a for a in found if isinstance(a, LoreObject))

    def actors(self) -> list[ActorInfo]:
        found = []
        for actor in self.actor_objects():
            player = actor.values.get("player")
            found.append(
                ActorInfo(
                    actor.label or f"#{actor.oid}",
                    actor_name(actor),
                    str(player) if player is not None and str(player) else GM,
                )
            )
        return found

    def view(self, participant: str) -> dict[str, Any]:
        """What ``participant`` may know now, without messages (the engine's view)."""
        return view(self.session, participant, messages=False)

    def view_key(self) -> tuple[Any, ...]:
        """What the views are made of: the members the engine's view reads, of every
        placed object and area (the program's values and the objects rules made; areas
        and their maps do not move). While it stays the same, so do the views, but for
        the time."""
        made = self.session.made  # (a new list when objects leave it, longer when made)
        if self.placed is None or self.placed_made != (id(made), len(made)):
            self.placed_made = (id(made), len(made))
            self.view_sizes = ()  # (the getters are made again, and so the views)
            self.placed = [
                *placed_objects(self.session),
                *(node.obj for node in self.areas()),
            ]
            self.view_dicts = [obj.values for obj in self.placed]
            self.token_objects = token_objects(self.session, self.placed)
        dicts = self.view_dicts
        # Each object's members are read by one ``itemgetter`` of those it has (a call
        # per object, not one per member). A member added or removed changes the
        # object's size, or makes its getter fail: the getters are made again, and the
        # key is another (its first item counts the getters made), so the views are
        # made again.
        sizes = tuple(map(len, dicts))
        if sizes != self.view_sizes:
            self.view_getters(sizes)
        try:
            values = tuple(map(call, self.view_reads, dicts))
        except KeyError:
            self.view_getters(sizes)
            values = tuple(map(call, self.view_reads, dicts))
        tokens: tuple[Any, ...] = ()
        if self.token_objects:  # (the rules' map tokens: their sides and states)
            session = self.session
            tokens = tuple(token_key(session, o) for o in self.token_objects)
        return (self.view_made, values, zones_key(self.session), tokens)

    def table_key(self) -> tuple[Any, ...]:
        """What the seats' tables are made of (``engine.table_view.table_key``)."""
        return table_key(self.session)

    def view_getters(self, sizes: tuple[int, ...]) -> None:
        """A getter per placed object of the view's members it has now (``view_key``)."""
        getters: list[Callable[[dict[str, Any]], Any]] = []
        for values in self.view_dicts:
            names = [name for name in VIEW_MEMBERS if name in values]
            getters.append(itemgetter(*names) if names else _nothing)
        self.view_reads = getters
        self.view_sizes = sizes
        self.view_made += 1

    def hidden(self) -> dict[str, dict[str, list[str]]]:
        """For the GM: the objects hidden by secrets, by id, with the keys hiding them and
        the players' actors that know them all (and so see the object)."""
        found: dict[str, dict[str, list[str]]] = {}
        players = [a for a in self.actor_objects() if str(a.values.get("player") or GM) != GM]
        for obj in placed_objects(self.session):
            keys = hidden_keys(obj)
            if not keys:
                continue
            seen = [
                actor.label or f"#{actor.oid}"
                for actor in players
                if all(
                    key in {str(k) for k in actor.values.get("knownSecrets") or ()} for key in keys
                )
            ]
            found[obj.label or f"#{obj.oid}"] = {"keys": keys, "seenBy": seen}
        return found

    def area(self, path: str) -> AreaNode | None:
        world = self.session.world
        if world is None:
            return None
        return next((node for node in all_areas(world.root) if node.path == path), None)

    def areas(self) -> list[AreaNode]:
        world = self.session.world
        return all_areas(world.root) if world is not None else []

    def route(self, query: Query, goal: str) -> tuple[str, list[str], float] | None:
        """The route a location question's answer ``goal`` would take: the area's path,
        the places and the length in metres (None when there is none to show)."""
        item = next((i for i in query.inputs if i.type.name == "loc" and i.choices), None)
        world = self.session.world
        if item is None or world is None or goal not in (item.choices or ()):
            return None
        try:
            target = world.resolve(goal)
        except RuleError:
            return None
        start = self.start_of(query.to, target.area)
        if target.coordinate is None:
            return None
        try:
            found = route_between(target.area, start, target.coordinate, terrain_costs(target.area))
        except RuleError:
            return None
        if found is None:
            return None
        return target.area.path, found[1], found[0]

    def start_of(self, participant: str, area: AreaNode) -> str | None:
        """Where the participant's first actor in ``area`` stands (where a route starts)."""
        world = self.session.world
        for actor in self.actor_objects():
            owner = actor.values.get("player")
            owner_id = str(owner) if owner is not None and str(owner) else GM
            if owner_id != participant or world is None:
                continue
            try:
                place = world.resolve(actor.values.get("location"))
            except RuleError:
                continue
            if place.area is area:
                return place.coordinate
        return None

    def save(self, entry: Path, target: Path, title: str, answers: list[Answer]) -> str:
        """The session as a Lore save (the format ``lore run --save`` writes) of the
        scenario ``entry``, to be written at ``target``; ``answers`` are every answer
        given since the session's start, in order (the session keeps none)."""
        session = self.session
        shown = self.shown
        changed = [(obj.label, members) for obj, members in session.changed() if obj.label]
        data = SaveData(
            scenario=[entry],
            seed=self.seed,
            ticks=session.ticks,
            answers=answers,
            files=self.program.files(),
            snapshot=session.snapshot(),
            records=shown,
            shown=shown,
            title=title,
            changed=changed,
            schedule=describe_queue(session),
        )
        return save_text(data, target)


def participants_of(actors: Iterable[ActorInfo]) -> list[str]:
    """The players of the actors, in order, once each (the GM aside)."""
    found: list[str] = []
    for actor in actors:
        if actor.participant != GM and actor.participant not in found:
            found.append(actor.participant)
    return found
