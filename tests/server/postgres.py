"""A throwaway PostgreSQL server for the tests: Debian's binaries, a temporary folder, a
free loopback port, trust authentication; stopped (and its folder removed) at the end.

``initdb`` and ``postgres`` refuse to run as root (as CI runs): then they run as the
``postgres`` user that Debian's package makes, through ``runuser``. Where there is no
PostgreSQL at all, the tests that need one skip with one line saying so, except under
``LORE_POSTGRES=required`` (which ``.ci/run`` sets, after ``scripts/setup-postgres``
installed it): there they fail.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

NEEDED = "PostgreSQL's server binaries (Debian's postgresql; scripts/setup-postgres installs it)"


def binaries() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: Debian keeps them by version."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
    if found:
        return found[0].parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Server:
    url: str  # postgresql://…/lore on loopback
    port: int
    folder: Path
    bin: Path
    as_user: tuple[str, ...]  # the command prefix that runs as the server's user

    def pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.folder / "data")]
        return subprocess.run(
            [*command, *args], capture_output=True, text=True, check=check, timeout=60
        )

    def restart(self) -> None:
        self.pg_ctl("restart", "-m", "fast", "-w", "-l", str(self.folder / "log"))

    def psql(self, sql: str) -> str:
        command = [str(self.bin / "psql"), self.url, "-tA", "-c", sql]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def unavailable(reason: str) -> None:
    if os.environ.get("LORE_POSTGRES") == "required":
        pytest.fail(f"PostgreSQL is required here but {reason}", pytrace=False)
    pytest.skip(f"needs {NEEDED}: {reason}")


@contextlib.contextmanager
def throwaway() -> Iterator[Server]:
    folder_bin = binaries()
    if folder_bin is None:
        unavailable("there is none")
        raise AssertionError("unreachable")
    as_user: tuple[str, ...] = ()
    folder = Path(tempfile.mkdtemp(prefix="lore-pg-"))
    try:
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            if runuser is None or not _has_user("postgres"):
                unavailable("it cannot run as root, and there is no postgres user to run it")
            as_user = (runuser, "-u", "postgres", "--")
            shutil.chown(folder, "postgres")
        port = free_port()
        data = folder / "data"
        init = [*as_user, str(folder_bin / "initdb"), "-D", str(data), "-A", "trust"]
        init += ["-U", "lore", "--no-sync", "-E", "UTF8", "--locale", "C"]
        subprocess.run(init, capture_output=True, text=True, check=True, timeout=120)
        options = f"-p {port} -c listen_addresses=127.0.0.1 -k {folder} -c fsync=on"
        server = Server(
            f"postgresql://lore@127.0.0.1:{port}/postgres", port, folder, folder_bin, as_user
        )
        server.pg_ctl("start", "-w", "-o", options, "-l", str(folder / "log"))
        try:
            yield server
        finally:
            server.pg_ctl("stop", "-m", "immediate", "-w", check=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _has_user(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Server]:
    """One throwaway server for the whole run (started on first use)."""
    with throwaway() as server:
        yield server


_databases = iter(range(1, 1_000_000))


@pytest.fixture
def postgres_url(postgres_server: Server) -> str:
    """A new empty database of the throwaway server, for one test."""
    name = f"t{next(_databases)}"
    postgres_server.psql(f"CREATE DATABASE {name}")
    return postgres_server.url.rsplit("/", 1)[0] + "/" + name
