"""The fast path (``single_steps.singles``, which runs the steps of one event of a session
that is not resumable in one loop) against the plain path (a resumable session runs every
step by itself, through ``Session.step``): on generated programs and seeds, the two give
the same transcript, errors, end and values.

The programs are made for the fast path: their steps are mostly of one event and tell
nothing until the last (a step that tells something ends a run of singles), and every
die rolled, every time and priority read, goes into the values compared."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Limits, Session
from lore.runtime.compiler import CompiledProgram, compile_program
from lore.semantics.check import check_text

PROGRAM = """
import "basic.lore":url;
section t {
 form Ticker {
  n : integer;
  trace : integer;
  alter count(v : list<integer>) {
   self.n := n + v.length; self.trace := (trace * 31 + v.sum) % 1000003;
  }
  alter odd(v : list<integer>) { self.trace := (trace * 7 + 1D4.roll) % 1000003; }
  rule act {
BODY
  }
 }
ACTORS
 last = { ticks = 150; priority = 9; handler = @{ GM.message(SUMMARY); }; }:Event;
}
"""


def schedule(delay: int, priority: int, who: str, bound: int) -> str:
    return (
        f"if (n < {bound}) {{ schedule.add({{ ticks = schedule.current + {delay}[sec];"
        f" priority = {priority}; handler = @{{ {who}.act; }}; }}:Event); }}"
    )


@st.composite
def pieces(draw: st.DrawFn, actors: int) -> str:
    who = f"a{draw(st.integers(0, actors - 1))}"
    bound = draw(st.integers(1, 12))
    return draw(
        st.sampled_from(
            [
                "self.count(1D6.roll + schedule.priority);",
                "if (schedule.current > 20[sec]) { self.count(3); }"
                " else { self.count(schedule.priority); }",
                "self.odd(1);",
                f"{who}.count(2D6.roll);",
                "if (1D6.roll > 3) { self.count(1); self.count(n); }",
                f"if (n == {bound}) {{ self.count(1 / (n - n)); }}",
                schedule(draw(st.integers(0, 4)), draw(st.integers(-2, 2)), who, bound),
            ]
        )
    )


@st.composite
def programs(draw: st.DrawFn) -> str:
    actors = draw(st.integers(1, 3))
    body = draw(st.lists(pieces(actors), min_size=0, max_size=4))
    body.append(
        schedule(
            draw(st.integers(1, 9)), draw(st.integers(-2, 2)), "self", draw(st.integers(3, 30))
        )
    )
    lines = []
    for i in range(actors):
        lines.append(f" a{i} = {{ n = 0; trace = 0; }}:Ticker;")
        ticks, priority = draw(st.integers(0, 5)), draw(st.integers(-2, 2))
        handler = f"handler = @{{ a{i}.act; }};"
        lines.append(f" go{i} = {{ ticks = {ticks}; priority = {priority}; {handler} }}:Event;")
    summary = ' + " " + '.join(f'a{i}.n + " " + a{i}.trace' for i in range(actors))
    return (
        PROGRAM.replace("BODY", "\n".join("   " + line for line in body))
        .replace("ACTORS", "\n".join(lines))
        .replace("SUMMARY", summary)
    )


def outcome(program: CompiledProgram, seed: int, resumable: bool) -> tuple[object, ...]:
    limits = Limits(max_ticks=200, max_steps_at_once=50)
    participants = Participants({"GM": Scripted([])})
    session = Session(program, seed, participants, limits, resumable=resumable)
    reason = session.run()
    errors = [e.message for e in session.errors]
    return reason, list(session.transcript.records), errors, session.steps, session.ticks


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=programs(), seed=st.integers(0, 2**16))
def test_the_fast_path_runs_as_the_plain_path(text: str, seed: int) -> None:
    result = check_text(text, "t.lore")
    assert result.ok, [d.render() for d in result.diagnostics] + [text]
    program = compile_program(result)
    fast = outcome(program, seed, resumable=False)
    assert fast == outcome(program, seed, resumable=True), text
