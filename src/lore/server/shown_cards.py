"""Roll cards as a seat is sent them: a rule's roll (``lore.engine.shown_rolls``) and a
roll typed in the chat, both ``roll`` items of the seat's messages with the card's facts.

A rule's card is the transcript's ``roll`` record without whom it is for (``to``) and
with the seat that rolled as ``from``; a chat roll's card adds to the chat's ``roll``
item its dice, total and outcome (from the roll's result kept in the log).
"""

from __future__ import annotations

from typing import Any

_LEFT_OUT = frozenset(("to", "seat"))


def shown_card(record: dict[str, Any]) -> dict[str, Any]:
    """A rule's roll card as the seats it is for are sent it."""
    card: dict[str, Any] = {"kind": "roll", "tick": record["tick"], "from": record["seat"]}
    card.update((k, v) for k, v in record.items() if k not in _LEFT_OUT and k not in card)
    return card


def ruling_item(record: dict[str, Any]) -> dict[str, Any]:
    """A GM's ruling as the seats it is for are sent it (``lore.engine.rulings``)."""
    item: dict[str, Any] = {"kind": "ruling", "tick": record["tick"], "from": "GM"}
    item.update((k, v) for k, v in record.items() if k != "to" and k not in item)
    return item


def chat_card(result: dict[str, Any]) -> dict[str, Any]:
    """What a chat roll's card shows beyond its text: every die (face and sides), the
    total, the outcome, a critical or a fumble (``RollResult.to_json``)."""
    card: dict[str, Any] = {
        "dice": [{"face": die["value"], "sides": die["sides"]} for die in result.get("dice", ())]
    }
    if result.get("total") is not None:
        card["total"] = result["total"]
    if result.get("success") or result.get("failure"):
        card["outcome"] = "success" if result.get("success") else "failure"
    for flag in ("critical", "fumble"):
        if result.get(flag):
            card[flag] = True
    return card
