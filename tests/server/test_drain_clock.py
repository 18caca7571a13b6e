"""A drain on a manual clock, in process: new sockets refused, open ones told to
reconnect, and the exit at the deadline when a connection never goes (the
rolling upgrade with real processes is tests/deploy/test_drain.py)."""

from __future__ import annotations

import asyncio

from canfield_server.transport.drain import CLOSE_CODE, Drain

from tests.server.conftest import MakeRooms
from tests.server.inprocess import AsgiSocket, socket_endpoint


async def test_a_drain_refuses_new_sockets_and_exits_at_its_deadline(rooms: MakeRooms) -> None:
    made = await rooms()
    clock = made.clock
    endpoint = socket_endpoint(made.hubs[0], clock)
    exits: list[int] = []
    drain = Drain(endpoint, clock, exit=lambda: exits.append(clock.now_ms()))

    # a connection that never goes: it ignores the close it is sent
    socket = await AsgiSocket(endpoint).open()
    assert (await socket.sent())["type"] == "websocket.accept"
    started_ms = clock.now_ms()
    assert drain.start(30, "test") and not drain.start(30, "again")
    assert drain.deadline_ms == started_ms + 30_000
    assert (await socket.reply())["type"] == "reconnect"
    closed = await socket.sent()
    assert (closed["type"], closed["code"]) == ("websocket.close", CLOSE_CODE)

    refused = await AsgiSocket(endpoint).open()
    answer = await refused.sent()
    assert (answer["type"], answer["status"]) == ("websocket.http.response.start", 503)
    assert refused.served is not None
    await asyncio.wait_for(refused.served, 5)

    await clock.advance(29.5)
    assert exits == []  # the connection is still open and the deadline not reached
    await clock.advance(1.0)
    assert len(exits) == 1 and exits[0] >= started_ms + 30_000
    await socket.close()
