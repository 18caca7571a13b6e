"""Departures and churn: many at once are all recorded, and nothing escapes the app.

Spectators come from several loopback addresses (127.0.0.2, .3, ...) so
the per-address join cap does not stand in the way of the test's crowd.
"""

from __future__ import annotations

import asyncio
from typing import Any

import websockets

from tests.conftest import ServerFactory
from tests.reliability.conftest import FAST_ENV, TIMEOUT, Client, lobby
from tests.server.conftest import Connect

CROWD = 150
#: spectators per source address (below the default join burst of 30)
PER_ADDRESS = 25


async def open_from(url: str, n: int) -> websockets.ClientConnection:
    address = f"127.0.0.{2 + n // PER_ADDRESS}"
    return await websockets.connect(url, open_timeout=TIMEOUT, local_addr=(address, 0))


def members(msg: dict[str, Any]) -> int:
    return len(msg["members"])


async def test_150_spectators_closing_at_once_are_all_recorded(
    server_factory: ServerFactory, connect: Connect
) -> None:
    server = server_factory(env=FAST_ENV)
    room, (ann,) = await lobby(connect, server.ws_url, ["Ann"])
    sockets = []
    for n in range(CROWD):
        ws = await open_from(server.ws_url, n)
        watcher = Client(ws)
        reply = await watcher.request(
            "joined", type="join", room=room, name=f"W{n}", role="spectator"
        )
        assert reply["type"] == "joined", reply
        sockets.append(ws)
    await ann.expect("room", lambda m: members(m) == CROWD + 1, timeout=30)

    await asyncio.gather(*(ws.close() for ws in sockets))  # all at once

    await ann.expect("room", lambda m: members(m) == 1, timeout=30)
    # the stored room agrees: a fresh spectator sees only Ann and themselves
    late = await connect(server.ws_url)
    seen = await late.join(room, "Late", "spectator")
    assert [m["name"] for m in seen["state"]["members"]] == ["Ann", "Late"]
    log = server.log()
    assert "Exception in ASGI application" not in log
    assert "Traceback" not in log


async def test_join_leave_churn_is_announced_coalesced(
    server_factory: ServerFactory, connect: Connect
) -> None:
    """Eight connections joining and leaving together, round after round, reach a
    watcher as a few room announcements a second, not one per join and leave."""
    server = server_factory(env={**FAST_ENV, "CANFIELD_ROOM_UPDATES_HZ": "4"})
    room, (ann,) = await lobby(connect, server.ws_url, ["Ann"])
    loop = asyncio.get_running_loop()
    began = loop.time()
    changes = 0

    async def join(n: int) -> websockets.ClientConnection:
        ws = await open_from(server.ws_url, n)
        reply = await Client(ws).request(
            "joined", type="join", room=room, name=f"C{n}", role="spectator"
        )
        assert reply["type"] == "joined", reply
        return ws

    for round_no in range(5):
        sockets = await asyncio.gather(*(join(round_no * 8 + k) for k in range(8)))
        await asyncio.gather(*(ws.close() for ws in sockets))
        changes += 16
        await ann.expect("room", lambda m: members(m) == 1, timeout=30)
    elapsed = loop.time() - began
    announced = [m for m in ann.log if m["type"] == "room"]
    assert len(announced) < changes  # coalesced: the latest state for many changes
    assert len(announced) <= elapsed * 4 + 5  # at most room_updates_hz a second
