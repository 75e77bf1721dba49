"""How the commands print a session's links (``lore serve``, ``lore sessions``)."""

from __future__ import annotations

from collections.abc import Iterable

from lore.engine.views import GM
from lore.server.rooms import seat_link
from lore.server.store import SeatRecord


def print_links(base: str, seats: Iterable[SeatRecord]) -> None:
    """A session's GM link and its invites, one a line (``revoked`` for a link the GM
    revoked); ``base`` is the server's address."""
    for seat in seats:
        who = "GM link" if seat.seat == GM else f"invite for {seat.label}"
        link = "revoked" if seat.token is None else base + seat_link(seat.session, seat.token)
        print(f"  {who}: {link}", flush=True)
