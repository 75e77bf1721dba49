"""The dice: what each handler draws, checked against a reference written from the
definition in ``lore.engine.randomness`` (SHAKE-128 words per group of steps for the first
place of each, per step for the others, then SplitMix64),
the fast one-die path against the general one, and the fairness of the numbers."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from lore.engine import randomness
from lore.engine.participants import Bot, Participants, Scripted
from lore.engine.session import Runtime, Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text

MASK = (1 << 64) - 1


def reference_dice(seed: int, step: int, place: int, sides: list[int]) -> list[int]:
    """The dice of the handler at ``place`` of step ``step``, from the definition alone."""
    if place == 0:
        message, at = f"lore-dice:{seed}:first:{step // 64}", step % 64
    else:
        message, at = f"lore-dice:{seed}:{step}", place
    digest = hashlib.shake_128(message.encode()).digest(8 * (at + 1))
    word = int.from_bytes(digest[8 * at : 8 * at + 8], "little")
    state, value, rolled = word, word, []
    for number, side in enumerate(sides):
        if number:
            state = (state + 0x9E3779B97F4A7C15) & MASK
            value = reference_mix(state)
        while value >= (1 << 64) - (1 << 64) % side:
            state = (state + 0x9E3779B97F4A7C15) & MASK
            value = reference_mix(state)
        rolled.append(1 + value % side)
    return rolled


def reference_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


PROGRAM = """\
import "basic.lore":url;
section rolls {
 one = { ticks = 0; priority = 0; handler = @{
  GM.message("" + 1D6.roll + " " + 1D6.roll + " " + 1D20.roll);
 }; }:Event;
 pool = { ticks = 0; priority = 0; handler = @{ GM.message("" + 3D6.roll); }; }:Event;
 later = { ticks = 5; priority = 0; handler = @{ GM.message("" + 1D100.roll); }; }:Event;
}
"""


def session(seed: int) -> tuple[Session, Scripted]:
    result = check_text(PROGRAM, "rolls.lore")
    assert not result.diagnostics
    gm = Scripted([])
    return Session(compile_program(result), seed, Participants({"GM": gm})), gm


def test_each_handler_rolls_the_dice_of_its_place_in_its_step() -> None:
    for seed in (0, 1, 144, 2**40 + 3):
        running, gm = session(seed)
        assert running.run() == "no-events"
        told = [record["text"] for record in gm.told]
        # Step 1 (tick 0): `one` at place 0 (1D6.roll, the fast path), `pool` at place 1
        # (3D6.roll, drawn through Dice.roll); step 2 (tick 5): `later` at place 0.
        assert told == [
            " ".join(map(str, reference_dice(seed, 1, 0, [6, 6, 20]))),
            str(sum(reference_dice(seed, 1, 1, [6, 6, 6]))),
            str(reference_dice(seed, 2, 0, [100])[0]),
        ]


NESTED = """\
import "basic.lore":url;
section rolls {
 deep = { ticks = 0; priority = 0; handler = @{
  ({1, 2}).foreach(@(a : integer) {
   ({1, 2, 3}).foreach(@(b : integer) { GM.message("" + a + b + " " + 1D6.roll); });
   GM.message("" + a + " " + 1D20.roll);
  });
 }; }:Event;
}
"""


def reference_body_die(seed: int, path: list[int], sides: int) -> int:
    """The first die of the ``foreach`` body at ``path`` of step 1's first handler: its
    stream starts from the handler's first word, moved on once per enclosing body (by
    the body's index), and its first draw is the word after that key."""
    digest = hashlib.shake_128(f"lore-dice:{seed}:first:0".encode()).digest(16)
    key = int.from_bytes(digest[8:16], "little")  # step 1's word
    stride = (0x9E3779B97F4A7C15 * 0x9E3779B97F4A7C15) & MASK
    for index in path:
        key = reference_mix((key + (index + 1) * stride) & MASK)
    state = key
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        value = reference_mix(state)
        if value < (1 << 64) - (1 << 64) % sides:
            return 1 + value % sides


def test_each_foreach_body_rolls_from_a_stream_of_its_place() -> None:
    for seed in (0, 7, 2**40 + 3):
        result = check_text(NESTED, "nested.lore")
        assert not result.diagnostics
        gm = Scripted([])
        running = Session(compile_program(result), seed, Participants({"GM": gm}))
        assert running.run() == "no-events"
        expected = []
        for a in range(2):
            expected += [f"{a + 1}{b + 1} {reference_body_die(seed, [a, b], 6)}" for b in range(3)]
            expected.append(f"{a + 1} {reference_body_die(seed, [a], 20)}")
        assert [record["text"] for record in gm.told] == expected


