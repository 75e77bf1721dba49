"""The benchmarks run (at tiny sizes: their figures are not checked, only that they come)."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from benchmarks import answers, engine, hub, memory, server, sessions, sim, startup


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


def test_engine_benchmark_counts_instructions_per_event() -> None:
    lines = engine.bytecodes("staggered", 10, 3).splitlines()
    assert [line.split()[:2] for line in lines] == [["staggered", "Lore"], ["staggered", "SimPy"]]
    for line in lines:
        assert int(line.split()[2]) > 50  # a handler, its die and its alter take more
    # The counter sees every Python instruction, and none of C code.
    counts = engine.count_bytecodes(lambda: sorted(range(100)))
    assert sum(counts.values()) < 10
    assert engine.count_bytecodes(lambda: [i for i in range(100)])["<listcomp>"] > 300


def test_startup_benchmark_times_lore_beside_python(capsys: pytest.CaptureFixture[str]) -> None:
    assert startup.main(["--runs", "1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    assert set(figures) == {
        "python -c pass",
        startup.BASELINE,
        "lore --version",
        "lore check hello.lore",
        "lore check hello.lore" + startup.NO_CACHE,
    }
    assert figures[startup.BASELINE]["wall_vs_import_json"] == 1.0


def test_sessions_benchmark_makes_sessions_of_one_program(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if not sessions.SCENARIO.is_file():
        pytest.fail(f"the paper's scenario is missing: {sessions.SCENARIO}", pytrace=False)
    assert sessions.main(["--sessions", "5", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["sessions"] == 5
    assert 0 < figures["shared_kb"] < figures["whole_kb"]


def test_memory_benchmark_compares_retained_memory(capsys: pytest.CaptureFixture[str]) -> None:
    assert memory.main(["--events", "10,50", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert set(figures["retained_bytes"]) == {"10", "50"}
    assert figures["ratio"] > 0


def test_sim_benchmark_reports_lore_sim_beside_the_engine_loop(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert sim.main(["--runs", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    rows = {row["name"]: row for row in figures["rows"]}
    assert list(rows) == [
        sim.BASELINE,
        "lore sim --jobs 1",
        "lore sim --jobs 2",
        "lore sim --policy greedy",
    ]
    assert rows[sim.BASELINE]["vs_baseline"] == 1.0
    assert all(row["runs_per_cpu_s"] > 0 for row in rows.values())
    assert figures["jobs_2_wall_speedup"] > 0


def test_answers_benchmark_times_the_table_the_engine_and_the_baseline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert answers.main(["--tables", "3", "--answers", "30", "--repeat", "1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert (figures["tables"], figures["answers"]) == (3, 30)
    assert figures["table_us"] > 0 and figures["engine_us"] > 0 and figures["bare_us"] > 0
    assert figures["rerun_us"] > 0
    together = ("together_table_us", "together_engine_us", "together_rerun_us")
    assert all(figures[name] > 0 for name in together)
    assert figures["table_ratio"] == pytest.approx(figures["table_us"] / figures["bare_us"])


def test_server_benchmark_plays_both_loads_over_its_lean_client(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Players answer through the lean client (each frame parsed, its question found and
    answered), and the echo load passes its messages round: both count."""
    argv = ["--sessions", "2", "--seconds", "2", "--slice", "1", "--json"]
    assert server.main(argv) == 0
    [figures] = json.loads(capsys.readouterr().out)
    # (Two sessions answer faster than a client's rate limit: refusals may come.)
    assert figures["answers_per_s"] > 0 and figures["echo_round_trips_per_s"] > 0
    assert figures["p50_ms"] > 0 and figures["p99_ms"] >= figures["p50_ms"]
    assert figures["client_cpu_us_per_answer"] > 0


