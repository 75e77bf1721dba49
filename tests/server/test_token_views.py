"""The seats' views follow the map tokens (``lore.engine.tokens``) through the server."""

from __future__ import annotations

from pathlib import Path

from lore.engine.views import GM, view
from lore.runtime.compiler import compile_program
from lore.server.bundles import checked
from lore.server.master import Master

BUNDLE = Path(__file__).parent / "bundles" / "tokens"


def test_a_seats_view_is_made_again_when_a_token_changes() -> None:
    """A token's state comes from an accessor (of the HP here): the server's view key
    sees it change although no member the view reads did, so the seats' views follow."""
    master = Master(compile_program(checked(BUNDLE, "scenario.lore")), 1)
    master.start()
    key = master.view_key()
    assert master.view_key() == key
    actor = master.actor("tokens.aki")
    assert actor is not None
    actor.values["hp"] = 0
    downed = master.view_key()
    assert downed != key
    actors = view(master.session, GM, messages=False)["actors"]
    aki = next(a for a in actors if a["id"] == "tokens.aki")
    assert aki["state"] == "downed"
