"""Uploads are checked in a child process with CPU, memory and time limits: a bundle too
costly to check is refused with the reason, nothing of it is kept, and the server answers
others meanwhile."""

from __future__ import annotations

import io
import json
import threading
import time
import zipfile
from pathlib import Path

import pytest

from lore.server.checking import CheckLimits, Uploads
from tests.server.serving import EXAMPLES, ServerThread, http


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def costly(lines: int) -> bytes:
    """A valid Lore file that takes the checker long (its lines each an expression)."""
    body = "".join(f"    v{i} = {i} + {i} * 2;\n" for i in range(lines))
    return f"section scenario {{\n{body}}}\n".encode()


def upload(server: ServerThread, files: dict[str, bytes]) -> tuple[int, dict[str, object]]:
    status, body = http(server.base, "/api/sessions", zipped(files), "application/zip")
    found: dict[str, object] = json.loads(body)
    return status, found


def text_of(found: dict[str, object]) -> str:
    problems = found["problems"]
    assert isinstance(problems, list)
    return " ".join(str(problem["text"]) for problem in problems)


@pytest.mark.parametrize(
    ("limits", "lines", "reason"),
    [
        (CheckLimits(cpu=1), 60_000, "over 1 seconds of CPU time"),
        (CheckLimits(memory=150 * 2**20), 60_000, "more than 150 MiB of memory"),
    ],
)
def test_a_bundle_too_costly_to_check_is_refused_and_the_server_goes_on(
    tmp_path: Path, limits: CheckLimits, lines: int, reason: str
) -> None:
    with ServerThread(tmp_path) as server:
        assert server.server is not None
        server.server.uploads = Uploads(limits)
        # (a small bundle is checked within the same limits: it is the cost that is refused)
        small = {"scenario.lore": (EXAMPLES / "hello.lore").read_bytes()}
        assert upload(server, small)[0] == 201
        latencies: list[float] = []
        done = threading.Event()

        def canary() -> None:  # another client, asking all along
            while not done.is_set():
                start = time.monotonic()
                status, _ = http(server.base, "/api/sources")
                assert status == 200
                latencies.append(time.monotonic() - start)
                time.sleep(0.05)

        asking = threading.Thread(target=canary)
        asking.start()
        try:
            status, found = upload(server, {"scenario.lore": costly(lines)})
        finally:
            done.set()
            asking.join()
        assert status == 422 and reason in text_of(found), found
        assert len(server.server.rooms.by_id) == 1  # (the small one's)
        assert len(server.server.rooms.programs) == 1
        assert len(latencies) >= 3 and max(latencies) < 1.0, latencies
        # what the child checked was its own: nothing of it is left with the server
        assert not list((tmp_path).rglob("*.partial"))


def test_a_bundle_checked_apart_still_reports_its_errors_and_a_good_one_is_made(
    tmp_path: Path,
) -> None:
    with ServerThread(tmp_path) as server:
        hello = (EXAMPLES / "hello.lore").read_bytes()
        status, found = upload(server, {"scenario.lore": hello.replace(b"section", b"sektion", 1)})
        assert status == 422 and "scenario.lore:" in text_of(found)
        status, found = upload(server, {"scenario.lore": hello})
        assert status == 201 and found["seats"]
