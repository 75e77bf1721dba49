"""A client of ``lore lsp`` for tests and benchmarks: the server in a subprocess, spoken
to in JSON-RPC over its standard input and output."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


class Client:
    def __init__(
        self, command: list[str] | None = None, encodings: list[str] | None = None
    ) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "lore", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=REPO,
            env=env,
        )
        self.next_id = 0
        self.responses: dict[int, Any] = {}
        self.notifications: queue.Queue[dict[str, Any]] = queue.Queue()
        self.arrived = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        general = {"positionEncodings": encodings} if encodings else {}
        self.initialized = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": REPO.as_uri(),
                "capabilities": {"general": general, "textDocument": {}},
            },
        )
        self.notify("initialized", {})
        self.versions: dict[str, int] = {}

    # ------------------------------------------------------------ the wire

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            if "id" in message and "method" not in message:
                with self.arrived:
                    self.responses[message["id"]] = message
                    self.arrived.notify_all()
            elif "method" in message and "id" in message:  # a request of the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            else:
                self.notifications.put(message)

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode("utf-8")
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def send_request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def response(self, number: int, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while number not in self.responses:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no answer to request {number}")
                self.arrived.wait(left)
            return self.responses.pop(number)  # type: ignore[no-any-return]

    def request(self, method: str, params: Any, timeout: float = 30) -> Any:
        answer = self.response(self.send_request(method, params), timeout)
        if "error" in answer:
            raise RuntimeError(answer["error"]["message"])
        return answer.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
            self.process.wait()

    # ------------------------------------------------------------ documents

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.resolve().as_uri()
        self.versions[uri] = 1
        document = {
            "uri": uri,
            "languageId": "lore",
            "version": 1,
            "text": path.read_text(encoding="utf-8") if text is None else text,
        }
        self.notify("textDocument/didOpen", {"textDocument": document})
        return uri

    def change(self, uri: str, text: str) -> int:
        self.versions[uri] += 1
        version = self.versions[uri]
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
        return version

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 30) -> Any:
        """The next diagnostics published for ``uri`` (for ``version``, when given;
        earlier ones are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no diagnostics for {uri} version {version}")
            try:
                message = self.notifications.get(timeout=left)
            except queue.Empty:
                continue
            if message.get("method") != "textDocument/publishDiagnostics":
                continue
            params = message["params"]
            if params["uri"] == uri and (version is None or params.get("version") == version):
                return params

    def publications(self) -> list[dict[str, Any]]:
        """The diagnostics published so far and not yet read."""
        found = []
        while True:
            try:
                message = self.notifications.get_nowait()
            except queue.Empty:
                return found
            if message.get("method") == "textDocument/publishDiagnostics":
                found.append(message["params"])

    def at(self, uri: str, line: int, character: int) -> dict[str, Any]:
        return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
