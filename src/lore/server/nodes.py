"""Several servers (nodes) sharing one PostgreSQL database, each session owned by one.

``lore serve --db postgresql://... --node-url URL`` makes the server one node of a
cluster. It registers its URL in the database and says it is alive every
``BEAT`` seconds (``lore_nodes``). It owns a session while it holds the session's
advisory lock, on a connection of its own (``Nodes.connection``): a session is
*claimed* by the node a client of it reaches when no node holds it (restored there from
its latest snapshot and the log after it), and released when that node unloads it while
idle, drains (``SIGTERM``) or dies (its connection ends, and with it every lock it held).
Who owns a session is written beside it (``lore_owners``), so that a node a client
reaches tells it where to go: the ``elsewhere`` reply names the owner's URL and the
client reconnects there (frames are never forwarded between nodes).

A node that lost a session without knowing it (its lock connection was cut, and another
node claimed the session meanwhile) is fenced by the log's primary key: its next append
is refused, and it drops the session (``Hub.reload`` asks ``holds`` first). Answers never
touch this module's connection: claims, releases and beats are all it does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

# (A single server holds SERVING_LOCK alone; nodes hold it shared: the two kinds never
# serve one database at once.)
from lore.server.databases import SERVING_LOCK
from lore.server.store import StoreError

log = logging.getLogger("lore.server")

BEAT = 2.0  # seconds between a node's "I am alive"
LIVE = 10.0  # seconds since its last beat within which a node counts as alive


# A session's advisory lock key, a bigint hash of its id (the parameter).
KEY = "hashtextextended(%s, 0)"


class Nodes:
    """This server as one node of a cluster: the sessions it holds, on its connection."""

    def __init__(self, connection: Any, url: str, db_url: str) -> None:
        self.connection = connection
        self.url = url
        self.db_url = db_url
        self.held: set[str] = set()  # the sessions whose locks this node holds
        self.talking = asyncio.Lock()  # one statement at a time on the connection
        self.beating: asyncio.Task[None] | None = None
        self.draining = False
        self.lost: list[str] = []  # sessions whose locks went with a broken connection
        self.unsure: set[str] = set()  # held before the connection broke: claimed again
        self.known: list[str] = []  # the other nodes alive at the last beat (``peers``)

    @classmethod
    async def join(cls, db_url: str, url: str) -> Nodes:
        """Register as a node of the database's cluster (StoreError when it cannot be
        reached, or a single server holds it)."""
        import psycopg

        try:
            connection = await psycopg.AsyncConnection.connect(db_url, autocommit=True)
        except psycopg.Error as error:
            raise StoreError(f"cannot join the cluster: {_reason(error)}") from None
        nodes = cls(connection, url.rstrip("/"), db_url)
        cursor = await connection.execute("SELECT pg_try_advisory_lock_shared(%s)", (SERVING_LOCK,))
        row = await cursor.fetchone()
        if row is None or not row[0]:
            await connection.close()
            raise StoreError("a single lore serve (not a node) holds this database")
        await nodes._beat()
        nodes.known = await nodes.peers()
        nodes.beating = asyncio.create_task(nodes._beat_on())
        return nodes

    # ------------------------------------------------------------ sessions

    def owns(self, session: str) -> bool:
        return session in self.held

    async def claim(self, session: str) -> bool:
        """Take the session for this node, when no node holds it (whether it is ours)."""
        if session in self.held:
            return True
        if self.draining:
            return False
        self.unsure.discard(session)  # (claimed again, or lost now)
        taken = await self._run(
            (f"SELECT pg_try_advisory_lock({KEY})", (session,)),
            (
                "INSERT INTO lore_owners (session, node) VALUES (%s, %s)"
                " ON CONFLICT (session) DO UPDATE SET node = excluded.node",
                (session, self.url),
            ),
            first_decides=True,
        )
        if taken:
            self.held.add(session)
        return taken

    async def release(self, session: str) -> None:
        """Let another node claim the session (this one dropped it)."""
        if session not in self.held:
            return
        self.held.discard(session)
        with contextlib.suppress(StoreError):
            await self._run(
                ("DELETE FROM lore_owners WHERE session = %s AND node = %s", (session, self.url)),
                (f"SELECT pg_advisory_unlock({KEY})", (session,)),
            )

    async def holds(self, session: str) -> bool:
        """Whether this node still holds the session's lock (not after its connection
        broke and another node may have claimed the session)."""
        if session not in self.held:
            return False
        try:
            found = await self._fetch(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND pid = pg_backend_pid() AND objsubid = 1"
                f" AND ((classid::bigint << 32) | objid::bigint) = {KEY}",
                (session,),
            )
        except StoreError:
            return False
        return bool(found and found[0][0])

    async def owner(self, session: str) -> str | None:
        """The URL of the node that holds the session (None: none that is alive)."""
        found = await self._fetch(
            "SELECT o.node FROM lore_owners o JOIN lore_nodes n ON n.url = o.node"
            " WHERE o.session = %s AND n.beat > now() - make_interval(secs => %s)",
            (session, LIVE),
        )
        return found[0][0] if found else None

    async def peers(self) -> list[str]:
        """The URLs of the other nodes alive, the longest alive first."""
        found = await self._fetch(
            "SELECT url FROM lore_nodes WHERE url <> %s AND NOT draining"
            " AND beat > now() - make_interval(secs => %s) ORDER BY started, url",
            (self.url, LIVE),
        )
        return [row[0] for row in found]

    # ------------------------------------------------------------ the node

    async def drain(self) -> None:
        """Say this node is going: no node sends clients here, none is claimed."""
        self.draining = True
        with contextlib.suppress(StoreError):
            await self._fetch(
                "UPDATE lore_nodes SET draining = true WHERE url = %s RETURNING 1", (self.url,)
            )

    async def leave(self) -> None:
        """Release every session and unregister (the connection's end frees the locks)."""
        if self.beating is not None:
            self.beating.cancel()
        with contextlib.suppress(StoreError):
            await self._fetch("DELETE FROM lore_nodes WHERE url = %s RETURNING 1", (self.url,))
        self.held.clear()
        with contextlib.suppress(Exception):
            await self.connection.close()

    async def _beat(self) -> None:
        await self._fetch(
            "INSERT INTO lore_nodes (url, started, beat, draining) VALUES (%s, %s, now(), %s)"
            " ON CONFLICT (url) DO UPDATE SET beat = now(), draining = excluded.draining"
            " RETURNING 1",
            (self.url, time.time(), self.draining),
        )

    async def _beat_on(self) -> None:
        while True:
            await asyncio.sleep(BEAT)
            try:
                await self._beat()
                self.known = await self.peers()
                for session in sorted(self.unsure):  # (held before the connection broke)
                    self.unsure.discard(session)
                    if not await self.claim(session):
                        self.lost.append(session)
            except StoreError as error:
                log.warning("node %s: the database did not hear it: %s", self.url, error)

    async def _alive(self) -> Any:
        """The lock connection, connected again when it broke: the sessions it held are
        then unsure (another node may have claimed them meanwhile): the next beat claims
        each again, or gives it up (``lost``, which ``claiming`` deposes)."""
        import psycopg

        if not (self.connection.closed or self.connection.broken):
            return self.connection
        with contextlib.suppress(Exception):
            await self.connection.close()
        try:
            connection = await psycopg.AsyncConnection.connect(self.db_url, autocommit=True)
            await connection.execute("SELECT pg_try_advisory_lock_shared(%s)", (SERVING_LOCK,))
        except psycopg.Error as error:
            raise StoreError(f"cannot reach the cluster's database: {_reason(error)}") from None
        self.connection = connection
        self.unsure |= self.held
        self.held = set()
        return connection

    async def _fetch(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        import psycopg

        async with self.talking:
            try:
                cursor = await (await self._alive()).execute(query, params)
                return list(await cursor.fetchall())
            except psycopg.Error as error:
                raise StoreError(_reason(error)) from None

    async def _run(
        self, *statements: tuple[str, tuple[Any, ...]], first_decides: bool = False
    ) -> bool:
        """Statements one after the other, none of another between them; with
        ``first_decides``, the first's boolean answer says whether the rest run."""
        import psycopg

        async with self.talking:
            try:
                connection = await self._alive()
                for n, (query, params) in enumerate(statements):
                    cursor = await connection.execute(query, params)
                    if n == 0 and first_decides:
                        row = await cursor.fetchone()
                        if row is None or not row[0]:
                            return False
            except psycopg.Error as error:
                raise StoreError(_reason(error)) from None
        return True


def _reason(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
