"""Identities, their race history and room replays in Redis (``room.ports.IdentityStore``).

Only the hash of an identity's token is ever a key. A new identity lives
``new_identity_ttl_s`` (a day) from when it was issued, however often it
is used; once it finishes a race (a history entry is added, or a rating
saved) it is *kept*: it and its history then live
``history_retention_days`` from their last use. A history keeps at most
``history_max_races`` races (newest first); a replay lives as long as the
history that links to it. An identity stored before identities had a
``kept`` field counts as kept.

New identities come from a budget per network (``claim_identity``): a
token bucket in ``player_keys.identity_budget`` (a burst, refilled at a steady
rate), with the identities issued and refused in ten-minute slots for the
operator console, and every network that asked in ``player_keys.IDENTITY_NETWORKS``.
"""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis, RedisCluster

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.room.ports import IdentitiesRefused, IdentityBudget
from canfield_server.storage import player_keys
from canfield_server.storage.move_script import move_script

__all__ = [
    "NOTE_DAILY",
    "NEW_IDENTITY",
    "GET_IDENTITY",
    "ADD_RACE",
    "KEEP_IDENTITY",
    "CLAIM_IDENTITY",
    "SLOT_MS",
    "RedisIdentityStore",
]

#: the console's counts of issued and refused identities go in slots this long
SLOT_MS = 600_000
#: ... kept a day
SLOTS_KEPT = 86_400_000 // SLOT_MS

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


#: A new identity, not kept yet (``kept`` 0): it lives the new identities' TTL.
#: KEYS[1] identity  ARGV[1] public id  ARGV[2] now  ARGV[3] ttl  ARGV[4] its network
NEW_IDENTITY = """
redis.call('HSET', KEYS[1], 'pid', ARGV[1], 'created', ARGV[2], 'streak', 0, 'kept', 0,
  'net', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

#: An identity; a kept one is kept alive (a new one keeps the TTL it was issued with).
#: KEYS[1] identity  KEYS[2] its races  ARGV[1] ttl
#: Returns {pid, streak, last} (pid '' : none).
GET_IDENTITY = """
local found = redis.call('HMGET', KEYS[1], 'pid', 'streak', 'last', 'kept')
if not found[1] then return {'', 0, ''} end
if found[4] ~= '0' then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
return {found[1], found[2] or '0', found[3] or ''}
"""

#: An identity finished a race: it is kept, and lives the full retention from now.
#: KEYS[1] identity  ARGV[1] ttl
KEEP_IDENTITY = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'kept', 1)
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return 1
"""

#: One race at the head of a history; its identity is kept from now on.
#: KEYS[1] races  KEYS[2] identity  ARGV[1] entry  ARGV[2] most kept  ARGV[3] ttl
ADD_RACE = """
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'kept', 1)
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
return 1
"""

