"""Running small Lore programs in tests: what the GM is told."""

from __future__ import annotations

from lore.engine.participants import Participants, Scripted
from lore.engine.session import Limits, Session
from lore.runtime.compiler import compile_program
from lore.semantics.check import check_text


def gm_messages(text: str, limits: Limits | None = None, seed: int = 0) -> list[str]:
    """Check and run ``text`` (a file that imports basic.lore); the GM's messages, with
    each rule error as ``error: <message>``."""
    result = check_text(text, "test.lore")
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    gm = Scripted([])
    session = Session(compile_program(result), seed, Participants({"GM": gm}), limits)
    session.run()
    return [
        str(record["text"]) if record["kind"] == "message" else f"error: {record['message']}"
        for record in gm.told
    ]


def say_each(*lines: str) -> str:
    """A program whose one event tells the GM ``"<n>: " + <expression>`` for each line."""
    body = "\n".join(f'  GM.message("{n}: " + ({line}));' for n, line in enumerate(lines))
    return (
        'import "basic.lore":url;\n'
        "section t {\n"
        " form Hero { name : string; hp : integer; }\n"
        ' aki = { name = "Aki"; hp = 7; }:Hero;\n'
        ' ren = { name = "Ren"; hp = 3; }:Hero;\n'
        ' mio = { name = "Mio"; hp = 7; }:Hero;\n'
        " go = { ticks = 0; priority = 0; handler = @{\n"
        f"{body}\n"
        " }; }:Event;\n"
        "}\n"
    )
