"""What the server campaign sends: hostile WebSocket messages and frames, HTTP requests
and zip uploads, each a ``Probe`` that can be saved as JSON and sent again.

A probe's bytes may hold the placeholders ``@GM@``, ``@PLAYER@`` (the seats' tokens of
the session attacked), ``@SESSION@`` (its id), and ``@Q@`` and ``"@SEQ@"`` (the id of the
player's open question and the player's last ``seq``; ``@INPUT@`` its first input's name,
``"@VALUES@"`` an answer to it that the client would send: in BlackPoker a card's id as
the seat sees it), filled in when it is sent, so that
a saved probe works against a fresh server. Messages start from valid ones of every type
of ``docs/protocol.md`` and are changed the ways that broke servers before: wrong types,
huge numbers, NaN, deep nesting, bytes that are not UTF-8, unknown fields, other seats'
question ids, the GM's commands from a player, messages before ``hello``.
"""

from __future__ import annotations

import base64
import io
import json
import random
import warnings
import zipfile
from dataclasses import asdict, dataclass
from typing import Any

from tests.fuzz.mutate import Mutator
from tests.fuzz.seeds import example_seeds

PLAYER_SEAT = "Chihiro_Shiiji@xmpp.xgmtk.org"  # the paper's player
QUESTIONS = ("@Q@", "0/0/1", "0/0/0", "1/0/1", "12//0", "0/0/1/../2", "", "GM")
SEATS = ("GM", PLAYER_SEAT, "seat-2", "seat-99", "", "../GM", "GM\u0000")


@dataclass(frozen=True)
class Frame:
    """One WebSocket frame as a client sends it (masked, unless not)."""

    payload: bytes
    opcode: int = 1
    fin: bool = True
    masked: bool = True
    rsv: int = 0
    length: int | None = None  # the length it declares (None: the payload's)


@dataclass(frozen=True)
class Probe:
    """What one case sends: over a WebSocket (as ``role``, after a valid ``hello`` when
    ``hello``), ``frames``; or over HTTP, the ``raw`` request."""

    name: str
    kind: str  # message, frame, http, upload
    role: str = "GM"  # GM, player, or none (no token)
    hello: bool = True
    frames: tuple[Frame, ...] = ()
    raw: bytes = b""
    wait: float = 5.0  # seconds to wait for the server's answer

    def to_json(self) -> str:
        data = asdict(self)
        data["raw"] = base64.b64encode(self.raw).decode()
        for frame in data["frames"]:
            frame["payload"] = base64.b64encode(frame["payload"]).decode()
        return json.dumps(data, indent=1)

    @staticmethod
    def from_json(text: str) -> Probe:
        data = json.loads(text)
        frames = tuple(
            Frame(**{**f, "payload": base64.b64decode(f["payload"])}) for f in data["frames"]
        )
        return Probe(**{**data, "frames": frames, "raw": base64.b64decode(data["raw"])})


