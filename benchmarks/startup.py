"""Start-up benchmark: how long the ``lore`` command takes to start and do a small job.

Run from the project root::

    .venv/bin/python benchmarks/startup.py [--runs N] [--file FILE] [--json]

Each command below is started N times (default 31) as a new process, the commands taking
turns so that a moment of load on the machine falls on all of them alike; the figure is
the median wall time (the CPU time is shown beside it: it varies less with the load of
the machine). The baselines are the interpreter doing nothing (``python -c
pass``) and importing one standard module (``python -c "import json"``); the target is
``lore --version`` and ``lore check`` on a small file within 3x the second.

Byte code is written and used, as in an installed Lore (pip compiles the modules when it
installs them): the child processes run without ``PYTHONDONTWRITEBYTECODE``, and one run
of each command before the timed ones writes the byte code. Likewise Lore's cache (the
parsed bundled library, see ``lore/cache.py``) is a fresh temporary folder that this
first run fills, as the first ``lore check`` after installing Lore does; ``lore check``
is also timed with the cache turned off (``LORE_CACHE_DIR=``), for comparison. It exits
0, as it is a report.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 3.0  # x `python -c "import json"`
BASELINE = "python -c 'import json'"


def lore_command() -> list[str]:
    """How to start ``lore``: the installed script next to this Python, if there is one."""
    script = Path(sys.executable).with_name("lore")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lore"]


NO_CACHE = " (cache off)"


def commands(file: Path) -> dict[str, list[str]]:
    lore = lore_command()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        BASELINE: [sys.executable, "-c", "import json"],
        "lore --version": [*lore, "--version"],
        f"lore check {file.name}": [*lore, "check", str(file)],
        f"lore check {file.name}{NO_CACHE}": [*lore, "check", str(file)],
    }


def child_environment(cache: Path, name: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["LORE_CACHE_DIR"] = "" if name.endswith(NO_CACHE) else str(cache)
    return env


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """The wall time and the CPU time (user and system) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        output = done.stdout.decode() + done.stderr.decode()
        raise SystemExit(f"{' '.join(command)} failed:\n{output}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def measure(file: Path, runs: int) -> dict[str, tuple[float, float]]:
    """The median wall time and median CPU time of each command, in seconds."""
    table = commands(file)
    with tempfile.TemporaryDirectory(prefix="lore-startup-") as folder:
        envs = {name: child_environment(Path(folder) / "cache", name) for name in table}
        for name, command in table.items():
            timed(command, envs[name])  # writes the byte code and fills the cache
        walls: dict[str, list[float]] = {name: [] for name in table}
        cpus: dict[str, list[float]] = {name: [] for name in table}
        for _ in range(runs):
            for name, command in table.items():
                seconds, cpu = timed(command, envs[name])
                walls[name].append(seconds)
                cpus[name].append(cpu)
    return {name: (statistics.median(walls[name]), statistics.median(cpus[name])) for name in table}


def format_table(medians: dict[str, tuple[float, float]], runs: int) -> str:
    base, base_cpu = medians[BASELINE]
    lines = [f"median of {runs} runs each (the target is on the wall time)", ""]
    lines.append(f"{'':38}{'wall ms':>9}{'x json':>8}{'cpu ms':>9}{'x json':>8}")
    for name, (seconds, cpu) in medians.items():
        ratio = seconds / base
        verdict = ""
        if name.startswith("lore") and not name.endswith(NO_CACHE):
            verdict = f"  target <= {TARGET:.1f}  {'PASS' if ratio <= TARGET else 'FAIL'}"
        lines.append(
            f"{name:38}{seconds * 1000:>9.1f}{ratio:>8.2f}{cpu * 1000:>9.1f}"
            f"{cpu / base_cpu:>8.2f}{verdict}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=31, help="runs of each command (default 31)")
    parser.add_argument(
        "--file",
        type=Path,
        default=ROOT / "examples" / "hello.lore",
        help="the file lore check checks (default examples/hello.lore)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    medians = measure(args.file, args.runs)
    if args.json:
        base, base_cpu = medians[BASELINE]
        figures = {
            name: {
                "wall_ms": seconds * 1000,
                "wall_vs_import_json": seconds / base,
                "cpu_ms": cpu * 1000,
                "cpu_vs_import_json": cpu / base_cpu,
            }
            for name, (seconds, cpu) in medians.items()
        }
        print(json.dumps({"runs": args.runs, "target": TARGET, "figures": figures}, indent=2))
    else:
        print(format_table(medians, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
