"""A cluster under faults: three nodes on one PostgreSQL database, scripted sessions
played across them, and failures injected at random moments (also between an answer and
its acknowledgement): a node killed with SIGKILL (and started again), a node's database
connections ended by the database, the database restarted. Afterwards every session's
transcript equals the uninterrupted run's, and every answer is in its log once.

``LORE_CLUSTER_FAILURES`` and ``LORE_CLUSTER_SESSIONS`` make the run larger (the issue's
figures: 100 failures, 50 sessions); it prints how long sessions were away after each kind
of failure (the longest wait of a client for its next acknowledgement)."""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from lore.clients.seat import SeatClient, acknowledged
from lore.server.nodes import BEAT
from lore.server.store import ENDED
from tests.server.postgres import Server, postgres_server, postgres_url
from tests.server.serving import GONE, ServeProcess, create_session, links, reconnect
from tests.server.test_crash import as_run, decide, reference
from tests.server.test_crash_postgres import stored
from tests.server.test_nodes import node

__all__ = ["postgres_server", "postgres_url"]  # (fixtures this file uses)

FAILURES = int(os.environ.get("LORE_CLUSTER_FAILURES", "12"))
SESSIONS = int(os.environ.get("LORE_CLUSTER_SESSIONS", "4"))
KINDS = ("kill", "cut", "restart")


@dataclass
class Seated:
    number: int
    clients: list[SeatClient]
    gm_link: str
    done: bool = False


@dataclass
class Faults:
    """The failures left to make, and how long sessions were away after each kind."""

    left: int
    rng: random.Random
    made: dict[str, int] = field(default_factory=dict)
    away: dict[str, float] = field(default_factory=dict)
    last: str = ""
    since: float = 0.0


def test_three_nodes_under_faults_lose_nothing_acknowledged(
    tmp_path: Path, postgres_url: str, postgres_server: Server
) -> None:
    rng = random.Random(20261202)
    named = [f"{postgres_url}?application_name=lore-{name}" for name in "abc"]
    nodes = [node(url, tmp_path, name) for url, name in zip(named, "abc", strict=True)]
    try:
        for process in nodes:
            process.start()
        # (a beat, so that each node knows the others before the first clients come: a
        # node's welcome names the nodes it knows, and a client of a node that named only
        # itself has nowhere to go on when that node is killed)
        time.sleep(BEAT * 1.5)
        tables = []
        for number in range(SESSIONS):
            base = nodes[number % len(nodes)].base
            seats = links(create_session(base, "round"), base)
            players = [SeatClient(link, timeout=30) for seat, link in seats.items() if seat != "GM"]
            for client in players:
                reconnect(client)
            tables.append(Seated(number, players, seats["GM"]))
        faults = Faults(FAILURES, rng)
        while not all(t.done for t in tables):
            for table in tables:
                if not table.done:
                    play_one(table, nodes, faults, postgres_server)
        assert faults.left == 0, f"{faults.left} failures were not made: too few answers"
        for process in nodes:
            if process.process is None:
                process.start()
        print(f"\nfailures made: {faults.made}; longest away (s): {faults.away}")
        check_ended(tables, postgres_url, nodes[0])
    finally:
        for process in nodes:
            process.kill()


def play_one(table: Seated, nodes: list[ServeProcess], faults: Faults, db: Server) -> None:
    """Answer one open question of the table, making a failure at random right after
    sending it."""
    for client in table.clients:
        try:
            client.pump(0.002)
            for query_id in list(client.state.questions):
                values = decide(table.number, query_id)
                answer = {"type": "answer", "id": query_id, "values": values}
                ref = client.send({**answer, "seq": client.state.seq or 0})
                if faults.left and faults.rng.random() < 0.25:
                    time.sleep(faults.rng.random() * 0.02)  # before, during or after the commit
                    fail(nodes, faults, db)
                    return
                reply = client.wait_for(lambda f, ref=ref: f.get("ref") == ref)
                if acknowledged(reply) is not None and faults.last:
                    away = time.monotonic() - faults.since
                    kind = faults.last
                    faults.away[kind] = round(max(faults.away.get(kind, 0.0), away), 2)
                    faults.last = ""
                return
        except GONE:
            reconnect(client)
            return
    table.done = table.clients[0].state.status.get("ended") == "no-events"


def fail(nodes: list[ServeProcess], faults: Faults, db: Server) -> None:
    for process in nodes:  # (a node killed at the failure before is back now)
        if process.process is None:
            process.start()
    kind = faults.rng.choice(KINDS)
    faults.left -= 1
    faults.made[kind] = faults.made.get(kind, 0) + 1
    faults.last, faults.since = kind, time.monotonic()
    victim = faults.rng.randrange(len(nodes))
    if kind == "kill":
        nodes[victim].kill()  # SIGKILL: its clients go on at the other nodes
    elif kind == "cut":
        name = "lore-" + "abc"[victim]
        db.psql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            f" WHERE application_name = '{name}'"
        )
    else:
        db.restart()


def check_ended(tables: list[Seated], url: str, any_node: ServeProcess) -> None:
    assert stored(url, lambda store: store.sessions()) == []
    seeds = {r.id: r.seed for r in stored(url, lambda s: s.sessions(ENDED))}
    for table in tables:
        token = table.gm_link.split("#", 1)[1]
        found = stored(url, lambda s, token=token: s.holder(token))
        assert found is not None and found[0].status == ENDED
        session = found[0].id
        gm = SeatClient(f"{any_node.base}/play?session={session}#{token}", timeout=30)
        reconnect(gm)
        records = gm.request({"type": "log"})["records"]
        gm.close()
        expected = reference(seeds[session], table.number)
        assert json.dumps(as_run(records), ensure_ascii=False) == json.dumps(
            expected, ensure_ascii=False
        )
        log = stored(url, lambda s, at=session: s.log(at))
        assert [e.index for e in log] == list(range(1, len(log) + 1))
        assert sum(e.kind == "answer" for e in log) == 61
