"""The daily race in Redis: attempts, their logs, the standing (a sorted set).

Each day and draw mode has its own keys under one hash tag
(``player_keys.daily_*``), kept ``daily_retention_days`` from the day's first
write. A move is one round trip: the DAILY_MOVE script (the seq
compare-and-set, the log, the row and its standing score), sent on the
same pipelined connection kind as room moves.
"""

from __future__ import annotations

from typing import Any

import msgspec
from redis.asyncio import Redis, RedisCluster

from canfield_server.room.ports import Behind, DailyAttempt, DailyMove, NoAttempt, Stored, StoredRow
from canfield_server.storage import player_keys
from canfield_server.storage.move_script import move_script

__all__ = [
    "DAILY_HELD",
    "DAILY_CLAIM",
    "DAILY_MOVE",
    "DAILY_LOAD",
    "DAILY_STANDING",
    "RedisDailyStore",
]

#: Start a player's attempt unless they have one.
#: KEYS[1] player hash  KEYS[2] rows  KEYS[3] rank  KEYS[4] log
#: ARGV[1] now ms  ARGV[2] name  ARGV[3] player id  ARGV[4] row JSON  ARGV[5] score
#: ARGV[6] ttl seconds
#: Returns {1, now} started, {0, start} the attempt there is.
DAILY_CLAIM = """
local start = redis.call('HGET', KEYS[1], 'start')
if start then
  return {0, tonumber(start)}
end
redis.call('HSET', KEYS[1], 'start', ARGV[1], 'name', ARGV[2], 'seq', 0, 'done', 0)
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[6]) end
return {1, tonumber(ARGV[1])}
"""

#: One action of a daily race: seq compare-and-set, log, snapshot, row, score.
#: KEYS[1] player hash  KEYS[2] log  KEYS[3] rows  KEYS[4] rank
#: ARGV[1] base seq  ARGV[2] log entry  ARGV[3] snapshot  ARGV[4] player id
#: ARGV[5] row JSON  ARGV[6] score  ARGV[7] done flag  ARGV[8] ttl seconds
#: Returns {1, 0} stored, {0, seq} the stored seq differs (reload), {-1, 0} no
#: attempt (or it is over).
DAILY_MOVE = """
local meta = redis.call('HMGET', KEYS[1], 'seq', 'done')
if not meta[1] or meta[2] == '1' then
  return {-1, 0}
end
local cur = tonumber(meta[1])
if cur ~= tonumber(ARGV[1]) then
  return {0, cur}
end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'seq', cur + 1, 'snap', ARGV[3], 'done', ARGV[7])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[5])
redis.call('ZADD', KEYS[4], ARGV[6], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[8])
return {1, 0}
"""

#: A player's attempt and its log, read together.
#: KEYS[1] player hash  KEYS[2] log
#: Returns {start ('' none), snapshot ('' none), done, entry, entry, ...}
DAILY_LOAD = """
local meta = redis.call('HMGET', KEYS[1], 'start', 'snap', 'done')
local out = {meta[1] or '', meta[2] or '', meta[3] or '0'}
if meta[1] then
  local log = redis.call('LRANGE', KEYS[2], 0, -1)
  for i = 1, #log do out[#out + 1] = log[i] end
end
return out
"""

#: A day's standing in one round trip.
#: KEYS[1] rank  KEYS[2] rows  ARGV[1] rows wanted  ARGV[2] player id ('' none)
#: Returns {count, my rank (0-based; -1 none), my row ('' none), row, row, ...}
DAILY_STANDING = """
local count = redis.call('ZCARD', KEYS[1])
local rank, mine = -1, ''
if ARGV[2] ~= '' then
  local r = redis.call('ZRANK', KEYS[1], ARGV[2])
  if r then
    rank = r
    mine = redis.call('HGET', KEYS[2], ARGV[2]) or ''
  end
end
local out = {count, rank, mine}
local n = tonumber(ARGV[1])
if n > 0 then
  local ids = redis.call('ZRANGE', KEYS[1], 0, n - 1)
  if #ids > 0 then
    local rows = redis.call('HMGET', KEYS[2], unpack(ids))
    for i = 1, #rows do out[#out + 1] = rows[i] or '' end
  end
end
return out
"""

#: Whether a player's daily counts in the ranked standing, decided once, at their
#: first start: the first player of a network keeps their rank, a later one is
#: held out ('network-played'); ARGV[3], a reason the caller already has, wins.
#: KEYS[1] held (player -> reason, '' ranked)  KEYS[2] networks (network -> player)
#: ARGV[1] player id  ARGV[2] network ('' none)  ARGV[3] reason ('' none)
#: ARGV[4] ttl seconds.  Returns the reason ('' ranked).
DAILY_HELD = """
local known = redis.call('HGET', KEYS[1], ARGV[1])
if known then return known end
local why = ARGV[3]
if ARGV[2] ~= '' then
  redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[1])
  local first = redis.call('HGET', KEYS[2], ARGV[2])
  if first ~= ARGV[1] and why == '' then why = 'network-played' end
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
redis.call('HSET', KEYS[1], ARGV[1], why)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return why
"""

