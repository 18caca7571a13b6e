"""The public races' queue in Redis (``room.ports.MatchQueue``).

Each pool (a draw mode; later also a rating band) has at most one race it
gathers into, one string key holding its room code, so players on any
process meet in the same race. A race leaves its pool when a seat in it
is refused (full, started): compare-and-delete, so a newer race offered
meanwhile stays. Races in progress are a sorted set by start time.
"""

from __future__ import annotations

from redis.asyncio import Redis, RedisCluster

from canfield_server.storage import keys
from canfield_server.storage.move_script import move_script

__all__ = ["CLOSE_RACE", "RedisMatchQueue"]

#: KEYS[1] the pool's key  ARGV[1] the code that takes nobody more
CLOSE_RACE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

#: a race in progress is forgotten this long after it started, if nobody drops it
LIVE_KEEP_MS = 3 * 3600 * 1000


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisMatchQueue:
    def __init__(self, redis: Redis | RedisCluster, url: str) -> None:
        self.redis = redis
        self._close = move_script(redis, url, CLOSE_RACE)

    async def close(self) -> None:
        await self._close.close()

    async def open_race(self, pool: str) -> str | None:
        code = await self.redis.get(keys.quick(pool))
        return _text(code) if code else None

    async def offer_race(self, pool: str, code: str, ttl_s: int) -> bool:
        return bool(await self.redis.set(keys.quick(pool), code, nx=True, ex=ttl_s))

    async def close_race(self, pool: str, code: str) -> None:
        await self._close(keys=[keys.quick(pool)], args=[code])

    async def live_add(self, code: str, started_at: int) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(keys.LIVE, {code: started_at})
            pipe.zremrangebyscore(keys.LIVE, "-inf", started_at - LIVE_KEEP_MS)
            await pipe.execute()

    async def live(self, limit: int) -> list[str]:
        codes = await self.redis.zrevrange(keys.LIVE, 0, limit - 1)
        return [_text(c) for c in codes if isinstance(c, bytes | str)]

    async def live_drop(self, code: str) -> None:
        await self.redis.zrem(keys.LIVE, code)
