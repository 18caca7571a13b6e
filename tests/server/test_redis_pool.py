"""The Redis pool waits for a connection instead of failing (storage/cluster.py).

Promise: when every pooled connection is busy, a call waits for one to come
back (bounded by ``CANFIELD_REDIS_POOL_WAIT_S``) - a crowd leaving at once
records every departure - and fails with a clear error only past that wait.
"""

from __future__ import annotations

import asyncio

import pytest
from canfield_server.storage.cluster import redis_client
from canfield_server.storage.embedded_redis import EmbeddedRedis
from redis.asyncio import Redis
from redis.exceptions import MaxConnectionsError


async def test_calls_past_the_pool_size_wait_their_turn(redis_server: EmbeddedRedis) -> None:
    redis = redis_client(redis_server.url, pool_wait_s=10, max_connections=2)
    assert isinstance(redis, Redis)  # a single redis-server: one pool
    try:
        # each call holds a connection for 0.1 s: 12 of them on 2 connections
        results = await asyncio.gather(*(redis.blpop([f"nothing{n}"], 0.1) for n in range(12)))
        assert results == [None] * 12
        assert len(redis.connection_pool._in_use_connections) == 0  # every one came back
    finally:
        await redis.aclose()


async def test_past_the_wait_a_call_fails_clearly(redis_server: EmbeddedRedis) -> None:
    redis = redis_client(redis_server.url, pool_wait_s=0.05, max_connections=1)
    other = Redis.from_url(redis_server.url)
    assert isinstance(redis, Redis)  # a single redis-server: one pool
    try:
        # the one connection held until another client lets it go (60 s at most)
        holder = asyncio.ensure_future(redis.blpop(["nothing"], 60))
        async with asyncio.timeout(10):  # until the one connection is taken
            while not redis.connection_pool._in_use_connections:
                await asyncio.sleep(0.001)
        with pytest.raises(MaxConnectionsError):
            await redis.get("x")
        await other.lpush("nothing", "go")
        assert await holder == (b"nothing", b"go")
        assert await redis.get("x") is None  # the connection back, calls go through
    finally:
        await redis.aclose()
        await other.aclose()
