"""Views never leak hidden objects (hypothesis over random bot sessions).

Bots play every participant of the project's examples that have secrets (and the Lore
paper's scenario), with random seeds, for a random number of steps. At every step
boundary, for every participant:

- no object hidden from all of the participant's actors is in the participant's view, and
  the view's JSON does not even mention the object's id;
- the GM's view holds every placed object.

Hiddenness is worked out here from the objects' ``secrets`` and the actors'
``knownSecrets``, not with the helpers of ``lore.engine.views``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore.engine.participants import Bot, Participant, Participants
from lore.engine.session import Session
from lore.engine.views import view
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.runtime.values import EnumValue, LoreObject
from lore.semantics.check import check_paths
from tests.conformance.locate import shared_dir

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def scenarios() -> list[Path]:
    """Every example of the project's own with a hide secret."""
    found = sorted(
        path
        for path in EXAMPLES.rglob("*.lore")
        if "Secret.Mode.hide" in path.read_text(encoding="utf-8")
    )
    assert EXAMPLES / "expedition" / "scenario.lore" in found
    return found


SCENARIOS = scenarios()


def paper_scenario() -> Path:
    """The paper's scenario (conformance data: looked up when the test runs)."""
    return shared_dir("conformance", "paper", "corrected") / "scenario.lore"


@cache
def program(path: Path) -> CompiledProgram:
    result = check_paths([path])
    assert result.ok, [d.message for d in result.diagnostics]
    return compile_program(result)


def objects(session: Session) -> list[LoreObject]:
    return [value for value in session.rt.g if isinstance(value, LoreObject)]


def forms_of(obj: LoreObject) -> set[str]:
    names = set()
    form = obj.form
    while form is not None:
        names.add(form.name)
        form = form.parent
    return names


def placed(session: Session) -> list[LoreObject]:
    """Objects that stand somewhere: everything with a location but areas and triggers."""
    return [
        obj
        for obj in objects(session)
        if "location" in obj.values and not forms_of(obj) & {"Area", "Trigger"}
    ]


def players(session: Session) -> dict[str, list[LoreObject]]:
    """Each participant (a player's id) and its actors."""
    found: dict[str, list[LoreObject]] = {}
    for obj in objects(session):
        player = obj.values.get("player")
        if "Actor" in forms_of(obj) and player is not None and str(player):
            found.setdefault(str(player), []).append(obj)
    return found


def hide_keys(obj: LoreObject) -> set[str]:
    keys = set()
    for secret in obj.values.get("secrets") or ():
        mode = secret.values.get("mode") if isinstance(secret, LoreObject) else None
        if isinstance(mode, EnumValue) and mode.name == "hide":
            keys.add(str(secret.values["key"]))
    return keys


def hidden_from_all(obj: LoreObject, actors: list[LoreObject]) -> bool:
    """Hidden from the player of ``actors``: a key of its hide secrets is known to none."""
    known = {str(k) for actor in actors for k in actor.values.get("knownSecrets") or ()}
    return not hide_keys(obj) <= known


def ids(found: dict[str, Any]) -> set[str]:
    return {str(item["id"]) for item in found["actors"] + found["objects"]}


def check_views(session: Session, revealed: set[str]) -> None:
    everyone = players(session)
    gm = view(session, "GM")
    missing = {obj.label for obj in placed(session)} - ids(gm)
    assert not missing, f"the GM's view lacks {missing}"
    for participant, actors in [*everyone.items(), ("nobody@example.org", [])]:
        seen = view(session, participant)
        text = json.dumps(seen, ensure_ascii=False)
        for obj in placed(session):
            assert obj.label is not None
            if hidden_from_all(obj, actors):
                assert obj.label not in ids(seen), f"{participant} sees {obj.label}"
                assert obj.label not in text, f"{participant}'s view mentions {obj.label}"
            elif hide_keys(obj) and obj.label in ids(seen):
                revealed.add(obj.label)


REVEALED: dict[Path, set[str]] = {}


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    index=st.integers(0, len(SCENARIOS)),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 200),
)
def test_views_hide_what_is_hidden(index: int, seed: int, steps: int) -> None:
    path = SCENARIOS[index] if index < len(SCENARIOS) else paper_scenario()
    bots: dict[str, Participant] = {}

    def bot(who: str) -> Participant:
        return bots.setdefault(who, Bot())

    session = Session(program(path), seed, Participants(default=bot))
    session.start()
    revealed = REVEALED.setdefault(path, set())
    check_views(session, revealed)
    for _ in range(steps):
        if not session.pending():
            break
        session.step()
        check_views(session, revealed)
    assert not [r for r in session.transcript.records if r["kind"] == "error"]


def test_the_property_sees_secrets_found() -> None:
    """Bots do find the hidden things, so the views were checked both ways."""
    session = Session(program(SCENARIOS[0]), 3, Participants(default=lambda who: Bot()))
    session.start()
    revealed: set[str] = set()
    for _ in range(400):
        if not session.pending():
            break
        session.step()
        check_views(session, revealed)
    assert revealed, "no hidden object was ever revealed to a bot"