def templates() -> list[dict[str, Any]]:
    """One valid message of each type a client may send."""
    return [
        {"type": "hello", "token": "@GM@", "seq": None, "lang": "ja"},
        {"type": "answer", "id": "@Q@", "values": {"action": "search"}, "seq": "@SEQ@", "ref": 1},
        {"type": "answer", "id": "@Q@", "values": {"action": "move"}, "seq": "@SEQ@", "ref": 1},
        {"type": "answer", "id": "@Q@", "values": {"goal": "/region[dungeon]"}, "seq": "@SEQ@"},
        {"type": "chat", "text": "2D6+3>=10 攻撃", "to": None, "secret": False, "ref": 2},
        {"type": "chat", "text": "こんにちは", "to": PLAYER_SEAT, "ref": 3},
        {"type": "preview", "id": "@Q@", "goal": "/region[dungeon]", "ref": 4},
        {"type": "ping", "ref": 5},
        {"type": "pause", "ref": 6},
        {"type": "resume", "ref": 7},
        {"type": "end", "ref": 8},
        {"type": "assign", "actor": "scenario.pc", "seat": "GM", "ref": 9},
        {"type": "add_seat", "label": "Aki", "ref": 10},
        {"type": "remove_seat", "seat": "seat-2", "ref": 11},
        {"type": "revoke", "seat": "seat-2", "ref": 12},
        {"type": "new_link", "seat": "seat-2", "ref": 13},
        {"type": "log", "ref": 14},
        {"type": "history", "before": 10, "ref": 15},
        {"type": "back", "id": "@Q@", "ref": 16},
        {"type": "answer", "id": "@Q@", "values": "@VALUES@", "seq": "@SEQ@", "ref": 17},
        {"type": "answer", "id": "@Q@", "values": {"@INPUT@": "♠A#2"}, "seq": "@SEQ@"},
        {"type": "answer", "id": "@Q@", "values": {"@INPUT@": "?3"}, "seq": "@SEQ@"},
        {"type": "answer", "id": "@Q@", "values": {"@INPUT@": ["♥K", "♥K"]}, "seq": "@SEQ@"},
    ]


