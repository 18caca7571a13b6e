"""``ChallengeStore`` in memory (``storage.challenge_store``'s twin): a challenge
and its standing lapse by their time on the store's clock, as their keys would."""

from __future__ import annotations

from canfield_server.ops.clock import SYSTEM, Clock
from canfield_server.room.ports import Taken
from canfield_server.storage.memory.backend import MemoryBackend, StoredChallenge

__all__ = ["MemoryChallengeStore"]


class MemoryChallengeStore:
    """``ChallengeStore`` over a ``MemoryBackend``."""

    def __init__(self, backend: MemoryBackend, clock: Clock = SYSTEM) -> None:
        self.backend = backend
        self.clock = clock

    async def close(self) -> None:
        pass

    def _live(self, challenge_id: str) -> StoredChallenge | None:
        found = self.backend.challenges.get(challenge_id)
        if found is not None and found.until <= self.clock.now_ms():
            del self.backend.challenges[challenge_id]
            return None
        return found

    async def create(self, challenge_id: str, body: bytes, ttl_ms: int) -> None:
        until = self.clock.now_ms() + ttl_ms
        self.backend.challenges[challenge_id] = StoredChallenge(body, until)

    async def load(self, challenge_id: str) -> bytes | None:
        found = self._live(challenge_id)
        return None if found is None else found.body

    async def record(
        self, challenge_id: str, taker: str, row: bytes, score: float, most: int
    ) -> Taken:
        """``storage.challenge_store.RECORD``, step for step."""
        found = self._live(challenge_id)
        if found is None:
            return Taken.GONE
        old = found.scores.get(taker)
        if old is not None and old <= score:
            return Taken.KEPT
        found.scores[taker] = score
        found.rows[taker] = row
        if len(found.scores) > most:  # ZPOPMAX: the highest score, its ties by the last id
            worst = max(found.scores, key=lambda t: (found.scores[t], t))
            del found.scores[worst], found.rows[worst]
            if worst == taker:
                return Taken.OUTSIDE
        return Taken.PLACED

    async def standing(self, challenge_id: str) -> list[bytes]:
        found = self._live(challenge_id)
        if found is None:
            return []
        order = sorted(found.scores, key=lambda t: (found.scores[t], t))
        return [found.rows[t] for t in order]

    async def spend(self, who: str, window_ms: int) -> int:
        now = self.clock.now_ms()
        count, until = self.backend.challenges_made.get(who, (0, 0))
        if until <= now:
            count, until = 0, now + window_ms
        self.backend.challenges_made[who] = (count + 1, until)
        return count + 1
