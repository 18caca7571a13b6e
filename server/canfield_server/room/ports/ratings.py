"""Ratings per identity and draw mode, their histories and the ladders."""

from __future__ import annotations

from typing import Protocol

import msgspec

__all__ = [
    "StoredRating",
    "RatingPoint",
    "RatingChange",
    "LadderRow",
    "RatingStore",
]


class StoredRating(msgspec.Struct, frozen=True, kw_only=True):
    """One identity's rating in one draw mode as stored (``room.ratings.Rating``
    plus the name it last raced under, which the ladder shows)."""

    mu: float
    sigma: float
    races: int
    name: str


class RatingPoint(msgspec.Struct, frozen=True, kw_only=True):
    """One public race in an identity's rating history (newest first when read)."""

    #: server ms when the race was rated
    at: int
    #: the cautious rating after the race (``ratings.shown``), its uncertainty, and
    #: the change of the estimate (of the cautious number, in points stored before)
    rating: int
    deviation: int
    change: int
    rank: int
    players: int
    #: the estimate after the race (``ratings.estimate``; None in points stored before)
    estimate: int | None = None


class RatingChange(msgspec.Struct, frozen=True, array_like=True):
    """What one rated race changed in one identity's rating: the mean's and the
    uncertainty's deltas (new minus old)."""

    mu: float
    sigma: float


class LadderRow(msgspec.Struct, frozen=True, kw_only=True):
    """A ladder row: the name, the cautious rating (its order) and its uncertainty,
    rated races, and the estimate shown (None in rows stored before)."""

    name: str
    rating: int
    deviation: int
    races: int
    estimate: int | None = None


class RatingStore(Protocol):
    """Ratings per identity (its token's hash) and draw mode, their histories,
    and the ladder of each draw mode (ordered by the shown rating)."""

    async def ratings(self, draw: int, identities: list[str]) -> dict[str, StoredRating]:
        """The stored ratings of those who have one, read together."""
        ...

    async def save_ratings(
        self, draw: int, saved: list[tuple[str, StoredRating, RatingPoint, LadderRow | None]]
    ) -> None:
        """Each identity's new rating, its history point (at the head; the oldest
        beyond the kept number go) and its ladder row (None: not on the ladder)."""
        ...

    async def claim_race(self, code: str, race_no: int) -> bool:
        """True for the first caller only, per race (room and race number): whoever
        gets it stores that race's ratings, so no race is rated twice."""
        ...

    async def ladder(self, draw: int, limit: int) -> list[LadderRow]:
        """The first ``limit`` ladder rows, best first."""
        ...

    async def ladder_of(self, draw: int, limit: int) -> list[tuple[str, LadderRow]]:
        """The same with each row's identity (token hash)."""
        ...

    async def rating_history(self, identity: str, draw: int, limit: int) -> list[RatingPoint]: ...

    async def pairs_rated(self, day: str, pairs: list[str]) -> dict[str, int]:
        """How many public races each pair (``rating_races.pair_key``) was rated
        together on the UTC ``day`` (pairs never rated that day: absent)."""
        ...

    async def note_pairs(self, day: str, pairs: list[str]) -> None:
        """Each pair was rated together once more on ``day`` (kept two days)."""
        ...

    async def opponents(self, draw: int, met: dict[str, list[str]]) -> dict[str, int]:
        """How many distinct identities each identity of ``met`` has been rated
        against in draw mode ``draw``, counting the ones listed for it."""
        ...

    async def note_opponents(self, draw: int, met: dict[str, list[str]]) -> None:
        """Each identity of ``met`` was rated against the identities listed for it
        (kept as long as its rating)."""
        ...

    async def save_race_changes(
        self, code: str, race_no: int, draw: int, changes: dict[str, RatingChange]
    ) -> None:
        """What a rated race changed for each of its rated identities (kept as
        long as histories), so a confirmed foul can give it back."""
        ...

    async def race_changes(self, code: str, race_no: int) -> tuple[int, dict[str, RatingChange]]:
        """(draw, identity -> change) of a rated race; (0, {}) if none is kept."""
        ...