def runtime(seed: int, step: int) -> Runtime:
    running, _ = session(seed)
    running.steps = step
    running.step_size = 4
    return running.rt


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    start=st.integers(0, 300),
    gaps=st.lists(st.integers(0, 130), min_size=1, max_size=12),
)
def test_the_first_die_of_steps_that_go_on_is_its_steps_first_word(
    seed: int, start: int, gaps: list[int]
) -> None:
    # One runtime through steps that go on by any amount (within a group of 64 steps,
    # to the next, past several): each step's first die is its own first word (the
    # runtime keeps one group's words, read by the step's distance from the first).
    rt = runtime(seed, start)
    step = start
    for gap in gaps:
        step += gap
        rt.session.steps = step
        rt.reset(0, 0)
        assert [rt.roll(6), rt.roll(20)] == reference_dice(seed, step, 0, [6, 20])


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**64),
    step=st.integers(0, 10**6),
    place=st.integers(0, 300),
    sides=st.lists(st.sampled_from([2, 3, 6, 7, 10, 20, 100, 1000, 10**6]), max_size=8),
)
def test_the_one_die_path_draws_what_randint_draws(
    seed: int, step: int, place: int, sides: list[int]
) -> None:
    fast, general = runtime(seed, step), runtime(seed, step)
    for rt in (fast, general):
        rt.reset(0, place)
        rt.block = None
    assert [fast.roll(side) for side in sides] == [general.randint(1, side) for side in sides]
    assert [fast.roll(side) for side in sides] == reference_dice(seed, step, place, sides * 2)[
        len(sides) :
    ]


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**64),
    step=st.integers(0, 10**6),
    place=st.integers(0, 300),
    pools=st.lists(
        st.tuples(st.integers(0, 40), st.sampled_from([1, 2, 3, 6, 7, 100, 10**6])), max_size=5
    ),
)
def test_a_pool_draws_what_its_dice_one_by_one_draw(
    seed: int, step: int, place: int, pools: list[tuple[int, int]]
) -> None:
    pooled, single = runtime(seed, step), runtime(seed, step)
    for rt in (pooled, single):
        rt.reset(0, place)
    assert [pooled.rolls(count, sides) for count, sides in pools] == [
        sum(single.roll(sides) for _ in range(count)) for count, sides in pools
    ]
    assert pooled.roll(6) == single.roll(6)  # and the stream goes on alike


def test_a_longer_block_begins_with_the_shorter_one() -> None:
    assert randomness.block(3, 9, 200)[:7] == randomness.block(3, 9, 7)


def test_places_past_the_block_extend_it() -> None:
    rt = runtime(5, 2)
    rt.reset(0, 1000)  # past the step's size: an alter late in a big update
    rt.block = randomness.block(5, 2, 4)
    assert [rt.roll(6), rt.roll(6)] == reference_dice(5, 2, 1000, [6, 6])


def chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((count - expected) ** 2 / expected for count in counts)


def test_first_and_later_dice_are_fair() -> None:
    rt = runtime(2026, 7)
    first, second = [0] * 6, [0] * 6
    for place in range(30_000):
        rt.reset(0, place)
        first[rt.roll(6) - 1] += 1
        second[rt.roll(6) - 1] += 1
    # 5 degrees of freedom: 20.5 is the 0.999 quantile. The numbers are fixed by the
    # seed, so this does not flake; it fails if draws are biased.
    assert chi_square(first) < 20.5
    assert chi_square(second) < 20.5


def test_bot_streams_are_fair_and_apart() -> None:
    key = randomness.stream_key(1, 0x5DEECE66D)
    counts = [0] * 10
    for number in range(5_000):
        stream = randomness.Stream(key, number)
        counts[stream.randint(0, 9)] += 1
    assert chi_square(counts) < 27.9  # 9 degrees of freedom, 0.999 quantile
    assert randomness.Stream(key, 1).randint(0, 2**200) != randomness.Stream(key, 2).randint(
        0, 2**200
    )


def bot_program(handler_questions: int) -> str:
    """A handler asks the GM ``handler_questions`` numbers, then requests an alter that
    asks one more."""
    asks = "".join(
        f' GM.query("h{n}", {{ n = integer.input(1,...,1000000, 1); }});'
        for n in range(handler_questions)
    )
    return f"""\
import "basic.lore":url;
section bots {{
 form Box {{
  n : integer;
  alter ask(xs : list<integer>) {{
   got = GM.query("in the alter", {{ n = integer.input(1,...,1000000, 1); }});
   GM.message("alter " + got.n);
   self.n := got.n;
  }}
 }}
 box = {{ n = 0; }}:Box;
 go = {{ ticks = 0; priority = 0; handler = @{{ {asks} box.ask(1); }}; }}:Event;
}}
"""


def test_a_bot_asked_in_an_alter_draws_from_a_stream_of_its_own() -> None:
    told = []
    for questions in (0, 1, 2):
        result = check_text(bot_program(questions), "bots.lore")
        assert not result.diagnostics, [d.render() for d in result.diagnostics]
        running = Session(compile_program(result), 11, Participants({"GM": Bot()}))
        running.run()
        records = running.transcript.records
        told.append([r["text"] for r in records if r["kind"] == "message"])
    # What the handler asked before does not change what the alter's bot answers.
    assert told[0] == told[1] == told[2] and len(told[0]) == 1
