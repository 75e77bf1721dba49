"""Machine instructions of a benchmark run alone, counted by valgrind's callgrind.

Shared by the benchmarks' ``--callgrind`` options: instruction counts are repeatable
whatever else the machine runs, where CPU time is not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile


def instructions(script: str, alone: str) -> int:
    """The machine instructions of ``python SCRIPT --alone ALONE``, by callgrind."""
    with tempfile.TemporaryDirectory(prefix="lore-callgrind-") as folder:
        out = os.path.join(folder, "callgrind.out")
        command = [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
            sys.executable, script, "--alone", alone,
        ]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, timeout=3600)
        with open(out) as file:
            for line in file:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1])
    raise SystemExit("callgrind wrote no total")