#: One new identity from a network's budget: a token bucket of ``burst``
#: identities, refilled at ``per_hour`` (fractions kept), starting full.
#: Issued and refused identities are counted in slots (``i:SLOT``, ``r:SLOT``;
#: SLOT: ms // slot ms), a day of them kept; the key lapses a day after the
#: network last asked (by then its bucket is full again).
#: KEYS[1] the network's budget  ARGV[1] now ms  ARGV[2] burst  ARGV[3] per hour
#: ARGV[4] slot ms  ARGV[5] slots kept  ARGV[6] key lifetime ms
#: Returns {1, tokens left, 0} issued, or {0, tokens, retry_at}: the ms by which
#: one identity is back (-1: never, the rate is 0).
CLAIM_IDENTITY = """
local now, burst, per_hour = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local slot_ms, kept = tonumber(ARGV[4]), tonumber(ARGV[5])
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(stored[1]) or burst, tonumber(stored[2]) or now
local rate = per_hour / 3600000
if now > at then
  tokens = math.min(burst, tokens + (now - at) * rate)
  at = now
end
local slot = math.floor(now / slot_ms)
local issued = tokens >= 1
local field = 'r:' .. slot
if issued then
  tokens = tokens - 1
  field = 'i:' .. slot
end
if redis.call('HINCRBY', KEYS[1], field, 1) == 1 then
  for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
    local old = tonumber(string.sub(name, 3))
    if old and old <= slot - kept then redis.call('HDEL', KEYS[1], name) end
  end
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'at', at)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
if issued then return {1, string.format('%.6f', tokens), 0} end
if rate <= 0 then return {0, string.format('%.6f', tokens), -1} end
return {0, string.format('%.6f', tokens), at + math.ceil((1 - tokens) / rate)}
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
        new_ttl_s: int = 86_400,
    ) -> None:
        self.redis = redis
        self.clock = clock
        self.ttl_s = retention_days * 86_400
        #: a new identity lives this long unless it finishes a race
        self.new_ttl_s = new_ttl_s
        self.max_races = max_races
        self.room_ttl_s = room_ttl_s
        # the calls a burst of players makes (a page load, a daily result) are
        # scripts on their own pipelined connections, as room moves: they never
        # wait for, nor exhaust, the client's connection pool
        self._note_daily = move_script(redis, url, NOTE_DAILY)
        self._new = move_script(redis, url, NEW_IDENTITY)
        self._get = move_script(redis, url, GET_IDENTITY)
        self._add = move_script(redis, url, ADD_RACE)
        self._claim = move_script(redis, url, CLAIM_IDENTITY)

    async def close(self) -> None:
        for script in (self._note_daily, self._new, self._get, self._add, self._claim):
            await script.close()

    async def claim_identity(
        self, network: str, budget: IdentityBudget
    ) -> IdentitiesRefused | None:
        now = self.clock.now_ms()
        issued, _, retry_at = await self._claim(
            keys=[player_keys.identity_budget(network)],
            args=[now, budget.burst, budget.per_hour, SLOT_MS, SLOTS_KEPT, budget.keep_ms()],
        )
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(player_keys.IDENTITY_NETWORKS, {network: now})
            pipe.zremrangebyscore(player_keys.IDENTITY_NETWORKS, "-inf", now - budget.keep_ms())
            await pipe.execute()
        if int(issued):
            return None
        return IdentitiesRefused(budget.burst, budget.per_hour, int(retry_at))

    async def new_identity(self, token_hash: str, public_id: str, network: str = "") -> None:
        now = self.clock.now_ms()
        await self._new(
            keys=[player_keys.identity(token_hash)], args=[public_id, now, self.new_ttl_s, network]
        )

    async def identity_created(self, token_hash: str) -> int | None:
        found = await self.redis.hget(player_keys.identity(token_hash), "created")
        return int(found) if found else None

    async def identity_network(self, token_hash: str) -> str | None:
        found = await self.redis.hget(player_keys.identity(token_hash), "net")
        return _text(found) if found else None

    async def identity(self, token_hash: str) -> tuple[str, int, str] | None:
        pid, streak, last = await self._get(
            keys=[player_keys.identity(token_hash), player_keys.identity_races(token_hash)],
            args=[self.ttl_s],
        )
        if not pid:
            return None
        return _text(pid), int(streak or 0), _text(last) if last else ""

    async def note_daily(self, token_hash: str, date: str, day_before: str) -> int:
        return int(
            await self._note_daily(keys=[player_keys.identity(token_hash)], args=[date, day_before])
        )

    async def link_member(
        self, room: str, member_id: str, token_hash: str, network: str = ""
    ) -> None:
        key, nets = player_keys.room_identities(room), player_keys.room_networks(room)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(key, member_id, token_hash)
            pipe.expire(key, self.room_ttl_s)
            if network:
                pipe.hset(nets, member_id, network)
            else:
                pipe.hdel(nets, member_id)
            pipe.expire(nets, self.room_ttl_s)
            await pipe.execute()

    async def room_networks(self, room: str) -> dict[str, str]:
        raw = await self.redis.hgetall(player_keys.room_networks(room))
        return {_text(k): _text(v) for k, v in raw.items()}

    async def room_identities(self, room: str) -> dict[str, str]:
        raw = await self.redis.hgetall(player_keys.room_identities(room))
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
                    keys=[player_keys.identity_races(token_hash), player_keys.identity(token_hash)],
                    args=[entry, self.max_races, self.ttl_s],
                )

        await asyncio.gather(*(push(h, history) for h, history in per_identity.items()))

    async def races(self, token_hash: str, limit: int) -> list[bytes]:
        found = await self.redis.lrange(player_keys.identity_races(token_hash), 0, limit - 1)
        return [e if isinstance(e, bytes) else e.encode() for e in found]

    async def delete_races(self, token_hash: str) -> int:
        key = player_keys.identity_races(token_hash)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.llen(key)
            pipe.delete(key)
            count, _ = await pipe.execute()
        return int(count)

    async def save_replay(self, replay_id: str, body: bytes) -> None:
        await self.redis.set(player_keys.replay(replay_id), body, ex=self.ttl_s)

    async def load_replay(self, replay_id: str) -> bytes | None:
        found = await self.redis.get(player_keys.replay(replay_id))
        if found is None:
            return None
        return found if isinstance(found, bytes) else found.encode()
