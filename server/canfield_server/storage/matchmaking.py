"""The public races' queue in Redis (``room.ports.MatchQueue``).

Each pool (a draw mode) keeps the races it gathers into in a sorted set by
their first racer's rating, with the ms each opened beside it (one hash
tag). One script finds a racer's race, or opens theirs, atomically, so
players on any process meet in the same race and two close racers
arriving together never open two. A race's band (how far from its
rating it takes racers) widens with its wait (``room.ports.Band``). A
race leaves its pool when a seat in it is refused (full, started). Races
in progress are a sorted set by start time. The racers waiting alone in a
pool are a sorted set by when each stops counting (told again at every
look), so their waiting screens can say how many search.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.asyncio import Redis, RedisCluster

from canfield_server.room.ports import RaceSearch, Waiting
from canfield_server.storage import keys
from canfield_server.storage.move_script import move_script

__all__ = ["CLOSE_RACE", "FIND_RACE", "RedisMatchQueue"]

#: KEYS[1] open races (code -> rating)  KEYS[2] code -> ms opened
#: ARGV rating, now ms, offer (code or ''), ttl ms, points, widen points, widen ms, most points,
#: mine (the race the racer waits alone in, or '')
#: Returns the race's code, or false (none, and nothing offered). Races older than
#: the ttl are dropped on the way (their rooms are gone). ``mine`` is never the
#: answer; it leaves the pool when another race is found, else it stays (or comes
#: back) with the time it opened kept.
FIND_RACE = """
local rating, now, offer, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local points, widen = tonumber(ARGV[5]), tonumber(ARGV[6])
local every, most, mine = tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9]
local near = redis.call('ZRANGEBYSCORE', KEYS[1], rating - most, rating + most, 'WITHSCORES')
local best, best_gap, best_since = false, 0, 0
for i = 1, #near, 2 do
  local code, centre = near[i], tonumber(near[i + 1])
  local since = tonumber(redis.call('HGET', KEYS[2], code) or now)
  if now - since > ttl then
    redis.call('ZREM', KEYS[1], code)
    redis.call('HDEL', KEYS[2], code)
  elseif code ~= mine then
    local width = math.min(points + widen * math.floor(math.max(0, now - since) / every), most)
    local gap = math.abs(centre - rating)
    local closer = not best or gap < best_gap or (gap == best_gap and since < best_since)
    if gap <= width and closer then best, best_gap, best_since = code, gap, since end
  end
end
if best then
  if mine ~= '' then
    redis.call('ZREM', KEYS[1], mine)
    redis.call('HDEL', KEYS[2], mine)
  end
  return best
end
local keep = offer ~= '' and offer or mine
if keep == '' then return false end
redis.call('ZADD', KEYS[1], rating, keep)
redis.call('HSETNX', KEYS[2], keep, now)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return keep
"""

#: KEYS[1] open races  KEYS[2] code -> ms opened  ARGV[1] the code that takes nobody more
CLOSE_RACE = """
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])
"""

#: a race in progress is forgotten this long after it started, if nobody drops it
LIVE_KEEP_MS = 3 * 3600 * 1000


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisMatchQueue:
    def __init__(self, redis: Redis | RedisCluster, url: str) -> None:
        self.redis = redis
        self._find = move_script(redis, url, FIND_RACE)
        self._close = move_script(redis, url, CLOSE_RACE)

    async def close(self) -> None:
        await self._find.close()
        await self._close.close()

    async def find_race(self, search: RaceSearch) -> str | None:
        found = await self._find(
            keys=[keys.quick_open(search.pool), keys.quick_since(search.pool)],
            args=[
                search.rating,
                search.now_ms,
                search.offer,
                search.ttl_s * 1000,
                *search.band,
                search.mine,
            ],
        )
        return _text(found) if found else None

    async def close_race(self, pool: str, code: str) -> None:
        await self._close(keys=[keys.quick_open(pool), keys.quick_since(pool)], args=[code])

    async def reopen_race(self, pool: str, code: str, rating: int, now_ms: int, ttl_s: int) -> None:
        open_key, since_key = keys.quick_open(pool), keys.quick_since(pool)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(open_key, {code: rating})
            pipe.hsetnx(since_key, code, now_ms)
            pipe.pexpire(open_key, ttl_s * 1000)
            pipe.pexpire(since_key, ttl_s * 1000)
            await pipe.execute()

    async def still_waiting(
        self, pool: str, seat: str, code: str, now_ms: int, until_ms: int
    ) -> Waiting:
        waiting = keys.quick_waiting(pool)
        async with self.redis.pipeline(transaction=True) as pipe:  # one slot: the pool's tag
            pipe.zremrangebyscore(waiting, "-inf", now_ms)
            pipe.zadd(waiting, {seat: until_ms})
            # the key outlives every entry: others' ``until`` may be a little later than ours
            pipe.pexpire(waiting, 2 * max(1, until_ms - now_ms))
            pipe.zcard(waiting)
            pipe.hget(keys.quick_since(pool), code)
            *_, racers, opened = await pipe.execute()
        return Waiting(int(racers), int(opened) if opened is not None else None)

    async def stopped_waiting(self, pool: str, seats: Sequence[str]) -> None:
        if seats:
            await self.redis.zrem(keys.quick_waiting(pool), *seats)

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

    async def keep_past(self, pool: str, entry: str, rating: int, keep: int) -> None:
        # by rating for the search, and in order of arrival (a list) for the trim
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(keys.quick_past(pool), {entry: rating})
            pipe.rpush(keys.quick_past_order(pool), entry)
            await pipe.execute()
        while await self.redis.llen(keys.quick_past_order(pool)) > keep:
            oldest = await self.redis.lpop(keys.quick_past_order(pool))
            if not isinstance(oldest, bytes | str):
                break
            await self.redis.zrem(keys.quick_past(pool), oldest)

    async def past_near(self, pool: str, rating: int, most: int) -> list[str]:
        key = keys.quick_past(pool)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrevrangebyscore(key, rating, "-inf", start=0, num=most, withscores=True)
            pipe.zrangebyscore(key, rating, "+inf", start=0, num=most, withscores=True)
            below, above = await pipe.execute()
        found = {_text(entry): abs(score - rating) for entry, score in [*below, *above]}
        return sorted(found, key=lambda entry: (found[entry], entry))[:most]
