"""``RatingStore`` in memory (``storage.rating_store``'s twin)."""

from __future__ import annotations

from canfield_server.room.ports import LadderRow, RatingChange, RatingPoint, StoredRating
from canfield_server.storage.memory.backend import MemoryBackend

__all__ = ["MemoryRatingStore"]


class MemoryRatingStore:
    """``RatingStore`` over a ``MemoryBackend`` (``storage.rating_store``'s twin)."""

    def __init__(self, backend: MemoryBackend, *, max_points: int) -> None:
        self.backend = backend
        self.max_points = max_points

    async def close(self) -> None:
        pass

    async def ratings(self, draw: int, identities: list[str]) -> dict[str, StoredRating]:
        found = ((i, self.backend.ratings.get((i, draw))) for i in identities)
        return {i: rating for i, rating in found if rating is not None}

    async def save_ratings(
        self, draw: int, saved: list[tuple[str, StoredRating, RatingPoint, LadderRow | None]]
    ) -> None:
        ladder = self.backend.ladders.setdefault(draw, {})
        for identity, rating, point, row in saved:
            self.backend.ratings[identity, draw] = rating
            points = self.backend.rating_points.setdefault((identity, draw), [])
            points.insert(0, point)
            del points[self.max_points :]
            if row is None:
                ladder.pop(identity, None)
            else:
                ladder[identity] = row

    async def claim_race(self, code: str, race_no: int) -> bool:
        if (code, race_no) in self.backend.rated_races:
            return False
        self.backend.rated_races.add((code, race_no))
        return True

    async def ladder(self, draw: int, limit: int) -> list[LadderRow]:
        return [row for _, row in await self.ladder_of(draw, limit)]

    async def ladder_of(self, draw: int, limit: int) -> list[tuple[str, LadderRow]]:
        # a sorted set read high to low: by score, then by member, both descending
        ladder = self.backend.ladders.get(draw, {})
        order = sorted(((row.rating, i) for i, row in ladder.items()), reverse=True)
        return [(i, ladder[i]) for _, i in order[: max(0, limit)]]

    async def rating_history(self, identity: str, draw: int, limit: int) -> list[RatingPoint]:
        return self.backend.rating_points.get((identity, draw), [])[: max(0, limit)]

    async def pairs_rated(self, day: str, pairs: list[str]) -> dict[str, int]:
        counts = self.backend.rating_pairs.get(day, {})
        return {p: counts[p] for p in pairs if p in counts}

    async def note_pairs(self, day: str, pairs: list[str]) -> None:
        counts = self.backend.rating_pairs.setdefault(day, {})
        for pair in pairs:
            counts[pair] = counts.get(pair, 0) + 1

    async def opponents(self, draw: int, met: dict[str, list[str]]) -> dict[str, int]:
        known = self.backend.rating_opponents
        return {i: len(known.get((i, draw), set()) | set(o)) for i, o in met.items()}

    async def note_opponents(self, draw: int, met: dict[str, list[str]]) -> None:
        for identity, others in met.items():
            if others:
                self.backend.rating_opponents.setdefault((identity, draw), set()).update(others)

    async def save_race_changes(
        self, code: str, race_no: int, draw: int, changes: dict[str, RatingChange]
    ) -> None:
        self.backend.race_changes[code, race_no] = (draw, dict(changes))

    async def race_changes(self, code: str, race_no: int) -> tuple[int, dict[str, RatingChange]]:
        return self.backend.race_changes.get((code, race_no), (0, {}))
