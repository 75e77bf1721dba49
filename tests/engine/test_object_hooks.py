"""Hooks on objects made and removed (``system.onCreate``, ``system.remove``,
``system.onRemove``): when they run against the two phases, what goes with a step that
goes wrong or waits, and that snapshots and saves go on the same."""

from __future__ import annotations

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text
from tests.engine.test_rules_runtime import HEAD, go, said
from tests.engine.test_waiting import Later

HOOKS = (
    ' system.onCreate("Hero", @(x : any) { select (x) {'
    ' as (h : Hero) { GM.message("made " + h.name + " hp " + h.hp); } default {} } });'
    ' system.onRemove("Actor", @(x : any) { select (x) {'
    ' as (h : Hero) { GM.message("gone " + h.name + " of " + system.allPC.length); }'
    " default {} } });"
)


def session_of(body: str, seats: dict[str, object] | None = None) -> Session:
    result = check_text(HEAD + body + "}\n", "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics]
    given = dict(seats or {"GM": Scripted([])})
    return Session(compile_program(result), 3, Participants(given))  # type: ignore[arg-type]


def later(delay: int, handler: str) -> str:
    return f" at{delay} = {{ ticks = {delay}; priority = 0; handler = @{{ {handler} }}; }}:Event;\n"


def test_a_made_object_is_told_after_the_update_phase_of_its_step() -> None:
    session = session_of(
        go(HOOKS)
        + later(
            1,
            ' imp = { name = "Imp"; hp = 3; }:Hero; GM.message("making"); imp.hurt(1);'
            ' system.remove(orc); GM.message("still " + system.allPC.length);',
        )
    )
    session.run()
    # The hooks run in a step after the update phase: the alters of the step that made
    # the object have run (hp 2), and the removed actor has left allPC.
    assert said(session) == ["making", "still 3", "made Imp hp 2", "gone Orc of 2"]
    assert session.rt.system is not None
    assert [a.values["name"] for a in session.rt.system.values["allPC"]] == ["Aki", "Orc"]


def test_a_removed_actor_leaves_the_map() -> None:
    session = session_of(
        go("system.remove(orc);")
        + later(1, 'GM.message("" + system.actorsAt("/[2,0]":loc).length + " " + orc.name);')
    )
    session.run()
    assert said(session) == ["0 Orc"]


def test_what_a_step_that_goes_wrong_made_and_removed_is_not_told() -> None:
    session = session_of(
        go(HOOKS)
        + later(1, 'imp = { name = "Imp"; }:Hero; system.remove(orc); x = 1 / {0}.get(0);')
        + later(2, 'GM.message("" + system.allPC.length);')
    )
    session.run()
    assert said(session) == ["3"]
    assert [e.message for e in session.errors] == ["division by zero"]


def test_objects_made_before_the_subscription_or_by_other_forms_are_not_told() -> None:
    session = session_of(
        go(
            'a = { name = "A"; }:Hero; ' + HOOKS + ' b = { name = "B"; }:Hero;'
            " c = { ticks = 9; priority = 0; handler = @{}; }:Event;"
        )
    )
    session.run()
    assert said(session) == ["made B hp 10"]


def test_only_actors_and_items_are_removed_and_hooks_name_forms() -> None:
    session = session_of(
        go("system.remove(field);")
        + later(1, 'system.onCreate("Heroes", @(x : any) {});')
        + later(2, 'system.onCreate("Route", @(x : any) {}); GM.message("ok");')
    )
    session.run()
    assert [e.message for e in session.errors] == [
        "only actors and items are removed, not <Area t.field>",
        "there is no form named 'Heroes'",
    ]
    assert said(session) == ["ok"]


def test_hooks_go_on_the_same_after_a_snapshot_of_a_waiting_step() -> None:
    """A step that waits for an answer runs again when it comes: what it made and removed
    is told once, and a session restored from a snapshot while it waits tells the same."""
    body = go(HOOKS) + later(
        1,
        ' imp = { name = "Imp"; }:Hero; system.remove(orc);'
        ' n = GM.query("How many?", { n = integer.input(1,...,3); }).n;'
        ' for (i in (1,...,n)) { k = { name = "K" + i; hp = i; }:Hero; }',
    )

    def fresh() -> Session:
        return session_of(body, {"GM": Later()})

    session = fresh()
    assert session.run() == "waiting"
    restored = Session.restore(
        session.program, session.snapshot(), participants=Participants({"GM": Later()})
    )
    for each in (session, restored):
        (query,) = each.open_questions()
        assert each.answer(query.id, {"n": 2}) is None
        each.run()
    told = ["made Imp hp 10", "made K1 hp 1", "made K2 hp 2", "gone Orc of 2"]
    assert said(session) == told
    assert said(restored) == told
    assert restored.snapshot() == session.snapshot()
