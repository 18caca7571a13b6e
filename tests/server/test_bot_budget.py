"""Bots the server launches have their own budget, and a host hears of a bot that failed.

Promise: every bot a server runs connects from the server's own address,
so on the per-address join budget one host adding bots would use up every
other room's bots; instead a launched bot is limited by the room's and the
server's bot limits only. A bot that cannot take its seat is reported to
the host (``bot_failed``), not only written to the log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from canfield_protocol import AddBot, Create
from canfield_server.ops.config import Settings
from canfield_server.storage.embedded_redis import EmbeddedRedis
from redis.asyncio import Redis

from tests.conftest import ServerFactory
from tests.server.conftest import FAST_ENV, Connect
from tests.server.helpers import redis_hub
from tests.server.inprocess import MemoryPeer

TIMEOUT = 30.0


async def test_bots_of_two_rooms_all_join_on_a_tiny_join_budget(
    server_factory: ServerFactory, connect: Connect
) -> None:
    server = server_factory(
        env={
            **FAST_ENV,
            "CANFIELD_JOINS_PER_IP_BURST": "1",
            "CANFIELD_JOINS_PER_IP_PER_S": "0.001",
            "CANFIELD_BOT_PACE_S": "0.5",
        }
    )
    hosts = []
    for name in ("Ann", "Bob"):
        host = await connect(server.ws_url)
        assert (await host.create(name))["type"] == "joined"
        hosts.append(host)
    for host in hosts:
        for _ in range(3):
            await host.send(type="add_bot")
    for host in hosts:
        room = await host.expect(
            "room", lambda m: sum(x["bot"] for x in m["members"]) == 3, TIMEOUT
        )
        assert len(room["members"]) == 4
    # the budget still holds for everyone else on that address
    other = await connect(server.ws_url)
    assert (await other.join(hosts[0].joined["room"], "Cy", "spectator"))["type"] == "joined"
    late = await connect(server.ws_url)
    refused = await late.join(hosts[0].joined["room"], "Dee", "spectator")
    assert refused["code"] == "rate-limited"


class RefusedSeat(Exception):
    """What the Python client raises when the server refuses a join."""

    def __init__(self, code: str) -> None:
        super().__init__(f"refused: {code}")
        self.code = code


async def test_a_host_is_told_when_a_bot_cannot_take_its_seat(redis_server: EmbeddedRedis) -> None:
    started = asyncio.Event()

    def bots(room_code: str, name: str, **options: Any) -> Coroutine[Any, Any, int]:
        async def run() -> int:
            started.set()
            raise RefusedSeat("room-full")

        return run()

    redis = Redis.from_url(redis_server.url)
    hub = redis_hub(redis, redis_server.url, Settings(), bots=bots)
    try:
        host = MemoryPeer()
        await hub.handle(host, Create(name="Ann"))
        await host.expect("joined")
        await hub.handle(host, AddBot())
        told = await host.expect("bot_failed")
        assert told["name"] == "Bot 1" and told["code"] == "room-full"
        assert started.is_set()
        # the room is as it was: no bot seat, and the name is free again
        await hub.handle(host, AddBot())
        again = await host.expect("bot_failed")
        assert again["name"] == "Bot 1"
    finally:
        await hub.shutdown()
        await redis.aclose()
