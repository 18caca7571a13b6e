"""One place that turns a Redis URL into a redis-py asyncio client.

``redis://`` / ``rediss://`` / ``unix://`` give a plain client;
``redis+cluster://host:port[,host:port...]`` (or ``rediss+cluster://``)
gives a :class:`redis.asyncio.cluster.RedisCluster` that discovers the
rest of the cluster from those seed nodes. The rest of the server uses
the same commands either way: every key of a room carries the room's
hash tag (``keys.py``), so a room's Lua scripts touch a single slot.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import MaxConnectionsError

__all__ = [
    "CLUSTER_SCHEMES",
    "WaitingConnectionPool",
    "is_cluster_url",
    "redis_client",
    "seed_nodes",
]

#: cluster scheme -> the plain scheme redis-py understands
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def is_cluster_url(url: str) -> bool:
    return urlsplit(url).scheme.lower() in CLUSTER_SCHEMES


def seed_nodes(url: str) -> list[tuple[str, int]]:
    """The ``host:port`` seeds of a cluster URL, in order (port 6379 if absent)."""
    hosts = urlsplit(url).netloc.rpartition("@")[2]
    seeds: list[tuple[str, int]] = []
    for part in hosts.split(","):
        one = urlsplit(f"//{part.strip()}")
        if not one.hostname:
            raise ValueError(f"cluster URL without a host: {url!r}")
        seeds.append((one.hostname, one.port or 6379))
    return seeds


class WaitingConnectionPool(ConnectionPool):
    """redis-py's pool, except that a call finding every connection busy waits
    (up to ``wait_s``) for one to come back instead of failing at once. The
    usual path costs nothing more: redis-py's ``BlockingConnectionPool`` pays a
    task and a condition for every command, this one only when it must wait."""

    def __init__(self, *args: Any, wait_s: float = 10.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.wait_s = wait_s
        self._returned = asyncio.Event()
        #: calls waiting for a connection (a release wakes them only then)
        self._waiting = 0

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().get_connection(*args, **kwargs)
        except MaxConnectionsError:
            pass
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait_s
        self._waiting += 1
        try:
            while True:
                self._returned.clear()  # a release from now on wakes the wait below
                try:
                    return await super().get_connection(*args, **kwargs)
                except MaxConnectionsError:
                    left = deadline - loop.time()
                    if left <= 0:
                        raise
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(left):
                            await self._returned.wait()
        finally:
            self._waiting -= 1

    async def release(self, connection: Any) -> None:
        await super().release(connection)
        if self._waiting:
            self._returned.set()


def redis_client(url: str, pool_wait_s: float | None = None, **kwargs: Any) -> Redis | RedisCluster:
    """A client for ``url``; cluster URLs give a cluster client.

    ``kwargs`` go to the client unchanged (``decode_responses``, timeouts).
    ``pool_wait_s``: when all ``max_connections`` are busy, a call waits this
    long for one instead of failing at once (a plain client's pool; a crowd
    leaving together must not lose its departures).
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in CLUSTER_SCHEMES:
        if pool_wait_s is not None:
            pool = WaitingConnectionPool.from_url(url, wait_s=pool_wait_s, **kwargs)
            return Redis(connection_pool=pool)
        return Redis.from_url(url, **kwargs)
    seeds = seed_nodes(url)
    auth = parts.netloc.rpartition("@")[0]
    first_host, first_port = seeds[0]
    first = f"{auth}@{first_host}:{first_port}" if auth else f"{first_host}:{first_port}"
    # a cluster has only database 0: drop any path so redis-py does not refuse it
    plain = urlunsplit((CLUSTER_SCHEMES[scheme], first, "", parts.query, ""))
    others = [ClusterNode(host, port) for host, port in seeds[1:]]
    return RedisCluster.from_url(plain, startup_nodes=others or None, **kwargs)
