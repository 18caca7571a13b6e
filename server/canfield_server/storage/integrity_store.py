"""Results' integrity assessments and the review queue in Redis
(``room.ports.IntegrityStore``).

One result's assessment is a hash (``player_keys.case``): the case as recorded
(``case``, written once: HSETNX in a script) and where its review stands
(``status``, ``by``, ``at``). Flagged cases wait in ``player_keys.REVIEW_QUEUE``
(newest recorded first); a decision moves them to ``player_keys.REVIEW_DECIDED``
(the last ``DECIDED_KEPT``). A case and the queues live
``history_retention_days``; a bar (``player_keys.barred``, beside its identity)
lives as long from the confirmation and is kept alive by every look at it
(each race that asks whether its racers may be ranked), so an identity that
keeps playing stays barred.

A decision is taken once: the script that sets the status only moves an
open case. The queue, the decided list and the bar are written after it
(other slots on a Redis Cluster); each of those writes may be repeated.
"""

from __future__ import annotations

from typing import Any

import msgspec
from redis.asyncio import Redis, RedisCluster

from canfield_server.room.ports import (
    REVIEW_CLEARED,
    REVIEW_CONFIRMED,
    REVIEW_OPEN,
    ReviewCase,
    race_of,
)
from canfield_server.storage import player_keys

__all__ = ["RECORD", "DECIDE", "DECIDED_KEPT", "RedisIntegrityStore", "case_with"]

#: decided cases the console can list
DECIDED_KEPT = 1000

