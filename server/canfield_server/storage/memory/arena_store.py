"""``ArenaStore`` in memory (``storage.arena_store``'s twin; keys do not expire)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import msgspec
from canfield_protocol import ArenaResult

from canfield_server.room.ports import (
    LAST_PLACES,
    ArenaRecord,
    HeatPlace,
    HeatRecord,
    StandingEntry,
)
from canfield_server.storage.memory.backend import MemoryBackend

__all__ = ["MemoryArenaStore", "MemoryArena"]


@dataclass
class MemoryArena:
    """What one arena's keys hold."""

    record: bytes
    ver: int = 1
    moves: int = 0
    names: dict[str, str] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)
    streak: dict[str, int] = field(default_factory=dict)
    heats_run: dict[str, int] = field(default_factory=dict)
    last: dict[str, str] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    waiting: dict[str, int] = field(default_factory=dict)
    assign: dict[str, str] = field(default_factory=dict)
    forming: dict[str, int] = field(default_factory=dict)
    #: "heat racer" -> the points the heat gave; those held under review
    given: dict[str, int] = field(default_factory=dict)
    held: dict[str, int] = field(default_factory=dict)
    heats: dict[str, bytes] = field(default_factory=dict)
    running: dict[str, int] = field(default_factory=dict)
    seats: dict[str, dict[str, str]] = field(default_factory=dict)
    berserk: dict[str, set[str]] = field(default_factory=dict)
    raced: set[str] = field(default_factory=set)
    scored: set[str] = field(default_factory=set)
    owners: dict[str, str] = field(default_factory=dict)
    lock: tuple[str, int] = ("", 0)
    closed: bool = False


