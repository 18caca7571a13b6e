"""Where public races gather: the match queue shared by every process."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from typing import NamedTuple, Protocol

__all__ = [
    "Band",
    "RaceSearch",
    "MatchQueue",
    "Waiting",
]


class Band(NamedTuple):
    """How far apart in rating a gathering public race takes racers: ``points``
    either side of its first racer's rating at first, ``widen_points`` more for
    every ``widen_ms`` it has waited, at most ``most_points``."""

    points: int
    widen_points: int
    widen_ms: int
    most_points: int

    def width(self, waited_ms: int) -> int:
        steps = max(0, waited_ms) // max(1, self.widen_ms)
        return min(self.points + self.widen_points * steps, self.most_points)


@dataclass(frozen=True, slots=True)
class RaceSearch:
    """One look for a public race to join (``MatchQueue.find_race``): in ``pool``,
    for a racer rated ``rating``, at ``now_ms``, with the queue's ``band``."""

    pool: str
    rating: int
    now_ms: int
    band: Band
    _: KW_ONLY
    #: a race open longer than this is forgotten (its room is gone)
    ttl_s: int
    #: a new race's code, opened when none is found ("": none)
    offer: str = ""
    #: the race the racer waits alone in, looking again as the bands widen ("": none)
    mine: str = ""


class Waiting(NamedTuple):
    """A lone racer's look at their pool (``MatchQueue.still_waiting``): what
    their waiting screen says, counts only."""

    #: racers waiting alone for a race in the pool now, this one included
    racers: int
    #: ms their race opened (its band widens from then); None: it is not in the pool
    opened_ms: int | None


class MatchQueue(Protocol):
    """Where public races gather, shared by every process (``room/quick.py``):
    the open races of each pool (a draw mode), each centred on its first
    racer's rating, and the public races in progress."""

    async def find_race(self, search: RaceSearch) -> str | None:
        """The gathering race of ``search.pool`` whose band (widened by its wait so far)
        holds ``search.rating``, the closest in rating first (then the longest waiting).
        None found: ``offer`` (a new race's code; empty: none) becomes one of the
        pool's races, centred on ``rating``, and is returned. A race open longer
        than ``ttl_s`` (its room is gone) is forgotten.
        ``mine``: the race a racer waits alone in, looking again as the bands
        widen. It is never the answer: when another race is found it leaves the
        pool (the racer moves there), else it stays, or comes back, centred on
        ``rating`` and keeping the time it opened, and is returned.
        One atomic step: two processes never both open a race for close racers."""
        ...

    async def close_race(self, pool: str, code: str) -> None:
        """``code`` takes nobody more: the pool forgets it."""
        ...

    async def reopen_race(self, pool: str, code: str, rating: int, now_ms: int, ttl_s: int) -> None:
        """``code`` gathers again, centred on ``rating`` (its racer found another race
        as someone joined theirs, and stays): back in the pool, waiting from now."""
        ...

    async def still_waiting(
        self, pool: str, seat: str, code: str, now_ms: int, until_ms: int
    ) -> Waiting:
        """``seat`` waits alone in race ``code`` of ``pool``, counted as searching
        until ``until_ms`` unless told again (so a process that dies stops counting
        it); how many wait there now (past their ``until``: not counted), and when
        ``code`` opened."""
        ...

    async def stopped_waiting(self, pool: str, seats: Sequence[str]) -> None:
        """``seats`` wait no more (company came, they moved or left): not counted."""
        ...

    async def live_add(self, code: str, started_at: int) -> None: ...

    async def live(self, limit: int) -> list[str]:
        """Public races in progress (or just over), newest first."""
        ...

    async def live_drop(self, code: str) -> None: ...

    async def keep_past(self, pool: str, entry: str, rating: int, keep: int) -> None:
        """A finished public race's racer (``entry``: what a ghost offer needs, as
        text) kept by their rating then; only the ``keep`` newest stay."""
        ...

    async def past_near(self, pool: str, rating: int, most: int) -> list[str]:
        """Up to ``most`` kept racers, the rating closest to ``rating`` first (a
        tie: the lower entry first); none kept: empty."""
        ...