#: Keep one assessment, once.  KEYS[1] case  ARGV[1] case JSON  ARGV[2] status
#: ARGV[3] TTL (s).  Returns 1 kept, 0 the result has one already.
RECORD = """
if redis.call('HSETNX', KEYS[1], 'case', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""

#: Decide an open case.  KEYS[1] case  ARGV[1] status  ARGV[2] by  ARGV[3] at
#: Returns the case JSON, or false when it is no open case.
DECIDE = """
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return false end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'by', ARGV[2], 'at', ARGV[3])
return redis.call('HGET', KEYS[1], 'case')
"""

_case_decoder = msgspec.json.Decoder(ReviewCase)
_encoder = msgspec.json.Encoder()


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


def case_with(raw: bytes | str, status: str, by: str | None, at: int | None) -> ReviewCase:
    """A stored case with where its review stands."""
    found = _case_decoder.decode(raw)
    return msgspec.structs.replace(found, status=status, decided_by=by, decided_at=at)


def _racer(case: ReviewCase) -> str:
    """How ``race_flags`` names the racer: a daily's public id, a room's member id."""
    return (case.public_id or "") if case.kind == "daily" else case.member_id


def _stored(case: ReviewCase) -> tuple[ReviewCase, str]:
    """The case as recorded (no decision yet) and its status."""
    status = REVIEW_OPEN if case.reasons else ""
    return msgspec.structs.replace(case, status=status, decided_by=None, decided_at=None), status


class RedisIntegrityStore:
    def __init__(self, redis: Redis | RedisCluster, *, retention_days: int) -> None:
        self.redis = redis
        self.ttl_s = retention_days * 86_400
        self._record = redis.register_script(RECORD)
        self._decide = redis.register_script(DECIDE)

    async def close(self) -> None:
        pass

    async def record(self, case: ReviewCase) -> bool:
        kept, status = _stored(case)
        done = await self._record(
            keys=[player_keys.case(case.result)], args=[_encoder.encode(kept), status, self.ttl_s]
        )
        if not done:
            return False
        if status == REVIEW_OPEN:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zadd(player_keys.REVIEW_QUEUE, {case.result: case.at})
                pipe.zremrangebyscore(player_keys.REVIEW_QUEUE, "-inf", case.at - self.ttl_s * 1000)
                if case.identity:
                    pipe.sadd(player_keys.open_cases_of(case.identity), case.result)
                    pipe.expire(player_keys.open_cases_of(case.identity), self.ttl_s)
                self._race_flag(pipe, case, REVIEW_OPEN)
                await pipe.execute()
        return True

    def _race_flag(self, pipe: Any, case: ReviewCase, status: str) -> None:
        race = race_of(case)
        if race is not None:
            pipe.hset(player_keys.race_flags(race), _racer(case), status)
            pipe.expire(player_keys.race_flags(race), self.ttl_s)

    async def case(self, result: str) -> ReviewCase | None:
        raw, status, by, at = await self.redis.hmget(
            player_keys.case(result), "case", "status", "by", "at"
        )
        if raw is None:
            return None
        return case_with(raw, _text(status), _text(by) or None, int(at) if at else None)

    async def _cases(self, results: list[Any]) -> list[ReviewCase]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for result in results:
                pipe.hmget(player_keys.case(_text(result)), "case", "status", "by", "at")
            found = await pipe.execute()
        return [
            case_with(raw, _text(status), _text(by) or None, int(at) if at else None)
            for raw, status, by, at in found
            if raw is not None
        ]

    async def open_cases(self, limit: int) -> list[ReviewCase]:
        if limit <= 0:
            return []
        results = await self.redis.zrevrange(player_keys.REVIEW_QUEUE, 0, limit - 1)
        # a case decided between the two reads (or lapsed) is not open
        return [c for c in await self._cases(results) if c.status == REVIEW_OPEN]

    async def decided_cases(self, limit: int) -> list[ReviewCase]:
        if limit <= 0:
            return []
        results = await self.redis.zrevrange(player_keys.REVIEW_DECIDED, 0, limit - 1)
        return [c for c in await self._cases(results) if c.status != REVIEW_OPEN]

    async def decide(self, result: str, confirm: bool, by: str, at: int) -> ReviewCase | None:
        status = REVIEW_CONFIRMED if confirm else REVIEW_CLEARED
        raw = await self._decide(keys=[player_keys.case(result)], args=[status, by, at])
        if raw is None:
            return None
        decided = case_with(raw, status, by, at)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(player_keys.REVIEW_QUEUE, result)
            pipe.zadd(player_keys.REVIEW_DECIDED, {result: at})
            pipe.zremrangebyrank(player_keys.REVIEW_DECIDED, 0, -DECIDED_KEPT - 1)
            if decided.identity:
                pipe.srem(player_keys.open_cases_of(decided.identity), result)
            self._race_flag(pipe, decided, status)
            why = _encoder.encode({"result": result, "by": by, "at": at})
            if confirm and decided.identity:
                pipe.set(player_keys.barred(decided.identity), why, ex=self.ttl_s)
            if confirm and decided.public_id:
                pipe.set(player_keys.barred_player(decided.public_id), why, ex=self.ttl_s)
            await pipe.execute()
        return decided

    async def statuses(self, results: list[str]) -> dict[str, str]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for result in results:
                pipe.hget(player_keys.case(result), "status")
            found = await pipe.execute()
        return {r: _text(s) for r, s in zip(results, found, strict=True) if _text(s)}

    async def _kept(self, names: list[str], key: Any) -> set[str]:
        """Those of ``names`` whose ``key`` exists, each kept alive another TTL."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.expire(key(name), self.ttl_s)
            found = await pipe.execute()
        return {n for n, kept in zip(names, found, strict=True) if kept}

    async def barred(self, identities: list[str]) -> set[str]:
        return await self._kept(identities, player_keys.barred)

    async def barred_players(self, public_ids: list[str]) -> set[str]:
        return await self._kept(public_ids, player_keys.barred_player)

    async def under_review(self, identities: list[str]) -> set[str]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for identity in identities:
                pipe.scard(player_keys.open_cases_of(identity))
            found = await pipe.execute()
        return {i for i, n in zip(identities, found, strict=True) if n}

    async def race_flags(self, race: str) -> dict[str, str]:
        found = await self.redis.hgetall(player_keys.race_flags(race))
        return {_text(pid): _text(status) for pid, status in found.items()}