# Values that have broken decoders and handlers: as JSON text (NaN and Infinity are not
# JSON, but Python's and JavaScript's encoders write them).
ODD_VALUES = (
    "null",
    "true",
    "0",
    "-1",
    "1e999",
    "-1e999",
    "NaN",
    "Infinity",
    "-0.0",
    "9007199254740993",
    "18446744073709551616",
    "1152921504606846976",
    "1" * 400,
    '""',
    '"' + "x" * 5000 + '"',
    '"\\ud800"',
    '"\\u0000"',
    '"\u202e\u0301"',
    "[]",
    "{}",
    '["a", 1, null]',
    '{"a": {"b": [1, {"c": null}]}}',
    "[" * 3000 + "]" * 3000,
    '{"a":' * 3000 + "1" + "}" * 3000,
    '"@PLAYER@"',
    '"@GM@"',
    '"0/0/1"',
    f'"{PLAYER_SEAT}"',
)
INVALID_UTF8 = (b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe3\x81", b"\xf4\x90\x80\x80", b"\x80")


class ProbeMaker:
    """Makes probes with a random source of its own (a seed makes them repeatable)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.uploads = Mutator(rng, [s for s in example_seeds() if s.name != "examples/hello"])

    def probe(self) -> Probe:
        pick = self.rng.random()
        if pick < 0.5:
            return self.message_probe()
        if pick < 0.7:
            return self.frame_probe()
        if pick < 0.93:
            return self.http_probe()
        return self.upload_probe()

    # ------------------------------------------------------------ messages

    def message_probe(self) -> Probe:
        rng = self.rng
        role = rng.choice(("GM", "GM", "player", "player", "none"))
        hello = role != "none" and rng.random() < 0.9
        count = rng.choice((1, 1, 1, 2, 3, 8))
        steps: list[str] = []
        frames: list[Frame] = []
        for _ in range(count):
            data, step = self.message(role)
            steps.append(step)
            opcode = 2 if rng.random() < 0.05 else 1
            frames.append(Frame(data, opcode))
        if rng.random() < 0.03:  # a burst past the rate limit
            frames = frames * 150
            steps.append("x150")
        name = f"{role}{' after hello' if hello else ''}: {'; '.join(steps)}"
        return Probe(name, "message", role, hello, tuple(frames))

    def message(self, role: str) -> tuple[bytes, str]:
        rng = self.rng
        message = dict(rng.choice(templates()))
        if message["type"] == "hello" and role == "player":
            message["token"] = "@PLAYER@"
        step = str(message["type"])
        text: str | None = None
        pick = rng.random()
        if pick < 0.3:
            key = rng.choice(sorted(message))
            odd = rng.choice(ODD_VALUES)
            message[key] = "\u0000ODD\u0000"
            text = json.dumps(message, ensure_ascii=False).replace('"\\u0000ODD\\u0000"', odd)
            step += f" {key}={odd[:20]}"
        elif pick < 0.4:
            message[rng.choice(("extra", "__proto__", "type2", "tokens"))] = 1
            step += " unknown field"
        elif pick < 0.5:
            message["type"] = rng.choice(("", "HELLO", "welcome", "update", "x" * 300, "error"))
            step += f" type={message['type'][:10]}"
        elif pick < 0.58:
            del message["type"]
            step += " no type"
        elif pick < 0.7:
            if "id" in message or message["type"] == "answer":
                message["id"] = rng.choice(QUESTIONS)
            if "seat" in message or "to" in message:
                message["seat" if "seat" in message else "to"] = rng.choice(SEATS)
            if "values" in message:
                message["values"] = {"action": rng.choice(("search", "move", "x", 1, None))}
            if "seq" in message and message["type"] == "answer":
                message["seq"] = rng.choice((0, 1, 2**60, 2**53))
            step += " other ids"
        elif pick < 0.78:
            message[rng.choice(("text", "label", "token"))] = rng.choice(
                ("/roll " + "9" * 50 + "D" + "9" * 50, "x" * 4001, "1D6" * 1300, "\u3000" * 199)
            )
            step += " long text"
        data = (text if text is not None else json.dumps(message, ensure_ascii=False)).encode(
            "utf-8", errors="surrogatepass"
        )
        if rng.random() < 0.15:
            data, change = self.bytes_change(data)
            step += f" {change}"
        return data, step

    def bytes_change(self, data: bytes) -> tuple[bytes, str]:
        rng = self.rng
        at = rng.randrange(len(data) + 1)
        pick = rng.randrange(6)
        if pick == 0:
            return data[:at] + rng.choice(INVALID_UTF8) + data[at:], f"invalid UTF-8 at {at}"
        if pick == 1:
            return data[:at], f"cut at {at}"
        if pick == 2:
            return data + b" " * rng.choice((10, 70_000)), "trailing spaces"
        if pick == 3:
            return data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :], f"byte at {at}"
        if pick == 4:
            return data * rng.choice((2, 100)), "repeated"
        return b"\xef\xbb\xbf" + data, "BOM"

    # ------------------------------------------------------------ frames

    def frame_probe(self) -> Probe:
        rng = self.rng
        role = rng.choice(("GM", "player", "none"))
        ping = json.dumps({"type": "ping", "ref": 1}).encode()
        changes = [
            ("bad opcode", lambda: [Frame(ping, rng.choice((3, 4, 5, 6, 7, 11, 12, 13, 14, 15)))]),
            ("unmasked", lambda: [Frame(ping, masked=False)]),
            ("rsv bits", lambda: [Frame(ping, rsv=rng.randrange(1, 8))]),
            ("continuation first", lambda: [Frame(ping, 0)]),
            ("fragments", self.fragments),
            ("control too long", lambda: [Frame(b"x" * rng.choice((126, 1000)), 9)]),
            ("fragmented control", lambda: [Frame(b"x", 9, fin=False)]),
            ("huge length", lambda: [Frame(ping, length=rng.choice((2**63 - 1, 2**32, 2**21)))]),
            ("short length", lambda: [Frame(ping + b"garbage", length=3)]),
            ("close codes", self.close_frame),
            ("oversize", lambda: [Frame(b"[" * (1024 * 1024 + rng.choice((1, 100))))]),
            ("pong unasked", lambda: [Frame(b"x" * 100, 10)]),
            ("binary JSON", lambda: [Frame(ping, 2)]),
            ("empty text", lambda: [Frame(b"")]),
            ("ping flood", lambda: [Frame(b"p", 9)] * 500),
        ]
        step, make = rng.choice(changes)
        frames = make()
        hello = role != "none" and rng.random() < 0.8
        return Probe(f"{role}: {step}", "frame", role, hello, tuple(frames))

    def fragments(self) -> list[Frame]:
        rng = self.rng
        data = json.dumps({"type": "chat", "text": "分割された行", "ref": 7}).encode()
        cut = rng.randrange(1, len(data))
        frames = [Frame(data[:cut], 1, fin=False)]
        if rng.random() < 0.5:
            frames.append(Frame(b"ping?", 9))  # a control frame between fragments
        if rng.random() < 0.3:
            frames.append(Frame(b"{}", 1))  # a new message before the last ended
        if rng.random() < 0.3:
            frames += [Frame(b" " * 60_000, 0, fin=False)] * 20  # past 1 MiB in pieces
        frames.append(Frame(data[cut:], 0, fin=rng.random() < 0.8))
        return frames

    def close_frame(self) -> list[Frame]:
        rng = self.rng
        payload = rng.choice(
            (
                b"",
                b"\x03",
                (1000).to_bytes(2, "big") + b"bye",
                (999).to_bytes(2, "big"),
                (1005).to_bytes(2, "big"),
                (5000).to_bytes(2, "big"),
                (1000).to_bytes(2, "big") + b"\xff\xfe",
                (1000).to_bytes(2, "big") + b"x" * 123,
            )
        )
        return [Frame(payload, 8)]

    # ------------------------------------------------------------ HTTP

    def http_probe(self) -> Probe:
        rng = self.rng
        method = rng.choice(("GET", "POST", "POST", "POST", "PUT", "DELETE", "OPTIONS", "HEAD"))
        if rng.random() < 0.03:
            method = rng.choice(("G\x00T", "ÄÖ", "X" * 300, ""))
        path = rng.choice(
            (
                "/api/sessions",
                "/api/sessions",
                "/api/sessions",
                "/api/sources",
                "/api/save?session=@SESSION@",
                "/api/status?session=@SESSION@",
                "/api/status?session=" + "%ff" * 50,
                "/bundle/abc/../../etc/passwd",
                "/bundle/" + "a" * 64 + "/%2e%2e/rules.lore",
                "/bundle/x/TresureChest.jpg\x00.png",
                "/static/..%2f..%2fpyproject.toml",
                "/static/" + "a/" * 2000,
                "/play?session=@SESSION@&session=x",
                "/ws?session=@SESSION@",
                "/" + "%" * 10,
                "*",
                "http://127.0.0.1/",
            )
        )
        headers = {"Host": "127.0.0.1", "Connection": "close"}
        body = self.body()
        kind = rng.choice(
            (
                "application/json",
                "application/json",
                "application/json; charset=shift_jis",
                "application/zip",
                "multipart/form-data; boundary=x",
                "text/plain",
                "application/x-www-form-urlencoded",
                "",
                "application/json\x00",
                "*/*",
            )
        )
        if kind:
            headers["Content-Type"] = kind
        headers["Content-Length"] = str(len(body))
        self.odd_headers(headers, body)
        if path.startswith("/api/save") or path.startswith("/api/status"):
            headers["Authorization"] = rng.choice(
                ("Bearer @GM@", "Bearer @PLAYER@", "Bearer", "Basic x", "Bearer " + "x" * 5000)
            )
        head = f"{method} {path} HTTP/1.1\r\n".encode("utf-8", errors="surrogatepass")
        head += b"".join(
            f"{k}: {v}\r\n".encode("utf-8", errors="surrogatepass") for k, v in headers.items()
        )
        raw = head + b"\r\n" + body
        step = f"{method[:10]} {path[:40]} {kind or 'no type'}"
        if rng.random() < 0.1:
            at = rng.randrange(len(raw))
            raw = raw[:at] + rng.choice((b"\r\n", b"\x00", b"\xff", b" ", b":")) + raw[at:]
            step += f" byte at {at}"
        return Probe(f"http: {step}", "http", raw=raw)

    def body(self) -> bytes:
        rng = self.rng
        pick = rng.random()
        if pick < 0.15:
            return b""
        if pick < 0.5:
            value = rng.choice(('"paper"', '"hello"', *ODD_VALUES))
            key = rng.choice(("source", "source", "Source", "files", ""))
            text = f'{{"{key}": {value}}}'
            if rng.random() < 0.2:
                text = f'{{"source": "paper", "source": {value}}}'
            return text.encode("utf-8", errors="surrogatepass")
        if pick < 0.6:
            return rng.choice(INVALID_UTF8) * rng.choice((1, 100))
        if pick < 0.7:
            return b"x" * rng.choice((4096, 4097, 70_000))
        if pick < 0.8:
            return b"--x\r\nContent-Disposition: form-data; name=a\r\n\r\nb\r\n--x--\r\n"
        return json.dumps({"source": "paper", "extra": list(range(rng.randrange(500)))}).encode()

    def odd_headers(self, headers: dict[str, str], body: bytes) -> None:
        rng = self.rng
        pick = rng.random()
        if pick < 0.08:
            headers["Content-Length"] = rng.choice(
                ("-1", "abc", "99999999999999999999", str(len(body) + 10), "0x10", " 5", "")
            )
        elif pick < 0.14:
            del headers["Content-Length"]
            headers["Transfer-Encoding"] = rng.choice(("chunked", "gzip", "chunked, chunked"))
        elif pick < 0.2:
            headers["Origin"] = rng.choice(
                ("http://evil.example", "null", "http://127.0.0.1", "http://[::1", "\u00ff" * 3)
            )
        elif pick < 0.25:
            headers["Host"] = rng.choice(("", "[::1", "127.0.0.1:99999", "x" * 5000, "a b"))
        elif pick < 0.3:
            headers["X-" + "a" * 100] = "b" * rng.choice((100, 20_000))
        elif pick < 0.35:
            headers["Upgrade"] = "websocket"
            headers["Connection"] = "Upgrade"
            headers["Sec-WebSocket-Version"] = rng.choice(("13", "8", "x", ""))
            headers["Sec-WebSocket-Key"] = rng.choice(("dGhlIHNhbXBsZSBub25jZQ==", "", "x" * 300))
        elif pick < 0.4:
            headers["Accept-Encoding"] = "gzip;q=" + "9" * 200

    # ------------------------------------------------------------ uploads

    def upload_probe(self) -> Probe:
        rng = self.rng
        case = self.uploads.case()
        files = {name: data for name, data in case.files.items() if name != "answers.json"}
        step = case.name
        entries = [(name, data) for name, data in sorted(files.items())]
        pick = rng.random()
        if pick < 0.3:
            odd = rng.choice(
                (
                    "../evil.lore",
                    "/abs.lore",
                    "a/" * 300 + "x.lore",
                    "n" * 300 + ".lore",
                    "nul\x00.lore",
                    "C:\\x.lore",
                    "scenario.lore/x.lore",
                    "シナリオ.lore",
                    "",
                    ".",
                )
            )
            entries.append((odd, b"section s { x = 1; }\n"))
            step += f"; a file named {odd[:20]!r}"
        elif pick < 0.36:
            entries += [(f"f{n}.txt", b"") for n in range(rng.choice((100, 2000)))]
            step += "; many files"
        elif pick < 0.42:
            entries.append((entries[0][0], b"duplicate"))
            step += "; a name twice"
        data = zip_of(entries, rng.choice((zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED)))
        if rng.random() < 0.1:
            at = rng.randrange(len(data))
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
            step += f"; zip byte at {at}"
        head = (
            "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            f"Content-Type: application/zip\r\nContent-Length: {len(data)}\r\n\r\n"
        ).encode()
        return Probe(f"upload: {step}", "upload", raw=head + data, wait=90.0)


def zip_of(entries: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w", method) as archive:
        warnings.simplefilter("ignore")  # (a name twice is meant)
        for name, data in entries:
            info = zipfile.ZipInfo(name or "_")
            if not name:
                info.filename = ""
            info.compress_type = method
            archive.writestr(info, data)
    return out.getvalue()
