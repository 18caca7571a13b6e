"""Identities, their race history and room replays in Redis (``room.ports.IdentityStore``).

Only the hash of an identity's token is ever a key. An identity and its
history live ``history_retention_days`` from their last use; a history
keeps at most ``history_max_races`` races (newest first); a replay lives
as long as the history that links to it.
"""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis, RedisCluster

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.storage import keys
from canfield_server.storage.move_script import move_script

__all__ = ["NOTE_DAILY", "NEW_IDENTITY", "GET_IDENTITY", "ADD_RACE", "RedisIdentityStore"]

#: The daily streak: a new day played extends it (from yesterday) or starts it.
#: KEYS[1] identity  ARGV[1] date  ARGV[2] the day before it
#: Returns the streak (0: no such identity).
NOTE_DAILY = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local last = redis.call('HGET', KEYS[1], 'last') or ''
local streak = tonumber(redis.call('HGET', KEYS[1], 'streak') or '0')
if last == ARGV[1] then return streak end
if last == ARGV[2] then streak = streak + 1 else streak = 1 end
redis.call('HSET', KEYS[1], 'last', ARGV[1], 'streak', streak)
return streak
"""


#: A new identity.  KEYS[1] identity  ARGV[1] public id  ARGV[2] now  ARGV[3] ttl
NEW_IDENTITY = """
redis.call('HSET', KEYS[1], 'pid', ARGV[1], 'created', ARGV[2], 'streak', 0)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

#: An identity, kept alive.  KEYS[1] identity  KEYS[2] its races  ARGV[1] ttl
#: Returns {pid, streak, last} (pid '' : none).
GET_IDENTITY = """
local found = redis.call('HMGET', KEYS[1], 'pid', 'streak', 'last')
if not found[1] then return {'', 0, ''} end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[1])
return {found[1], found[2] or '0', found[3] or ''}
"""

#: One race at the head of a history.  KEYS[1] races  ARGV[1] entry  ARGV[2] most kept
#: ARGV[3] ttl
ADD_RACE = """
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisIdentityStore:
    def __init__(
        self,
        redis: Redis | RedisCluster,
        *,
        retention_days: int,
        max_races: int,
        room_ttl_s: int,
        url: str,
        clock: Clock = SYSTEM,
    ) -> None:
        self.redis = redis
        self.clock = clock
        self.ttl_s = retention_days * 86_400
        self.max_races = max_races
        self.room_ttl_s = room_ttl_s
        # the calls a burst of players makes (a page load, a daily result) are
        # scripts on their own pipelined connections, as room moves: they never
        # wait for, nor exhaust, the client's connection pool
        self._note_daily = move_script(redis, url, NOTE_DAILY)
        self._new = move_script(redis, url, NEW_IDENTITY)
        self._get = move_script(redis, url, GET_IDENTITY)
        self._add = move_script(redis, url, ADD_RACE)

    async def close(self) -> None:
        for script in (self._note_daily, self._new, self._get, self._add):
            await script.close()

    async def new_identity(self, token_hash: str, public_id: str) -> None:
        now = self.clock.now_ms()
        await self._new(keys=[keys.identity(token_hash)], args=[public_id, now, self.ttl_s])

    async def identity(self, token_hash: str) -> tuple[str, int, str] | None:
        pid, streak, last = await self._get(
            keys=[keys.identity(token_hash), keys.identity_races(token_hash)], args=[self.ttl_s]
        )
        if not pid:
            return None
        return _text(pid), int(streak or 0), _text(last) if last else ""

    async def note_daily(self, token_hash: str, date: str, day_before: str) -> int:
        return int(
            await self._note_daily(keys=[keys.identity(token_hash)], args=[date, day_before])
        )

    async def link_member(self, room: str, member_id: str, token_hash: str) -> None:
        key = keys.room_identities(room)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(key, member_id, token_hash)
            pipe.expire(key, self.room_ttl_s)
            await pipe.execute()

    async def room_identities(self, room: str) -> dict[str, str]:
        raw = await self.redis.hgetall(keys.room_identities(room))
        return {_text(k): _text(v) for k, v in raw.items()}

    async def add_races(self, entries: list[tuple[str, bytes]]) -> None:
        """Each (identity hash, entry JSON) at the head of that identity's history
        (one script per entry: a Cluster puts identities on different slots).
        Identities go side by side; one identity's entries go in their order
        (side by side, on different connections, they could land in any)."""
        per_identity: dict[str, list[bytes]] = {}
        for token_hash, entry in entries:
            per_identity.setdefault(token_hash, []).append(entry)

        async def push(token_hash: str, history: list[bytes]) -> None:
            for entry in history:
                await self._add(
                    keys=[keys.identity_races(token_hash)], args=[entry, self.max_races, self.ttl_s]
                )

        await asyncio.gather(*(push(h, history) for h, history in per_identity.items()))

    async def races(self, token_hash: str, limit: int) -> list[bytes]:
        found = await self.redis.lrange(keys.identity_races(token_hash), 0, limit - 1)
        return [e if isinstance(e, bytes) else e.encode() for e in found]

    async def delete_races(self, token_hash: str) -> int:
        key = keys.identity_races(token_hash)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.llen(key)
            pipe.delete(key)
            count, _ = await pipe.execute()
        return int(count)

    async def save_replay(self, replay_id: str, body: bytes) -> None:
        await self.redis.set(keys.replay(replay_id), body, ex=self.ttl_s)

    async def load_replay(self, replay_id: str) -> bytes | None:
        found = await self.redis.get(keys.replay(replay_id))
        if found is None:
            return None
        return found if isinstance(found, bytes) else found.encode()
