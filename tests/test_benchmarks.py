"""The benchmarks run (at tiny sizes: their figures are not checked, only that they come)."""

from __future__ import annotations

import json

import pytest

from benchmarks import engine, startup


def test_engine_benchmark_reports_both_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    assert engine.main(["--quick", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert {(f["shape"], f["waiting"]) for f in figures} == {
        (shape, size) for shape in ("lockstep", "staggered") for size in engine.QUICK_SIZES
    }
    for f in figures:
        assert f["events"] == f["waiting"] * f["rounds"]
        assert f["lore_events_per_s"] > 0 and f["simpy_events_per_s"] > 0
        assert f["lore_steady_bytes_per_waiting_event"] > 0


def test_startup_benchmark_times_lore_beside_python(capsys: pytest.CaptureFixture[str]) -> None:
    assert startup.main(["--runs", "1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    assert set(figures) == {
        "python -c pass",
        startup.BASELINE,
        "lore --version",
        "lore check hello.lore",
    }
    assert figures[startup.BASELINE]["wall_vs_import_json"] == 1.0
