"""Challenge links in Redis (``room.ports.ChallengeStore``).

A challenge's body, its standing (a sorted set of taker ids by score and a
hash of their rows) share one hash tag, so the script that records a
result touches them in one step on a Redis Cluster too; the standing
expires with the challenge. Challenges made are counted per identity or
network in a counter that lives one window.
"""

from __future__ import annotations

from redis.asyncio import Redis, RedisCluster

from canfield_server.room.ports import Taken
from canfield_server.storage import player_keys

__all__ = ["RECORD", "SPEND", "RedisChallengeStore"]

#: A taker's result. KEYS[1] challenge  KEYS[2] rank  KEYS[3] rows
#: ARGV[1] taker  ARGV[2] score  ARGV[3] row  ARGV[4] most kept
#: Returns ``Taken``: -1 gone, 0 kept the earlier, 1 placed, 2 outside the standing.
RECORD = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return -1 end
local old = redis.call('ZSCORE', KEYS[2], ARGV[1])
if old and tonumber(old) <= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
local placed = 1
if redis.call('ZCARD', KEYS[2]) > tonumber(ARGV[4]) then
  local worst = redis.call('ZPOPMAX', KEYS[2])
  redis.call('HDEL', KEYS[3], worst[1])
  if worst[1] == ARGV[1] then placed = 2 end
end
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
return placed
"""

#: One challenge made. KEYS[1] the maker's counter  ARGV[1] window ms
SPEND = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
"""


class RedisChallengeStore:
    """``ChallengeStore`` on Redis."""

    def __init__(self, redis: Redis | RedisCluster) -> None:
        self.redis = redis
        self._record = redis.register_script(RECORD)
        self._spend = redis.register_script(SPEND)

    async def close(self) -> None:
        pass

    async def create(self, challenge_id: str, body: bytes, ttl_ms: int) -> None:
        await self.redis.set(player_keys.challenge(challenge_id), body, px=ttl_ms)

    async def load(self, challenge_id: str) -> bytes | None:
        found = await self.redis.get(player_keys.challenge(challenge_id))
        return found.encode() if isinstance(found, str) else found

    async def record(
        self, challenge_id: str, taker: str, row: bytes, score: float, most: int
    ) -> Taken:
        done = await self._record(
            keys=[
                player_keys.challenge(challenge_id),
                player_keys.challenge_rank(challenge_id),
                player_keys.challenge_rows(challenge_id),
            ],
            args=[taker, repr(float(score)), row, most],
        )
        return Taken(int(done))

    async def standing(self, challenge_id: str) -> list[bytes]:
        found = await self.redis.zrange(player_keys.challenge_rank(challenge_id), 0, -1)
        takers = [t for t in found if isinstance(t, (bytes, str))]
        if not takers:
            return []
        rows = await self.redis.hmget(player_keys.challenge_rows(challenge_id), takers)
        return [r.encode() if isinstance(r, str) else r for r in rows if r is not None]

    async def spend(self, who: str, window_ms: int) -> int:
        return int(await self._spend(keys=[player_keys.challenges_made(who)], args=[window_ms]))
