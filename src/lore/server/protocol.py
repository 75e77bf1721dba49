"""The wire protocol: JSON messages over one WebSocket per client.

Every message a client sends is decoded by a typed schema (msgspec) on arrival, after its
size is checked; what does not fit is refused with a stable error code and changes
nothing. ``docs/protocol.md`` describes every message for client writers.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any

import msgspec

MAX_MESSAGE = 64 * 1024  # bytes of one client message
PROTOCOL = 1

Text = Annotated[str, msgspec.Meta(max_length=200)]
Long = Annotated[str, msgspec.Meta(max_length=4000)]
Scalar = str | int | float | bool | None
Value = Scalar | Annotated[list[str | int | float | bool], msgspec.Meta(max_length=200)]
Ref = Annotated[int, msgspec.Meta(ge=0, le=2**53)] | None


class Code(StrEnum):
    """Error codes: stable, for clients to act on (the message is for people)."""

    BAD_TOKEN = "bad_token"  # the link is unknown or revoked
    UNRESTORABLE = "unrestorable"  # the session could not be restored (the GM is told why)
    ELSEWHERE = "elsewhere"  # the session is served by another worker: connect naming it
    NOT_HELLO = "not_hello"  # the first message must be hello
    MALFORMED = "malformed"  # not JSON, or a message of the wrong shape
    TOO_LARGE = "too_large"  # larger than MAX_MESSAGE
    UNKNOWN_TYPE = "unknown_type"  # a "type" the server does not know
    RATE_LIMITED = "rate_limited"  # too many messages too fast
    STALE = "stale"  # answered from an outdated view: update first
    UNKNOWN_QUESTION = "unknown_question"  # no open question of this seat has that id
    BAD_ANSWER = "bad_answer"  # the values do not fit the question
    NO_BACK = "no_back"  # the answer before this question cannot be taken back (now)
    PAUSED = "paused"  # the GM paused the session
    ENDED = "ended"  # the session is over
    FORBIDDEN = "forbidden"  # only the GM may do that
    BAD_COMMAND = "bad_command"  # a GM command naming no such seat or actor
    BAD_ROLL = "bad_roll"  # a dice command that cannot be read
    BAD_RULING = "bad_ruling"  # a GM's ruling that cannot be made (a value of the wrong kind)
    INTERNAL = "internal"  # a fault of the server; nothing was changed


class Message(msgspec.Struct, tag_field="type", forbid_unknown_fields=True):
    ref: Ref = None  # echoed in the reply (ack, error, route, log)


class Hello(Message, tag="hello"):
    token: Text = ""
    seq: Annotated[int, msgspec.Meta(ge=0)] | None = None  # the last sequence number seen
    lang: Text | None = None


class Answer(Message, tag="answer"):
    id: Text = ""
    values: Annotated[dict[Text, Value], msgspec.Meta(max_length=64)] = {}
    seq: Annotated[int, msgspec.Meta(ge=0)] = 0


class Back(Message, tag="back"):
    id: Text = ""  # the open question gone back at: the seat's answer before it is taken back


class Chat(Message, tag="chat"):
    text: Long = ""
    to: Text | None = None  # a seat: a private message (the GM sees it too)
    secret: bool = False  # a roll seen only by the roller and the GM


class Preview(Message, tag="preview"):
    id: Text = ""
    goal: Text = ""


class Ping(Message, tag="ping"):
    pass


class Pause(Message, tag="pause"):
    pass


class Resume(Message, tag="resume"):
    pass


class End(Message, tag="end"):
    pass


class Assign(Message, tag="assign"):
    actor: Text = ""
    seat: Text = ""


class Rule(Message, tag="rule"):
    """A GM's ruling: ``member`` of the object ``object`` (as its sheet names it) is
    ``value`` from now on; ``secret``: told to the GM alone."""

    object: Text = ""
    member: Text = ""
    value: Value = None
    secret: bool = False


class Check(Message, tag="check"):
    """The GM's improvised check: the rules' check ``check`` (a ``GMCheck`` value's name)
    of the actor ``actor`` with ``ability``, a modifier and a target (0: none)."""

    check: Text = ""
    actor: Text = ""
    ability: Text = ""
    modifier: Annotated[int, msgspec.Meta(ge=-1000, le=1000)] = 0
    target: Annotated[int, msgspec.Meta(ge=-1000, le=1000)] = 0
    secret: bool = False


class EndScene(Message, tag="end_scene"):
    """The GM ends a scene by ruling (a ``SceneEnd`` value's name) with one of its
    outcomes; the rules end it where they can (a fight: at the end of the turn)."""

    scene: Text = ""
    outcome: Text = ""


class Arrive(Message, tag="arrive"):
    """The GM brings an actor in by ruling (an ``Arrival`` value's name, one of its
    kinds): its handler makes it and takes it in, in a step right after."""

    arrival: Text = ""
    kind: Text = ""
    secret: bool = False


class TakeBack(Message, tag="take_back"):
    """The GM takes back the last ruling, while nothing followed from it."""


class RuleRolls(Message, tag="rule_rolls"):
    """The table's setting: the GM rules on every roll the rules let the GM rule on
    (``Roll.ruled``), from the next step on; ``every`` false: only on those the rules
    mark ``approvedByGM``."""

    every: bool = False


class AddSeat(Message, tag="add_seat"):
    label: Text = ""


class RemoveSeat(Message, tag="remove_seat"):
    seat: Text = ""


class Revoke(Message, tag="revoke"):
    seat: Text = ""


class NewLink(Message, tag="new_link"):
    seat: Text = ""


class Log(Message, tag="log"):
    pass


class History(Message, tag="history"):
    before: Annotated[int, msgspec.Meta(ge=0)] = 0  # the seat's messages before this one


ClientMessage = (
    Hello
    | Answer
    | Back
    | Chat
    | Preview
    | Ping
    | Pause
    | Resume
    | End
    | Assign
    | Rule
    | RuleRolls
    | Check
    | EndScene
    | Arrive
    | TakeBack
    | AddSeat
    | RemoveSeat
    | Revoke
    | NewLink
    | Log
    | History
)
GM_ONLY = (
    Pause,
    Resume,
    End,
    Assign,
    Rule,
    RuleRolls,
    Check,
    EndScene,
    Arrive,
    TakeBack,
    AddSeat,
    RemoveSeat,
    Revoke,
    NewLink,
    Log,
)

_decoder = msgspec.json.Decoder(ClientMessage)
# The decoder's own method: the hub's, for a message of bytes within ``MAX_MESSAGE`` (the
# most of them), ``decode`` for any other and when it fails (its error).
decoder: Callable[[bytes], ClientMessage] = _decoder.decode
_encoder = msgspec.json.Encoder()


class Refused(Exception):
    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def decode(data: str | bytes) -> ClientMessage:
    """A client message (Refused with MALFORMED, TOO_LARGE or UNKNOWN_TYPE)."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_MESSAGE:
        raise Refused(Code.TOO_LARGE, f"a message is at most {MAX_MESSAGE} bytes, not {size}")
    try:
        message: ClientMessage = _decoder.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as error:
        raise refusal(error) from None
    return message


def refusal(error: msgspec.DecodeError | UnicodeDecodeError | RecursionError) -> Refused:
    """Why a message the decoder refused is refused (``decode``'s, and the hub's for the
    messages it decodes with ``decoder`` itself). (The decoder raises UnicodeDecodeError
    for a string of bytes that are not UTF-8, and RecursionError for arrays or objects
    nested thousands deep, even in a field the message does not have.)"""
    if isinstance(error, RecursionError):
        return Refused(Code.MALFORMED, "not a message: arrays or objects nested too deeply")
    if isinstance(error, UnicodeDecodeError):
        return Refused(
            Code.MALFORMED, f"not UTF-8 text: byte {error.start} is not ({error.reason})"
        )
    if isinstance(error, msgspec.ValidationError):
        text = str(error)
        if text.endswith("at `$.type`") or text.startswith("Object missing required field `type`"):
            return Refused(Code.UNKNOWN_TYPE, f"unknown message type: {text}")
        return Refused(Code.MALFORMED, text)
    return Refused(Code.MALFORMED, f"not JSON: {error}")


# A frame as JSON bytes: the encoder's own method, not a function calling it (a few
# frames per answer).
encode: Callable[[Any], bytes] = _encoder.encode


def error_frame(code: Code, message: str, ref: int | None = None) -> bytes:
    frame: dict[str, Any] = {"type": "error", "code": code.value, "message": message}
    if ref is not None:
        frame["ref"] = ref
    return encode(frame)
