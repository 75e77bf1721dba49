"""Language server benchmark: how soon diagnostics come after a one-character edit.

Run from the project root::

    .venv/bin/python benchmarks/lsp.py [--runs N] [--quick] [--json]

``lore lsp`` runs as a subprocess, spoken to over standard input and output as an editor
does. For each file (the ORM, ninja and paper scenarios with their imports, and a
generated 5,000-line rule file), one character is typed and taken back again N times
(default 40); the time is from sending the change to receiving the diagnostics published
for that version. Completion is timed the same way (a request at a name, after the edit
was checked). Beside them, in the same run:

- ``lore check``: a full check of the same file in this process (the prelude and the
  imports parsed and every body checked, as ``lore check`` does), the cost the server
  avoids on each keystroke;
- ``framework``: a pygls server that publishes an empty list of diagnostics on each
  change, the protocol's and framework's own round trip.

Each line shows p50 and p95 in milliseconds and the server's p50 as a ratio of the full
check's. Targets: p95 under 100 ms for the three scenarios, completion p95 under 50 ms.
It exits 0, as it is a report.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from lore.semantics.check import check_paths  # noqa: E402
from lore.world.static import check_world  # noqa: E402
from tests.lsp.client import Client  # noqa: E402

SCENARIOS = {
    "orm": ROOT / "examples" / "orm" / "scenario.lore",
    "ninja": ROOT / "examples" / "ninja" / "scenario.lore",
    "paper": ROOT / "examples" / "paper" / "scenario.lore",
}
GENERATED_LINES = 5000

FRAMEWORK_SERVER = """
from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("bare", "1")

def publish(ls, uri):
    document = ls.workspace.get_text_document(uri)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=[], version=document.version)
    )

@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def opened(ls, params):
    publish(ls, params.text_document.uri)

@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def changed(ls, params):
    publish(ls, params.text_document.uri)

server.start_io()
"""


def generated(folder: Path, lines: int = GENERATED_LINES) -> Path:
    """A rule file of about ``lines`` lines: values, and rules that read them."""
    parts = ["section generated {"]
    index = 0
    while len(parts) < lines - 1:
        parts.append(f"    value{index} = {index} + 1;")
        parts.append(f"    rule step{index} {{")
        parts.append(f"        n = value{index} * 2;")
        parts.append(f'        GM.message("{index}");')
        parts.append("    }")
        index += 1
    parts.append("}")
    path = folder / "generated.lore"
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def figures(times: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(times) * 1000, 2),
        "p95_ms": round(percentile(times, 0.95) * 1000, 2),
    }


def edits(client: Client, path: Path, runs: int) -> list[float]:
    """Seconds from each one-character edit to its diagnostics."""
    text = path.read_text(encoding="utf-8")
    uri = client.open(path, text)
    client.diagnostics(uri, 1, timeout=120)
    times = []
    for run in range(runs):
        changed = text + " " if run % 2 == 0 else text
        start = time.perf_counter()
        version = client.change(uri, changed)
        client.diagnostics(uri, version, timeout=120)
        times.append(time.perf_counter() - start)
    return times


def completions(client: Client, path: Path, runs: int) -> list[float]:
    uri = path.resolve().as_uri()
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(lines) if t.strip() and not t.lstrip().startswith("/"))
    column = len(lines[line]) - len(lines[line].lstrip())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        client.request("textDocument/completion", client.at(uri, line, column))
        times.append(time.perf_counter() - start)
    return times


def full_checks(path: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = check_paths([path])
        check_world(result)
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="a few runs of the ORM only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    runs = 4 if args.quick else args.runs
    with tempfile.TemporaryDirectory() as folder:
        files = dict(SCENARIOS)
        if not args.quick:
            files["generated 5,000 lines"] = generated(Path(folder))
        else:
            files = {"orm": SCENARIOS["orm"]}
        report: dict[str, dict[str, dict[str, float]]] = {}
        server = Client()
        bare = Client([sys.executable, "-c", FRAMEWORK_SERVER])
        try:
            for name, path in files.items():
                edit = figures(edits(server, path, runs))
                completion = figures(completions(server, path, runs))
                check = figures(full_checks(path, max(3, runs // 4)))
                framework = figures(edits(bare, path, runs))
                edit["ratio_to_full_check"] = round(edit["p50_ms"] / check["p50_ms"], 3)
                report[name] = {
                    "lore lsp diagnostics": edit,
                    "lore lsp completion": completion,
                    "lore check (full)": check,
                    "framework (pygls, no diagnostics)": framework,
                }
        finally:
            server.close()
            bare.close()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for name, rows in report.items():
        print(f"{name}:")
        for row, found in rows.items():
            ratio = found.get("ratio_to_full_check")
            shown = f"  ({ratio:.2f} x the full check)" if ratio is not None else ""
            print(f"  {row:36} p50 {found['p50_ms']:8.1f} ms  p95 {found['p95_ms']:8.1f} ms{shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
