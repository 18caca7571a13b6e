"""The Lua scripts of the arenas in Redis (``storage.arena_store``): each change
that must not interleave with another process's (a heat's racers taken out of
the waiting, a heat scored once, a result held under review) is one script
over the arena's keys, all in the slot of ``{a:CODE}``."""

from __future__ import annotations

__all__ = [
    "SAVE",
    "TAKE",
    "SETTLE",
    "CLAIM",
    "HEAT_OVER",
    "OPEN",
    "HOLD_RESULT",
    "RELEASE_RESULT",
    "LOCK",
    "HOLD",
    "FREE",
]

#: KEYS record; ARGV ver, new record JSON -> the new version, or false
SAVE = """
if tonumber(redis.call('HGET', KEYS[1], 'ver') or -1) ~= tonumber(ARGV[1]) then return false end
redis.call('HSET', KEYS[1], 'json', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'moves', 1)
return redis.call('HINCRBY', KEYS[1], 'ver', 1)
"""

#: KEYS waiting, assign, record, forming; ARGV heat, least, until ms, racers...
#: -> the racers taken (none when fewer than ``least`` still wait)
TAKE = """
local taken = {}
for i = 4, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then taken[#taken + 1] = ARGV[i] end
end
if #taken < tonumber(ARGV[2]) then return {} end
for _, racer in ipairs(taken) do
  redis.call('ZREM', KEYS[1], racer)
  redis.call('HSET', KEYS[2], racer, ARGV[1])
end
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
redis.call('HINCRBY', KEYS[3], 'moves', 1)
return taken
"""

#: KEYS forming, assign; ARGV heat: forming no more, its unclaimed places gone
SETTLE = """
redis.call('ZREM', KEYS[1], ARGV[1])
local assign = redis.call('HGETALL', KEYS[2])
for i = 1, #assign, 2 do
  if assign[i + 1] == ARGV[1] then redis.call('HDEL', KEYS[2], assign[i]) end
end
return 1
"""

#: KEYS assign; ARGV racer, heat -> 1 when claimed
CLAIM = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
return redis.call('HDEL', KEYS[1], ARGV[1])
"""

#: KEYS scored, running, standing, streak, heats, last, removed, record, given, held
#: ARGV heat, keep (places kept), then per racer: racer, points, podium, bonus, mark
#: (a result held under review is kept in ``held``, off the standing)
#: -> {racer, points, ...}, or false when scored already
HEAT_OVER = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return false end
redis.call('ZREM', KEYS[2], ARGV[1])
local keep, out = tonumber(ARGV[2]), {}
for i = 3, #ARGV, 5 do
  local racer = ARGV[i]
  if redis.call('SISMEMBER', KEYS[7], racer) == 0 then
    local podium, streak = ARGV[i + 2] == '1', tonumber(redis.call('HGET', KEYS[4], racer) or 0)
    local points = tonumber(ARGV[i + 1])
    if podium then points = points + tonumber(ARGV[i + 3]) end
    if podium and streak >= 2 then points = points * 2 end
    redis.call('HSET', KEYS[4], racer, podium and streak + 1 or 0)
    local result = ARGV[1] .. ' ' .. racer
    redis.call('HSET', KEYS[9], result, points)
    if redis.call('HEXISTS', KEYS[10], result) == 1 then
      redis.call('HSET', KEYS[10], result, points)
    else
      redis.call('ZINCRBY', KEYS[3], -points, racer)
    end
    redis.call('HINCRBY', KEYS[5], racer, 1)
    local last = (redis.call('HGET', KEYS[6], racer) or '') .. ARGV[i + 4]
    redis.call('HSET', KEYS[6], racer, string.sub(last, -keep))
    out[#out + 1] = racer
    out[#out + 1] = points
  end
end
redis.call('HINCRBY', KEYS[8], 'moves', 1)
return out
"""

#: KEYS heatinfo, running, raced, record, scored; ARGV heat, heat JSON, opened ms,
#: "racer deal"...: a heat runs (unless it was scored already: over, not again)
OPEN = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('SISMEMBER', KEYS[5], ARGV[1]) == 0 then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
for i = 4, #ARGV do redis.call('SADD', KEYS[3], ARGV[i]) end
redis.call('HINCRBY', KEYS[4], 'moves', 1)
return 1
"""

#: KEYS given, held, standing, record; ARGV "heat racer", racer -> 1 when held now:
#: the points the heat gave the racer leave the standing (kept in ``held``)
HOLD_RESULT = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
local given = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], given or 0)
if given and redis.call('ZSCORE', KEYS[3], ARGV[2]) then
  redis.call('ZINCRBY', KEYS[3], tonumber(given), ARGV[2])
end
redis.call('HINCRBY', KEYS[4], 'moves', 1)
return 1
"""

#: KEYS held, standing, record; ARGV "heat racer", racer -> 1 when released now:
#: the points held come back into the standing
RELEASE_RESULT = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('ZSCORE', KEYS[2], ARGV[2]) then
  redis.call('ZINCRBY', KEYS[2], -tonumber(held), ARGV[2])
end
redis.call('HINCRBY', KEYS[3], 'moves', 1)
return 1
"""

#: KEYS lock; ARGV owner, ttl ms -> 1 when held by owner now
LOCK = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

#: KEYS racer; ARGV heat, ttl ms -> 1 when the racer holds ``heat`` now
HOLD = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

#: KEYS racer; ARGV heat: the hold ends if it is on that heat
FREE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""
