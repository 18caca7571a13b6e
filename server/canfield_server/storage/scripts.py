"""Lua scripts: each one is the single atomic round trip of one operation.

Registered once per Redis client (redis-py's ``Script`` runs EVALSHA and
reloads the body after NOSCRIPT, e.g. when Redis restarted).
"""

from __future__ import annotations

from dataclasses import dataclass

from canfield_protocol import Phase
from redis.asyncio import Redis, RedisCluster
from redis.commands.core import AsyncScript

__all__ = [
    "MOVE",
    "SAVE_ROOM",
    "CLAIM_ROOM",
    "FINISH",
    "CLAIM_DUE",
    "FORGET",
    "PRESENCE",
    "Scripts",
]


def _lua(body: str) -> str:
    """A script with the room phases spelled as the protocol spells them
    (``$RACING``, ``$FINISHED``: the words the room hash's ``phase`` holds)."""
    return body.replace("$RACING", f"'{Phase.RACING}'").replace("$FINISHED", f"'{Phase.FINISHED}'")


#: Apply one board action: check the race and the sequence number, append
#: to the event log, store the snapshot and the leaderboard row, count the
#: player done (ending the race when all are), refresh TTLs when asked, publish.
#: The process asks for the refresh on a racer's first move of a race here and
#: then once a 64th of the TTL has passed (``refreshes.Refreshes``): seven
#: EXPIREs on every move were seven more writes for the AOF to fsync before the
#: reply, and the seven TTL reads that skipped them were most of a move's Lua.
#: KEYS[1] room  KEYS[2] tokens  KEYS[3] presence  KEYS[4] rows
#: KEYS[5] player hash  KEYS[6] player log  KEYS[7] servers of the room
#: ARGV[1] race number  ARGV[2] base seq (the seq the caller's board is at)
#: ARGV[3] log entry  ARGV[4] snapshot  ARGV[5] member id  ARGV[6] row JSON
#: ARGV[7] done flag ('1': this action won or gave up)  ARGV[8] ttl seconds ('0': none)
#: ARGV[9] channel  ARGV[10] event payload  ARGV[11] the calling process's origin
#: (the event is published only when another process serves the room)
#: Returns {1, finished} applied (finished=1: this action ended the race),
#: {0, seq} the stored seq differs from the base (reload), {-1, phase} no race.
MOVE = _lua("""
local meta = redis.call('HMGET', KEYS[1], 'phase', 'race')
if meta[1] ~= $RACING or meta[2] ~= ARGV[1] then
  return {-1, meta[1] or ''}
end
local cur = tonumber(redis.call('HGET', KEYS[5], 'seq') or '0')
if cur ~= tonumber(ARGV[2]) then
  return {0, cur}
end
redis.call('RPUSH', KEYS[6], ARGV[3])
redis.call('HSET', KEYS[5], 'seq', cur + 1, 'snap', ARGV[4])
redis.call('HSET', KEYS[4], ARGV[5], ARGV[6])
local finished = 0
if ARGV[7] == '1' then
  local done = redis.call('HINCRBY', KEYS[1], 'done', 1)
  if done >= tonumber(redis.call('HGET', KEYS[1], 'nplayers') or '0') then
    redis.call('HSET', KEYS[1], 'phase', $FINISHED)
    redis.call('HINCRBY', KEYS[1], 'ver', 1)
    finished = 1
  end
end
local ttl = tonumber(ARGV[8])
if ttl > 0 then
  for i = 1, 7 do redis.call('EXPIRE', KEYS[i], ttl) end
end
local servers = redis.call('HLEN', KEYS[7])
if servers > 1 or (servers == 1 and redis.call('HEXISTS', KEYS[7], ARGV[11]) == 0) then
  redis.call('PUBLISH', ARGV[9], ARGV[10])
end
return {1, finished}
""")