_row_decoder = msgspec.json.Decoder(StoredRow)
_encoder = msgspec.json.Encoder()


class RedisDailyStore:
    def __init__(self, redis: Redis | RedisCluster, url: str, retention_days: int) -> None:
        self.redis = redis
        self.ttl_s = retention_days * 86_400
        # every call is one script on its own pipelined connection (as room moves):
        # a burst of daily players never waits for, nor exhausts, the client's pool
        self._claim = move_script(redis, url, DAILY_CLAIM)
        self._move = move_script(redis, url, DAILY_MOVE)
        self._load = move_script(redis, url, DAILY_LOAD)
        self._standing = move_script(redis, url, DAILY_STANDING)
        self._held = move_script(redis, url, DAILY_HELD)

    async def close(self) -> None:
        for script in (self._claim, self._move, self._load, self._standing, self._held):
            await script.close()

    async def claim(
        self, date: str, draw: int, player: str, name: str, now: int, row: StoredRow, score: float
    ) -> tuple[bool, int]:
        created, start = await self._claim(
            keys=[
                player_keys.daily_player(date, draw, player),
                player_keys.daily_rows(date, draw),
                player_keys.daily_rank(date, draw),
                player_keys.daily_log(date, draw, player),
            ],
            args=[now, name, player, _encoder.encode(row), repr(score), self.ttl_s],
        )
        return bool(int(created)), int(start)

    async def attempt(self, date: str, draw: int, player: str) -> DailyAttempt | None:
        start, snap, done, *log = await self._load(
            keys=[
                player_keys.daily_player(date, draw, player),
                player_keys.daily_log(date, draw, player),
            ],
            args=[],
        )
        if not start:
            return None
        return DailyAttempt(
            started_at=int(start),
            snapshot=snap or None,
            log=[e.decode() if isinstance(e, bytes) else e for e in log],
            done=done in (b"1", "1"),
        )

    async def apply(self, move: DailyMove) -> Stored | Behind | NoAttempt:
        """DAILY_MOVE, its reply in types."""
        date, draw, player = move.date, move.draw, move.player
        status, value = await self._move(
            keys=[
                player_keys.daily_player(date, draw, player),
                player_keys.daily_log(date, draw, player),
                player_keys.daily_rows(date, draw),
                player_keys.daily_rank(date, draw),
            ],
            args=[
                move.base_seq,
                move.entry,
                move.snapshot,
                player,
                _encoder.encode(move.row),
                repr(move.score),
                "1" if move.done else "0",
                self.ttl_s,
            ],
        )
        if int(status) == 1:  # {1, 0}
            return Stored()
        if int(status) == 0:  # {0, the stored seq}
            return Behind(int(value))
        return NoAttempt()  # {-1, 0}

    async def standing(
        self, date: str, draw: int, player: str | None, limit: int
    ) -> tuple[int, list[StoredRow], tuple[int, StoredRow] | None]:
        """One round trip (DAILY_STANDING): the count, the first rows, my rank and row."""
        found: list[Any] = await self._standing(
            keys=[player_keys.daily_rank(date, draw), player_keys.daily_rows(date, draw)],
            args=[limit, player or ""],
        )
        count, my_rank, my_row, *top = found
        rows = [_row_decoder.decode(r) for r in top if r]
        mine = None
        if int(my_rank) >= 0 and my_row:
            mine = (int(my_rank) + 1, _row_decoder.decode(my_row))
        return int(count), rows, mine

    async def hold(self, date: str, draw: int, player: str, network: str, reason: str) -> str:
        found = await self._held(
            keys=[player_keys.daily_held(date, draw), player_keys.daily_networks(date, draw)],
            args=[player, network, reason, self.ttl_s],
        )
        return found.decode() if isinstance(found, bytes) else str(found)

    async def held(self, date: str, draw: int, players: list[str]) -> dict[str, str]:
        if not players:
            return {}
        found = await self.redis.hmget(player_keys.daily_held(date, draw), players)
        return {
            p: w if isinstance(w, str) else w.decode()
            for p, w in zip(players, found, strict=True)
            if w
        }

    async def network_first(self, date: str, draw: int, network: str) -> str | None:
        found = await self.redis.hget(player_keys.daily_networks(date, draw), network)
        return found.decode() if isinstance(found, bytes) else found
