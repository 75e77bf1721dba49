"""A connection's outbox: frames go out in order, at once when the socket takes them, and
through the connection's task when a send has to wait."""

from __future__ import annotations

import asyncio

from lore.server.connection import Connection, Limits


def test_frames_go_out_at_once_and_in_order_when_a_send_waits() -> None:
    async def scenario() -> list[str]:
        sent: list[str] = []
        writable = asyncio.Event()
        writable.set()

        async def send(text: str) -> None:
            await writable.wait()
            sent.append(text)

        async def close(code: int) -> None:
            sent.append(f"close {code}")

        connection = Connection(send, close, Limits())
        connection.start()
        await asyncio.sleep(0)  # the pump waits for frames
        connection.send(b"one")
        assert sent == ["one"]  # written at once, without a turn of the loop
        writable.clear()  # the socket is full: the next send waits
        connection.send(b"two")
        connection.send(b"three")
        await asyncio.sleep(0.01)
        assert sent == ["one"]
        writable.set()
        await asyncio.sleep(0.01)
        assert sent == ["one", "two", "three"]
        connection.send(b"four")
        connection.close(4000)
        await asyncio.sleep(0.01)
        await connection.stop()
        return sent

    assert asyncio.run(scenario()) == ["one", "two", "three", "four", "close 4000"]


def test_a_send_that_fails_closes_the_connection() -> None:
    async def scenario() -> bool:
        async def send(text: str) -> None:
            raise ConnectionError("gone")

        async def close(code: int) -> None:
            pass

        connection = Connection(send, close, Limits())
        connection.start()
        await asyncio.sleep(0)
        connection.send(b"one")
        await connection.stop()
        return connection.closed

    assert asyncio.run(scenario())