#: Compare-and-set the room: write fields only if ``ver`` is unchanged.
#: KEYS[1] room  KEYS[2] tokens  KEYS[3] presence  KEYS[4] rows
#: KEYS[5..] keys to delete (a new race or a rematch clears the last one)
#: ARGV[1] expected ver ('0': the room must not exist yet)  ARGV[2] ttl seconds
#: ARGV[3] channel  ARGV[4] payload ('' publishes nothing; '{ver}' in it
#: becomes the new ver)  ARGV[5] '1' clears rows  ARGV[6] token hash ('' none)
#: ARGV[7] token's member id  ARGV[8] a member id whose tokens are revoked ('' none:
#: a removed seat's tokens stop opening it)  ARGV[9] a presence field ``member|origin``
#: counted one connection up with the save ('' none: a join's seat is live the moment
#: it exists, so no heartbeat can find it in the room and not connected)
#: ARGV[10] the process's heartbeat field ``@origin``  ARGV[11] now (ms)
#: ARGV[12] '1' the room is open after this save, else '0' (``rules.room_open``)
#: ARGV[13] the address that creates the room ('' unless the room is new: its
#: ``claim_room`` counted it already)  ARGV[14..] field, value pairs for the room hash
#: The first save writes ``created`` (ARGV[11]): the room's age in the operator console.
#: Returns {new ver, creator}: creator is the address that made the room when this
#: save opened or closed it (it counts the room again, or no more), else ''.
#: {-1, ''} when ver moved on (reload and retry).
SAVE_ROOM = """
local ver = tonumber(redis.call('HGET', KEYS[1], 'ver') or '0')
if ver ~= tonumber(ARGV[1]) then
  return {-1, ''}
end
local held = redis.call('HMGET', KEYS[1], 'open', 'ip')
local creator = ''
if ARGV[13] ~= '' then
  redis.call('HSET', KEYS[1], 'ip', ARGV[13], 'open', ARGV[12])
elseif held[2] and held[1] ~= ARGV[12] then
  redis.call('HSET', KEYS[1], 'open', ARGV[12])
  creator = held[2]
end
if #KEYS > 4 then
  redis.call('DEL', unpack(KEYS, 5))
end
if ARGV[5] == '1' then
  redis.call('DEL', KEYS[4])
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[6], ARGV[7])
end
if ARGV[8] ~= '' then
  local tokens = redis.call('HGETALL', KEYS[2])
  for i = 1, #tokens, 2 do
    if tokens[i + 1] == ARGV[8] then redis.call('HDEL', KEYS[2], tokens[i]) end
  end
end
if ARGV[9] ~= '' then
  redis.call('HINCRBY', KEYS[3], ARGV[9], 1)
  redis.call('HSET', KEYS[3], ARGV[10], ARGV[11])
end
if ver == 0 then
  redis.call('HSET', KEYS[1], 'created', ARGV[11])
end
ver = ver + 1
if #ARGV >= 14 then
  redis.call('HSET', KEYS[1], 'ver', ver, unpack(ARGV, 14))
else
  redis.call('HSET', KEYS[1], 'ver', ver)
end
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
if ARGV[4] ~= '' then
  local payload = string.gsub(ARGV[4], '{ver}', tostring(ver), 1)
  redis.call('PUBLISH', ARGV[3], payload)
end
return {ver, creator}
"""

