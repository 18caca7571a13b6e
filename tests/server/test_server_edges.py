"""The server's edges, with real processes: shutdown, origins, rate limits, expiry."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from canfield_bench.processes import ServerProcess
from canfield_server.storage.embedded_redis import EmbeddedRedis
from redis.asyncio import Redis
from websockets.typing import Origin

from tests.conftest import ServerFactory, decoded
from tests.server.conftest import Connect


async def test_sigterm_tells_clients_to_reconnect_then_closes(
    server: ServerProcess, connect: Connect
) -> None:
    client = await connect(server.ws_url)
    await client.create("Ann")
    assert server.process is not None
    server.process.terminate()
    msg = await client.expect("reconnect")
    assert msg["retry_ms"] > 0
    with pytest.raises(websockets.ConnectionClosed):
        await client.expect("anything")
    assert client.ws.close_code == 1012
    assert await asyncio.to_thread(server.process.wait, 10) == 0


async def test_only_allowed_origins_may_open_a_socket(server_factory: ServerFactory) -> None:
    srv = server_factory(env={"CANFIELD_ALLOWED_ORIGINS": "https://cards.example"})
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(srv.ws_url, origin=Origin("https://evil.example"))
    assert refused.value.response.status_code == 403
    async with websockets.connect(srv.ws_url, origin=Origin("https://cards.example")) as ws:
        await ws.send(json.dumps({"type": "ping", "t": 1}))
        assert json.loads(await ws.recv())["type"] == "pong"


async def test_a_flood_is_rate_limited_and_the_connection_survives(
    server_factory: ServerFactory, connect: Connect
) -> None:
    srv = server_factory(env={"CANFIELD_RATE_PER_S": "5", "CANFIELD_RATE_BURST": "10"})
    client = await connect(srv.ws_url)
    for i in range(30):
        await client.send(type="ping", t=i)
    replies = [json.loads(await client.ws.recv()) for _ in range(30)]
    pongs = [r["t"] for r in replies if r["type"] == "pong"]
    assert pongs[:10] == list(range(10)) and len(pongs) < 30  # the burst passes, no more
    assert {r["code"] for r in replies if r["type"] == "error"} == {"rate-limited"}
    # the connection survives the flood: it answers a WebSocket ping after every
    # reply (a close would come first); that the limit lifts as time passes is
    # tested on a manual clock (test_ratelimit.py)
    await asyncio.wait_for(await client.ws.ping(), 5)
    assert client.ws.close_code is None


async def test_rooms_expire_after_inactivity_and_activity_refreshes_them(
    redis_server: EmbeddedRedis,
    server_factory: ServerFactory,
    connect: Connect,
) -> None:
    srv = server_factory(env={"CANFIELD_ROOM_TTL_S": "120", "CANFIELD_COUNTDOWN_S": "0.2"})
    client = await connect(srv.ws_url)
    room = (await client.create("Ann"))["room"]
    redis = Redis.from_url(redis_server.url)
    try:
        keys = sorted(decoded(k) for k in await redis.keys(f"cf:{{{room}}}:*"))
        assert keys and all(f"{{{room}}}" in k for k in keys)  # one hash slot per room
        for key in keys:
            assert 0 < await redis.ttl(key) <= 120
        await redis.expire(f"cf:{{{room}}}:room", 30)
        await client.send(type="start", force=True)
        await client.expect("started")
        await client.request("ack", type="move", seq=1, move="S")
        assert await redis.ttl(f"cf:{{{room}}}:room") > 30  # a move is activity
        player_keys = await redis.keys(f"cf:{{{room}}}:p:*")
        assert len(player_keys) == 2  # the player's snapshot and event log
        for player_key in player_keys:
            assert 0 < await redis.ttl(player_key) <= 120
    finally:
        await redis.aclose()
