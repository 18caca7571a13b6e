"""A thousand players vanish at once, across two processes: no ghost stays.

Promise (room/presence.py, storage/batch.py): when every connection drops
at the same moment (a proxy restart, a network blip), each departure is
recorded (they share round trips instead of exhausting Redis connections),
every racer is away, and once the grace time is over every race ends with
its results - with nobody connected, so the timer sweep does it. Two real
server processes share one redis-server; 100 rooms of 10 racers, each room
spread over both processes; all 1,000 sockets are cut without a goodbye.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import msgspec
import redis
import websockets
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.conftest import ServerFactory
from tests.reliability.conftest import FAST_ENV, TIMEOUT, Client

ROOMS = 100
PER_ROOM = 10
GRACE_S = 3
ENV = {
    **FAST_ENV,
    "CANFIELD_PRESENCE_S": "1",
    "CANFIELD_AWAY_GRACE_S": str(GRACE_S),
    "CANFIELD_TIMER_SWEEP_S": "0.5",
    "CANFIELD_JOINS_PER_IP_BURST": "100000",
    "CANFIELD_MAX_OPEN_ROOMS_PER_IP": "0",
    "CANFIELD_MAX_NEW_ROOMS_PER_IP_PER_MIN": "0",
    "CANFIELD_ROOM_UPDATES_HZ": "2",
}
DEAL = "CF1-D3-AAAAACL"


async def open_room(urls: list[str], index: int) -> list[Client]:
    """A host and nine racers, alternating between the two processes; started."""
    clients = []
    host = Client(await websockets.connect(urls[index % 2], open_timeout=TIMEOUT, max_size=None))
    joined = await host.create(f"Host {index}", deal=DEAL)
    assert joined["type"] == "joined", joined
    clients.append(host)
    for seat in range(1, PER_ROOM):
        url = urls[(index + seat) % 2]
        racer = Client(await websockets.connect(url, open_timeout=TIMEOUT, max_size=None))
        reply = await racer.join(joined["room"], f"R{index}-{seat}")
        assert reply["type"] == "joined", reply
        clients.append(racer)
    await host.send(type="start", force=True)
    for client in clients:
        await client.expect("started", timeout=60)
    return clients


def rooms_in(db: redis.Redis) -> dict[str, tuple[dict[str, Any], bytes | None]]:
    found: dict[str, tuple[dict[str, Any], bytes | None]] = {}
    for key in db.scan_iter(match="cf:{*}:room", count=1000):
        state, final = db.hmget(key, "state", "final")
        # a client without decode_responses: every stored value is bytes
        assert isinstance(state, bytes) and isinstance(final, bytes | None)
        found[key.decode()] = (json.loads(state), final or None)
    return found


async def test_a_thousand_players_dropping_at_once_leave_no_ghost(
    enough_descriptors: None,
    redis_server: EmbeddedRedis,
    server_factory: ServerFactory,
) -> None:
    servers = [server_factory(env=ENV) for _ in range(2)]
    urls = [s.ws_url for s in servers]
    everyone: list[Client] = []
    for start in range(0, ROOMS, 10):  # ten rooms at a time
        opened = await asyncio.gather(*(open_room(urls, i) for i in range(start, start + 10)))
        everyone += [client for room in opened for client in room]
    assert len(everyone) == ROOMS * PER_ROOM

    dropped = time.monotonic()
    for client in everyone:  # no closing handshake: the sockets just die
        client.ws.transport.abort()

    db = redis.Redis.from_url(redis_server.url)
    deadline = dropped + GRACE_S + 90
    while True:
        rooms = rooms_in(db)
        ended = [key for key, (_, final) in rooms.items() if final]
        if len(ended) == ROOMS or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.25)  # another process's state: polled, there is no event
    took = time.monotonic() - dropped
    ghosts = sum(len(state["members"]) for state, _ in rooms.values())
    print(f"\n{len(ended)}/{ROOMS} races ended {took:.1f} s after the drop; ghosts: {ghosts}")
    assert len(ended) == ROOMS
    assert ghosts == 0
    for state, final in rooms.values():
        assert final is not None
        standings = msgspec.json.decode(final)["standings"]
        assert len(standings) == PER_ROOM
        assert {row["status"] for row in standings} == {"left"}
        assert state["phase"] == "finished"
    # nothing left to time, once the sweeps still settling the last rooms are done
    async with asyncio.timeout(60):  # generous: a loaded machine sweeps late
        while db.zcard("cf:due"):
            await asyncio.sleep(0.25)
    for server in servers:
        log = server.log()
        assert "Too many connections" not in log
        assert "presence update lost" not in log
        assert "Traceback" not in log
