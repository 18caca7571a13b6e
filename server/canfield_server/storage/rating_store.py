"""Public races' ratings in Redis (``room.ports.RatingStore``).

An identity's rating of a draw mode is a hash next to its identity
(``player_keys.rating``; same hash tag), its history a bounded list
(``player_keys.rating_history``); both live ``history_retention_days`` from the
last rated race, as the identity does. Each draw mode's ladder is a sorted
set by shown rating with a hash of display rows beside it (one hash tag:
the LADDER script reads the top rows in one round trip).

A race's ratings are read, computed and written without a lock: one
identity holds one seat in one public race at a time, so no two races
rate the same identity's draw mode at once. A race is rated at most once:
the process storing its ratings first claims it (``player_keys.rated_race``,
SET NX, kept ``RATED_KEEP_S``), so a retry or a second process stores
nothing.
"""

from __future__ import annotations

import msgspec
from redis.asyncio import Redis, RedisCluster

from canfield_server.room.ports import LadderRow, RatingChange, RatingPoint, StoredRating
from canfield_server.storage import player_keys

__all__ = ["LADDER", "PAIRS_KEEP_S", "RATED_KEEP_S", "RedisRatingStore"]

#: how long a rated race's claim is kept (far beyond any retry of its results)
RATED_KEEP_S = 86_400
#: how long a day's count of races rated per pair is kept (past that UTC day)
PAIRS_KEEP_S = 2 * 86_400

#: The ladder's top rows.  KEYS[1] rank  KEYS[2] rows  ARGV[1] rows wanted
#: Returns the identities and the rows' JSON, interleaved, best first.
LADDER = """
local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return {} end
local rows = redis.call('HMGET', KEYS[2], unpack(ids))
local out = {}
for i = 1, #ids do
  out[#out + 1] = ids[i]
  out[#out + 1] = rows[i] or ''
end
return out
"""

_point_decoder = msgspec.json.Decoder(RatingPoint)
_row_decoder = msgspec.json.Decoder(LadderRow)
_change_decoder = msgspec.json.Decoder(RatingChange)
_encoder = msgspec.json.Encoder()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisRatingStore:
    def __init__(
        self, redis: Redis | RedisCluster, *, retention_days: int, max_points: int
    ) -> None:
        self.redis = redis
        self.ttl_s = retention_days * 86_400
        self.max_points = max_points
        self._ladder = redis.register_script(LADDER)

    async def close(self) -> None:
        pass

    async def ratings(self, draw: int, identities: list[str]) -> dict[str, StoredRating]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for token_hash in identities:
                pipe.hmget(player_keys.rating(token_hash, draw), "mu", "sigma", "races", "name")
            found = await pipe.execute()
        return {
            token_hash: StoredRating(
                mu=float(mu), sigma=float(sigma), races=int(races or 0), name=_text(name or b"")
            )
            for token_hash, (mu, sigma, races, name) in zip(identities, found, strict=True)
            if mu is not None and sigma is not None
        }

    async def save_ratings(
        self, draw: int, saved: list[tuple[str, StoredRating, RatingPoint, LadderRow | None]]
    ) -> None:
        rank, rows = player_keys.ladder_rank(draw), player_keys.ladder_rows(draw)
        async with self.redis.pipeline(transaction=False) as pipe:
            for token_hash, rating, point, ladder_row in saved:
                key, history = (
                    player_keys.rating(token_hash, draw),
                    player_keys.rating_history(token_hash, draw),
                )
                pipe.hset(
                    key,
                    mapping={
                        "mu": repr(rating.mu),
                        "sigma": repr(rating.sigma),
                        "races": rating.races,
                        "name": rating.name,
                    },
                )
                pipe.expire(key, self.ttl_s)
                pipe.lpush(history, _encoder.encode(point))
                pipe.ltrim(history, 0, self.max_points - 1)
                pipe.expire(history, self.ttl_s)
                if ladder_row is None:
                    pipe.zrem(rank, token_hash)
                    pipe.hdel(rows, token_hash)
                else:
                    pipe.zadd(rank, {token_hash: ladder_row.rating})
                    pipe.hset(rows, token_hash, _encoder.encode(ladder_row))
            await pipe.execute()

    async def claim_race(self, code: str, race_no: int) -> bool:
        key = player_keys.rated_race(code, race_no)
        return bool(await self.redis.set(key, "1", nx=True, ex=RATED_KEEP_S))

    async def ladder(self, draw: int, limit: int) -> list[LadderRow]:
        return [row for _, row in await self.ladder_of(draw, limit)]

    async def ladder_of(self, draw: int, limit: int) -> list[tuple[str, LadderRow]]:
        if limit <= 0:
            return []
        found = await self._ladder(
            keys=[player_keys.ladder_rank(draw), player_keys.ladder_rows(draw)], args=[limit]
        )
        pairs = zip(found[::2], found[1::2], strict=True)
        return [(_text(i), _row_decoder.decode(raw)) for i, raw in pairs if raw]

    async def rating_history(self, identity: str, draw: int, limit: int) -> list[RatingPoint]:
        if limit <= 0:
            return []
        found = await self.redis.lrange(player_keys.rating_history(identity, draw), 0, limit - 1)
        return [_point_decoder.decode(raw) for raw in found]

    async def pairs_rated(self, day: str, pairs: list[str]) -> dict[str, int]:
        if not pairs:
            return {}
        found = await self.redis.hmget(player_keys.rating_pairs(day), pairs)
        return {p: int(n) for p, n in zip(pairs, found, strict=True) if n is not None}

    async def note_pairs(self, day: str, pairs: list[str]) -> None:
        if not pairs:
            return
        key = player_keys.rating_pairs(day)
        async with self.redis.pipeline(transaction=False) as pipe:
            for pair in pairs:
                pipe.hincrby(key, pair, 1)
            pipe.expire(key, PAIRS_KEEP_S)
            await pipe.execute()

    async def opponents(self, draw: int, met: dict[str, list[str]]) -> dict[str, int]:
        ids = list(met)
        async with self.redis.pipeline(transaction=False) as pipe:
            for identity in ids:
                key = player_keys.rating_opponents(identity, draw)
                pipe.scard(key)
                if met[identity]:
                    pipe.smismember(key, met[identity])
            found = iter(await pipe.execute())
        out = {}
        for identity in ids:
            known = int(next(found))
            new = [not hit for hit in next(found)] if met[identity] else []
            out[identity] = known + sum(new)
        return out

    async def note_opponents(self, draw: int, met: dict[str, list[str]]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for identity, others in met.items():
                if others:
                    key = player_keys.rating_opponents(identity, draw)
                    pipe.sadd(key, *others)
                    pipe.expire(key, self.ttl_s)
            await pipe.execute()

    async def save_race_changes(
        self, code: str, race_no: int, draw: int, changes: dict[str, RatingChange]
    ) -> None:
        key = player_keys.race_changes(code, race_no)
        mapping: dict[str | bytes, bytes | int] = {"draw": draw}
        mapping.update((i, _encoder.encode(change)) for i, change in changes.items())
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(key, mapping=mapping)  # type: ignore[arg-type]
            pipe.expire(key, self.ttl_s)
            await pipe.execute()

    async def race_changes(self, code: str, race_no: int) -> tuple[int, dict[str, RatingChange]]:
        found = await self.redis.hgetall(player_keys.race_changes(code, race_no))
        draw = int(found.pop(b"draw", 0) or 0)
        return draw, {_text(i): _change_decoder.decode(raw) for i, raw in found.items()}