class MemoryArenaStore:
    """``ArenaStore`` over a ``MemoryBackend``; ``now_ms`` is the lock's clock."""

    def __init__(self, backend: MemoryBackend, now_ms: Callable[[], int]) -> None:
        self.backend = backend
        self.now_ms = now_ms

    async def close(self) -> None:
        pass

    def _a(self, code: str) -> MemoryArena:
        return self.backend.arenas.setdefault(code, MemoryArena(record=b""))

    async def create(self, record: ArenaRecord, ttl_s: int) -> bool:
        if self.backend.arenas.get(record.code, MemoryArena(b"")).record:
            return False
        self._a(record.code).record = msgspec.json.encode(record)
        return True

    async def load(self, code: str) -> tuple[ArenaRecord, int] | None:
        a = self.backend.arenas.get(code)
        if a is None or not a.record:
            return None
        return msgspec.json.decode(a.record, type=ArenaRecord), a.ver

    async def save(self, record: ArenaRecord, ver: int) -> int | None:
        a = self.backend.arenas.get(record.code)
        if a is None or not a.record or a.ver != ver:
            return None
        a.record, a.ver = msgspec.json.encode(record), ver + 1
        a.moves += 1
        return a.ver

    async def version(self, code: str) -> int:
        return self._a(code).moves

    async def enter(self, code: str, racer: str, name: str, owner: str = "") -> bool:
        a = self._a(code)
        if racer in a.removed:
            return False
        a.names[racer] = name
        if owner:
            a.owners[racer] = owner
        a.points.setdefault(racer, 0)
        a.moves += 1
        return True

    async def remove(self, code: str, racer: str) -> None:
        a = self._a(code)
        a.removed.add(racer)
        for table in (a.points, a.waiting, a.assign):
            table.pop(racer, None)
        a.moves += 1

    async def owners(self, code: str) -> dict[str, str]:
        return dict(self._a(code).owners)

    async def keep_results(self, results: dict[str, bytes], keep: int, ttl_s: int) -> None:
        kept = self.backend.arena_results
        for owner, result in results.items():
            kept[owner] = [result, *kept.get(owner, [])][:keep]

    async def results(self, owner: str, limit: int) -> list[bytes]:
        return self.backend.arena_results.get(owner, [])[:limit]

    async def wait(self, code: str, racer: str, since_ms: int) -> None:
        a = self._a(code)
        if racer not in a.removed:
            a.waiting[racer] = since_ms
            a.moves += 1

    async def unwait(self, code: str, racer: str) -> None:
        a = self._a(code)
        if a.waiting.pop(racer, None) is not None:
            a.moves += 1

    async def waiting(self, code: str) -> dict[str, int]:
        return dict(self._a(code).waiting)

    async def take(
        self, code: str, racers: Sequence[str], heat: str, least: int, until_ms: int
    ) -> list[str]:
        a = self._a(code)
        taken = [r for r in racers if r in a.waiting]
        if len(taken) < least:
            return []
        for racer in taken:
            del a.waiting[racer]
            a.assign[racer] = heat
        a.forming[heat] = until_ms
        a.moves += 1
        return taken

    async def settle(self, code: str, heat: str) -> None:
        a = self._a(code)
        a.forming.pop(heat, None)
        a.assign = {r: h for r, h in a.assign.items() if h != heat}

    async def stale(self, code: str, now_ms: int) -> list[str]:
        forming = self._a(code).forming
        found = [h for h, until in forming.items() if until <= now_ms]
        return sorted(found, key=lambda h: (forming[h], h))

    async def unplaced(self, code: str, racers: Sequence[str]) -> list[str]:
        a = self._a(code)
        return [r for r in racers if r in a.points and r not in a.waiting and r not in a.assign]

    async def assigned(self, code: str, racers: Sequence[str]) -> dict[str, str]:
        a = self._a(code)
        return {r: a.assign[r] for r in racers if r in a.assign}

    async def claim(self, code: str, racer: str, heat: str) -> bool:
        a = self._a(code)
        if a.assign.get(racer) != heat:
            return False
        del a.assign[racer]
        return True

    async def open_heat(self, code: str, heat: HeatRecord) -> None:
        a = self._a(code)
        a.heats[heat.room] = msgspec.json.encode(heat)
        if heat.room not in a.scored:
            a.running[heat.room] = heat.opened_ms
        a.raced.update(f"{racer} {heat.deal}" for racer in heat.racers)
        a.moves += 1

    async def seat(self, code: str, heat: str, member: str, racer: str) -> None:
        self._a(code).seats.setdefault(heat, {})[member] = racer

    async def seats(self, code: str, heat: str) -> dict[str, str]:
        return dict(self._a(code).seats.get(heat, {}))

    async def berserk(self, code: str, heat: str, member: str) -> None:
        self._a(code).berserk.setdefault(heat, set()).add(member)

    async def berserks(self, code: str, heat: str) -> set[str]:
        return set(self._a(code).berserk.get(heat, set()))

    async def raced(self, code: str, racers: Sequence[str], deal: str) -> bool:
        raced = self._a(code).raced
        return any(f"{racer} {deal}" in raced for racer in racers)

    async def heat_over(
        self, code: str, heat: str, places: Sequence[HeatPlace]
    ) -> dict[str, int] | None:
        a = self._a(code)
        if heat in a.scored:
            return None
        a.scored.add(heat)
        a.running.pop(heat, None)
        given = {}
        for place in places:
            if place.racer in a.removed:
                continue
            streak = a.streak.get(place.racer, 0)
            points = place.points + (place.bonus if place.podium else 0)
            if place.podium and streak >= 2:
                points *= 2
            a.streak[place.racer] = streak + 1 if place.podium else 0
            result = f"{heat} {place.racer}"
            a.given[result] = points
            if result in a.held:
                a.held[result] = points
            else:
                a.points[place.racer] = a.points.get(place.racer, 0) + points
            a.heats_run[place.racer] = a.heats_run.get(place.racer, 0) + 1
            a.last[place.racer] = (a.last.get(place.racer, "") + place.mark)[-LAST_PLACES:]
            given[place.racer] = points
        a.moves += 1
        return given

    async def hold(self, code: str, heat: str, racer: str) -> bool:
        a, result = self._a(code), f"{heat} {racer}"
        if result in a.held:
            return False
        a.held[result] = a.given.get(result, 0)
        if racer in a.points:
            a.points[racer] -= a.held[result]
        a.moves += 1
        return True

    async def release(self, code: str, heat: str, racer: str) -> bool:
        a, result = self._a(code), f"{heat} {racer}"
        if result not in a.held:
            return False
        points = a.held.pop(result)
        if racer in a.points:
            a.points[racer] += points
        a.moves += 1
        return True

    async def rewrite_results(self, code: str, results: dict[str, bytes]) -> None:
        kept = self.backend.arena_results
        for owner, result in results.items():
            found = kept.get(owner, [])
            for n, old in enumerate(found):
                if msgspec.json.decode(old, type=ArenaResult).code == code:
                    found[n] = result
                    break

    async def heat(self, code: str, heat: str) -> HeatRecord | None:
        found = self._a(code).heats.get(heat)
        return None if found is None else msgspec.json.decode(found, type=HeatRecord)

    async def running(self, code: str) -> list[HeatRecord]:
        a = self._a(code)
        order = sorted(a.running, key=lambda h: (a.running[h], h))
        return [msgspec.json.decode(a.heats[h], type=HeatRecord) for h in order]

    def _entry(self, a: MemoryArena, racer: str) -> StandingEntry:
        return StandingEntry(
            racer,
            a.names.get(racer, ""),
            a.points.get(racer, 0),
            a.streak.get(racer, 0),
            a.heats_run.get(racer, 0),
            a.last.get(racer, ""),
        )

    async def standing(self, code: str, limit: int) -> tuple[list[StandingEntry], int]:
        a = self._a(code)
        order = sorted(a.points, key=lambda r: (-a.points[r], r))[:limit]
        return [self._entry(a, r) for r in order], len(a.points)

    async def entries(
        self, code: str, racers: Sequence[str]
    ) -> dict[str, tuple[StandingEntry, int]]:
        a = self._a(code)
        return {
            r: (self._entry(a, r), 1 + sum(p > a.points[r] for p in a.points.values()))
            for r in racers
            if r in a.points
        }

    async def lock(self, code: str, owner: str, ttl_ms: int) -> bool:
        a = self._a(code)
        now = self.now_ms()
        held, until = a.lock
        if held and held != owner and until > now:
            return False
        a.lock = (owner, now + ttl_ms)
        return True

    async def finish(self, code: str) -> bool:
        a = self._a(code)
        if a.closed:
            return False
        a.closed = True
        return True

    async def publish(self, code: str, starts_at: int, keep_ms: int) -> None:
        listed = self.backend.arena_public
        listed[code] = starts_at
        for old in [c for c, at in listed.items() if at < starts_at - keep_ms]:
            del listed[old]

    async def publics(self, since_ms: int, until_ms: int) -> list[str]:
        listed = self.backend.arena_public
        found = [c for c, at in listed.items() if since_ms <= at <= until_ms]
        return sorted(found, key=lambda c: (listed[c], c))

    async def track(self, code: str, starts_at: int, since_ms: int) -> None:
        listed = self.backend.arena_private
        listed[code] = starts_at
        for old in [c for c, at in listed.items() if at < since_ms]:
            del listed[old]

    async def tracked(self, since_ms: int, until_ms: int) -> list[str]:
        listed = self.backend.arena_private
        found = [c for c, at in listed.items() if since_ms <= at <= until_ms]
        return sorted(found, key=lambda c: (listed[c], c))

    async def hold_racer(self, racer: str, heat: str, ttl_ms: int) -> bool:
        held = await self.racer_heat(racer)
        if held is not None and held != heat:
            return False
        self.backend.arena_racers[racer] = (heat, self.now_ms() + ttl_ms)
        return True

    async def racer_heat(self, racer: str) -> str | None:
        heat, until = self.backend.arena_racers.get(racer, ("", 0))
        return heat if heat and until > self.now_ms() else None

    async def free_racer(self, racer: str, heat: str) -> None:
        if self.backend.arena_racers.get(racer, ("", 0))[0] == heat:
            del self.backend.arena_racers[racer]