def test_hub_benchmark_answers_over_sockets_beside_an_echo(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The answers' figure and the echo's, measured in the same run, and their ratio."""
    assert hub.main(["--tables", "2", "--answers", "30", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    answer = float(re.search(r"([\d.]+) us CPU per answer", out)[1])  # type: ignore[index]
    echo = float(re.search(r"([\d.]+) us CPU per round trip", out)[1])  # type: ignore[index]
    ratio = float(re.search(r"answer / echo round trip: ([\d.]+)", out)[1])  # type: ignore[index]
    assert answer > 0 and echo > 0
    assert ratio == pytest.approx(answer / echo, rel=0.02)  # (the figures are rounded)


def test_hub_benchmark_echo_round_trips_each_message() -> None:
    """The baseline's echo reads each client's masked frame with the library's server
    protocol and writes its message back, read as the players read their frames."""
    round_ = hub.Round()
    transport = hub.Transport(round_)
    socket = hub.Echo()
    socket.connection_made(transport)  # type: ignore[arg-type]
    socket.data_received(hub.REQUEST)
    assert transport.written[0].startswith(b"HTTP/1.1 101 ")
    client = hub.EchoClient(socket, transport)
    round_.left = 2
    for _ in range(2):
        client.answer()
        client.take()
    assert round_.left == 0 and client.seq == 2
    assert hub.read_frame(transport.written[2][2:]).seq == 1
    assert hub.run_alone("echo", 2, 12) > 0


class Written:
    """A transport keeping what the lean client writes."""

    def __init__(self) -> None:
        self.data: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.data.append(data)

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass


@pytest.mark.parametrize("piece", [1, 7, 1 << 20])
def test_the_lean_client_reads_what_the_library_would(piece: int) -> None:
    """Text frames of every length (the header's three sizes), a fragmented message and a
    ping between frames, given in pieces of any size: each message comes whole, in order,
    the ping is answered, and a message written is read by a server as sent."""
    from websockets.frames import Frame, Opcode
    from websockets.http11 import Request
    from websockets.server import ServerProtocol

    async def scenario() -> None:
        got: list[bytes] = []
        client = server.Socket("ws://127.0.0.1:1/", got.append)
        transport = Written()
        client.connection_made(transport)  # type: ignore[arg-type]
        peer = ServerProtocol()
        peer.receive_data(b"".join(transport.data))
        [request] = peer.events_received()
        assert isinstance(request, Request)
        peer.send_response(peer.accept(request))
        client.data_received(b"".join(peer.data_to_send()))
        assert client.open.done() and client.fast
        sent = [b'{"type":"update"}', b"x" * 300, b"y" * 70000]
        peer.send_text(sent[0])
        peer.send_ping(b"lore")
        peer.send_text(sent[1])
        peer.send_text(b"ab", fin=False)
        peer.send_continuation(b"cd", fin=True)
        peer.send_text(sent[2])
        data = b"".join(peer.data_to_send())
        transport.data.clear()
        for start in range(0, len(data), piece):
            client.data_received(data[start : start + piece])
        assert got == [sent[0], sent[1], b"abcd", sent[2]]
        client.send(b'{"type":"answer"}')
        client.send(b"z" * 200)
        peer.receive_data(b"".join(transport.data))
        frames = [e for e in peer.events_received() if isinstance(e, Frame)]
        assert [(f.opcode, f.data) for f in frames] == [
            (Opcode.PONG, b"lore"),
            (Opcode.TEXT, b'{"type":"answer"}'),
            (Opcode.TEXT, b"z" * 200),
        ]

    asyncio.run(scenario())


def test_postgres_benchmark_reports_the_store_beside_a_bare_loop(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks import postgres

    assert postgres.main(["--sessions", "4", "--appends", "40", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["appends"] == 40 and figures["mean_batch"] >= 1
    assert figures["store_per_s"] > 0 and figures["bare_per_s"] > 0


def test_lsp_benchmark_times_the_server_beside_a_full_check_and_the_framework(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks import lsp

    assert lsp.main(["--quick", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = report["orm"]
    assert set(rows) == {
        "lore lsp diagnostics",
        "lore lsp completion",
        "lore check (full)",
        "framework (pygls, no diagnostics)",
    }
    for found in rows.values():
        assert 0 < found["p50_ms"] <= found["p95_ms"]
    edit = rows["lore lsp diagnostics"]
    assert edit["ratio_to_full_check"] == round(
        edit["p50_ms"] / rows["lore check (full)"]["p50_ms"], 3
    )
