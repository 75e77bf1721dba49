"""The chat commands of ``lore join``: a line typed at the terminal that starts with ``/``.

The line after the slash goes to the chat as a line typed in the web client's chat box
goes: the server decides whether it is a dice command, and rolls it (``lore.server.chat``,
the same for every client); no dice are read here.
"""

from __future__ import annotations

SLASHES = ("/", "\uff0f")  # the full-width one too, typed with the IME on
CHAT_HELP = """\
   chat commands (a line typed while no question is open goes to the chat as it is):
   /2D6, /2D6+3>=10, /S2D6   roll a dice command (BCDice's, or the rule system's: NJ7@2);
                             S first: a secret roll, seen by you and the GM
   /roll 2D6, /r 2D6         the same, and an error if what follows is no dice command
   /say TEXT, /TEXT          say TEXT in the chat (a dice command rolls)
   /help                     this list"""


def chat_text(command: str) -> str:
    """What a chat command (the line after its slash) sends: ``roll 2D6`` and ``r 2D6`` as
    they are (the server rolls what follows, or refuses it), ``say TEXT`` its text, any
    other line itself (the server rolls it when it is a dice command, as a line typed in
    the web client's chat box)."""
    word, _, rest = command.strip().partition(" ")
    if word.lower() in ("roll", "r"):
        return f"/{command.strip()}"
    if word.lower() == "say":
        return rest.strip()
    return command.strip()
