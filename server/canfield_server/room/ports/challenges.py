"""Challenge links: a racer's run others race as a ghost, and its standing."""

from __future__ import annotations

from enum import IntEnum
from typing import Protocol

__all__ = ["ChallengeStore", "Taken"]


class Taken(IntEnum):
    """What ``ChallengeStore.record`` did with a taker's result."""

    #: no such challenge (unknown, or expired): nothing stored
    GONE = -1
    #: the taker's earlier result there is as good or better: it stays
    KEPT = 0
    #: placed in the standing (a taker's first, or better than their last)
    PLACED = 1
    #: the standing is full and this result is its worst: not kept
    OUTSIDE = 2


class ChallengeStore(Protocol):
    """Challenges by id, each living until it expires, with a standing of at most
    ``most`` takers (one row each, their best, ordered by a score: lower is
    better, the ties by taker id) that expires with it; and the counts that
    bound how many challenges one identity or network makes."""

    async def create(self, challenge_id: str, body: bytes, ttl_ms: int) -> None:
        """Store a new challenge, gone after ``ttl_ms``."""
        ...

    async def load(self, challenge_id: str) -> bytes | None:
        """The challenge's body; None once unknown or expired."""
        ...

    async def record(
        self, challenge_id: str, taker: str, row: bytes, score: float, most: int
    ) -> Taken:
        """A taker's result, in one atomic step: their row and score kept unless
        their earlier one scores as well (``KEPT``); past ``most`` takers the worst
        row goes (``OUTSIDE`` when it is this one)."""
        ...

    async def standing(self, challenge_id: str) -> list[bytes]:
        """The kept rows, best first."""
        ...

    async def spend(self, who: str, window_ms: int) -> int:
        """Count one challenge made by ``who`` (an identity or a network) in its
        current window of ``window_ms``; the count so far, this one included."""
        ...