#: Count a new room against the address that creates it, if its limits allow:
#: the rooms it holds open, and the rooms it created within the burst window.
#: Entries past their time go first; a refused attempt counts nothing.
#: KEYS[1] the address's open rooms (code -> ms it stops counting at the latest)
#: KEYS[2] its new rooms (code -> ms created)  ARGV[1] now ms  ARGV[2] room code
#: ARGV[3] most open rooms (0: no limit)  ARGV[4] most new rooms in the window
#: (0: no limit)  ARGV[5] window ms  ARGV[6] room TTL ms
#: Returns {'', 0} counted, or {cap, retry_at}: the limit that refuses ('open_rooms'
#: or 'new_rooms') and the ms by which it frees a place at the latest.
CLAIM_ROOM = """
local now, window, ttl = tonumber(ARGV[1]), tonumber(ARGV[5]), tonumber(ARGV[6])
local most_open, most_new = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
if most_open > 0 and redis.call('ZCARD', KEYS[1]) >= most_open then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'open_rooms', tonumber(first[2])}
end
if most_new > 0 and redis.call('ZCARD', KEYS[2]) >= most_new then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'new_rooms', tonumber(first[2]) + window}
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now, ARGV[2])
redis.call('PEXPIRE', KEYS[2], window)
return {'', 0}
"""

#: End a race at its time limit, once however many processes try.
#: KEYS[1] room  ARGV[1] race number
#: Returns 1 for the caller that ended it, else 0.
FINISH = _lua("""
local meta = redis.call('HMGET', KEYS[1], 'phase', 'race')
if meta[1] ~= $RACING or meta[2] ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'phase', $FINISHED)
redis.call('HINCRBY', KEYS[1], 'ver', 1)
return 1
""")


#: Take a room whose timer is due, once however many processes sweep: its
#: score moves ``lease`` ms on (if this process dies mid-way, another takes it
#: then). KEYS[1] the due set  ARGV[1] room code  ARGV[2] now  ARGV[3] lease ms
#: Returns 1 for the caller that took it, else 0.
CLAIM_DUE = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) > tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
return 1
"""


#: Forget presence fields: a dead process's, and counts that are still 0 or
#: less (a count a join raised since the heartbeat read it is kept).
#: KEYS[1] presence  ARGV[1] how many fields follow that go whatever their value
#: ARGV[2..] those fields, then the fields that go only at 0 or less
FORGET = """
local always = tonumber(ARGV[1])
for i = 2, #ARGV do
  if i <= always + 1 then
    redis.call('HDEL', KEYS[1], ARGV[i])
  else
    local count = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
    if count <= 0 then redis.call('HDEL', KEYS[1], ARGV[i]) end
  end
end
return 0
"""


#: Count a member's connection in (+1) or out (-1) for this process, and beat
#: its heartbeat. A count back at 0 goes at once, so a room that many pass
#: through keeps a table the size of who is there, not of who ever was.
#: KEYS[1] presence  ARGV[1] member  ARGV[2] origin  ARGV[3] delta  ARGV[4] now ms
#: ARGV[5] ttl s.  Returns the member's fields and the heartbeats (flat pairs).
PRESENCE = """
local mine = ARGV[1] .. '|'
local field = mine .. ARGV[2]
if redis.call('HINCRBY', KEYS[1], field, ARGV[3]) <= 0 then
  redis.call('HDEL', KEYS[1], field)
end
redis.call('HSET', KEYS[1], '@' .. ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
local table = redis.call('HGETALL', KEYS[1])
local found = {}
for i = 1, #table, 2 do
  local name = table[i]
  if string.sub(name, 1, 1) == '@' or string.sub(name, 1, #mine) == mine then
    found[#found + 1] = name
    found[#found + 1] = table[i + 1]
  end
end
return found
"""


@dataclass(frozen=True, slots=True)
class Scripts:
    """The room scripts bound to one client (MOVE runs batched, see ``store``)."""

    save_room: AsyncScript
    claim_room: AsyncScript
    finish: AsyncScript
    claim_due: AsyncScript
    forget: AsyncScript

    @classmethod
    def register(cls, redis: Redis | RedisCluster) -> Scripts:
        return cls(
            save_room=redis.register_script(SAVE_ROOM),
            claim_room=redis.register_script(CLAIM_ROOM),
            finish=redis.register_script(FINISH),
            claim_due=redis.register_script(CLAIM_DUE),
            forget=redis.register_script(FORGET),
        )
