"""The GM's simulation page: ``lore sim`` of a session's own rules, its report in the page.

``GET /simulate?session=ID#TOKEN`` is the page (``web/simulate.html``): it asks
``GET /api/simulate?session=ID&runs=N&lang=LANG`` with the GM's token and shows the report
``lore sim --report`` writes (``lore.analysis.report``), drawn from the same figures.

A simulation is bounded: at most ``MAX_RUNS`` sessions, at most ``TIME_LIMIT`` seconds,
one at a time for the whole server. It runs in a process of its own (``lore sim --json``
on the bundle's entry file), so the server's event loop and its sessions go on meanwhile,
and a simulation past its time is killed, not waited for. The report names the entry as
the bundle does, no path of the server, and saves no runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lore
from lore.analysis.report import render
from lore.analysis.report_texts import LANGUAGES

MAX_RUNS = 500
DEFAULT_RUNS = 100
TIME_LIMIT = 60.0  # seconds of one simulation


class SimulationRefused(Exception):
    """A simulation that was not run or did not finish: the HTTP status and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def runs_asked(text: str | None) -> int:
    """The runs a request asks (``DEFAULT_RUNS`` when it names none)."""
    if text is None or text == "":
        return DEFAULT_RUNS
    try:
        runs = int(text)
    except ValueError:
        raise SimulationRefused(422, f"runs is a whole number, not {text[:20]!r}") from None
    if not 1 <= runs <= MAX_RUNS:
        raise SimulationRefused(422, f"runs is from 1 to {MAX_RUNS}, not {runs}")
    return runs


def language_asked(text: str | None) -> str:
    return text if text in LANGUAGES else "en"


@dataclass
class Simulations:
    """The server's simulations: one at a time, each in its own process."""

    time_limit: float = TIME_LIMIT
    running: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def report(self, folder: Path, entry: str, runs: int, language: str) -> str:
        """The report page of ``runs`` sessions of the bundle ``folder``'s ``entry``."""
        if self.running.locked():
            raise SimulationRefused(503, "another simulation is running: try again soon")
        async with self.running:
            figures = await self.figures(folder, entry, runs)
        return render(figures, language)

    async def figures(self, folder: Path, entry: str, runs: int) -> dict[str, Any]:
        """``lore sim --json`` in the bundle's folder, so that every place it names is the
        bundle's (``scenario.lore:12:5``), no path of the server."""
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "lore",
            "sim",
            entry,
            "--runs",
            str(runs),
            "--json",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=folder,
            env=_same_lore(),
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), self.time_limit)
        except TimeoutError:
            raise SimulationRefused(
                504, f"the simulation took longer than {self.time_limit:g} seconds: ask fewer runs"
            ) from None
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        if process.returncode != 0:
            lines = err.decode("utf-8", "replace").strip().splitlines()
            reason = lines[-1] if lines else f"lore sim exited with {process.returncode}"
            raise SimulationRefused(500, f"the simulation failed: {reason[:300]}")
        found: dict[str, Any] = json.loads(out)
        return found


def _same_lore() -> dict[str, str]:
    """The environment in which ``python -m lore`` is this Lore, whatever the folder."""
    env = dict(os.environ)
    here = str(Path(lore.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, env.get("PYTHONPATH", "")]))
    return env
