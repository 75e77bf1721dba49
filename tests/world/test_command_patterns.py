"""lore check reads the patterns of a rule system's chat commands."""

from __future__ import annotations

from lore.semantics.check import check_text
from lore.world.static import check_world

PROGRAM = """import "basic.lore":url;
section s {
 broken = { pattern = "NJ{pool"; help = "";
  handler = @(n : list<integer>) : Roll { result = roll("1D6"); }; }:Command;
 escaped = { pattern = "X\\\\q"; help = "";
  handler = @(n : list<integer>) : Roll { result = roll("1D6"); }; }:Command;
 fine = { pattern = "OK{n}(@{m=1})?"; help = "";
  handler = @(n : list<integer>) : Roll { result = roll("1D6"); }; }:Command;
}
"""


def test_a_pattern_that_does_not_read_is_reported_where_it_goes_wrong() -> None:
    result = check_text(PROGRAM, "s.lore")
    assert not [d for d in result.diagnostics if d.is_error]
    first, second = check_world(result)
    assert first.render().splitlines()[:4] == [
        "s.lore:3:26: error: the pattern of the command 's.broken': '{' is not closed: write"
        " {name}",
        "  |",
        '3 |  broken = { pattern = "NJ{pool"; help = "";',
        "  |                          ^ a pattern is written as typed, with {name} for a number"
        " and (...)? for a part that may be left out",
    ]
    # With an escape in the Lore string, the whole literal is marked.
    assert second.message.startswith("the pattern of the command 's.escaped': '\\' is written")
    assert second.render().splitlines()[3].count("^") == len('"X\\\\q"')


def test_the_bundled_systems_patterns_read() -> None:
    result = check_text('import "orm.lore":url;\nimport "ninja.lore":url;\n', "t.lore")
    assert check_world(result) == []
