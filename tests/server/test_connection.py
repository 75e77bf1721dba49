"""A connection as the hub sees it: frames go to its socket until it closes, and its
rate is limited."""

from __future__ import annotations

from lore.server.connection import CLOSE_POLICY, Connection, Limits


def test_frames_go_to_the_socket_until_the_connection_closes() -> None:
    written: list[bytes | int] = []
    connection = Connection(written.append, written.append, Limits())
    connection.send(b"one")
    connection.send(b"two")
    connection.close(4000)
    connection.close(4001)  # closed once
    connection.send(b"three")  # not after the close
    assert written == [b"one", b"two", 4000]
    assert connection.closed


def test_too_many_messages_are_refused_and_then_the_client_is_disconnected() -> None:
    written: list[bytes | int] = []
    connection = Connection(written.append, written.append, Limits(0.001, 3.0, 2))
    assert [connection.allow() for _ in range(5)] == [True, True, True, False, False]
    assert not connection.closed
    assert connection.allow() is False  # the third refusal in a row
    assert connection.closed and written == [CLOSE_POLICY]
