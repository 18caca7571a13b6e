"""Arenas in Redis (``room.ports.ArenaStore``): every key of an arena shares the
hash tag ``{a:CODE}`` (``keys.arena``), so its scripts touch them at once on a
Redis Cluster too. The standing is a sorted set by minus the points (ties in
racer id order, as the in-memory twin reads it); a heat is scored by one
script, once, with its streak rule (``arena_scripts.HEAT_OVER``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from redis.asyncio import Redis, RedisCluster

from canfield_server.room.ports import (
    LAST_PLACES,
    ArenaRecord,
    HeatPlace,
    HeatRecord,
    StandingEntry,
)
from canfield_server.storage import keys
from canfield_server.storage.arena_scripts import (
    CLAIM,
    FREE,
    HEAT_OVER,
    HOLD,
    HOLD_RESULT,
    LOCK,
    OPEN,
    RELEASE_RESULT,
    SAVE,
    SETTLE,
    TAKE,
)

__all__ = ["RedisArenaStore"]

#: the arena's keys (``keys.arena`` parts); all expire with the record
PARTS = (
    "record names owners standing streak heats last removed waiting assign heatinfo running "
    "raced scored lock done forming given held"
).split()


class _Coded(msgspec.Struct):
    """An arena result's code (the rest of it left unread)."""

    code: str


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisArenaStore:
    def __init__(self, redis: Redis | RedisCluster) -> None:
        self.redis = redis
        self._save = redis.register_script(SAVE)
        self._take = redis.register_script(TAKE)
        self._settle = redis.register_script(SETTLE)
        self._open = redis.register_script(OPEN)
        self._hold_result = redis.register_script(HOLD_RESULT)
        self._release_result = redis.register_script(RELEASE_RESULT)
        self._claim = redis.register_script(CLAIM)
        self._heat_over = redis.register_script(HEAT_OVER)
        self._lock = redis.register_script(LOCK)
        self._hold = redis.register_script(HOLD)
        self._free = redis.register_script(FREE)

    async def close(self) -> None:
        pass

    async def _bump(self, code: str) -> None:
        await self.redis.hincrby(keys.arena(code, "record"), "moves", 1)

    async def create(self, record: ArenaRecord, ttl_s: int) -> bool:
        key = keys.arena(record.code, "record")
        if not await self.redis.hsetnx(key, "json", msgspec.json.encode(record)):
            return False
        await self.redis.hset(key, mapping={"ver": 1, "moves": 0})
        await self.expire(record.code, ttl_s)
        return True

    async def expire(self, code: str, ttl_s: int) -> None:
        """Every key of the arena (those there now) lives ``ttl_s`` more."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for part in PARTS:
                pipe.expire(keys.arena(code, part), ttl_s)
            await pipe.execute()

    async def load(self, code: str) -> tuple[ArenaRecord, int] | None:
        found = await self.redis.hmget(keys.arena(code, "record"), ["json", "ver"])
        if found[0] is None:
            return None
        return msgspec.json.decode(found[0], type=ArenaRecord), int(found[1] or 1)

    async def save(self, record: ArenaRecord, ver: int) -> int | None:
        new = await self._save(
            keys=[keys.arena(record.code, "record")], args=[ver, msgspec.json.encode(record)]
        )
        return None if new is None else int(new)

    async def version(self, code: str) -> int:
        return int(await self.redis.hget(keys.arena(code, "record"), "moves") or 0)

    async def enter(self, code: str, racer: str, name: str, owner: str = "") -> bool:
        if await self.redis.sismember(keys.arena(code, "removed"), racer):
            return False
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(keys.arena(code, "names"), racer, name)
            if owner:
                pipe.hset(keys.arena(code, "owners"), racer, owner)
            pipe.zadd(keys.arena(code, "standing"), {racer: 0}, nx=True)
            pipe.hincrby(keys.arena(code, "record"), "moves", 1)
            await pipe.execute()
        return True

    async def remove(self, code: str, racer: str) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sadd(keys.arena(code, "removed"), racer)
            pipe.zrem(keys.arena(code, "standing"), racer)
            pipe.zrem(keys.arena(code, "waiting"), racer)
            pipe.hdel(keys.arena(code, "assign"), racer)
            pipe.hincrby(keys.arena(code, "record"), "moves", 1)
            await pipe.execute()

    async def owners(self, code: str) -> dict[str, str]:
        found = await self.redis.hgetall(keys.arena(code, "owners"))
        return {_text(r): _text(o) for r, o in found.items()}

    async def keep_results(self, results: dict[str, bytes], keep: int, ttl_s: int) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for owner, result in results.items():
                key = keys.arena_results(owner)
                pipe.lpush(key, result)
                pipe.ltrim(key, 0, keep - 1)
                pipe.expire(key, ttl_s)
            await pipe.execute()

    async def results(self, owner: str, limit: int) -> list[bytes]:
        found = await self.redis.lrange(keys.arena_results(owner), 0, limit - 1)
        return [f if isinstance(f, bytes) else f.encode() for f in found]

    async def wait(self, code: str, racer: str, since_ms: int) -> None:
        if not await self.redis.sismember(keys.arena(code, "removed"), racer):
            await self.redis.zadd(keys.arena(code, "waiting"), {racer: since_ms})
            await self._bump(code)

    async def unwait(self, code: str, racer: str) -> None:
        if await self.redis.zrem(keys.arena(code, "waiting"), racer):
            await self._bump(code)

    async def waiting(self, code: str) -> dict[str, int]:
        found = await self.redis.zrange(keys.arena(code, "waiting"), 0, -1, withscores=True)
        return {_text(pair[0]): int(pair[1]) for pair in found}

    async def take(
        self, code: str, racers: Sequence[str], heat: str, least: int, until_ms: int
    ) -> list[str]:
        parts = [keys.arena(code, p) for p in ("waiting", "assign", "record", "forming")]
        taken = await self._take(keys=parts, args=[heat, least, until_ms, *racers])
        return [_text(r) for r in taken]

    async def settle(self, code: str, heat: str) -> None:
        parts = [keys.arena(code, p) for p in ("forming", "assign")]
        await self._settle(keys=parts, args=[heat])

    async def stale(self, code: str, now_ms: int) -> list[str]:
        found = await self.redis.zrangebyscore(keys.arena(code, "forming"), "-inf", now_ms)
        return [_text(h) for h in found]

    async def unplaced(self, code: str, racers: Sequence[str]) -> list[str]:
        if not racers:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zmscore(keys.arena(code, "standing"), list(racers))
            pipe.zmscore(keys.arena(code, "waiting"), list(racers))
            pipe.hmget(keys.arena(code, "assign"), list(racers))
            standing, waiting, assign = await pipe.execute()
        return [
            racer
            for racer, listed, waits, put in zip(racers, standing, waiting, assign, strict=True)
            if listed is not None and waits is None and put is None
        ]

    async def assigned(self, code: str, racers: Sequence[str]) -> dict[str, str]:
        if not racers:
            return {}
        found = await self.redis.hmget(keys.arena(code, "assign"), list(racers))
        return {r: _text(h) for r, h in zip(racers, found, strict=True) if h is not None}

    async def claim(self, code: str, racer: str, heat: str) -> bool:
        return bool(await self._claim(keys=[keys.arena(code, "assign")], args=[racer, heat]))

    async def open_heat(self, code: str, heat: HeatRecord) -> None:
        parts = [keys.arena(code, p) for p in ("heatinfo", "running", "raced", "record", "scored")]
        args: list[Any] = [heat.room, msgspec.json.encode(heat), heat.opened_ms]
        args += [f"{r} {heat.deal}" for r in heat.racers]
        await self._open(keys=parts, args=args)

    async def seat(self, code: str, heat: str, member: str, racer: str) -> None:
        await self.redis.hset(keys.arena(code, f"seats:{heat}"), member, racer)
        await self.redis.expire(keys.arena(code, f"seats:{heat}"), 86400)

    async def seats(self, code: str, heat: str) -> dict[str, str]:
        found = await self.redis.hgetall(keys.arena(code, f"seats:{heat}"))
        return {_text(m): _text(r) for m, r in found.items()}

    async def berserk(self, code: str, heat: str, member: str) -> None:
        await self.redis.sadd(keys.arena(code, f"berserk:{heat}"), member)
        await self.redis.expire(keys.arena(code, f"berserk:{heat}"), 86400)

    async def berserks(self, code: str, heat: str) -> set[str]:
        return {_text(m) for m in await self.redis.smembers(keys.arena(code, f"berserk:{heat}"))}

    async def raced(self, code: str, racers: Sequence[str], deal: str) -> bool:
        if not racers:
            return False
        found = await self.redis.smismember(
            keys.arena(code, "raced"), [f"{r} {deal}" for r in racers]
        )
        return any(found)

    async def heat_over(
        self, code: str, heat: str, places: Sequence[HeatPlace]
    ) -> dict[str, int] | None:
        parts = "scored running standing streak heats last removed record given held".split()
        args: list[Any] = [heat, LAST_PLACES]
        for p in places:
            args += [p.racer, p.points, int(p.podium), p.bonus, p.mark]
        out = await self._heat_over(keys=[keys.arena(code, k) for k in parts], args=args)
        if out is None:
            return None
        return {_text(out[i]): int(out[i + 1]) for i in range(0, len(out), 2)}

    async def hold(self, code: str, heat: str, racer: str) -> bool:
        parts = [keys.arena(code, p) for p in ("given", "held", "standing", "record")]
        return bool(await self._hold_result(keys=parts, args=[f"{heat} {racer}", racer]))

    async def release(self, code: str, heat: str, racer: str) -> bool:
        parts = [keys.arena(code, p) for p in ("held", "standing", "record")]
        return bool(await self._release_result(keys=parts, args=[f"{heat} {racer}", racer]))

    async def rewrite_results(self, code: str, results: dict[str, bytes]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for owner in results:
                pipe.lrange(keys.arena_results(owner), 0, -1)
            kept = await pipe.execute()
        async with self.redis.pipeline(transaction=False) as pipe:
            for (owner, result), found in zip(results.items(), kept, strict=True):
                for n, old in enumerate(found):
                    if msgspec.json.decode(old, type=_Coded).code == code:
                        pipe.lset(keys.arena_results(owner), n, result.decode())
                        break
            await pipe.execute()

    async def heat(self, code: str, heat: str) -> HeatRecord | None:
        found = await self.redis.hget(keys.arena(code, "heatinfo"), heat)
        return None if found is None else msgspec.json.decode(found, type=HeatRecord)

    async def running(self, code: str) -> list[HeatRecord]:
        heats = [_text(h) for h in await self.redis.zrange(keys.arena(code, "running"), 0, -1)]
        if not heats:
            return []
        found = await self.redis.hmget(keys.arena(code, "heatinfo"), heats)
        return [msgspec.json.decode(f, type=HeatRecord) for f in found if f is not None]

    async def _entries(self, code: str, ranked: list[tuple[Any, float]]) -> list[StandingEntry]:
        racers = [_text(r) for r, _ in ranked]
        if not racers:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for part in ("names", "streak", "heats", "last"):
                pipe.hmget(keys.arena(code, part), racers)
            names, streaks, heats, lasts = await pipe.execute()
        return [
            StandingEntry(
                racer,
                _text(names[i] or b""),
                int(-score),
                int(streaks[i] or 0),
                int(heats[i] or 0),
                _text(lasts[i] or b""),
            )
            for i, (racer, (_, score)) in enumerate(zip(racers, ranked, strict=True))
        ]

    async def standing(self, code: str, limit: int) -> tuple[list[StandingEntry], int]:
        key = keys.arena(code, "standing")
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrange(key, 0, limit - 1, withscores=True)
            pipe.zcard(key)
            top, count = await pipe.execute()
        return await self._entries(code, top), int(count)

    async def entries(
        self, code: str, racers: Sequence[str]
    ) -> dict[str, tuple[StandingEntry, int]]:
        key = keys.arena(code, "standing")
        if not racers:
            return {}
        scores = await self.redis.zmscore(key, list(racers))
        found = [(r, s) for r, s in zip(racers, scores, strict=True) if s is not None]
        if not found:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for _, score in found:
                pipe.zcount(key, "-inf", f"({score}")
            above = await pipe.execute()
        lines = await self._entries(code, found)
        return {line.racer: (line, int(n) + 1) for line, n in zip(lines, above, strict=True)}

    async def lock(self, code: str, owner: str, ttl_ms: int) -> bool:
        return bool(await self._lock(keys=[keys.arena(code, "lock")], args=[owner, ttl_ms]))

    async def finish(self, code: str) -> bool:
        return bool(await self.redis.set(keys.arena(code, "done"), 1, nx=True))

    async def publish(self, code: str, starts_at: int, keep_ms: int) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(keys.ARENA_PUBLIC, {code: starts_at})
            pipe.zremrangebyscore(keys.ARENA_PUBLIC, "-inf", f"({starts_at - keep_ms}")
            await pipe.execute()

    async def publics(self, since_ms: int, until_ms: int) -> list[str]:
        found = await self.redis.zrangebyscore(keys.ARENA_PUBLIC, since_ms, until_ms)
        return [_text(code) for code in found]

    async def track(self, code: str, starts_at: int, since_ms: int) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(keys.ARENA_PRIVATE, {code: starts_at})
            pipe.zremrangebyscore(keys.ARENA_PRIVATE, "-inf", f"({since_ms}")
            await pipe.execute()

    async def tracked(self, since_ms: int, until_ms: int) -> list[str]:
        found = await self.redis.zrangebyscore(keys.ARENA_PRIVATE, since_ms, until_ms)
        return [_text(code) for code in found]

    async def hold_racer(self, racer: str, heat: str, ttl_ms: int) -> bool:
        return bool(await self._hold(keys=[keys.arena_racer(racer)], args=[heat, ttl_ms]))

    async def racer_heat(self, racer: str) -> str | None:
        found = await self.redis.get(keys.arena_racer(racer))
        return None if found is None else _text(found)

    async def free_racer(self, racer: str, heat: str) -> None:
        await self._free(keys=[keys.arena_racer(racer)], args=[heat])
