"""Text from other people made safe to print at a terminal.

Chat lines, seat labels, rule messages and question texts come from the server, and some
of them from other players: printed as they are, a terminal would obey the control
sequences they hold (clear the screen, set the window's title, write the clipboard with
OSC 52, move the cursor to overwrite earlier lines). ``printable`` drops every escape
sequence (ECMA-48: CSI, OSC, DCS, SOS, PM, APC, in their 7-bit and 8-bit forms, and the
two-character ones), every other control character but newline and tab (C0, DEL, C1),
and the bidirectional overrides and isolates that make a line read otherwise than it is
stored (the "Trojan Source" characters).
"""

from __future__ import annotations

import re

# A string (OSC ...) ends with BEL or ST (7- or 8-bit), before another ESC, or with the text.
_STRING_END = r"(?:\x07|\x1b\\|\x9c|(?=\x1b)|$)"
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"  # CSI: cursor, colours, erase
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*"
    + _STRING_END  # OSC, DCS...
    + r"|\x1b[\x20-\x2f]*[\x30-\x7e]?",  # the other escapes (ESC c resets the terminal)
    re.DOTALL,
)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` without escape sequences, control characters (newline and tab are kept)
    or bidirectional overrides."""
    return _CONTROLS.sub("", _ESCAPES.sub("", text))
