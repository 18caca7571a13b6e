"""``MatchQueue`` in memory (``storage.matchmaking``'s twin)."""

from __future__ import annotations

from collections.abc import Sequence

from canfield_server.room.ports import RaceSearch, Waiting
from canfield_server.storage.memory.backend import MemoryBackend

__all__ = ["MemoryMatchQueue"]


class MemoryMatchQueue:
    """``MatchQueue`` over a ``MemoryBackend`` (``storage.matchmaking``'s twin;
    the races' expiry is not kept: a test's races end long before it)."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.backend = backend

    async def close(self) -> None:
        pass

    async def find_race(self, search: RaceSearch) -> str | None:
        pool, rating, now_ms, band = search.pool, search.rating, search.now_ms, search.band
        ttl_s, offer, mine = search.ttl_s, search.offer, search.mine
        races = self.backend.quick.setdefault(pool, {})
        for code in [c for c, (_, since) in races.items() if now_ms - since > ttl_s * 1000]:
            del races[code]
        held = [
            (abs(centre - rating), since, code)
            for code, (centre, since) in races.items()
            if code != mine and abs(centre - rating) <= band.width(now_ms - since)
        ]
        if held:
            races.pop(mine, None)
            return min(held)[2]
        keep = offer or mine
        if keep:
            races[keep] = (rating, races.get(keep, (rating, now_ms))[1])
            return keep
        return None

    async def close_race(self, pool: str, code: str) -> None:
        self.backend.quick.get(pool, {}).pop(code, None)

    async def reopen_race(self, pool: str, code: str, rating: int, now_ms: int, ttl_s: int) -> None:
        races = self.backend.quick.setdefault(pool, {})
        races[code] = (rating, races.get(code, (rating, now_ms))[1])

    async def still_waiting(
        self, pool: str, seat: str, code: str, now_ms: int, until_ms: int
    ) -> Waiting:
        waiting = self.backend.quick_waiting.setdefault(pool, {})
        for gone in [s for s, until in waiting.items() if until <= now_ms]:
            del waiting[gone]
        waiting[seat] = until_ms
        race = self.backend.quick.get(pool, {}).get(code)
        return Waiting(len(waiting), race[1] if race is not None else None)

    async def stopped_waiting(self, pool: str, seats: Sequence[str]) -> None:
        waiting = self.backend.quick_waiting.get(pool, {})
        for seat in seats:
            waiting.pop(seat, None)

    async def live_add(self, code: str, started_at: int) -> None:
        self.backend.live[code] = started_at

    async def live(self, limit: int) -> list[str]:
        newest = sorted(self.backend.live.items(), key=lambda kv: kv[1], reverse=True)
        return [code for code, _ in newest[:limit]]

    async def live_drop(self, code: str) -> None:
        self.backend.live.pop(code, None)

    async def keep_past(self, pool: str, entry: str, rating: int, keep: int) -> None:
        past = self.backend.quick_past.setdefault(pool, {})
        past.pop(entry, None)
        past[entry] = rating  # a dict keeps arrival order: the oldest go first
        while len(past) > keep:
            del past[next(iter(past))]

    async def past_near(self, pool: str, rating: int, most: int) -> list[str]:
        past = self.backend.quick_past.get(pool, {})
        return sorted(past, key=lambda e: (abs(past[e] - rating), e))[:most]
