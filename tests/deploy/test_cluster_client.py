"""The Redis client factory against a real local 3-master cluster."""

from __future__ import annotations

import asyncio

import pytest
from canfield_server.storage.cluster import is_cluster_url, redis_client, seed_nodes
from canfield_server.storage.embedded_redis import EmbeddedRedis
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from tests.deploy.conftest import LocalRedisCluster


def test_plain_and_cluster_urls_are_told_apart() -> None:
    assert is_cluster_url("redis+cluster://10.0.0.1:7000")
    assert is_cluster_url("rediss+cluster://a:7000,b:7001")
    assert not is_cluster_url("redis://127.0.0.1:6379/0")
    assert not is_cluster_url("unix:///tmp/redis.sock?db=0")
    assert seed_nodes("redis+cluster://user:pw@a:7000,b,[::1]:7002/0") == [
        ("a", 7000),
        ("b", 6379),
        ("::1", 7002),
    ]
    with pytest.raises(ValueError):
        seed_nodes("redis+cluster://:7000")


async def test_plain_url_gives_a_plain_client(redis_server: EmbeddedRedis) -> None:
    client = redis_client(redis_server.url, decode_responses=True)
    try:
        assert isinstance(client, Redis)
        assert await client.ping()
    finally:
        await client.aclose()


async def test_cluster_client_routes_room_keys_to_one_slot(
    redis_cluster: LocalRedisCluster,
) -> None:
    client = redis_client(redis_cluster.url, decode_responses=True)
    try:
        assert isinstance(client, RedisCluster)
        await client.initialize()
        # rooms spread over the masters, but one room's keys share a slot
        owners = set()
        for room in ("ABC234", "XYZ789", "MNP456", "QRS222", "HJK333", "TUV444"):
            keys = [f"room:{{{room}}}:meta", f"room:{{{room}}}:players"]
            slots = {client.keyslot(key) for key in keys}
            assert len(slots) == 1
            node = client.get_node_from_key(keys[0])
            assert node is not None
            owners.add(node.port)
            # a multi-key script in one slot is accepted by the cluster
            script = client.register_script(
                "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('SADD', KEYS[2], ARGV[1])"
            )
            assert await script(keys=keys, args=[room]) == 1
            assert await client.get(keys[0]) == room
        assert len(owners) >= 2, "six room codes all hashed to one master"
    finally:
        await client.aclose()


async def test_classic_pubsub_crosses_cluster_nodes(redis_cluster: LocalRedisCluster) -> None:
    """PUBLISH on one node reaches a subscriber connected to another (6.2 broadcast)."""
    ports = redis_cluster.ports
    subscriber = Redis(host="127.0.0.1", port=ports[0], decode_responses=True)
    publisher = Redis(host="127.0.0.1", port=ports[2], decode_responses=True)
    pubsub = subscriber.pubsub()
    try:
        await pubsub.subscribe("room:{ABC234}:events")
        first = await pubsub.get_message(timeout=5)
        assert first and first["type"] == "subscribe"
        # the count is of subscribers on the publishing node only: 0 here
        await publisher.publish("room:{ABC234}:events", "hello")
        message = None
        async with asyncio.timeout(5):
            while message is None:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
        assert message["data"] == "hello"
    finally:
        await pubsub.aclose()
        await subscriber.aclose()
        await publisher.aclose()
