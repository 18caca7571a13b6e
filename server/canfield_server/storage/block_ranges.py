"""Blocked address ranges (CIDR, IPv4 and IPv6), each for a time, for every process.

One sorted set, ``cf:block-ranges``, holds each network (its normal text,
``10.0.0.0/24``) scored by when its block ends (epoch ms), and a hash,
``cf:block-ranges:why``, who blocked it and when. Redis cannot expire one
member of a set, so lapsed ranges are pruned whenever the list is read for
the console or changed; the handshake simply ignores them.

The handshake asks about every connection, so each process keeps the list it
read for ``CACHE_S``: a new block (or a lifted one) takes effect everywhere
within about a second, and a flood of handshakes costs one read a second.
(A single address is blocked by its own expiring key, ``console_store``.)
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from canfield_server.ops.clock import Clock

__all__ = ["BlockRanges", "RANGES", "RANGES_WHY", "Network"]

RANGES = "cf:block-ranges"
RANGES_WHY = "cf:block-ranges:why"
#: how long a process trusts the list it read
CACHE_S = 1.0

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class BlockRanges:
    def __init__(self, redis: Any, clock: Clock) -> None:
        self.redis = redis
        self.clock = clock
        #: (read at, monotonic seconds; [(network, blocked until, epoch ms)])
        self._cached: tuple[float, list[tuple[Network, int]]] | None = None

    async def add(self, network: Network, seconds: int, by: str) -> None:
        now = self.clock.now_ms()
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(RANGES, {str(network): now + seconds * 1000})
            pipe.hset(RANGES_WHY, str(network), json.dumps({"by": by, "at": now}))
            await pipe.execute()
        self._cached = None  # this process sees its own block at once
        await self.prune()

    async def remove(self, network: Network) -> bool:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(RANGES, str(network))
            pipe.hdel(RANGES_WHY, str(network))
            removed, _ = await pipe.execute()
        self._cached = None
        return bool(removed)

    async def prune(self) -> None:
        """Ranges whose block has ended leave the set and the hash."""
        lapsed = await self.redis.zrangebyscore(RANGES, "-inf", self.clock.now_ms())
        if lapsed:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zrem(RANGES, *lapsed)
                pipe.hdel(RANGES_WHY, *lapsed)
                await pipe.execute()

    async def listed(self) -> list[dict[str, Any]]:
        """The ranges blocked now, for the console: ``address`` (the network),
        ``left_s``, ``by``, ``at``, ``range: true``."""
        await self.prune()
        now = self.clock.now_ms()
        entries = await self.redis.zrangebyscore(RANGES, now, "+inf", withscores=True)
        names = [_text(name) for name, _ in entries]
        whys = await self.redis.hmget(RANGES_WHY, names) if names else []
        return [
            {
                "address": name,
                "left_s": max(1, (int(until) - now + 999) // 1000),
                "range": True,
                **(json.loads(why) if why else {}),
            }
            for name, (_, until), why in zip(names, entries, whys, strict=True)
        ]

    async def covers(self, address: str) -> bool:
        """Is ``address`` inside a range blocked now? (Read at most once a ``CACHE_S``.)"""
        ip = ipaddress.ip_address(address)
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped  # a dual-stack listener's view of an IPv4 client
        now = self.clock.now_ms()
        return any(ip in network and until > now for network, until in await self._ranges())

    async def _ranges(self) -> list[tuple[Network, int]]:
        if self._cached is None or self.clock.monotonic() - self._cached[0] > CACHE_S:
            entries = await self.redis.zrangebyscore(
                RANGES, self.clock.now_ms(), "+inf", withscores=True
            )
            ranges = [(ipaddress.ip_network(_text(n)), int(until)) for n, until in entries]
            self._cached = (self.clock.monotonic(), ranges)
        return self._cached[1]
