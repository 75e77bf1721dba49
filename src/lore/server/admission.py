"""Who may start sessions, and how much each client may ask of the server.

A server on a loopback address serves its own machine: anyone there starts sessions, as
before. A server that others can reach (any other address) starts sessions only for who
has its **host token** (``lore serve`` prints it, or takes ``--host-token``): the request
says it as ``authorization: Bearer TOKEN`` (the start page, opened at the link the server
prints, sends it). Each client (by its address) may then start so many sessions and
upload so many bytes an hour (a sliding window), and no session has more than so many
seats; past a quota a request is refused (429) saying when to come back.
"""

from __future__ import annotations

import hmac
import ipaddress
import time
from collections import deque
from dataclasses import dataclass, field

MAX_SEATS = 32  # seats of one session, the GM's among them (each seat costs every seat)
HOUR = 3600.0
# Request bodies being read at once, from one client address and from all: each may hold
# up to an upload's limit (8 MiB) until it is whole, so many slow ones held memory unbounded.
BODIES_PER_CLIENT = 2
BODIES_IN_ALL = 8


def is_loopback(host: str) -> bool:
    """Whether the address a server listens on reaches only its own machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class Usage:
    """What one client asked for in the last hour: when, and how many bytes."""

    starts: deque[float] = field(default_factory=deque)
    uploads: deque[tuple[float, int]] = field(default_factory=deque)

    def forget_before(self, moment: float) -> None:
        while self.starts and self.starts[0] < moment:
            self.starts.popleft()
        while self.uploads and self.uploads[0][0] < moment:
            self.uploads.popleft()


@dataclass
class Refusal:
    status: int  # 401: no or a wrong host token; 429: over a quota
    message: str


@dataclass
class Admission:
    """The server's rule for starting sessions (``token`` None: anyone, no quotas)."""

    token: str | None = None
    sessions_per_hour: int = 20
    upload_bytes_per_hour: int = 64 * 1024 * 1024
    clients: dict[str, Usage] = field(default_factory=dict)
    reading: dict[str, int] = field(default_factory=dict)  # bodies being read, by client

    def start_reading(self, client: str) -> Refusal | None:
        """Count a request body ``client`` starts sending (``done_reading`` when it is
        read), or say why it may not now (429 for this client, 503 for everyone's)."""
        if self.reading.get(client, 0) >= BODIES_PER_CLIENT:
            return Refusal(
                429,
                f"this address is already sending {BODIES_PER_CLIENT} requests: send one"
                " when another is done",
            )
        if sum(self.reading.values()) >= BODIES_IN_ALL:
            return Refusal(503, "the server is receiving too many uploads: try again soon")
        self.reading[client] = self.reading.get(client, 0) + 1
        return None

    def done_reading(self, client: str) -> None:
        left = self.reading.get(client, 0) - 1
        if left > 0:
            self.reading[client] = left
        else:
            self.reading.pop(client, None)

    def admit(self, authorization: str) -> Refusal | None:
        """Whether a request to start a session says the host token (None: it may)."""
        if self.token is None:
            return None
        scheme, _, given = authorization.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip(), self.token):
            return Refusal(
                401,
                "this server starts sessions only for who has its host token: open the"
                " start link its host was given",
            )
        return None

    def charge(self, client: str, upload: int, now: float | None = None) -> Refusal | None:
        """Count a session started by ``client`` (and the bytes it uploaded), or say
        which quota it is over (nothing counted then)."""
        if self.token is None:
            return None
        now = time.monotonic() if now is None else now
        usage = self.clients.setdefault(client, Usage())
        usage.forget_before(now - HOUR)
        if len(usage.starts) >= self.sessions_per_hour:
            wait = int(usage.starts[0] + HOUR - now) // 60 + 1
            return Refusal(
                429,
                f"this address started {self.sessions_per_hour} sessions in the last hour:"
                f" try again in {wait} minutes",
            )
        uploaded = sum(size for _, size in usage.uploads)
        if upload and uploaded + upload > self.upload_bytes_per_hour:
            return Refusal(
                429,
                f"this address uploaded {uploaded // 2**20} MiB in the last hour, at most"
                f" {self.upload_bytes_per_hour // 2**20} MiB: try again later",
            )
        usage.starts.append(now)
        if upload:
            usage.uploads.append((now, upload))
        if len(self.clients) > 10_000:  # (forget the clients quiet for an hour)
            for address in [a for a, u in self.clients.items() if not u.starts]:
                del self.clients[address]
        return None
