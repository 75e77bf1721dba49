"""The limits of a session: what keeps rules that run away from running forever, or from
filling the memory."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    max_ops: int = 1_000_000  # rule calls, list steps and dice of one handler
    # Nested calls of rules, functions and lambdas in one handler: a resource limit (each
    # takes a few Python frames) far above what rules that end need.
    max_depth: int = 10_000
    max_steps: int | None = None
    max_ticks: int | None = None
    # Steps at one game time: events that keep scheduling events at the same time would
    # otherwise run forever without the time moving on.
    max_steps_at_once: int = 100_000
    # Events waiting at once: events that each schedule several more would otherwise fill
    # the memory, and run the handlers of every doubling before the limit fired (with a
    # long handler, a million such runs took half a minute). No table has a hundred
    # thousand events waiting; a program that needs more passes its own Limits.
    max_events: int = 100_000
    # Events one handler may schedule: a handler that schedules in a loop, or through rules
    # that each schedule and call others, would otherwise add a million (seconds of work)
    # before the waiting limit sees them, and do it again in every step it runs.
    max_adds: int = 10_000
    # Questions asked in one step: no table answers a thousand at once; events that
    # multiply, each asking, would otherwise keep bots (or people) busy for minutes, and
    # a step runs again from its start for each answer, so its cost grows with the square
    # of its questions (10,000 questions in a deep recursion took a sim 20 s a step).
    max_questions: int = 1_000
    # Messages sent in one step, for the same reason (a million printed take a minute; events
    # that multiply, each step sending ten thousand, took a 400-step run two minutes).
    max_messages: int = 1_000
    # Rounds of one update phase: alters that request alters run in a further round, and
    # alters that keep requesting each other would otherwise never end.
    max_alter_rounds: int = 100
